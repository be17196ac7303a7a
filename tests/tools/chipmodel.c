// SPDX-License-Identifier: GPL-2.0-only
/*
 * chipmodel: attach the test chip models (bpf/chip_model.bpf.c, docs/chipmodels.md) to the
 * tc ingress hook of a test's receiving veth in the current network namespace, configure
 * them, read their counts, detach them.
 *
 *	chipmodel attach IFACE [MODEL OPTIONS]     models not named stay off
 *	chipmodel set IFACE [MODEL OPTIONS]        only what is given changes, at once
 *	chipmodel stats IFACE                      "key value" lines
 *	chipmodel detach IFACE
 *
 *	--frame-ns NS        1. CPU cost of each received wire frame (0: off)
 *	--burst-bytes B      2. DMA burst size (0: off); --burst-ns NS per burst;
 *	--burst-offset B        IP bytes outside the bursts (default 52): steps at k*B+offset
 *	--ring-frames N      3. RX ring depth in frames (0: off); --drain-ns NS per frame
 *	--tso-drop F         4. fraction of TSO super-packets lost, 0..1 (0: off)
 *	--skb-ns NS          5. CPU cost of each received skb, whatever its size (0: off)
 *	--off | --on         every model at once, keeping the sizes
 *
 * It refuses any interface that is not a veth, and to run in the initial network
 * namespace: models are for the veths of namespaces a test made.
 * Exit: 0 ok, 2 usage, 3 the system refused (message says what and the errno text).
 */
#include <errno.h>
#include <getopt.h>
#include <linux/types.h>
#include <net/if.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../bpf/chip_model.h"
#include "chip_model.skel.h"
#define TOOL_NAME "chipmodel"
#include "tcprog.h"

/* Our filter on the ingress hook: fixed, so any later run finds exactly it. */
#define CM_HANDLE   0xc41b
#define CM_PRIORITY 0xc41b

static const char *const cm_maps[] = {CHIPMODEL_CFG_NAME, CHIPMODEL_RING_NAME,
				      CHIPMODEL_STATS_NAME};
enum { MAP_CFG, MAP_RING, MAP_STATS };

static const struct tcprog_tool chip_model = {
	.hook = {.point = BPF_TC_INGRESS,
		 .handle = CM_HANDLE,
		 .priority = CM_PRIORITY,
		 .prog_name = CHIPMODEL_PROG_NAME},
	.what = "chip model",
	.maps = cm_maps,
	.n_maps = 3,
	.verbose_env = "CHIPMODEL_VERBOSE",
};

static int usage(void)
{
	fprintf(stderr,
		"usage: %s attach|set IFACE [--frame-ns NS] [--burst-bytes B] [--burst-ns NS]\n"
		"           [--burst-offset B] [--ring-frames N] [--drain-ns NS] [--tso-drop F]\n"
		"           [--skb-ns NS] [--off|--on]\n"
		"       %s stats IFACE\n"
		"       %s detach IFACE\n",
		TOOL_NAME, TOOL_NAME, TOOL_NAME);
	return 2;
}

/* One row per numeric knob: where it lives in the config, its range, its option name. */
struct knob_row {
	const char *name;
	size_t off;
	unsigned long max;
};

#define ROW(n, field, m)                                                                           \
	{                                                                                          \
		n, offsetof(struct chipmodel_cfg, field), m                                        \
	}
static const struct knob_row knob_rows[] = {
	ROW("frame-ns", frame_ns, CHIPMODEL_MAX_COST_NS),
	ROW("burst-bytes", burst_bytes, 65536),
	ROW("burst-offset", burst_offset, 65536),
	ROW("burst-ns", burst_ns, CHIPMODEL_MAX_COST_NS),
	ROW("ring-frames", ring_frames, 1u << 20),
	ROW("drain-ns", drain_ns, CHIPMODEL_MAX_COST_NS),
	ROW("skb-ns", skb_ns, CHIPMODEL_MAX_COST_NS),
};
#undef ROW
#define N_ROWS	     (sizeof(knob_rows) / sizeof(knob_rows[0]))
#define OPT_TSO_DROP ((int)N_ROWS)
#define OPT_ON	     ((int)N_ROWS + 1)
#define OPT_OFF	     ((int)N_ROWS + 2)

struct opts {
	bool have[N_ROWS];
	__u32 val[N_ROWS];
	bool have_tso_drop;
	double tso_drop;
	int enabled; /* -1 not given */
	bool any;
};

static int parse_opts(int argc, char **argv, struct opts *o)
{
	struct option lo[N_ROWS + 4];
	unsigned long v;
	unsigned int i;
	char *end;
	int c;

	for (i = 0; i < N_ROWS; i++)
		lo[i] = (struct option){knob_rows[i].name, required_argument, NULL, (int)i};
	lo[OPT_TSO_DROP] = (struct option){"tso-drop", required_argument, NULL, OPT_TSO_DROP};
	lo[OPT_ON] = (struct option){"on", no_argument, NULL, OPT_ON};
	lo[OPT_OFF] = (struct option){"off", no_argument, NULL, OPT_OFF};
	lo[N_ROWS + 3] = (struct option){0};
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c >= 0 && c < (int)N_ROWS) {
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg || optarg[0] == '-' ||
			    v > knob_rows[c].max)
				return fail(2, "--%s: expected an integer from 0 to %lu, got '%s'",
					    knob_rows[c].name, knob_rows[c].max, optarg);
			o->have[c] = true;
			o->val[c] = (__u32)v;
		} else if (c == OPT_TSO_DROP) {
			errno = 0;
			o->tso_drop = strtod(optarg, &end);
			if (errno || *end || end == optarg ||
			    !(o->tso_drop >= 0 && o->tso_drop <= 1))
				return fail(2,
					    "--tso-drop: expected a fraction from 0 to 1, got '%s'",
					    optarg);
			o->have_tso_drop = true;
		} else if (c == OPT_ON || c == OPT_OFF) {
			o->enabled = c == OPT_ON;
		} else {
			return usage();
		}
		o->any = true;
	}
	return optind == argc ? 0 : usage();
}

static void cfg_from_opts(const struct opts *o, struct chipmodel_cfg *cfg)
{
	unsigned int i;

	for (i = 0; i < N_ROWS; i++)
		if (o->have[i])
			*(__u32 *)((char *)cfg + knob_rows[i].off) = o->val[i];
	if (o->have_tso_drop)
		cfg->tso_drop_threshold = tcprog_threshold(o->tso_drop);
	if (o->enabled >= 0)
		cfg->enabled = (__u32)o->enabled;
}

/* A model with a cost but no size (or the reverse) would silently do nothing. */
static int cfg_check(const struct chipmodel_cfg *cfg)
{
	if (!!cfg->burst_bytes != !!cfg->burst_ns)
		return fail(2,
			    "the burst model needs both --burst-bytes and --burst-ns (0 for off)");
	if (!!cfg->ring_frames != !!cfg->drain_ns)
		return fail(2,
			    "the ring model needs both --ring-frames and --drain-ns (0 for off)");
	return 0;
}

/* The settings as "NAME VALUE" pairs: on the line being printed, or one per line. */
static void print_settings(const struct chipmodel_cfg *cfg, bool one_line)
{
	const char *before = one_line ? " " : "", *after = one_line ? "" : "\n";
	unsigned int i;

	for (i = 0; i < N_ROWS; i++)
		printf("%s%s %u%s", before, knob_rows[i].name,
		       *(const __u32 *)((const char *)cfg + knob_rows[i].off), after);
	printf("%stso-drop %.6f\n", before, tcprog_fraction(cfg->tso_drop_threshold));
}

static void print_cfg(const char *verb, const char *ifname, const struct chipmodel_cfg *cfg)
{
	printf("%s %s enabled %u", verb, ifname, cfg->enabled);
	print_settings(cfg, true);
}

static int cmd_attach(const char *ifname, int ifindex, const struct opts *o)
{
	struct chipmodel_cfg cfg = {.enabled = 1, .burst_offset = 52};
	struct chip_model *skel;
	__u32 prog_id = 0;
	int r;

	cfg_from_opts(o, &cfg);
	r = cfg_check(&cfg);
	if (r)
		return r;
	skel = chip_model__open_and_load();
	if (!skel)
		return fail(3, "load %s: %s", CHIPMODEL_PROG_NAME, strerror(errno));
	r = tcprog_cmd_attach(&chip_model, ifname, ifindex, bpf_map__fd(skel->maps.rtl_cm_cfg),
			      &cfg, bpf_program__fd(skel->progs.rtl_chipmodel), &prog_id);
	if (r == 0)
		print_cfg("attached", ifname, &cfg);
	chip_model__destroy(skel);
	return r;
}

static int cmd_set(const char *ifname, int ifindex, const struct opts *o)
{
	struct chipmodel_ring ring = {0};
	struct chipmodel_cfg cfg, old;
	struct tcprog_found f;
	__u32 zero = 0;
	int r;

	r = tcprog_cmd_find(&chip_model, ifname, ifindex, &f);
	if (r)
		return r;
	r = bpf_map_lookup_elem(f.map_fd[MAP_CFG], &zero, &cfg);
	if (r < 0) {
		tcprog_found_close(&f);
		return fail(3, "%s: read configuration: %s", ifname, strerror(errno));
	}
	old = cfg;
	cfg_from_opts(o, &cfg);
	r = cfg_check(&cfg);
	if (r) {
		tcprog_found_close(&f);
		return r;
	}
	r = bpf_map_update_elem(f.map_fd[MAP_CFG], &zero, &cfg, BPF_ANY);
	/* A resized ring starts empty rather than with a backlog in the old units. */
	if (r == 0 && (old.ring_frames != cfg.ring_frames || old.drain_ns != cfg.drain_ns))
		r = bpf_map_update_elem(f.map_fd[MAP_RING], &zero, &ring, BPF_ANY);
	tcprog_found_close(&f);
	if (r < 0)
		return fail(3, "%s: configure: %s", ifname, strerror(errno));
	print_cfg("set", ifname, &cfg);
	return 0;
}

/* The counters summed over the CPUs: all but ring_max_frames, a maximum. */
/* clang-format off */
#define STAT_FIELDS(X)                                                                             \
	X(skbs) X(frames) X(gso_skbs) X(bytes) X(tso_drop_skbs) X(tso_drop_frames)                 \
	X(ring_drop_skbs) X(ring_cut_skbs) X(ring_drop_frames)                                     \
	X(cost_frames) X(cost_bursts) X(cost_ns) X(spun_ns) X(spin_capped) X(cost_skbs)
/* clang-format on */

static int cmd_stats(const char *ifname, int ifindex)
{
	struct chipmodel_stats sum = {0}, *percpu;
	struct chipmodel_cfg cfg = {0};
	struct tcprog_found f;
	int ncpu, i, r;

	percpu =
		tcprog_cmd_read(&chip_model, ifname, ifindex, &f, &cfg, sizeof(*percpu), &ncpu, &r);
	if (!percpu)
		return r;
	for (i = 0; i < ncpu; i++) {
#define ADD(x) sum.x += percpu[i].x;
		STAT_FIELDS(ADD)
#undef ADD
		if (percpu[i].ring_max_frames > sum.ring_max_frames)
			sum.ring_max_frames = percpu[i].ring_max_frames;
	}
	/* One "key value" per line: trivially read by shell tests. */
	printf("ifname %s\nifindex %d\nprog_id %u\nenabled %u\n", ifname, ifindex, f.prog_id,
	       cfg.enabled);
	print_settings(&cfg, false);
#define PRINT(x) printf(#x " %llu\n", (unsigned long long)sum.x);
	STAT_FIELDS(PRINT)
#undef PRINT
	printf("ring_max_frames %llu\n", (unsigned long long)sum.ring_max_frames);
	free(percpu);
	tcprog_found_close(&f);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = {.enabled = -1};
	const char *cmd, *ifname, *why = "";
	unsigned int ifindex;
	int r;

	if (argc < 3)
		return usage();
	cmd = argv[1];
	ifname = argv[2];
	r = parse_opts(argc - 2, argv + 2, &o);
	if (r)
		return r;
	tcprog_quiet_libbpf(&chip_model);
	ifindex = if_nametoindex(ifname);
	if (!ifindex)
		return fail(2, "no such interface: %s", ifname);
	if (tcprog_check_test_veth(ifname, &why) < 0)
		return fail(2, "%s: refused: %s", ifname, why);
	if (strcmp(cmd, "attach") == 0)
		return cmd_attach(ifname, (int)ifindex, &o);
	if (strcmp(cmd, "set") == 0 && o.any)
		return cmd_set(ifname, (int)ifindex, &o);
	if (strcmp(cmd, "stats") == 0 && !o.any)
		return cmd_stats(ifname, (int)ifindex);
	if (strcmp(cmd, "detach") == 0 && !o.any)
		return tcprog_cmd_detach(&chip_model, ifname, (int)ifindex);
	return usage();
}
