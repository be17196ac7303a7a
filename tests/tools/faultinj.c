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
 * No pins and no background process (tests/tools/tcprog.h, shared with chipmodel): the tc
 * filter holds the program and the program its maps, so the injector stays attached after
 * this tool exits; later commands find it again by its handle, priority and name.
 *
 * Exit: 0 ok, 2 usage, 3 the system refused (message says what and the errno text).
 */
#include <errno.h>
#include <getopt.h>
#include <linux/types.h>
#include <net/if.h>
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
#define TOOL_NAME "faultinj"
#include "tcprog.h"

/* Our filter on the egress hook: fixed, so any later run finds exactly it. */
#define FI_HANDLE   0xfa17
#define FI_PRIORITY 0xfa17

static const char *const fi_maps[] = {FAULTINJ_CFG_NAME, FAULTINJ_STATS_NAME};
enum { MAP_CFG, MAP_STATS };

static const struct tcprog_tool injector = {
	.hook = {.point = BPF_TC_EGRESS,
		 .handle = FI_HANDLE,
		 .priority = FI_PRIORITY,
		 .prog_name = FAULTINJ_PROG_NAME},
	.what = "injector",
	.maps = fi_maps,
	.n_maps = 2,
	.verbose_env = "FAULTINJ_VERBOSE",
};

static int usage(void)
{
	fprintf(stderr,
		"usage: %s attach IFACE [--fraction F] [--min-len BYTES] [--all-skbs]\n"
		"       %s set IFACE [--fraction F] [--min-len BYTES] [--all-skbs|--gso-only] "
		"[--off|--on]\n"
		"       %s stats IFACE\n"
		"       %s detach IFACE\n",
		TOOL_NAME, TOOL_NAME, TOOL_NAME, TOOL_NAME);
	return 2;
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
		cfg->threshold = tcprog_threshold(o->fraction);
	if (o->have_min_len)
		cfg->min_len = (__u32)o->min_len;
	if (o->gso_only >= 0)
		cfg->gso_only = (__u32)o->gso_only;
	if (o->enabled >= 0)
		cfg->enabled = (__u32)o->enabled;
}

static int cmd_attach(const char *ifname, int ifindex, const struct opts *o)
{
	/* Defaults: 5% of GSO skbs above 16 KiB. */
	struct faultinj_cfg cfg = {
		.enabled = 1,
		.min_len = 16384,
		.gso_only = 1,
		.threshold = tcprog_threshold(0.05),
	};
	struct fault_inject *skel;
	__u32 prog_id = 0;
	int r;

	cfg_from_opts(o, &cfg);
	skel = fault_inject__open_and_load();
	if (!skel)
		return fail(3, "load %s: %s", FAULTINJ_PROG_NAME, strerror(errno));
	r = tcprog_cmd_attach(&injector, ifname, ifindex, bpf_map__fd(skel->maps.rtl_fi_cfg), &cfg,
			      bpf_program__fd(skel->progs.rtl_faultinj), &prog_id);
	if (r == 0)
		printf("attached %s ifindex %d prog_id %u fraction %.6f min_len %u gso_only %u\n",
		       ifname, ifindex, prog_id, tcprog_fraction(cfg.threshold), cfg.min_len,
		       cfg.gso_only);
	fault_inject__destroy(skel);
	return r;
}

static int cmd_set(const char *ifname, int ifindex, const struct opts *o)
{
	struct faultinj_cfg cfg;
	struct tcprog_found f;
	__u32 zero = 0;
	int r;

	r = tcprog_cmd_find(&injector, ifname, ifindex, &f);
	if (r)
		return r;
	r = bpf_map_lookup_elem(f.map_fd[MAP_CFG], &zero, &cfg);
	if (r == 0) {
		cfg_from_opts(o, &cfg);
		r = bpf_map_update_elem(f.map_fd[MAP_CFG], &zero, &cfg, BPF_ANY);
	}
	tcprog_found_close(&f);
	if (r < 0)
		return fail(3, "%s: configure: %s", ifname, strerror(errno));
	printf("set %s fraction %.6f min_len %u gso_only %u enabled %u\n", ifname,
	       tcprog_fraction(cfg.threshold), cfg.min_len, cfg.gso_only, cfg.enabled);
	return 0;
}

static int cmd_stats(const char *ifname, int ifindex)
{
	struct faultinj_stats sum = {0}, *percpu;
	struct faultinj_cfg cfg = {0};
	struct tcprog_found f;
	int ncpu, i, r;

	percpu = tcprog_cmd_read(&injector, ifname, ifindex, &f, &cfg, sizeof(*percpu), &ncpu, &r);
	if (!percpu)
		return r;
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
	       ifname, ifindex, f.prog_id, cfg.enabled, tcprog_fraction(cfg.threshold), cfg.min_len,
	       cfg.gso_only, (unsigned long long)sum.seen, (unsigned long long)sum.gso,
	       (unsigned long long)sum.eligible, (unsigned long long)sum.dropped,
	       (unsigned long long)sum.dropped_segs, (unsigned long long)sum.dropped_bytes);
	free(percpu);
	tcprog_found_close(&f);
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
	tcprog_quiet_libbpf(&injector);
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
		return tcprog_cmd_detach(&injector, ifname, (int)ifindex);
	return usage();
}
