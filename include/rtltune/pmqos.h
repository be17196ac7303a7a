/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_PMQOS_H
#define RTLTUNE_PMQOS_H

#include <stddef.h>
#include <stdint.h>

#include "rtltune/err.h"

/*
 * CPU latency PM QoS through /dev/cpu_dma_latency (kernel/power/qos.c), as tuned's
 * force_latency uses it: an open file carrying a 4-byte s32 (microseconds) is one request,
 * and the kernel keeps every CPU out of the idle states whose exit latency is above the
 * lowest request. Closing the file drops the request, so a process that dies (SIGKILL
 * too) never leaves one behind. Reading gives that lowest value, PMQOS_NO_REQUEST when
 * nobody asks. For chips whose interrupts cannot wake a CPU from deep idle (docs/chips.md,
 * quirk shallow-idle).
 */
#define PMQOS_DEVICE	 "/dev/cpu_dma_latency"
#define PMQOS_NO_REQUEST 2000000000 /* PM_QOS_CPU_LATENCY_DEFAULT_VALUE */
/*
 * The value for a shallow-idle chip that declares none: below the i.MX6 WAIT state's exit
 * latency (50 us, arch/arm/mach-imx/cpuidle-imx6*.c), the shallowest state the fec
 * erratum ERR006687 makes unsafe, and above WFI's (1 us, ARM_CPUIDLE_WFI_STATE), which
 * stays allowed.
 */
#define PMQOS_DEFAULT_US 10
/* Deeper than any idle state's exit latency: a larger value would constrain nothing. */
#define PMQOS_MAX_US 1000000

/* rtltuned.conf cpu_dma_latency: auto (the chip's value), off, or N microseconds. */
enum pmqos_mode { PMQOS_AUTO, PMQOS_OFF, PMQOS_FIXED };
struct pmqos_setting {
	enum pmqos_mode mode;
	int32_t us; /* PMQOS_FIXED only */
};

/* Microseconds "10" or "10us", 0 .. PMQOS_MAX_US; -EINVAL otherwise. */
int pmqos_parse_us(const char *text, int32_t *us);
/* "auto", "off" or microseconds as pmqos_parse_us(); -EINVAL otherwise. */
int pmqos_parse_setting(const char *text, struct pmqos_setting *out);
/* "auto", "off" or the number of microseconds, into buf. */
const char *pmqos_setting_text(const struct pmqos_setting *s, char *buf, size_t len);
/*
 * The latency a managed NIC whose chip needs shallow idle asks for under s: the configured
 * value, else the chip's cpu_dma_latency_us (chip_us, -1 when it declares none), else
 * PMQOS_DEFAULT_US; -1 when s is off. The request held is the lowest of these.
 */
int32_t pmqos_wanted(const struct pmqos_setting *s, int32_t chip_us);
/* The lower of two requests, -1 meaning none: folds pmqos_wanted() over several NICs. */
int32_t pmqos_lowest(int32_t a, int32_t b);

/*
 * Hold a request for us microseconds: opens path when *fd < 0 (the new fd in *fd), else
 * changes the request *fd carries in place, so the CPUs are never unconstrained between
 * two values. Negative errno with err naming the device on failure; *fd stays as it was.
 */
int pmqos_hold(const char *path, int32_t us, int *fd, struct rterr *err);
/* The kernel's lowest request now, read through a held fd. */
int pmqos_target(int fd, int32_t *out, struct rterr *err);
/* Drop the request (close *fd, set it to -1); nothing when *fd < 0. */
void pmqos_release(int *fd);

#endif
