/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_SOFTNET_H
#define RTLTUNE_SOFTNET_H
/*
 * The per-CPU counters of the stack's receive path, /proc/net/softnet_stat: one line per
 * online CPU, columns of hexadecimal 32-bit numbers, printed by softnet_seq_show() in
 * net/core/net-procfs.c. The columns, by kernel release:
 *
 *   1  processed      skbs received on the CPU (__netif_receive_skb_core(), every path)
 *   2  dropped        skbs dropped because the CPU's backlog was full (netdev_max_backlog,
 *                     reason CPU_BACKLOG), counted on the CPU whose backlog it was
 *   3  time_squeeze   net_rx_action() stopped with work left: budget or time used up
 *   4-8               0 (was fastroute)
 *   9                 cpu_collision in old kernels, now always 0
 *  10  received_rps   times the CPU was woken by another one to process its backlog
 *                     (RPS/RFS inter-processor interrupts)           since 2.6.35
 *  11  flow_limit     skbs dropped by the flow limit (CONFIG_NET_FLOW_LIMIT)  since 3.11
 *  12  backlog_len    skbs in the backlog queues now                 since 5.10
 *  13  cpu            the CPU's number (offline CPUs have no line)   since 5.10
 *  14  input_qlen     the input_pkt_queue part of backlog_len        since 6.4
 *  15  process_qlen   the process_queue part                         since 6.4
 *
 * 6.18 prints 15 columns. Before 5.10 no column names the CPU: the lines are the online
 * CPUs in ascending order, which is the CPU's number only while every CPU is online.
 * The file is the same in every network namespace (the counters are per CPU, not per
 * namespace). The counters are 32 bits and wrap (softnet_delta()).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum softnet_counter {
	SOFTNET_PROCESSED,
	SOFTNET_DROPPED,
	SOFTNET_TIME_SQUEEZE,
	SOFTNET_RECEIVED_RPS,
	SOFTNET_FLOW_LIMIT,
	SOFTNET_COUNTER_COUNT
};

/* The fewest columns a kernel printed (2.6.23 .. 2.6.34). */
#define SOFTNET_MIN_COLUMNS 9
/* CPU numbers above this are refused (CONFIG_NR_CPUS is at most 8192 in the kernel). */
#define SOFTNET_MAX_CPU 65535

struct softnet_cpu {
	unsigned int cpu;
	uint32_t v[SOFTNET_COUNTER_COUNT];
	uint32_t have;	     /* bit per enum softnet_counter the kernel printed */
	int64_t backlog_len; /* skbs queued now; -1 where the kernel prints none */
};

/*
 * Parse the text of /proc/net/softnet_stat (len bytes, no terminating NUL needed): up to
 * max lines into out[], *n of them, CPUs ascending. Every line must have the same number
 * of columns, at least SOFTNET_MIN_COLUMNS, each 1 to 8 hexadecimal digits; columns
 * beyond the 15 known are ignored. *cpu_named says whether the CPU numbers come from
 * column 13 (else from the line's position). 0, -EBADMSG (malformed, empty, CPU numbers
 * not ascending or beyond SOFTNET_MAX_CPU) or -E2BIG (more than max lines).
 */
int softnet_parse(const char *text, size_t len, struct softnet_cpu *out, unsigned int max,
		  unsigned int *n, bool *cpu_named);
/* The same from a file (path NULL: /proc/net/softnet_stat); -errno when it cannot be read. */
int softnet_read(const char *path, struct softnet_cpu *out, unsigned int max, unsigned int *n,
		 bool *cpu_named);

/* "processed", "dropped", "time_squeeze", "received_rps", "flow_limit". */
const char *softnet_counter_name(enum softnet_counter c);
/* The increase of a 32-bit counter from before to now, across one wrap. */
static inline uint32_t softnet_delta(uint32_t now, uint32_t before)
{
	return now - before;
}

#endif
