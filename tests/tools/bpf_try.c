// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_try: does this system let a process load and attach the kind of BPF program the
 * probes are? For scripts/preflight.sh, which must judge the system, never the product:
 * a broken `rtltune trace` is a failing test, not a system that refuses BPF.
 *
 *   bpf_try [TRACEPOINT]     default net_dev_start_xmit, the first of the probes' hooks
 *
 * The program is the smallest one that asks what the probes ask: a tracing program on a
 * network tracepoint that reads kernel memory (bpf_probe_read_kernel, which lockdown's
 * confidentiality mode takes away). As the probes' loader does (lib/probes/probes.c), tp_btf
 * first (BTF-typed, needs btf_trace_<tp> in the kernel's BTF), raw_tp when that is
 * refused. Loaded, attached, detached; nothing stays behind.
 *
 * Exit 0: attached; prints the hook that worked ("tp_btf" or "raw_tp"). Exit 1: refused;
 * one line on stderr saying what each hook's attempt was refused with, in the kernel's
 * words (errno text, the verifier's last line). Exit 2: usage.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * r1 = r10 - 8; r2 = 8; r3 = 0; call bpf_probe_read_kernel; r0 = 0; exit. Reading from
 * address 0 fails at run time with -EFAULT, harmlessly: what is tried is that the kernel
 * accepts the call.
 */
static const struct bpf_insn prog[] = {
	{.code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_1, .src_reg = BPF_REG_10},
	{.code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_1, .imm = -8},
	{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2, .imm = 8},
	{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3, .imm = 0},
	{.code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_probe_read_kernel},
	{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
	{.code = BPF_JMP | BPF_EXIT},
};
#define PROG_LEN (sizeof(prog) / sizeof(prog[0]))

static char verifier_log[4096];

/* The last non-empty line of the verifier's log, "" when it said nothing. */
static const char *verifier_said(void)
{
	char *end = verifier_log + strlen(verifier_log), *start;

	while (end > verifier_log && end[-1] == '\n')
		*--end = '\0';
	start = strrchr(verifier_log, '\n');
	return start ? start + 1 : verifier_log;
}

static int refused(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refused(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* Load with the verifier's log kept; the load's errno text, and the log's verdict if any. */
static int load(enum bpf_prog_type type, struct bpf_prog_load_opts *opts, char *why, size_t len)
{
	int fd, e;

	verifier_log[0] = '\0';
	opts->log_buf = verifier_log;
	opts->log_size = sizeof(verifier_log);
	opts->log_level = 1;
	fd = bpf_prog_load(type, NULL, "GPL", prog, PROG_LEN, opts);
	if (fd >= 0)
		return fd;
	e = errno;
	if (*verifier_said())
		return refused(why, len, "load: %s (verifier: %s)", strerror(e), verifier_said());
	return refused(why, len, "load: %s", strerror(e));
}

/* tp_btf: a BPF_PROG_TYPE_TRACING program typed by the tracepoint's btf_trace_<tp>. */
static int try_tp_btf(const char *tp, char *why, size_t len)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_RAW_TP);
	int id, fd, link;

	id = libbpf_find_vmlinux_btf_id(tp, BPF_TRACE_RAW_TP);
	if (id < 0)
		return refused(why, len, "no btf_trace_%s in the kernel's BTF: %s", tp,
			       strerror(-id));
	opts.attach_btf_id = (__u32)id;
	fd = load(BPF_PROG_TYPE_TRACING, &opts, why, len);
	if (fd < 0)
		return -1;
	link = bpf_raw_tracepoint_open(NULL, fd);
	if (link < 0) {
		refused(why, len, "attach: %s", strerror(errno));
		close(fd);
		return -1;
	}
	close(link);
	close(fd);
	return 0;
}

/* raw_tp: a BPF_PROG_TYPE_RAW_TRACEPOINT program attached by the tracepoint's name. */
static int try_raw_tp(const char *tp, char *why, size_t len)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts);
	int fd, link;

	fd = load(BPF_PROG_TYPE_RAW_TRACEPOINT, &opts, why, len);
	if (fd < 0)
		return -1;
	link = bpf_raw_tracepoint_open(tp, fd);
	if (link < 0) {
		refused(why, len, "attach: %s", strerror(errno));
		close(fd);
		return -1;
	}
	close(link);
	close(fd);
	return 0;
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

int main(int argc, char **argv)
{
	const char *tp = argc > 1 ? argv[1] : "net_dev_start_xmit";
	char btf_why[512], raw_why[512];

	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: bpf_try [TRACEPOINT]\n");
		return 2;
	}
	/* libbpf's own warnings would only repeat, on stderr, what is reported below. */
	libbpf_set_print(quiet);
	if (try_tp_btf(tp, btf_why, sizeof(btf_why)) == 0) {
		printf("tp_btf\n");
		return 0;
	}
	if (try_raw_tp(tp, raw_why, sizeof(raw_why)) == 0) {
		printf("raw_tp\n");
		return 0;
	}
	fprintf(stderr, "a tracing program on %s: tp_btf %s; raw_tp %s\n", tp, btf_why, raw_why);
	return 1;
}
