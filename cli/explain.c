// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a refusal by the system needs (cli.h cli_explain()): from the errno, what the running
 * command needs (its CLI_NEEDS_* bits) and the capabilities this process holds, in one place
 * for every command. The kernel's own text stays first; the remedy follows it.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rtltune/hostcheck.h"

/* The effective set by capget(2), as rtltune doctor reads it (lib/host/hostcheck.c). */
static bool have_cap(enum hc_cap cap)
{
	struct hc_caps caps;
	struct rterr err;

	return hostcheck_caps(&caps, &err) == 0 && caps.have[cap];
}

/* Append "A", "A and B", "A, B and C" from list[0..n). */
static void join(char *buf, size_t len, const char *const *list, unsigned int n)
{
	unsigned int i;
	size_t off = strlen(buf);

	for (i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					!i	     ? ""
					: i + 1 == n ? " and "
						     : ", ",
					list[i]);
}

void cli_explain(const struct cli_ctx *ctx, struct rterr *err)
{
	const char *needs[4], *lacks[8], *who = ctx->cmd ? ctx->cmd->name : NULL;
	unsigned int n_needs = 0, n_lacks = 0;
	bool bpf_ok =
		have_cap(HC_CAP_SYS_ADMIN) || (have_cap(HC_CAP_BPF) && have_cap(HC_CAP_PERFMON));
	char what[512] = "", hint[768];

	if ((err->errnum != EPERM && err->errnum != EACCES) || strstr(err->msg, "root"))
		return;
	/* A file the state dir holds: a matter of who may write there, not of capabilities. */
	if ((ctx->needs & CLI_NEEDS_STATE) && strstr(err->msg, ctx->state_dir)) {
		snprintf(hint, sizeof(hint),
			 " (rtltune%s%s keeps its journal in %s: run it as root, or set "
			 "RTLTUNE_STATE_DIR to a directory you may write)",
			 who ? " " : "", who ? who : "", ctx->state_dir);
		goto out;
	}
	/* EACCES elsewhere is a file's permission, which the message's path already names. */
	if (err->errnum != EPERM)
		return;
	if (ctx->needs & CLI_NEEDS_NETNS) {
		needs[n_needs++] = "CAP_SYS_ADMIN to enter a network namespace";
		if (!have_cap(HC_CAP_SYS_ADMIN))
			lacks[n_lacks++] = "CAP_SYS_ADMIN";
	}
	if (ctx->needs & CLI_NEEDS_NET_ADMIN) {
		needs[n_needs++] = "CAP_NET_ADMIN to change interfaces";
		if (!have_cap(HC_CAP_NET_ADMIN))
			lacks[n_lacks++] = "CAP_NET_ADMIN";
	}
	if (ctx->needs & CLI_NEEDS_BPF) {
		needs[n_needs++] = "CAP_BPF and CAP_PERFMON to load its probes";
		if (!bpf_ok) {
			lacks[n_lacks++] = "CAP_BPF";
			lacks[n_lacks++] = "CAP_PERFMON";
		}
	}
	if (!n_needs)
		return;
	join(what, sizeof(what), needs, n_needs);
	if (n_lacks) {
		char missing[256] = "";

		join(missing, sizeof(missing), lacks, n_lacks);
		snprintf(hint, sizeof(hint),
			 " (rtltune%s%s needs %s; this process lacks %s: run it as root)",
			 who ? " " : "", who ? who : "", what, missing);
	} else {
		snprintf(
			hint, sizeof(hint),
			" (this process holds what rtltune%s%s needs: %s; the refusal has another "
			"cause: an LSM, kernel lockdown, or a user namespace that does not own the "
			"network namespace)",
			who ? " " : "", who ? who : "", what);
	}
out:
	if (strlen(err->msg) + strlen(hint) < sizeof(err->msg))
		strcat(err->msg, hint);
}
