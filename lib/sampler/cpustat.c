// SPDX-License-Identifier: GPL-2.0-only
/* Host kernel CPU time from /proc/stat (include/rtltune/cpustat.h). */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "rtltune/cpustat.h"

int cpustat_kernel_ns(uint64_t *out)
{
	unsigned long long user, nice, sys, idle, iowait, irq, softirq;
	static long hz;
	FILE *f;
	int n;

	if (!hz)
		hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0)
		return -EINVAL;
	f = fopen("/proc/stat", "re");
	if (!f)
		return -errno;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &sys, &idle, &iowait,
		   &irq, &softirq);
	fclose(f);
	if (n != 7)
		return -EBADMSG;
	*out = (uint64_t)(sys + irq + softirq) * (1000000000ULL / (uint64_t)hz);
	return 0;
}
