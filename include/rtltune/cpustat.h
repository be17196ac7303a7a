/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_CPUSTAT_H
#define RTLTUNE_CPUSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The host's kernel CPU time so far, all CPUs: system + irq + softirq from /proc/stat, in
 * nanoseconds (USER_HZ ticks converted). Where the network stack's cost shows: the tuner's
 * and `rtltune sweep`'s CPU per byte is its delta over the bytes moved. -errno when
 * /proc/stat cannot be read or parsed.
 */
int cpustat_kernel_ns(uint64_t *out);

/*
 * The host's CPU time so far from the aggregate "cpu" line of /proc/stat (fs/proc/stat.c,
 * show_stat()): kernel = system + irq + softirq, idle = idle + iowait, and the number of
 * "cpuN" lines (the online CPUs). The two kinds are measured differently: on a tickless
 * kernel the idle and iowait of an online CPU come from its idle clock
 * (get_cpu_idle_time_us(), stopped when an interrupt arrives), the rest is sampled by the
 * tick. So the busy time of the CPUs over an interval is best taken as elapsed time x
 * CPUs less the idle delta: a CPU woken for short bursts of softirq work (RPS, a NAPI
 * kthread) counts, where the ticks mostly miss it (docs/kernel.md F43).
 */
struct cpustat_total {
	uint64_t kernel, idle; /* USER_HZ ticks from the parser, ns from cpustat_total_ns() */
	unsigned int cpus;
};
/* Parse the text of /proc/stat (len bytes, no NUL needed). 0; -EBADMSG without an
 * aggregate "cpu " line of at least 7 decimals that fit 64 bits (and their sums). */
int cpustat_parse_total(const char *text, size_t len, struct cpustat_total *out);
/* /proc/stat read and parsed, ticks converted to nanoseconds; -errno. */
int cpustat_total_ns(struct cpustat_total *out);
/* The busy time of the CPUs between two readings taken elapsed_ns apart: elapsed x CPUs
 * less the idle delta, at least 0. false when it cannot be told: the CPUs went online or
 * offline in between, the idle clock went backwards, or no earlier reading (cpus 0). */
bool cpustat_busy_ns(const struct cpustat_total *before, const struct cpustat_total *now,
		     uint64_t elapsed_ns, uint64_t *busy);

/*
 * Softirq time per CPU: the seventh number of each "cpuN" line of /proc/stat (USER_HZ
 * ticks, since 2.6.0; show_stat() in fs/proc/stat.c), every softirq together (NET_RX and
 * NET_TX among them: /proc/softirqs counts how often each ran, not for how long). Softirq
 * work done in ksoftirqd and in threaded NAPI kthreads is the thread's own time instead
 * (kernel/sched/cputime.c), so it is not in here; with CONFIG_IRQ_TIME_ACCOUNTING=n the
 * figure is sampled by the tick. Offline CPUs have no line.
 */
struct cpu_softirq {
	unsigned int cpu;
	uint64_t ticks;
};
/* The highest CPU number accepted (the kernel's CONFIG_NR_CPUS is at most 8192). */
#define CPUSTAT_MAX_CPU 65535
/*
 * Parse the text of /proc/stat (len bytes, no NUL needed): the "cpuN" lines, up to max of
 * them into out[], *n, CPUs ascending. Other lines are skipped. 0; -EBADMSG when a cpuN
 * line has fewer than 7 numbers, a number is not decimal or does not fit 64 bits, or the
 * CPU numbers are not ascending or beyond CPUSTAT_MAX_CPU; -E2BIG beyond max.
 */
int cpustat_parse_softirq(const char *text, size_t len, struct cpu_softirq *out, unsigned int max,
			  unsigned int *n);
/* /proc/stat read and parsed; the ticks converted to nanoseconds in out[].ticks' place. */
int cpustat_softirq_ns(struct cpu_softirq *out, unsigned int max, unsigned int *n);

/*
 * A task's CPU time from the text of /proc/PID/stat: utime + stime (fields 14 and 15, in
 * USER_HZ ticks), the name in parentheses skipped up to its last ')' (a name may hold
 * spaces and parentheses). 0 and *ticks, or -EBADMSG.
 */
int cpustat_parse_task(const char *text, size_t len, uint64_t *ticks);
/* The same for a live task, in nanoseconds; -ENOENT when it is gone. */
int cpustat_task_ns(int pid, uint64_t *ns);

#endif
