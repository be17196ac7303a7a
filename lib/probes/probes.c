// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loader and filter of the BPF probes (include/rtltune/probes.h, bpf/rtltune.bpf.c);
 * lib/probes/probes_read.c reads them, lib/probes/probes_kernel.c adds the kernel's refusal
 * counters.
 *
 * Each hook has a tp_btf and a raw_tp program in the object; per hook we pick one from
 * what the kernel offers (btf_trace_<tp> in kernel BTF, the event in tracefs), load, and
 * attach each on its own. The verifier judges the object as a whole, so when a program is
 * refused we learn which from libbpf's message, step that hook down (tp_btf -> raw_tp ->
 * missing) and load again: one bad hook never costs the others.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probes_priv.h"
#include "rtltune.skel.h"

#define max(a, b) ((a) > (b) ? (a) : (b))

_Static_assert(sizeof(((struct rtl_family_buckets *)0)->buckets) ==
		       sizeof(((struct rtl_hist *)0)->buckets),
	       "histogram layouts");

/* Suffix that RTLTUNE_PROBE_DISABLE appends to a tracepoint name: no kernel has it. */
#define UNAVAILABLE_SUFFIX "__rtltune_unavailable"

const char *probe_state_name(enum probe_state state)
{
	switch (state) {
	case PROBE_ATTACHED:
		return "attached";
	case PROBE_MISSING:
		return "missing";
	case PROBE_OFF:
		break;
	}
	return "off";
}

const struct probe_status *probes_status(const struct probes *p, enum probe_id id)
{
	if (!p || (unsigned int)id >= PROBE_COUNT)
		return NULL;
	return &p->status[id];
}

unsigned int probes_attached(const struct probes *p)
{
	unsigned int i, n = 0;

	for (i = 0; i < PROBE_COUNT; i++)
		n += p->status[i].state == PROBE_ATTACHED;
	return n;
}

/*
 * libbpf talks on stderr by default, and lib/ never prints. While we drive libbpf its
 * warnings are swallowed; the first one naming a program tells which program the kernel
 * refused, and its text becomes that probe's reason.
 */
static struct {
	char prog[64];
	char msg[256];
	char verifier[96]; /* the verifier's complaint, from the load log */
	char last[200];
} libbpf_said;

/* The line of a verifier log that says what was wrong: the last one before the summary. */
static void verifier_complaint(const char *log)
{
	const char *line = log, *nl;

	for (; *line; line = nl + 1) {
		size_t len;

		nl = strchrnul(line, '\n');
		len = (size_t)(nl - line);
		if (len && strncmp(line, "processed ", 10) && strncmp(line, "-- ", 3) &&
		    strncmp(line, "verification time", 17) && strncmp(line, "stack depth", 11) &&
		    !strstr(line, "BEGIN PROG LOAD LOG"))
			snprintf(libbpf_said.verifier, sizeof(libbpf_said.verifier), "%.*s",
				 (int)len, line);
		if (!*nl || strncmp(line, "processed ", 10) == 0)
			break;
	}
}

/* libbpf ends a line with its errno as a number ("...: -1"): the message gets the errno's
 * text anyway (rterr_sys()), so the number goes. */
static void trim_errno(char *line)
{
	char *p = strrchr(line, ':');

	if (p && p[1] == ' ' && p[2] == '-' && p[3] && !p[3 + strspn(p + 3, "0123456789")])
		*p = '\0';
}

static int libbpf_capture(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *text = NULL, *line;
	const char *p, *q;

	if (level != LIBBPF_WARN || vasprintf(&text, fmt, ap) < 0)
		return 0;
	line = strncmp(text, "libbpf: ", 8) == 0 ? text + 8 : text;
	if (strstr(line, "BEGIN PROG LOAD LOG"))
		verifier_complaint(line);
	line[strcspn(line, "\n")] = '\0';
	trim_errno(line);
	if (line[0])
		snprintf(libbpf_said.last, sizeof(libbpf_said.last), "%s", line);
	p = strstr(line, "prog '");
	if (p && !libbpf_said.prog[0]) {
		p += 6;
		q = strchr(p, '\'');
		if (q && (size_t)(q - p) < sizeof(libbpf_said.prog)) {
			memcpy(libbpf_said.prog, p, (size_t)(q - p));
			libbpf_said.prog[q - p] = '\0';
			snprintf(libbpf_said.msg, sizeof(libbpf_said.msg), "%s", q + 3);
		}
	}
	free(text);
	return 0;
}

static libbpf_print_fn_t quiet_libbpf(void)
{
	memset(&libbpf_said, 0, sizeof(libbpf_said));
	return libbpf_set_print(libbpf_capture);
}

static bool name_in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *s = list;

	while (s && *s) {
		size_t len = strcspn(s, ", ");

		if (len == n && strncmp(s, name, n) == 0)
			return true;
		s += len;
		s += strspn(s, ", ");
	}
	return false;
}

enum plan { PLAN_NONE, PLAN_RAW_TP, PLAN_TP_BTF };

static struct bpf_program *variant(struct rtltune *skel, enum probe_id id, enum plan plan)
{
	char name[64];

	if (id == PROBE_XDP)
		return plan == PLAN_NONE ? NULL : skel->progs.rtl_xdp;
	if (plan == PLAN_NONE)
		return NULL;
	snprintf(name, sizeof(name), "rtl_%s_%s", probe_defs[id].stem,
		 plan == PLAN_TP_BTF ? "btf" : "raw");
	return bpf_object__find_program_by_name(skel->obj, name);
}

/* The first plan per probe, from what the kernel advertises. */
static void plan_probes(struct probes *p, const struct probes_opts *opts, enum plan *plan)
{
	const char *disable = getenv("RTLTUNE_PROBE_DISABLE");
	const char *hook = getenv("RTLTUNE_PROBE_HOOK");
	bool raw_only = hook && strcmp(hook, "raw_tp") == 0;
	unsigned int i;

	for (i = 0; i < PROBE_COUNT; i++) {
		struct probe_status *st = &p->status[i];
		enum tracefs_answer tf;
		char tp[128];

		st->name = probe_defs[i].tp;
		if (i == PROBE_XDP) {
			plan[i] = opts->xdp ? PLAN_TP_BTF : PLAN_NONE; /* any non-NONE: load it */
			st->state = PROBE_OFF;
			if (disable && name_in_list(disable, st->name)) {
				plan[i] = PLAN_NONE;
				st->state = PROBE_MISSING;
				snprintf(st->reason, sizeof(st->reason),
					 "disabled by RTLTUNE_PROBE_DISABLE");
			}
			continue;
		}
		if (opts->off & (1u << i)) {
			plan[i] = PLAN_NONE;
			st->state = PROBE_OFF;
			snprintf(st->reason, sizeof(st->reason), "not read by this program");
			continue;
		}
		snprintf(tp, sizeof(tp), "%s%s", st->name,
			 disable && name_in_list(disable, st->name) ? UNAVAILABLE_SUFFIX : "");
		if (btf_tp_args(p->vmlinux_btf, tp) >= 0) {
			plan[i] = raw_only ? PLAN_RAW_TP : PLAN_TP_BTF;
			continue;
		}
		tf = tracefs_has(tp, NULL, 0);
		if (tf == TRACEFS_PRESENT) {
			plan[i] = PLAN_RAW_TP;
			continue;
		}
		plan[i] = PLAN_NONE;
		st->state = PROBE_MISSING;
		snprintf(st->reason, sizeof(st->reason),
			 "no tracepoint %s: no btf_trace_%s in kernel BTF, %s%s", tp, tp,
			 tf == TRACEFS_ABSENT ? "no tracefs event" : "tracefs not mounted",
			 strcmp(tp, st->name) ? " (RTLTUNE_PROBE_DISABLE)" : "");
	}
}

static int open_skel(struct probes *p, const enum plan *plan, unsigned int drop_entries)
{
	struct rtltune *skel;
	struct bpf_program *prog;
	unsigned int i;

	skel = rtltune__open();
	if (!skel)
		return -errno;
	bpf_map__set_max_entries(skel->maps.iface_slot, p->nslots);
	bpf_map__set_max_entries(skel->maps.xdp_slot, p->nslots);
	bpf_map__set_max_entries(skel->maps.slot_stats, p->nslots);
	bpf_map__set_max_entries(skel->maps.drop_reasons, drop_entries);
	skel->rodata->kfree_skb_has_reason =
		tp_has_third_arg(p->vmlinux_btf, "kfree_skb", "reason");
	skel->rodata->tcp_retransmit_has_err =
		tp_has_third_arg(p->vmlinux_btf, "tcp_retransmit_skb", "err");
	skel->rodata->exact_histograms = p->exact;
	skel->rodata->empty_bodies = p->empty_bodies;

	/* Only the chosen variant of each probe is loaded. */
	bpf_object__for_each_program(prog, skel->obj)
	{
		bpf_program__set_autoload(prog, false);
	}
	for (i = 0; i < PROBE_COUNT; i++) {
		prog = variant(skel, i, plan[i]);
		if (prog)
			bpf_program__set_autoload(prog, true);
	}
	bpf_program__set_autoload(skel->progs.rtl_floor, p->want_floor);
	p->skel = skel;
	return 0;
}

/* Which probe (and plan) owns the program libbpf named? */
static int probe_of_prog(const struct probes *p, const enum plan *plan, const char *name)
{
	unsigned int i;

	for (i = 0; i < PROBE_COUNT; i++) {
		const struct bpf_program *prog = variant(p->skel, i, plan[i]);

		if (prog && strcmp(bpf_program__name(prog), name) == 0)
			return (int)i;
	}
	return -1;
}

static void step_down(struct probes *p, enum plan *plan, int id, const char *why)
{
	struct probe_status *st = &p->status[id];
	size_t len = strlen(st->reason);

	snprintf(st->reason + len, sizeof(st->reason) - len, "%s%s: %s", len ? "; " : "",
		 id == PROBE_XDP	   ? "xdp"
		 : plan[id] == PLAN_TP_BTF ? "tp_btf"
					   : "raw_tp",
		 why);
	if (plan[id] == PLAN_TP_BTF && id != PROBE_XDP) {
		plan[id] = PLAN_RAW_TP;
	} else {
		plan[id] = PLAN_NONE;
		st->state = PROBE_MISSING;
	}
}

static int load(struct probes *p, enum plan *plan, struct rterr *err)
{
	unsigned int attempt;
	int ret, id;

	/* Every failure steps one probe down one level: bounded by 2 per probe. */
	for (attempt = 0; attempt <= 2 * PROBE_COUNT; attempt++) {
		ret = open_skel(p, plan,
				max(DROP_MAP_MIN_ENTRIES, p->nslots * DROP_REASONS_PER_SLOT));
		if (ret)
			return rterr_sys(err, ret, "opening the BPF object");
		memset(&libbpf_said, 0, sizeof(libbpf_said));
		ret = rtltune__load(p->skel);
		if (!ret)
			return 0;
		if (p->want_floor && strcmp(libbpf_said.prog, "rtl_floor") == 0) {
			/* Only a yardstick for the stats: go on without it. */
			p->want_floor = false;
			rtltune__destroy(p->skel);
			p->skel = NULL;
			continue;
		}
		id = libbpf_said.prog[0] ? probe_of_prog(p, plan, libbpf_said.prog) : -1;
		if (id < 0) {
			rterr_sys(err, ret, "loading the BPF probes (%s)",
				  libbpf_said.last[0] ? libbpf_said.last : "no detail from libbpf");
			rtltune__destroy(p->skel);
			p->skel = NULL;
			return ret;
		}
		if (libbpf_said.verifier[0]) {
			size_t len = strlen(libbpf_said.msg);

			snprintf(libbpf_said.msg + len, sizeof(libbpf_said.msg) - len,
				 " (verifier: %s)", libbpf_said.verifier);
		}
		step_down(p, plan, id, libbpf_said.msg);
		rtltune__destroy(p->skel);
		p->skel = NULL;
	}
	return rterr_sys(err, ELOOP, "loading the BPF probes: gave up after %u attempts", attempt);
}

/* Attach the loaded variant of each tracepoint probe, each on its own. */
static void attach_all(struct probes *p, enum plan *plan)
{
	unsigned int i;

	for (i = 0; i < PROBE_COUNT; i++) {
		struct probe_status *st = &p->status[i];
		struct bpf_program *prog = variant(p->skel, i, plan[i]);
		struct bpf_link *link;
		char msg[160];
		size_t len;

		if (i == PROBE_XDP) {
			if (prog) {
				p->prog[i] = prog;
				p->xdp = true;
				st->state = PROBE_MISSING;
				snprintf(st->reason, sizeof(st->reason), "no interface selected");
			}
			continue;
		}
		if (!prog)
			continue;
		memset(&libbpf_said, 0, sizeof(libbpf_said));
		link = bpf_program__attach(prog);
		if (!link) {
			snprintf(msg, sizeof(msg), "%s attach: %s",
				 plan[i] == PLAN_TP_BTF ? "tp_btf" : "raw_tp", strerror(errno));
			len = strlen(st->reason);
			snprintf(st->reason + len, sizeof(st->reason) - len, "%s%s",
				 len ? "; " : "", msg);
			st->state = PROBE_MISSING;
			continue;
		}
		p->link[i] = link;
		p->prog[i] = prog;
		st->state = PROBE_ATTACHED;
		st->hook = plan[i] == PLAN_TP_BTF ? PROBE_HOOK_TP_BTF : PROBE_HOOK_RAW_TP;
		/* A reason on an attached probe says why it fell back to raw_tp. */
	}
}

static int cmp_drop_name(const void *a, const void *b)
{
	const struct drop_name *x = a, *y = b;

	if (x->reason != y->reason)
		return x->reason < y->reason ? -1 : 1;
	/* Aliases: the first enumerator in BTF order (text is laid out in that order). */
	return x->name_off < y->name_off ? -1 : x->name_off > y->name_off;
}

/* Copy enum skb_drop_reason out of kernel BTF: all that is kept of it after opening. */
static int drop_names_load(struct probes *p)
{
	static const char prefix[] = "SKB_DROP_REASON_";
	const struct btf *btf = p->vmlinux_btf;
	const struct btf_type *t;
	const struct btf_enum *e;
	size_t text_len = 0, off = 0;
	unsigned int i, n;
	int id;

	id = btf__find_by_name_kind(btf, "skb_drop_reason", BTF_KIND_ENUM);
	if (id < 0)
		return 0; /* a kernel before 5.17: every reason is reason_N */
	t = btf__type_by_id(btf, (__u32)id);
	n = btf_vlen(t);
	for (i = 0, e = btf_enum(t); i < n; i++, e++) {
		const char *name = btf__name_by_offset(btf, e->name_off);

		text_len += (name ? strlen(name) : 0) + 1;
	}
	p->drop_names = calloc(n ?: 1, sizeof(*p->drop_names));
	p->drop_name_text = malloc(text_len ?: 1);
	if (!p->drop_names || !p->drop_name_text)
		return -ENOMEM;
	for (i = 0, e = btf_enum(t); i < n; i++, e++) {
		const char *name = btf__name_by_offset(btf, e->name_off);
		size_t len;

		if (!name || !*name)
			continue;
		if (strncmp(name, prefix, sizeof(prefix) - 1) == 0)
			name += sizeof(prefix) - 1;
		len = strlen(name) + 1;
		memcpy(p->drop_name_text + off, name, len);
		p->drop_names[p->n_drop_names].reason = (__u32)e->val;
		p->drop_names[p->n_drop_names].name_off = (__u32)off;
		p->n_drop_names++;
		off += len;
	}
	qsort(p->drop_names, p->n_drop_names, sizeof(*p->drop_names), cmp_drop_name);
	return 0;
}

int probes_open(struct probes **out, const struct probes_opts *opts, struct rterr *err)
{
	static const struct probes_opts defaults = {0};
	enum plan plan[PROBE_COUNT];
	libbpf_print_fn_t prev;
	struct probes *p;
	unsigned int i;
	int ret;

	*out = NULL;
	if (!opts)
		opts = &defaults;
	if (opts->max_ifaces > PROBES_MAX_IFACES)
		return rterr_input(err, "max_ifaces %u above the limit %u", opts->max_ifaces,
				   PROBES_MAX_IFACES);
	p = calloc(1, sizeof(*p));
	if (!p)
		return rterr_sys(err, ENOMEM, "probes");
	p->stats_fd = -1;
	p->nslots = (opts->max_ifaces ?: PROBES_DEFAULT_MAX_IFACES) + 1;
	p->ncpus = libbpf_num_possible_cpus();
	p->slots = calloc(p->nslots, sizeof(*p->slots));
	p->percpu = p->ncpus > 0 ? calloc((size_t)p->ncpus, sizeof(struct rtl_slot_stats)) : NULL;
	if (!p->slots || !p->percpu) {
		ret = p->ncpus > 0 ? rterr_sys(err, ENOMEM, "probes")
				   : rterr_sys(err, -p->ncpus, "counting possible CPUs");
		goto fail;
	}
	for (i = 0; i < p->nslots; i++) {
		p->slots[i].xdp_link_fd = -1;
		p->slots[i].refusals.sock = -1;
	}

	prev = quiet_libbpf();
	p->vmlinux_btf = btf__load_vmlinux_btf();
	if (!p->vmlinux_btf) {
		ret = rterr_sys(
			err, errno,
			"no kernel BTF (/sys/kernel/btf/vmlinux): CO-RE probes need a kernel "
			"built with CONFIG_DEBUG_INFO_BTF");
		libbpf_set_print(prev);
		goto fail;
	}
	plan_probes(p, opts, plan);
	p->want_floor = opts->run_stats;
	p->exact = opts->exact;
	p->empty_bodies =
		getenv("RTLTUNE_PROBE_EMPTY") && strcmp(getenv("RTLTUNE_PROBE_EMPTY"), "1") == 0;
	ret = load(p, plan, err);
	if (!ret) {
		attach_all(p, plan);
		if (p->want_floor)
			p->floor_link = bpf_program__attach(p->skel->progs.rtl_floor);
	}
	libbpf_set_print(prev);
	if (ret)
		goto fail;
	ret = drop_names_load(p);
	if (ret) {
		rterr_sys(err, -ret, "drop reason names from kernel BTF");
		goto fail;
	}
	btf__free(p->vmlinux_btf);
	p->vmlinux_btf = NULL;
	if (!probes_attached(p) && !p->xdp) {
		/* Name the first probe that failed, not one the caller turned off. */
		for (i = 0; i < PROBE_COUNT - 1 && p->status[i].state != PROBE_MISSING; i++)
			;
		ret = rterr_sys(err, ENOENT, "no BPF probe could be attached (%s: %s)",
				p->status[i].name, p->status[i].reason);
		goto fail;
	}
	if (opts->run_stats) {
		p->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (p->stats_fd < 0) {
			ret = rterr_sys(err, errno,
					"enabling BPF run-time stats (BPF_ENABLE_STATS)");
			goto fail;
		}
	}
	*out = p;
	return 0;
fail:
	probes_close(p);
	return ret;
}

/* Retire the programs' per-CPU memos of the filter (bpf/rtltune.bpf.c: slot_of()). */
static void filter_changed(struct probes *p)
{
	__atomic_add_fetch(&p->skel->bss->filter_gen, 1, __ATOMIC_SEQ_CST);
}

static void slot_detach_xdp(struct probes *p, struct probe_slot *s)
{
	if (s->xdp_link_fd >= 0) {
		close(s->xdp_link_fd);
		s->xdp_link_fd = -1;
		struct rtl_iface_key key = {.ifindex = s->key.ifindex};

		bpf_map_delete_elem(bpf_map__fd(p->skel->maps.xdp_slot), &key);
		filter_changed(p);
	}
}

void probes_close(struct probes *p)
{
	unsigned int i;

	if (!p)
		return;
	for (i = 0; p->slots && i < p->nslots; i++) {
		if (p->skel)
			slot_detach_xdp(p, &p->slots[i]);
		free(p->slots[i].est);
	}
	kernel_refusals_close(p);
	for (i = 0; i < PROBE_COUNT; i++)
		bpf_link__destroy(p->link[i]);
	bpf_link__destroy(p->floor_link);
	rtltune__destroy(p->skel);
	if (p->stats_fd >= 0)
		close(p->stats_fd);
	btf__free(p->vmlinux_btf);
	free(p->slots);
	free(p->percpu);
	free(p->drop_names);
	free(p->drop_name_text);
	free(p->drops);
	free(p->cpu_drops);
	free(p->batch_keys);
	free(p->batch_vals);
	free(p->read_all);
	free(p);
}

static int netns_self(__u32 *ino, struct rterr *err)
{
	struct stat st;

	if (stat("/proc/thread-self/ns/net", &st) != 0)
		return rterr_sys(err, errno, "/proc/thread-self/ns/net");
	*ino = (__u32)st.st_ino;
	return 0;
}

/* Remove a slot's drop-reason entries (so a reused slot starts from zero). */
static void drops_clear_slot(struct probes *p, __u32 slot)
{
	int fd = bpf_map__fd(p->skel->maps.drop_reasons);
	struct rtl_drop_key key, next, *prev = NULL;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		if (next.slot == slot) {
			bpf_map_delete_elem(fd, &next);
			continue; /* iteration restarts from prev, which still exists */
		}
		key = next;
		prev = &key;
	}
}

static void xdp_attach(struct probes *p, int slot, int ifindex)
{
	struct probe_status *st = &p->status[PROBE_XDP];
	static const struct {
		__u32 flags;
		enum probe_hook hook;
	} modes[] = {{XDP_FLAGS_DRV_MODE, PROBE_HOOK_XDP_NATIVE},
		     {XDP_FLAGS_SKB_MODE, PROBE_HOOK_XDP_GENERIC}};
	int map = bpf_map__fd(p->skel->maps.xdp_slot);
	struct rtl_iface_key key = {.ifindex = (__u32)ifindex};
	__u32 val = (__u32)slot;
	char name[IF_NAMESIZE] = "?";
	unsigned int i;
	int fd = -1, e = 0;

	if_indextoname((unsigned int)ifindex, name);
	if (bpf_map_update_elem(map, &key, &val, BPF_NOEXIST) != 0) {
		snprintf(st->reason, sizeof(st->reason),
			 "%s: another selected interface has ifindex %d in another namespace", name,
			 ifindex);
		return;
	}
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]) && fd < 0; i++) {
		struct bpf_link_create_opts lo = {.sz = sizeof(lo), .flags = modes[i].flags};

		fd = bpf_link_create(bpf_program__fd(p->prog[PROBE_XDP]), ifindex, BPF_XDP, &lo);
		if (fd < 0 && !e)
			e = errno;
		if (fd >= 0)
			st->hook = modes[i].hook;
	}
	if (fd < 0) {
		bpf_map_delete_elem(map, &key);
		snprintf(st->reason, sizeof(st->reason), "%s: XDP attach (native, generic): %s",
			 name, strerror(e));
		if (st->state != PROBE_ATTACHED)
			st->state = PROBE_MISSING;
		return;
	}
	filter_changed(p);
	p->slots[slot].xdp_link_fd = fd;
	st->state = PROBE_ATTACHED;
	st->reason[0] = '\0';
}

int probes_select(struct probes *p, int ifindex, struct rterr *err)
{
	struct rtl_iface_key key = {0};
	struct probe_slot *s;
	char name[IF_NAMESIZE];
	int ret, fd;
	__u32 slot;

	if (ifindex < 0)
		return rterr_input(err, "ifindex %d", ifindex);
	if (ifindex != PROBES_HOST_IFINDEX) {
		if (!if_indextoname((unsigned int)ifindex, name))
			return rterr_sys(err, errno, "no interface with ifindex %d", ifindex);
		ret = netns_self(&key.netns, err);
		if (ret)
			return ret;
		key.ifindex = (__u32)ifindex;
	}
	for (slot = 0; slot < p->nslots; slot++)
		if (p->slots[slot].used && !memcmp(&p->slots[slot].key, &key, sizeof(key)))
			return (int)slot;
	if (ifindex == PROBES_HOST_IFINDEX) {
		slot = RTL_SLOT_HOST;
	} else {
		for (slot = 1; slot < p->nslots && p->slots[slot].used; slot++)
			;
		if (slot == p->nslots)
			return rterr_sys(err, ENOSPC, "%s: all %u interface slots are in use", name,
					 p->nslots - 1);
	}

	s = &p->slots[slot];
	if (!s->est) {
		s->est = calloc(PROBE_HIST_COUNT, sizeof(*s->est));
		if (!s->est)
			return rterr_sys(err, ENOMEM, "probes");
	}
	probes_read_slot_reset(p, slot);
	/* The device's own refusal counters, from now on (none for the host slot). */
	ret = ifindex != PROBES_HOST_IFINDEX ? kernel_refusals_select(p, s, ifindex, key.netns, err)
					     : 0;
	if (ret)
		return ret;
	/* Zero first, then open the filter: counting starts from a clean slot. */
	memset(p->percpu, 0, (size_t)p->ncpus * sizeof(struct rtl_slot_stats));
	fd = bpf_map__fd(p->skel->maps.slot_stats);
	if (bpf_map_update_elem(fd, &slot, p->percpu, BPF_ANY) != 0) {
		ret = rterr_sys(err, errno, "clearing counters of slot %u", slot);
		kernel_refusals_unselect(p, s);
		return ret;
	}
	drops_clear_slot(p, slot);
	fd = bpf_map__fd(p->skel->maps.iface_slot);
	if (bpf_map_update_elem(fd, &key, &slot, BPF_ANY) != 0) {
		ret = rterr_sys(err, errno, "selecting %s", ifindex ? name : "the host slot");
		kernel_refusals_unselect(p, s);
		return ret;
	}
	filter_changed(p);
	s->used = true;
	s->key = key;
	if (p->xdp && ifindex != PROBES_HOST_IFINDEX) {
		libbpf_print_fn_t prev = quiet_libbpf();

		xdp_attach(p, (int)slot, ifindex);
		libbpf_set_print(prev);
	}
	return (int)slot;
}

static struct probe_slot *slot_get(struct probes *p, int slot)
{
	if (slot < 0 || (unsigned int)slot >= p->nslots || !p->slots[slot].used)
		return NULL;
	return &p->slots[slot];
}

int probes_unselect(struct probes *p, int slot, struct rterr *err)
{
	struct probe_slot *s = slot_get(p, slot);

	if (!s)
		return rterr_sys(err, ENOENT, "slot %d is not selected", slot);
	slot_detach_xdp(p, s);
	if (bpf_map_delete_elem(bpf_map__fd(p->skel->maps.iface_slot), &s->key) != 0 &&
	    errno != ENOENT)
		return rterr_sys(err, errno, "unselecting slot %d", slot);
	filter_changed(p);
	kernel_refusals_unselect(p, s);
	free(s->est);
	s->est = NULL;
	s->used = false;
	return 0;
}

int probes_cost(struct probes *p, enum probe_id id, struct probe_cost *out, struct rterr *err)
{
	struct bpf_prog_info info = {0};
	__u32 len = sizeof(info);

	memset(out, 0, sizeof(*out));
	if ((unsigned int)id >= PROBE_COUNT)
		return rterr_input(err, "probe id %d", id);
	if (!p->prog[id])
		return 0;
	if (bpf_obj_get_info_by_fd(bpf_program__fd(p->prog[id]), &info, &len) != 0)
		return rterr_sys(err, errno, "reading BPF stats of %s", probe_defs[id].tp);
	out->run_count = info.run_cnt;
	out->run_time_ns = info.run_time_ns;
	out->recursion_misses = info.recursion_misses;
	return 0;
}

int probes_cost_floor(struct probes *p, struct probe_cost *out, struct rterr *err)
{
	struct bpf_prog_info info = {0};
	__u32 len = sizeof(info);

	memset(out, 0, sizeof(*out));
	if (!p->floor_link)
		return rterr_sys(err, ENOENT, "no calibration program (run-time stats are off)");
	if (bpf_obj_get_info_by_fd(bpf_program__fd(p->skel->progs.rtl_floor), &info, &len) != 0)
		return rterr_sys(err, errno, "reading BPF stats of the calibration program");
	out->run_count = info.run_cnt;
	out->run_time_ns = info.run_time_ns;
	out->recursion_misses = info.recursion_misses;
	return 0;
}

/* memlock: the bytes the kernel charged for a BPF object, from its fdinfo. */
static int fd_memlock(int fd, uint64_t *bytes)
{
	char path[64], line[128];
	unsigned long long v;
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %llu", &v) == 1) {
			*bytes += v;
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

int probes_memory(struct probes *p, uint64_t *map_bytes, uint64_t *prog_bytes, struct rterr *err)
{
	struct bpf_program *prog;
	struct bpf_map *map;
	int ret;

	*map_bytes = *prog_bytes = 0;
	bpf_object__for_each_map(map, p->skel->obj)
	{
		ret = fd_memlock(bpf_map__fd(map), map_bytes);
		if (ret)
			return rterr_sys(err, ret, "memlock of map %s", bpf_map__name(map));
	}
	bpf_object__for_each_program(prog, p->skel->obj)
	{
		if (bpf_program__fd(prog) < 0)
			continue;
		ret = fd_memlock(bpf_program__fd(prog), prog_bytes);
		if (ret)
			return rterr_sys(err, ret, "memlock of program %s",
					 bpf_program__name(prog));
	}
	return 0;
}

const char *probes_drop_reason_name(const struct probes *p, uint32_t reason, char *buf, size_t len)
{
	unsigned int lo = 0, hi = p->n_drop_names, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->drop_names[mid].reason < reason)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->n_drop_names && p->drop_names[lo].reason == reason)
		snprintf(buf, len, "%s", p->drop_name_text + p->drop_names[lo].name_off);
	else
		snprintf(buf, len, "reason_%" PRIu32, reason);
	return buf;
}
