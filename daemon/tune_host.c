// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host in the tuner (tune_host.h, docs/tuning.md "The host's rules"): a pseudo-interface
 * (TUNER_HOST) whose samples are the whole host's receive path, softnet_stat summed over
 * the CPUs (packets processed, backlog drops, time squeezes) with the bytes the managed
 * interfaces received and sent, and whose knobs are the host-wide net.core ones. Tracked
 * only where this daemon reaches those knobs (the initial network namespace, or the files
 * $RTLTUNE_PROC_SYS hands it) and `tune_host` is on.
 */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "loop.h"
#include "rtltune/actuate.h"
#include "rtltune/hist.h"
#include "rtltune/hostknob.h"
#include "signals.h"
#include "trust.h"
#include "tune_act.h"
#include "tune_host.h"

static struct {
	bool tracked;
	bool prev_valid;
	uint64_t prev_us;
	uint64_t prev[3];		     /* processed, dropped, time_squeeze: sums */
	uint64_t rx_bytes, tx_bytes, pkts;   /* the managed interfaces' this sample */
	struct nic snap;		     /* the host's knobs as last read */
	bool have_seen;
	int64_t seen[KNOB_HOST_COUNT];	     /* as last read or set by rtltuned */
	bool manual[KNOB_HOST_COUNT];	     /* changed by someone else: hands off */
	char why[256];			     /* why the host is not tracked, "" when it is */
} h;

static const enum softnet_counter cols[3] = {SOFTNET_PROCESSED, SOFTNET_DROPPED,
					     SOFTNET_TIME_SQUEEZE};

void tune_host_start(struct tuner *t)
{
	memset(&h, 0, sizeof(h));
	if (!rtd.cfg.tune_host) {
		snprintf(h.why, sizeof(h.why), "tune_host = no");
	} else if (!rtd.act) {
		snprintf(h.why, sizeof(h.why), "no actuator");
	} else if (host_scope(host_proc_sys(), h.why, sizeof(h.why)) == 0) {
		h.why[0] = '\0';
		if (tuner_iface_add(t, TUNER_HOST, KNOB_HOST_NAME) == 0)
			h.tracked = true;
		else
			snprintf(h.why, sizeof(h.why), "out of memory");
	}
	/* Expected in a container's namespace and by choice: said by status (host.tuner.why),
	 * in the log only at debug level. */
	if (h.why[0])
		dlog(LOG_DEBUG, KNOB_HOST_NAME, "host-wide knobs not tuned: %s", h.why);
}

void tune_host_stop(struct tuner *t, const char *why)
{
	struct tuner_action a = {0};

	if (!h.tracked)
		return;
	if (why && tuner_abort(t, TUNER_HOST, now_us() / 1000, why, &a) == 0)
		tune_act_host(t, &a, &h.snap);
	tuner_iface_remove(t, TUNER_HOST);
	h.tracked = false;
}

bool tune_host_tracked(const char **why)
{
	if (why)
		*why = h.why;
	return h.tracked;
}

void tune_host_add_traffic(const struct tuner_sample *s)
{
	h.rx_bytes += s->rx_bytes;
	h.tx_bytes += s->tx_bytes;
	h.pkts += s->tx_packets;
}

/* The host's values now; one that moved since rtltuned last saw or set it was changed
 * by someone else: noted once, and left alone from then on. */
static void host_read(void)
{
	int k;

	actuator_host_snapshot(rtd.act, &h.snap);
	for (k = KNOB_FIRST_HOST; k < KNOB__COUNT; k++) {
		int i = k - KNOB_FIRST_HOST;
		int64_t v = h.snap.val[k];

		if (h.have_seen && !h.manual[i] && v != h.seen[i] && v != LINK_UNSET) {
			h.manual[i] = true;
			dlog(LOG_NOTICE, KNOB_HOST_NAME,
			     "%s changed outside rtltune (%lld -> %lld): left alone until rtltuned "
			     "restarts or reloads",
			     knob_name((enum knob_id)k), (long long)h.seen[i], (long long)v);
		}
		h.seen[i] = v;
	}
	h.have_seen = true;
}

void tune_host_sample(struct tuner *t, uint64_t now)
{
	struct tuner_sample s = {0};
	struct tuner_env env = {0};
	struct tuner_action a = {0};
	uint64_t sum[3] = {0};
	unsigned int i, c;
	int k;

	if (!t || !h.tracked)
		return;
	for (i = 0; i < signals_cpu_count(); i++) {
		const struct cpu_signals *cs = signals_cpu(i);

		for (c = 0; c < 3; c++)
			sum[c] += cs->total[cols[c]];
	}
	host_read();
	s.ts_ms = now / 1000;
	s.interval_ms = (uint32_t)((now - h.prev_us) / 1000);
	s.have = TUNER_HAVE_SOFTNET;
	s.rx_packets = counter_delta(sum[0], h.prev[0]);
	s.backlog_drops = counter_delta(sum[1], h.prev[1]);
	s.time_squeeze = counter_delta(sum[2], h.prev[2]);
	s.rx_bytes = h.rx_bytes;
	s.tx_bytes = h.tx_bytes;
	s.tx_packets = h.pkts;
	h.rx_bytes = h.tx_bytes = h.pkts = 0;
	memcpy(h.prev, sum, sizeof(sum));
	if (!h.prev_valid || !signals_cpu_count() || signals_missing("softnet")[0]) {
		h.prev_valid = signals_cpu_count() && !signals_missing("softnet")[0];
		h.prev_us = now;
		return;
	}
	h.prev_us = now;
	for (k = 0; k < KNOB__COUNT; k++)
		env.knob[k] = LINK_UNSET;
	for (k = KNOB_FIRST_HOST; k < KNOB__COUNT; k++) {
		env.knob[k] = h.snap.val[k];
		env.pinned[k] = rtd.cfg.pin[k];
		env.manual[k] = h.manual[k - KNOB_FIRST_HOST];
	}
	/* A journal that cannot record originals: samples go on, trials do not. */
	env.autotune = rtd.cfg.autotune && trust_ok();
	if (tuner_feed(t, TUNER_HOST, &s, &env, now / 1000, &a) == 0 && a.kind != TUNER_NONE) {
		tune_act_host(t, &a, &h.snap);
		/* Its own change: what it set is what it saw. */
		for (k = KNOB_FIRST_HOST; k < KNOB__COUNT; k++)
			h.seen[k - KNOB_FIRST_HOST] = h.snap.val[k];
	}
}
