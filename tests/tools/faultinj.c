// SPDX-License-Identifier: GPL-2.0-only
/*
 * faultinj: attach the test fault injector (bpf/fault_inject.bpf.c) to an interface's tc
 * egress hook in the current network namespace, configure it, read its counts, detach it.
 *
 *	faultinj attach IFACE [--fraction F] [--min-len BYTES] [--all-skbs]
 *	faultinj set IFACE [--fraction F] [--min-len BYTES] [--all-skbs|--gso-only] [--off|--on]
 *	faultinj stats IFACE
 *	faultinj detach IFACE
 *
 * No pins and no background process: a tc filter holds its program, and the program holds
 * its maps, so the injector stays attached after this tool exits and goes away with the
 * filter (detach) or with the interface (a test's namespace being deleted). The later
 * commands find it again on the hook by its handle and priority and reach the maps through
 * the program's map ids. (/sys/fs/bpf would not do: `ip netns exec` mounts a fresh sysfs,
 * hiding any bpffs mounted below it.) The clsact qdisc is left in place on detach: other
 * filters may share it, and an empty one costs nothing.
 *
 * Exit: 0 ok, 2 usage, 3 the system refused (message says what and the errno text).
 */
#include <errno.h>
#include <getopt.h>
#include <linux/types.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../bpf/fault_inject.h"
#include "fault_inject.skel.h"

/* Our filter on the egress hook: fixed, so any later run finds exactly it. */
#define FI_HANDLE   0xfa17
#define FI_PRIORITY 0xfa17

static const char *prog = "faultinj";

static int fail(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: %s attach IFACE [--fraction F] [--min-len BYTES] [--all-skbs]\n"
		"       %s set IFACE [--fraction F] [--min-len BYTES] [--all-skbs|--gso-only] "
		"[--off|--on]\n"
		"       %s stats IFACE\n"
		"       %s detach IFACE\n",
		prog, prog, prog, prog);
	return 2;
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!getenv("FAULTINJ_VERBOSE"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

struct found {
	int prog_fd, cfg_fd, stats_fd;
	__u32 prog_id;
};

static void found_close(struct found *f)
{
	if (f->prog_fd >= 0)
		close(f->prog_fd);
	if (f->cfg_fd >= 0)
		close(f->cfg_fd);
	if (f->stats_fd >= 0)
		close(f->stats_fd);
}

/* Our program on ifindex's egress hook and its two maps; -ENOENT when not attached. */
static int find_attached(int ifindex, struct found *f)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = FI_HANDLE, .priority = FI_PRIORITY);
	struct bpf_prog_info info = {0};
	__u32 ids[16], len = sizeof(info), i;
	int r;

	f->prog_fd = f->cfg_fd = f->stats_fd = -1;
	r = bpf_tc_query(&hook, &opts);
	if (r < 0)
		return r == -ENOENT || r == -EINVAL ? -ENOENT : r;
	f->prog_id = opts.prog_id;
	f->prog_fd = bpf_prog_get_fd_by_id(opts.prog_id);
	if (f->prog_fd < 0)
		return -errno;
	info.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	info.map_ids = (__u64)(uintptr_t)ids;
	r = bpf_obj_get_info_by_fd(f->prog_fd, &info, &len);
	if (r < 0)
		return -errno;
	if (strcmp(info.name, FAULTINJ_PROG_NAME) != 0)
		return -ENOENT; /* someone else's filter at our handle: not ours to touch */
	for (i = 0; i < info.nr_map_ids && i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct bpf_map_info mi = {0};
		__u32 mlen = sizeof(mi);
		int fd = bpf_map_get_fd_by_id(ids[i]);

		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &mi, &mlen) == 0) {
			if (strcmp(mi.name, FAULTINJ_CFG_NAME) == 0 && f->cfg_fd < 0) {
				f->cfg_fd = fd;
				continue;
			}
			if (strcmp(mi.name, FAULTINJ_STATS_NAME) == 0 && f->stats_fd < 0) {
				f->stats_fd = fd;
				continue;
			}
		}
		close(fd);
	}
	return f->cfg_fd >= 0 && f->stats_fd >= 0 ? 0 : -ENOENT;
}

struct opts {
	double fraction;
	long min_len;
	bool have_fraction, have_min_len;
	int gso_only; /* -1 not given: set changes only what is given */
	int enabled;  /* -1 not given */
};

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{"fraction", required_argument, NULL, 'f'},
		{"min-len", required_argument, NULL, 'm'},
		{"all-skbs", no_argument, NULL, 'a'},
		{"gso-only", no_argument, NULL, 'g'},
		{"off", no_argument, NULL, 'o'},
		{"on", no_argument, NULL, 'O'},
		{0},
	};
	char *end;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			errno = 0;
			o->fraction = strtod(optarg, &end);
			if (errno || *end || end == optarg ||
			    !(o->fraction >= 0 && o->fraction <= 1))
				return fail(2,
					    "--fraction: expected a number from 0 to 1, got '%s'",
					    optarg);
			o->have_fraction = true;
			break;
		case 'm':
			errno = 0;
			o->min_len = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || o->min_len < 0 ||
			    o->min_len > UINT32_MAX)
				return fail(2, "--min-len: expected bytes from 0 to %u, got '%s'",
					    UINT32_MAX, optarg);
			o->have_min_len = true;
			break;
		case 'a':
		case 'g':
			o->gso_only = c == 'g';
			break;
		case 'o':
		case 'O':
			o->enabled = c == 'O';
			break;
		default:
			return usage();
		}
	}
	return optind == argc ? 0 : usage();
}

static void cfg_from_opts(const struct opts *o, struct faultinj_cfg *cfg)
{
	if (o->have_fraction)
		cfg->threshold = (__u64)(o->fraction * 4294967296.0);
	if (o->have_min_len)
		cfg->min_len = (__u32)o->min_len;
	if (o->gso_only >= 0)
		cfg->gso_only = (__u32)o->gso_only;
	if (o->enabled >= 0)
		cfg->enabled = (__u32)o->enabled;
}

static int cmd_attach(const char *ifname, int ifindex, const struct opts *o)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = FI_HANDLE, .priority = FI_PRIORITY,
			    .flags = BPF_TC_F_REPLACE);
	/* Defaults: 5% of GSO skbs above 16 KiB. */
	struct faultinj_cfg cfg = {.enabled = 1,
				   .min_len = 16384,
				   .gso_only = 1,
				   .threshold = (__u64)(0.05 * 4294967296.0)};
	struct fault_inject *skel;
	__u32 zero = 0;
	int r;

	cfg_from_opts(o, &cfg);
	skel = fault_inject__open_and_load();
	if (!skel)
		return fail(3, "load %s: %s", FAULTINJ_PROG_NAME, strerror(errno));
	/* Configured before it sees a packet. */
	r = bpf_map_update_elem(bpf_map__fd(skel->maps.rtl_fi_cfg), &zero, &cfg, BPF_ANY);
	if (r < 0) {
		r = fail(3, "configure: %s", strerror(errno));
		goto out;
	}
	r = bpf_tc_hook_create(&hook);
	if (r < 0 && r != -EEXIST) {
		r = fail(3, "%s: create clsact qdisc: %s", ifname, strerror(-r));
		goto out;
	}
	opts.prog_fd = bpf_program__fd(skel->progs.rtl_faultinj);
	r = bpf_tc_attach(&hook, &opts);
	if (r < 0) {
		r = fail(3, "%s: attach to tc egress: %s", ifname, strerror(-r));
		goto out;
	}
	printf("attached %s ifindex %d prog_id %u fraction %.6f min_len %u gso_only %u\n", ifname,
	       ifindex, opts.prog_id, (double)cfg.threshold / 4294967296.0, cfg.min_len,
	       cfg.gso_only);
	r = 0;
out:
	/* The filter keeps the program (and its maps) alive after this. */
	fault_inject__destroy(skel);
	return r;
}

static int cmd_set(const char *ifname, int ifindex, const struct opts *o)
{
	struct faultinj_cfg cfg;
	struct found f;
	__u32 zero = 0;
	int r;

	r = find_attached(ifindex, &f);
	if (r < 0) {
		found_close(&f);
		return fail(3, "%s: injector not attached: %s", ifname, strerror(-r));
	}
	r = bpf_map_lookup_elem(f.cfg_fd, &zero, &cfg);
	if (r == 0) {
		cfg_from_opts(o, &cfg);
		r = bpf_map_update_elem(f.cfg_fd, &zero, &cfg, BPF_ANY);
	}
	found_close(&f);
	if (r < 0)
		return fail(3, "%s: configure: %s", ifname, strerror(errno));
	printf("set %s fraction %.6f min_len %u gso_only %u enabled %u\n", ifname,
	       (double)cfg.threshold / 4294967296.0, cfg.min_len, cfg.gso_only, cfg.enabled);
	return 0;
}

static int cmd_stats(const char *ifname, int ifindex)
{
	struct faultinj_stats sum = {0}, *percpu;
	struct faultinj_cfg cfg = {0};
	int ncpu = libbpf_num_possible_cpus(), i, r;
	struct found f;
	__u32 zero = 0;

	if (ncpu <= 0)
		return fail(3, "possible CPUs: %s", strerror(-ncpu));
	r = find_attached(ifindex, &f);
	if (r < 0) {
		found_close(&f);
		return fail(3, "%s: injector not attached: %s", ifname, strerror(-r));
	}
	percpu = calloc((size_t)ncpu, sizeof(*percpu));
	if (!percpu) {
		found_close(&f);
		return fail(3, "out of memory");
	}
	r = bpf_map_lookup_elem(f.cfg_fd, &zero, &cfg);
	if (r == 0)
		r = bpf_map_lookup_elem(f.stats_fd, &zero, percpu);
	if (r < 0) {
		r = fail(3, "%s: read maps: %s", ifname, strerror(errno));
		goto out;
	}
	for (i = 0; i < ncpu; i++) {
		sum.seen += percpu[i].seen;
		sum.gso += percpu[i].gso;
		sum.eligible += percpu[i].eligible;
		sum.dropped += percpu[i].dropped;
		sum.dropped_segs += percpu[i].dropped_segs;
		sum.dropped_bytes += percpu[i].dropped_bytes;
	}
	/* One "key value" per line: trivially read by shell tests. */
	printf("ifname %s\nifindex %d\nprog_id %u\nenabled %u\nfraction %.6f\nmin_len %u\n"
	       "gso_only %u\nseen %llu\ngso %llu\neligible %llu\ndropped %llu\n"
	       "dropped_segs %llu\ndropped_bytes %llu\n",
	       ifname, ifindex, f.prog_id, cfg.enabled, (double)cfg.threshold / 4294967296.0,
	       cfg.min_len, cfg.gso_only, (unsigned long long)sum.seen, (unsigned long long)sum.gso,
	       (unsigned long long)sum.eligible, (unsigned long long)sum.dropped,
	       (unsigned long long)sum.dropped_segs, (unsigned long long)sum.dropped_bytes);
	r = 0;
out:
	free(percpu);
	found_close(&f);
	return r;
}

static int cmd_detach(const char *ifname, int ifindex)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = FI_HANDLE, .priority = FI_PRIORITY);
	struct found f;
	int r;

	/* Only our own program: never remove a filter someone else put at this handle. */
	r = find_attached(ifindex, &f);
	found_close(&f);
	if (r < 0)
		return fail(3, "%s: injector not attached: %s", ifname, strerror(-r));
	r = bpf_tc_detach(&hook, &opts);
	if (r < 0)
		return fail(3, "%s: detach: %s", ifname, strerror(-r));
	printf("detached %s\n", ifname);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = {.gso_only = -1, .enabled = -1};
	const char *cmd, *ifname;
	unsigned int ifindex;
	int r;

	if (argc < 3)
		return usage();
	cmd = argv[1];
	ifname = argv[2];
	r = parse_opts(argc - 2, argv + 2, &o);
	if (r)
		return r;
	libbpf_set_print(libbpf_quiet);
	ifindex = if_nametoindex(ifname);
	if (!ifindex)
		return fail(2, "no such interface: %s", ifname);
	if (strcmp(cmd, "attach") == 0)
		return cmd_attach(ifname, (int)ifindex, &o);
	if (strcmp(cmd, "set") == 0)
		return cmd_set(ifname, (int)ifindex, &o);
	if (strcmp(cmd, "stats") == 0 && !o.have_fraction && !o.have_min_len)
		return cmd_stats(ifname, (int)ifindex);
	if (strcmp(cmd, "detach") == 0 && !o.have_fraction && !o.have_min_len)
		return cmd_detach(ifname, (int)ifindex);
	return usage();
}
