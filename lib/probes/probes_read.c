// SPDX-License-Identifier: GPL-2.0-only
/*
 * Readout of the probes (include/rtltune/probes.h): the per-CPU counters summed, the
 * sampled buckets turned into estimates that add up to the exact counts (hist_estimate()),
 * the drops map walked once per read, and the kernel's refusal counters.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probes_priv.h"
#include "rtltune.skel.h"

#define max(a, b) ((a) > (b) ? (a) : (b))

static struct probe_slot *slot_get(struct probes *p, int slot)
{
	if (slot < 0 || (unsigned int)slot >= p->nslots || !p->slots[slot].used)
		return NULL;
	return &p->slots[slot];
}

/* Where each family's parts sit in struct rtl_slot_stats, and which sampler weighs it. */
static const struct {
	size_t sum, buckets, sampler;
	size_t out; /* its struct rtl_hist in struct probe_counters */
} families[PROBE_HIST_COUNT] = {
#define FAMILY(id, name, smp, field)                                                               \
	[id] = {offsetof(struct rtl_slot_stats, name), offsetof(struct rtl_slot_stats, name##_b),  \
		offsetof(struct rtl_slot_stats, smp), offsetof(struct probe_counters, field)}
	FAMILY(PROBE_HIST_TX_SKB_BYTES, tx_skb_bytes, tx_sampler, tx_skb_bytes),
	FAMILY(PROBE_HIST_TX_GSO_SIZE_BYTES, tx_gso_size, tx_sampler, tx_gso_size_bytes),
	FAMILY(PROBE_HIST_TX_GSO_SEGMENTS, tx_gso_segs, tx_sampler, tx_gso_segments),
	FAMILY(PROBE_HIST_RX_FRAME_BYTES, rx_frame_bytes, rx_frame_sampler, rx_frame_bytes),
	FAMILY(PROBE_HIST_RX_SKB_BYTES, rx_skb_bytes, rx_skb_sampler, rx_skb_bytes),
	FAMILY(PROBE_HIST_RX_XDP_FRAME_BYTES, rx_xdp_frame_bytes, rx_xdp_sampler,
	       rx_xdp_frame_bytes),
#undef FAMILY
};

/* A family summed over CPUs, its buckets estimated from the weights (hist_estimate()). */
static void read_family(struct probes *p, struct probe_slot *s, unsigned int f,
			struct probe_counters *out)
{
	uint64_t count = 0, sum = 0, samples = 0, weights[HIST_BUCKETS] = {0};
	unsigned int max_shift = 0, i;
	int c;

	for (c = 0; c < p->ncpus; c++) {
		const char *v = (const char *)((const struct rtl_slot_stats *)p->percpu + c);
		const struct rtl_family_sum *fs = (const void *)(v + families[f].sum);
		const struct rtl_family_buckets *fb = (const void *)(v + families[f].buckets);
		const struct rtl_sampler *sm = (const void *)(v + families[f].sampler);

		count += fs->count;
		sum += fs->sum;
		samples += fb->samples;
		for (i = 0; i < HIST_BUCKETS; i++)
			weights[i] += fb->buckets[i];
		if (sm->max_shift > max_shift)
			max_shift = sm->max_shift;
	}
	/* Exact while every event got its bucket with weight 1: no CPU ever sampled. */
	hist_estimate(&s->est[f], count, sum, weights, max_shift > 0);
	memcpy((char *)out + families[f].out, &s->est[f].est, sizeof(struct rtl_hist));
	out->sampling[f].samples = samples;
	out->sampling[f].max_gap = max_shift ? (double)(1U << max_shift) + 0.5 : 1;
}

void probes_read_slot_reset(struct probes *p, unsigned int slot)
{
	struct probe_slot *s = &p->slots[slot];

	if (s->est)
		memset(s->est, 0, PROBE_HIST_COUNT * sizeof(*s->est));
}

static int cmp_drop_entry(const void *a, const void *b)
{
	const struct drop_entry *x = a, *y = b;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	return x->reason < y->reason ? -1 : x->reason > y->reason;
}

static int cmp_cpu_drop(const void *a, const void *b)
{
	const struct probe_cpu_drop *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->reason < y->reason ? -1 : x->reason > y->reason;
}

/* Each CPU's part of one (slot, reason) into p->cpu_drops, merged by cpu_drops_merge(). */
static int cpu_drops_add(struct probes *p, __u32 reason, const __u64 *vals)
{
	int c;

	for (c = 0; c < p->ncpus; c++) {
		if (!vals[c])
			continue;
		if (p->n_cpu_drops == p->cpu_drops_cap) {
			unsigned int cap = p->cpu_drops_cap ? 2 * p->cpu_drops_cap : 64;
			struct probe_cpu_drop *d = reallocarray(p->cpu_drops, cap, sizeof(*d));

			if (!d)
				return -ENOMEM;
			p->cpu_drops = d;
			p->cpu_drops_cap = cap;
		}
		p->cpu_drops[p->n_cpu_drops++] = (struct probe_cpu_drop){
			.cpu = (uint32_t)c, .reason = reason, .count = vals[c]};
	}
	return 0;
}

/* Sorted by CPU and reason, the slots of one (CPU, reason) added up. */
static void cpu_drops_merge(struct probes *p)
{
	unsigned int i, n = 0;

	qsort(p->cpu_drops, p->n_cpu_drops, sizeof(*p->cpu_drops), cmp_cpu_drop);
	for (i = 0; i < p->n_cpu_drops; i++) {
		if (n && p->cpu_drops[n - 1].cpu == p->cpu_drops[i].cpu &&
		    p->cpu_drops[n - 1].reason == p->cpu_drops[i].reason)
			p->cpu_drops[n - 1].count += p->cpu_drops[i].count;
		else
			p->cpu_drops[n++] = p->cpu_drops[i];
	}
	p->n_cpu_drops = n;
}

void probes_cpu_drops(const struct probes *p, const struct probe_cpu_drop **out, unsigned int *n)
{
	*out = p->cpu_drops;
	*n = p->n_cpu_drops;
}

static int drops_add(struct probes *p, const struct rtl_drop_key *key, const __u64 *vals)
{
	struct drop_entry *d;
	__u64 n = 0;
	int c;

	for (c = 0; c < p->ncpus; c++)
		n += vals[c];
	if (!n)
		return 0;
	if (cpu_drops_add(p, key->reason, vals) < 0)
		return -ENOMEM;
	if (p->n_drops == p->drops_cap) {
		unsigned int cap = p->drops_cap ? 2 * p->drops_cap : 64;

		d = reallocarray(p->drops, cap, sizeof(*d));
		if (!d)
			return -ENOMEM;
		p->drops = d;
		p->drops_cap = cap;
	}
	d = &p->drops[p->n_drops++];
	d->slot = key->slot;
	d->reason = key->reason;
	d->count = n;
	return 0;
}

/*
 * The whole drops map in a few BPF_MAP_LOOKUP_BATCH calls. 1 when the kernel cannot
 * (no batch ops on hash maps before 5.6; a bucket fuller than a batch: ENOSPC), for the
 * caller to walk key by key instead.
 */
static int drops_collect_batch(struct probes *p, int fd)
{
	__u64 in_batch = 0, out_batch = 0; /* the kernel's bucket cursor (a __u32) */
	bool first = true;
	int ret;

	if (p->batch_unsupported)
		return 1;
	for (;;) {
		__u32 i, count = p->batch_len;

		ret = bpf_map_lookup_batch(fd, first ? NULL : &in_batch, &out_batch, p->batch_keys,
					   p->batch_vals, &count, NULL);
		if (ret < 0 && ret != -ENOENT) {
			if (ret == -EINVAL || ret == -ENOTSUP || ret == -EOPNOTSUPP)
				p->batch_unsupported = true;
			return ret == -EFAULT ? ret : 1;
		}
		for (i = 0; i < count; i++) {
			int r = drops_add(p, &p->batch_keys[i],
					  p->batch_vals + (size_t)i * (size_t)p->ncpus);
			if (r)
				return r;
		}
		if (ret == -ENOENT) /* the last batch */
			return 0;
		in_batch = out_batch;
		first = false;
	}
}

/* Every (slot, reason) with a count, into p->drops by slot then reason. */
static int drops_collect(struct probes *p)
{
	int fd = bpf_map__fd(p->skel->maps.drop_reasons);
	struct rtl_drop_key key, prev_key, *prev = NULL;
	int ret;

	if (!p->batch_keys) {
		p->batch_len = max(DROP_BATCH_BYTES / (sizeof(struct rtl_drop_key) +
						       (size_t)p->ncpus * sizeof(__u64)),
				   16u);
		p->batch_keys = calloc(p->batch_len, sizeof(*p->batch_keys));
		p->batch_vals = calloc((size_t)p->batch_len * (size_t)p->ncpus, sizeof(__u64));
		if (!p->batch_keys || !p->batch_vals) {
			free(p->batch_keys);
			free(p->batch_vals);
			p->batch_keys = NULL;
			p->batch_vals = NULL;
			return -ENOMEM;
		}
	}
	p->n_drops = p->n_cpu_drops = 0;
	ret = drops_collect_batch(p, fd);
	if (ret < 0)
		return ret;
	if (ret > 0) {
		p->n_drops = p->n_cpu_drops = 0;
		while (bpf_map_get_next_key(fd, prev, &key) == 0) {
			prev_key = key;
			prev = &prev_key;
			if (bpf_map_lookup_elem(fd, &key, p->batch_vals) != 0)
				continue; /* deleted meanwhile */
			ret = drops_add(p, &key, p->batch_vals);
			if (ret)
				return ret;
		}
	}
	qsort(p->drops, p->n_drops, sizeof(*p->drops), cmp_drop_entry);
	cpu_drops_merge(p);
	return 0;
}

/* First entry of p->drops at or after slot. */
static unsigned int drops_of_slot(const struct probes *p, __u32 slot)
{
	unsigned int lo = 0, hi = p->n_drops, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->drops[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A slot's counters, its drop reasons taken from p->drops (drops_collect() first). */
static int read_slot(struct probes *p, int slot, struct probe_counters *out, struct rterr *err)
{
	struct probe_slot *s = &p->slots[slot];
	const struct rtl_slot_stats *v;
	__u32 key = (__u32)slot;
	unsigned int i;
	int c;

	memset(out, 0, sizeof(*out));
	if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.slot_stats), &key, p->percpu) != 0)
		return rterr_sys(err, errno, "reading counters of slot %d", slot);
	for (i = 0; i < PROBE_HIST_COUNT; i++)
		read_family(p, s, i, out);
	for (c = 0; c < p->ncpus; c++) {
		v = (const struct rtl_slot_stats *)p->percpu + c;
		out->tx_gso_bytes += v->tx_gso_bytes;
		out->tx_timeouts += v->tx_timeouts;
		out->napi_polls += v->napi_polls;
		out->napi_budget_exhausted += v->napi_budget_exhausted;
		out->tcp_retransmits += v->tcp_retransmits;
		out->tcp_retransmit_segments += v->tcp_retransmit_segs;
		out->drops += v->drops;
	}
	out->tx_busy = kernel_refusals_read(p, s, hist_count(&out->tx_skb_bytes));
	for (i = drops_of_slot(p, key); i < p->n_drops && p->drops[i].slot == key &&
					out->n_drop_reasons < PROBES_MAX_DROP_REASONS;
	     i++) {
		out->drop_reasons[out->n_drop_reasons].reason = p->drops[i].reason;
		out->drop_reasons[out->n_drop_reasons].count = p->drops[i].count;
		out->n_drop_reasons++;
	}
	return 0;
}
int probes_read(struct probes *p, int slot, struct probe_counters *out, struct rterr *err)
{
	int ret;

	memset(out, 0, sizeof(*out));
	if (!slot_get(p, slot))
		return rterr_sys(err, ENOENT, "slot %d is not selected", slot);
	ret = drops_collect(p);
	if (ret)
		return rterr_sys(err, ret, "reading drop reasons of slot %d", slot);
	return read_slot(p, slot, out, err);
}

int probes_read_all(struct probes *p, probes_read_fn fn, void *arg, struct rterr *err)
{
	unsigned int slot;
	int ret;

	if (!p->read_all) {
		p->read_all = malloc(sizeof(*p->read_all));
		if (!p->read_all)
			return rterr_sys(err, ENOMEM, "probes");
	}
	ret = drops_collect(p);
	if (ret)
		return rterr_sys(err, ret, "reading drop reasons");
	for (slot = 0; slot < p->nslots; slot++) {
		if (!p->slots[slot].used)
			continue;
		ret = read_slot(p, (int)slot, p->read_all, err);
		if (ret)
			return ret;
		ret = fn((int)slot, (int)p->slots[slot].key.ifindex, p->read_all, arg);
		if (ret < 0)
			return ret;
	}
	return 0;
}
