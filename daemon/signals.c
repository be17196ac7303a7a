// SPDX-License-Identifier: GPL-2.0-only
/*
 * The signals around the NIC, once per sample (signals.h, docs/signals.md): softnet_stat
 * and softirq time per CPU, the probes' drops per CPU, the driver's queue statistics and
 * the threaded NAPIs' CPU time per managed interface. Each reading stands alone: one
 * that fails leaves its signal as it was and says why, the others go on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "log.h"
#include "rtltune/actuate.h"
#include "rtltune/cpustat.h"
#include "rtltune/napi.h"
#include "rtltune/nic.h"
#include "signals.h"

static struct cpu_signals *cpus; /* by CPU number */
static unsigned int n_cpus, cpus_cap;
static bool cpu_named;
static uint64_t prev_us; /* the previous sample's time, 0 before the first */
static uint32_t qstats_gen;
static char why_softnet[160], why_softirq[160], why_drops[160], why_qstats[200], why_napi[200];

/* Scratch of the readings, grown as the host's CPUs need. */
static struct softnet_cpu *sn;
static struct cpu_softirq *si;
static unsigned int scratch_cap;

unsigned int signals_cpu_count(void)
{
	return n_cpus;
}

const struct cpu_signals *signals_cpu(unsigned int i)
{
	return i < n_cpus ? &cpus[i] : NULL;
}

bool signals_cpu_named(void)
{
	return cpu_named;
}

const char *signals_missing(const char *what)
{
	if (!strcmp(what, "softnet"))
		return why_softnet;
	if (!strcmp(what, "softirq"))
		return why_softirq;
	if (!strcmp(what, "drops"))
		return why_drops;
	if (!strcmp(what, "qstats"))
		return why_qstats;
	if (!strcmp(what, "napi"))
		return why_napi;
	return "";
}

const struct iface_signals *signals_of(const struct iface *ifc)
{
	return ifc->m ? ifc->m->signals : NULL;
}

static struct iface_signals *signals_get(struct iface *ifc)
{
	if (!ifc->m)
		return NULL;
	if (!ifc->m->signals)
		ifc->m->signals = calloc(1, sizeof(struct iface_signals));
	return ifc->m->signals;
}

void signals_iface_event(struct iface *ifc, const struct iface_change *c)
{
	struct iface_signals *s;

	if (!ifc->m || !(c->ev == IFACE_GONE || (c->ev == IFACE_SELECTED && !ifc->managed)))
		return;
	s = ifc->m->signals;
	if (s) {
		free(s->queues);
		free(s->napis);
		free(s);
		ifc->m->signals = NULL;
	}
}

/* The entry of CPU cpu, made (in order) on first sight; NULL out of memory. */
static struct cpu_signals *cpu_get(unsigned int cpu)
{
	unsigned int lo = 0, hi = n_cpus, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cpus[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n_cpus && cpus[lo].cpu == cpu)
		return &cpus[lo];
	if (n_cpus == cpus_cap) {
		unsigned int cap = cpus_cap ? 2 * cpus_cap : 8;
		struct cpu_signals *grown = reallocarray(cpus, cap, sizeof(*grown));

		if (!grown)
			return NULL;
		cpus = grown;
		cpus_cap = cap;
	}
	memmove(&cpus[lo + 1], &cpus[lo], (n_cpus - lo) * sizeof(*cpus));
	memset(&cpus[lo], 0, sizeof(*cpus));
	cpus[lo].cpu = cpu;
	n_cpus++;
	return &cpus[lo];
}

static bool scratch_grow(void)
{
	unsigned int cap = scratch_cap ? 2 * scratch_cap : 64;
	struct softnet_cpu *a = reallocarray(sn, cap, sizeof(*sn));
	struct cpu_softirq *b;

	if (!a)
		return false;
	sn = a;
	b = reallocarray(si, cap, sizeof(*si));
	if (!b)
		return false;
	si = b;
	scratch_cap = cap;
	return true;
}

static void read_softnet(double dt)
{
	unsigned int n = 0, i, k;
	bool named = false;
	int r;

	do
		r = scratch_cap ? softnet_read(NULL, sn, scratch_cap, &n, &named) : -E2BIG;
	while (r == -E2BIG && scratch_cap < 1u << 20 && scratch_grow());
	for (i = 0; i < n_cpus; i++)
		cpus[i].online = false;
	if (r < 0) {
		snprintf(why_softnet, sizeof(why_softnet), "/proc/net/softnet_stat: %s",
			 r == -EBADMSG ? "not in a format rtltune knows" : strerror(-r));
		for (i = 0; i < n_cpus; i++)
			memset(cpus[i].rate, 0, sizeof(cpus[i].rate));
		return;
	}
	why_softnet[0] = '\0';
	cpu_named = named;
	for (i = 0; i < n; i++) {
		struct cpu_signals *c = cpu_get(sn[i].cpu);

		if (!c)
			return;
		for (k = 0; k < SOFTNET_COUNTER_COUNT; k++) {
			/* The first reading is the kernel's count since boot; after it the
			 * 32-bit counters are followed across their wraps. */
			uint32_t d = c->have ? softnet_delta(sn[i].v[k], c->raw[k]) : 0;

			c->total[k] = c->have ? c->total[k] + d : sn[i].v[k];
			c->rate[k] = c->have && dt > 0 ? d / dt : 0;
			c->raw[k] = sn[i].v[k];
		}
		c->have = sn[i].have;
		c->online = true;
	}
	/* A CPU gone offline keeps its counts (the kernel's too) and has no rate. */
	for (i = 0; i < n_cpus; i++)
		if (!cpus[i].online)
			memset(cpus[i].rate, 0, sizeof(cpus[i].rate));
}

static void read_softirq(double dt)
{
	unsigned int n = 0, i;
	int r;

	do
		r = scratch_cap ? cpustat_softirq_ns(si, scratch_cap, &n) : -E2BIG;
	while (r == -E2BIG && scratch_cap < 1u << 20 && scratch_grow());
	if (r < 0) {
		snprintf(why_softirq, sizeof(why_softirq), "/proc/stat: %s",
			 r == -EBADMSG ? "not in a format rtltune knows" : strerror(-r));
		for (i = 0; i < n_cpus; i++)
			cpus[i].softirq_share = 0;
		return;
	}
	why_softirq[0] = '\0';
	for (i = 0; i < n; i++) {
		struct cpu_signals *c = cpu_get(si[i].cpu);

		if (!c)
			return;
		c->softirq_share = c->have_softirq && dt > 0 && si[i].ticks >= c->softirq_ns
					   ? (double)(si[i].ticks - c->softirq_ns) / 1e9 / dt
					   : 0;
		c->softirq_ns = si[i].ticks;
		c->have_softirq = true;
	}
}

static struct cpu_drop *drop_get(struct cpu_signals *c, const char *reason)
{
	unsigned int i;

	for (i = 0; i < c->n_drops; i++)
		if (!strcmp(c->drops[i].reason, reason))
			return &c->drops[i];
	if (c->n_drops == c->drops_cap) {
		unsigned int cap = c->drops_cap ? 2 * c->drops_cap : 4;
		struct cpu_drop *grown = reallocarray(c->drops, cap, sizeof(*grown));

		if (!grown)
			return NULL;
		c->drops = grown;
		c->drops_cap = cap;
	}
	memset(&c->drops[i], 0, sizeof(c->drops[i]));
	snprintf(c->drops[i].reason, sizeof(c->drops[i].reason), "%s", reason);
	c->n_drops++;
	return &c->drops[i];
}

/*
 * The probes count drops per CPU already (the drops map is per CPU); bpf_cpu_drops() has
 * them summed over the managed interfaces. Each (CPU, reason) is followed as a counter:
 * its increase is added, and a fall (an interface unselected took its part along) starts
 * it again from the new value.
 */
static void read_drops(double dt)
{
	const struct probe_cpu_drop *d;
	unsigned int n, i, k;
	char name[48];

	for (i = 0; i < n_cpus; i++)
		for (k = 0; k < cpus[i].n_drops; k++)
			cpus[i].drops[k].rate = -1; /* not seen yet in this reading */
	if (!bpf_cpu_drops(&d, &n)) {
		snprintf(why_drops, sizeof(why_drops), "no BPF probes (%s)",
			 bpf_error()[0] ? bpf_error() : "not running");
		n = 0;
	} else {
		why_drops[0] = '\0';
	}
	for (i = 0; i < n; i++) {
		struct cpu_signals *c = cpu_get(d[i].cpu);
		struct cpu_drop *e;
		bool fresh;

		if (!c)
			break;
		bpf_drop_reason_name(d[i].reason, name, sizeof(name));
		e = drop_get(c, name);
		if (!e)
			break;
		fresh = e->total == 0 && e->raw == 0;
		if (d[i].count >= e->raw && !fresh) {
			e->rate = dt > 0 ? (double)(d[i].count - e->raw) / dt : 0;
			e->total += d[i].count - e->raw;
		} else {
			/* New: what the probes counted before (since the first reading, or
			 * since the interface was selected). A fall starts it again. */
			e->rate = fresh && dt > 0 ? (double)d[i].count / dt : 0;
			if (fresh)
				e->total = d[i].count;
		}
		e->raw = d[i].count;
	}
	for (i = 0; i < n_cpus; i++)
		for (k = 0; k < cpus[i].n_drops; k++)
			if (cpus[i].drops[k].rate < 0) {
				cpus[i].drops[k].rate = 0;
				cpus[i].drops[k].raw = 0;
			}
}

static struct napi_nl *netdev_family(void)
{
	return rtd.act ? nic_io_napi(actuator_io(rtd.act)) : NULL;
}

static int qstats_device_cb(const struct qstats *q, void *arg)
{
	uint64_t now = *(const uint64_t *)arg;
	struct iface *ifc = iface_by_index(q->ifindex);
	struct iface_signals *s;
	unsigned int k;

	if (!ifc || !(s = signals_get(ifc)))
		return 0;
	for (k = 0; k < QSTAT_COUNT; k++) {
		double dt = (double)(now - s->qstats_us) / 1e6;

		s->qstats_rate[k] =
			s->have_qstats && now > s->qstats_us && q->val[k] >= s->qstats.val[k]
				? (double)(q->val[k] - s->qstats.val[k]) / dt
				: 0;
	}
	s->qstats = *q;
	s->have_qstats = true;
	s->qstats_us = now;
	s->gen = qstats_gen;
	return 0;
}

static int qstats_queue_cb(const struct qstats *q, void *arg)
{
	struct iface *ifc = iface_by_index(q->ifindex);
	struct iface_signals *s;

	if (!ifc || !(s = signals_get(ifc)))
		return 0;
	if (s->n_queues == s->queues_cap) {
		unsigned int cap = s->queues_cap ? 2 * s->queues_cap : 4;
		struct qstats *grown = reallocarray(s->queues, cap, sizeof(*grown));

		if (!grown)
			return 0;
		s->queues = grown;
		s->queues_cap = cap;
	}
	s->queues[s->n_queues++] = *q;
	return 0;
}

/* Both dumps cover every device of the namespace at once; the managed ones are kept. */
static void read_qstats(uint64_t now)
{
	struct napi_nl *nl = netdev_family();
	struct rterr err = {0};
	struct iface *ifc;

	if (!nl) {
		snprintf(why_qstats, sizeof(why_qstats),
			 "no netdev generic netlink family (kernel before 6.3)");
		return;
	}
	if (!qstats_nl_supported(nl)) {
		snprintf(why_qstats, sizeof(why_qstats),
			 "the kernel's netdev family has no qstats-get (before 6.9)");
		return;
	}
	qstats_gen++;
	for (ifc = iface_first(); ifc; ifc = ifc->next)
		if (ifc->m && ifc->m->signals)
			ifc->m->signals->n_queues = 0;
	if (qstats_nl_dump(nl, 0, false, qstats_device_cb, &now, &err) < 0 ||
	    qstats_nl_dump(nl, 0, true, qstats_queue_cb, NULL, &err) < 0) {
		snprintf(why_qstats, sizeof(why_qstats), "%s", err.msg);
		return;
	}
	why_qstats[0] = '\0';
	/* Not in the dump: the driver has no queue stats (or the device left meanwhile). */
	for (ifc = iface_first(); ifc; ifc = ifc->next)
		if (ifc->m && ifc->m->signals && ifc->m->signals->gen != qstats_gen) {
			ifc->m->signals->have_qstats = false;
			ifc->m->signals->n_queues = 0;
		}
}

struct napi_arg {
	double dt;
};

static int napi_cb(const void *msg, size_t len, void *arg)
{
	const struct napi_arg *na = arg;
	struct napi_info info;
	struct iface_signals *s;
	struct napi_thread *t;
	struct iface *ifc;
	unsigned int i;
	uint64_t ns;

	if (napi_parse_reply(msg, len, &info) < 0 || info.pid == NAPI_ABSENT)
		return 0;
	ifc = iface_by_index((int)info.ifindex);
	if (!ifc || !(s = signals_get(ifc)) || cpustat_task_ns((int)info.pid, &ns) < 0)
		return 0;
	for (i = 0; i < s->n_napis && s->napis[i].napi_id != (uint32_t)info.id; i++)
		;
	if (i == s->n_napis) {
		if (s->n_napis == s->napis_cap) {
			unsigned int cap = s->napis_cap ? 2 * s->napis_cap : 4;
			struct napi_thread *grown = reallocarray(s->napis, cap, sizeof(*grown));

			if (!grown)
				return 0;
			s->napis = grown;
			s->napis_cap = cap;
		}
		memset(&s->napis[i], 0, sizeof(s->napis[i]));
		s->napis[i].napi_id = (uint32_t)info.id;
		s->n_napis++;
	}
	t = &s->napis[i];
	/* A new thread (threaded turned off and on) starts its own count. */
	t->share = t->pid == (int)info.pid && ns >= t->cpu_ns && na->dt > 0
			   ? (double)(ns - t->cpu_ns) / 1e9 / na->dt
			   : 0;
	t->pid = (int)info.pid;
	t->cpu_ns = ns;
	return 0;
}

static int cmp_napi(const void *a, const void *b)
{
	const struct napi_thread *x = a, *y = b;

	return x->napi_id < y->napi_id ? -1 : x->napi_id > y->napi_id;
}

static void read_napis(double dt)
{
	struct napi_nl *nl = netdev_family();
	struct napi_arg na = {dt};
	struct rterr err = {0};
	struct iface *ifc;
	unsigned int i;

	if (!napi_nl_has_get(nl)) {
		snprintf(why_napi, sizeof(why_napi), "%s",
			 nl ? "the kernel's netdev family has no napi-get (before 6.9)"
			    : "no netdev generic netlink family (kernel before 6.3)");
		return;
	}
	/* Every thread unseen (share -1) until the dump lists it again. */
	for (ifc = iface_first(); ifc; ifc = ifc->next)
		if (ifc->m && ifc->m->signals)
			for (i = 0; i < ifc->m->signals->n_napis; i++)
				ifc->m->signals->napis[i].share = -1;
	if (napi_nl_dump(nl, RT_NETDEV_CMD_NAPI_GET, NULL, 0, napi_cb, &na, "napi-get", &err) < 0) {
		snprintf(why_napi, sizeof(why_napi), "%s", err.msg);
		return;
	}
	why_napi[0] = '\0';
	for (ifc = iface_first(); ifc; ifc = ifc->next) {
		struct iface_signals *s = ifc->m ? ifc->m->signals : NULL;
		unsigned int n = 0;

		if (!s)
			continue;
		for (i = 0; i < s->n_napis; i++)
			if (s->napis[i].share >= 0)
				s->napis[n++] = s->napis[i];
		s->n_napis = n;
		qsort(s->napis, n, sizeof(*s->napis), cmp_napi);
	}
}

void signals_sample(uint64_t now_us, bool own_managed)
{
	double dt = prev_us && now_us > prev_us ? (double)(now_us - prev_us) / 1e6 : 0;

	read_softnet(dt);
	read_softirq(dt);
	read_drops(dt);
	/* The netdev family's dumps are of the daemon's own namespace: on a node whose
	 * managed interfaces are all pods' they would list its 1000 unmanaged veths each
	 * sample for nothing to keep. */
	if (own_managed) {
		read_qstats(now_us);
		read_napis(dt);
	}
	prev_us = now_us;
}

/* ---- JSON ------------------------------------------------------------------------------- */

static json_object *cpu_json(const struct cpu_signals *c, bool with_rates)
{
	json_object *o = json_object_new_object(), *d = json_object_new_object(), *r = NULL, *rd;
	char key[48];
	unsigned int k;

	json_object_object_add(o, "cpu", json_object_new_int((int)c->cpu));
	json_object_object_add(o, "online", json_object_new_boolean(c->online));
	if (with_rates)
		r = json_object_new_object();
	for (k = 0; k < SOFTNET_COUNTER_COUNT; k++) {
		bool have = (c->have >> k) & 1;

		snprintf(key, sizeof(key), "softnet_%s", softnet_counter_name(k));
		json_object_object_add(o, key, have ? json_object_new_uint64(c->total[k]) : NULL);
		if (r && have)
			json_object_object_add(r, key, json_object_new_double(c->rate[k]));
	}
	json_object_object_add(o, "softirq_seconds",
			       c->have_softirq ? json_object_new_double((double)c->softirq_ns / 1e9)
					       : NULL);
	if (r && c->have_softirq)
		json_object_object_add(r, "softirq_seconds",
				       json_object_new_double(c->softirq_share));
	rd = r ? json_object_new_object() : NULL;
	for (k = 0; k < c->n_drops; k++) {
		json_object_object_add(d, c->drops[k].reason,
				       json_object_new_uint64(c->drops[k].total));
		if (rd)
			json_object_object_add(rd, c->drops[k].reason,
					       json_object_new_double(c->drops[k].rate));
	}
	json_object_object_add(o, "drops", d);
	if (r) {
		json_object_object_add(r, "drops", rd);
		json_object_object_add(o, "rates", r);
	}
	return o;
}

json_object *signals_cpus_json(void)
{
	json_object *a = json_object_new_array();
	unsigned int i;

	for (i = 0; i < n_cpus; i++)
		json_object_array_add(a, cpu_json(&cpus[i], true));
	return a;
}

static json_object *qstats_json(const struct qstats *q)
{
	json_object *o = json_object_new_object();
	unsigned int k;

	if (q->queue_type != QSTATS_DEVICE) {
		json_object_object_add(
			o, "type",
			json_object_new_string(q->queue_type == RT_NETDEV_QUEUE_TYPE_RX ? "rx"
											: "tx"));
		json_object_object_add(o, "queue", json_object_new_int64(q->queue_id));
	}
	for (k = 0; k < QSTAT_COUNT; k++)
		if ((q->have >> k) & 1)
			json_object_object_add(o, qstat_key(k), json_object_new_uint64(q->val[k]));
	return o;
}

void signals_iface_json(const struct iface *ifc, json_object *o, json_object *rates)
{
	const struct iface_signals *s = signals_of(ifc);
	json_object *q, *a, *qr;
	unsigned int i, k;

	/* No qstats is null, not zeros: the driver keeps none (or the kernel has none). */
	json_object_object_add(o, "qstats", s && s->have_qstats ? qstats_json(&s->qstats) : NULL);
	a = json_object_new_array();
	for (i = 0; s && s->have_qstats && i < s->n_queues; i++)
		json_object_array_add(a, qstats_json(&s->queues[i]));
	json_object_object_add(o, "qstats_queues", a);
	if (s && s->have_qstats) {
		qr = json_object_new_object();
		for (k = 0; k < QSTAT_COUNT; k++)
			if ((s->qstats.have >> k) & 1)
				json_object_object_add(qr, qstat_key(k),
						       json_object_new_double(s->qstats_rate[k]));
		json_object_object_add(rates, "qstats", qr);
	}
	a = json_object_new_array();
	for (i = 0; s && i < s->n_napis; i++) {
		q = json_object_new_object();
		json_object_object_add(q, "napi", json_object_new_int64(s->napis[i].napi_id));
		json_object_object_add(q, "pid", json_object_new_int(s->napis[i].pid));
		json_object_object_add(q, "cpu_seconds",
				       json_object_new_double((double)s->napis[i].cpu_ns / 1e9));
		json_object_object_add(q, "cpu_share", json_object_new_double(s->napis[i].share));
		json_object_array_add(a, q);
	}
	json_object_object_add(o, "napi_threads", a);
}

json_object *signals_host_json(void)
{
	json_object *o = json_object_new_object(), *snj = json_object_new_object(), *d, *miss;
	static const char *const whats[] = {"softnet", "softirq", "drops", "qstats", "napi"};
	uint64_t sum[SOFTNET_COUNTER_COUNT] = {0}, softirq_ns = 0;
	const struct cpu_signals *busiest = NULL;
	uint32_t have = 0;
	unsigned int i, k;

	d = json_object_new_object();
	for (i = 0; i < n_cpus; i++) {
		const struct cpu_signals *c = &cpus[i];

		have |= c->have;
		for (k = 0; k < SOFTNET_COUNTER_COUNT; k++)
			sum[k] += c->total[k];
		softirq_ns += c->softirq_ns;
		if (c->have_softirq && (!busiest || c->softirq_share > busiest->softirq_share))
			busiest = c;
		for (k = 0; k < c->n_drops; k++) {
			json_object *v;
			uint64_t before = json_object_object_get_ex(d, c->drops[k].reason, &v)
						  ? json_object_get_uint64(v)
						  : 0;

			json_object_object_add(d, c->drops[k].reason,
					       json_object_new_uint64(before + c->drops[k].total));
		}
	}
	json_object_object_add(o, "cpus", json_object_new_int((int)n_cpus));
	json_object_object_add(o, "cpu_named", json_object_new_boolean(cpu_named));
	for (k = 0; k < SOFTNET_COUNTER_COUNT; k++)
		json_object_object_add(snj, softnet_counter_name(k),
				       (have >> k) & 1 ? json_object_new_uint64(sum[k]) : NULL);
	json_object_object_add(o, "softnet", snj);
	json_object_object_add(o, "softirq_seconds",
			       json_object_new_double((double)softirq_ns / 1e9));
	if (busiest) {
		json_object *b = json_object_new_object();

		json_object_object_add(b, "cpu", json_object_new_int((int)busiest->cpu));
		json_object_object_add(b, "share", json_object_new_double(busiest->softirq_share));
		json_object_object_add(o, "busiest_softirq", b);
	} else {
		json_object_object_add(o, "busiest_softirq", NULL);
	}
	json_object_object_add(o, "drops", d);
	miss = json_object_new_object();
	for (i = 0; i < sizeof(whats) / sizeof(whats[0]); i++)
		if (signals_missing(whats[i])[0])
			json_object_object_add(miss, whats[i],
					       json_object_new_string(signals_missing(whats[i])));
	json_object_object_add(o, "missing", miss);
	return o;
}

void signals_iface_status_json(const struct iface *ifc, json_object *o)
{
	/* The counters that say the driver or its rings could not keep up. */
	static const enum qstat trouble[] = {QSTAT_RX_HW_DROPS,	  QSTAT_RX_HW_DROP_OVERRUNS,
					     QSTAT_RX_ALLOC_FAIL, QSTAT_TX_HW_DROPS,
					     QSTAT_TX_STOP,	  QSTAT_TX_WAKE};
	const struct iface_signals *s = signals_of(ifc);
	json_object *q = NULL;
	double share = 0;
	unsigned int i;

	if (s && s->have_qstats) {
		q = json_object_new_object();
		for (i = 0; i < sizeof(trouble) / sizeof(trouble[0]); i++)
			if ((s->qstats.have >> trouble[i]) & 1)
				json_object_object_add(
					q, qstat_key(trouble[i]),
					json_object_new_uint64(s->qstats.val[trouble[i]]));
	}
	json_object_object_add(o, "qstats", q);
	for (i = 0; s && i < s->n_napis; i++)
		share += s->napis[i].share;
	json_object_object_add(o, "napi_threads", json_object_new_int(s ? (int)s->n_napis : 0));
	json_object_object_add(o, "napi_threads_cpu_share", json_object_new_double(share));
}
