// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the kernel offers the probes, asked without loading them: each tracepoint in kernel
 * BTF (tp_btf can attach) and in tracefs (raw_tp can), the optional arguments the programs
 * read, and a two-instruction program of each hook type loaded and attached for real, then
 * removed (include/rtltune/probes.h probes_support(), probes_try_hook()). lib/probes/probes.c plans
 * its loading from the same lookups.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <glob.h>
#include <linux/bpf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes_priv.h"

enum tracefs_answer tracefs_has(const char *tp, char *format, size_t format_len)
{
	static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	enum tracefs_answer ans = TRACEFS_UNKNOWN;
	char pattern[256];
	unsigned int i;
	glob_t g;

	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(pattern, sizeof(pattern), "%s/events", roots[i]);
		if (access(pattern, R_OK) != 0)
			continue;
		ans = TRACEFS_ABSENT;
		snprintf(pattern, sizeof(pattern), "%s/events/*/%s/format", roots[i], tp);
		if (glob(pattern, 0, NULL, &g) == 0) {
			if (format)
				snprintf(format, format_len, "%s", g.gl_pathv[0]);
			globfree(&g);
			return TRACEFS_PRESENT;
		}
	}
	return ans;
}

/* btf_trace_X is a pointer to a prototype whose first parameter is the tracepoint's
 * private data. */
int btf_tp_args(const struct btf *btf, const char *tp)
{
	const struct btf_type *t;
	char name[128];
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, (__u32)id);
	while (t && (btf_is_typedef(t) || btf_is_ptr(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return -1;
	return (int)btf_vlen(t) - 1;
}

/* Does the tracefs event format list field `field`? Used when BTF cannot tell. */
static bool tracefs_format_has(const char *format, const char *field)
{
	char line[256], want[64];
	bool found = false;
	FILE *f;

	f = fopen(format, "re");
	if (!f)
		return false;
	snprintf(want, sizeof(want), " %s;", field);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, want) != NULL;
	fclose(f);
	return found;
}

bool tp_has_third_arg(const struct btf *btf, const char *tp, const char *field)
{
	char format[256];
	int n = btf ? btf_tp_args(btf, tp) : -1;

	if (n >= 0)
		return n >= 3;
	if (tracefs_has(tp, format, sizeof(format)) == TRACEFS_PRESENT)
		return tracefs_format_has(format, field);
	return false;
}

/* lib/ never prints: libbpf's warnings (a missing vmlinux BTF) are dropped while asking. */
static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/* The third argument a program reads where the kernel passes it (probes.h). */
static const char *optional_arg(enum probe_id id)
{
	switch (id) {
	case PROBE_KFREE_SKB:
		return "reason";
	case PROBE_TCP_RETRANSMIT_SKB:
		return "err";
	default:
		return NULL;
	}
}

int probes_support(struct probe_support out[PROBE_COUNT], struct rterr *err)
{
	libbpf_print_fn_t prev = libbpf_set_print(silent);
	struct btf *btf;
	unsigned int i;
	int r = 0;

	btf = btf__load_vmlinux_btf();
	libbpf_set_print(prev);
	if (!btf)
		r = rterr_sys(err, errno,
			      "no kernel BTF (/sys/kernel/btf/vmlinux): CO-RE probes need a kernel "
			      "built with CONFIG_DEBUG_INFO_BTF");
	for (i = 0; i < PROBE_COUNT; i++) {
		struct probe_support *s = &out[i];
		enum tracefs_answer tf;

		memset(s, 0, sizeof(*s));
		s->name = probe_tracepoint((enum probe_id)i);
		s->rtltuned = !(PROBES_DAEMON_OFF & (1u << i)) && i != PROBE_XDP;
		s->arg = optional_arg((enum probe_id)i);
		if (i == PROBE_XDP)
			continue; /* a program type, not a tracepoint: probes_try_hook() has no say
				   */
		s->btf = btf && btf_tp_args(btf, s->name) >= 0;
		tf = tracefs_has(s->name, NULL, 0);
		s->tracefs = tf == TRACEFS_PRESENT ? 1 : tf == TRACEFS_ABSENT ? 0 : -1;
		s->has_arg = s->arg && tp_has_third_arg(btf, s->name, s->arg);
	}
	btf__free(btf);
	return r;
}

/* r0 = 0; exit: a program that does nothing, the smallest the verifier accepts. */
static const struct bpf_insn noop_prog[] = {
	{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
	{.code = BPF_JMP | BPF_EXIT},
};

/* The verifier's last words, for a refusal other than a missing privilege. */
static void log_tail(const char *log, char *out, size_t len)
{
	const char *end = log + strlen(log), *start;

	while (end > log && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	for (start = end; start > log && start[-1] != '\n'; start--)
		;
	snprintf(out, len, "%.*s", (int)(end - start), start);
}

int probes_try_hook(enum probe_hook hook, const char *tp, struct rterr *err)
{
	const char *type = probe_hook_name(hook);
	char log[4096] = "", last[160];
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log, .log_size = sizeof(log),
		    .log_level = 0);
	int fd, link, id, e;
	struct btf *btf;

	if (hook == PROBE_HOOK_TP_BTF) {
		libbpf_print_fn_t prev = libbpf_set_print(silent);

		btf = btf__load_vmlinux_btf();
		libbpf_set_print(prev);
		if (!btf)
			return rterr_sys(err, errno, "tp_btf on %s: no kernel BTF", tp);
		snprintf(last, sizeof(last), "btf_trace_%s", tp);
		id = btf__find_by_name_kind(btf, last, BTF_KIND_TYPEDEF);
		btf__free(btf);
		if (id < 0)
			return rterr_sys(err, ENOENT, "tp_btf on %s: no %s in kernel BTF", tp,
					 last);
		opts.expected_attach_type = BPF_TRACE_RAW_TP;
		opts.attach_btf_id = (__u32)id;
		fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "rtl_doctor", "GPL", noop_prog, 2, &opts);
	} else if (hook == PROBE_HOOK_RAW_TP) {
		fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "rtl_doctor", "GPL", noop_prog, 2,
				   &opts);
	} else {
		return rterr_input(err, "%s: not a tracepoint hook", type);
	}
	if (fd < 0) {
		e = errno;
		log_tail(log, last, sizeof(last));
		return rterr_sys(err, e, "%s on %s: loading a no-op program%s%s%s", type, tp,
				 last[0] ? " (verifier: " : "", last, last[0] ? ")" : "");
	}
	link = bpf_raw_tracepoint_open(hook == PROBE_HOOK_TP_BTF ? NULL : tp, fd);
	e = errno;
	close(fd);
	if (link < 0)
		return rterr_sys(err, e, "%s on %s: attaching a no-op program", type, tp);
	close(link);
	return 0;
}
