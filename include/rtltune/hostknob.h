/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_HOSTKNOB_H
#define RTLTUNE_HOSTKNOB_H
/*
 * The host-wide knobs (KNOB_B_SYSCTL rows of the knob table: net.core.netdev_max_backlog,
 * netdev_budget, netdev_budget_usecs), read and written as their /proc/sys files (the
 * knob's name with '.' as '/': no sysctl binary). The kernel registers them for the
 * initial network namespace only (net/core/sysctl_net_core.c: sysctl_core_init() passes
 * &init_net to register_net_sysctl()), and /proc/sys/net shows the reading task's own
 * namespace: the files exist exactly when the process runs in the initial network
 * namespace. That presence is the check (docs/knobs-stack.md "Host-wide knobs").
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtltune/err.h"
#include "rtltune/knob.h"

struct nic;

/* The /proc/sys a run reads and writes (tests give a directory of their own). */
#define HOST_PROC_SYS "/proc/sys"
/*
 * Where this run finds the host-wide knobs' files: $RTLTUNE_PROC_SYS when it holds an
 * absolute path, else HOST_PROC_SYS. The files read the namespace they were opened in, so
 * a directory holding bind mounts of the initial namespace's net/core files (made there)
 * gives a process in another namespace the host's knobs: how the tests run an rtltuned
 * in a namespace of their own against the host's backlog, and how a container that is
 * not in the host's network namespace can be handed them.
 */
const char *host_proc_sys(void);

/*
 * Why a host knob reads as unknown (struct nic .host_err): not the initial network
 * namespace (net/core is there, the file is not), no /proc/sys at all (a chroot without
 * /proc), a negative value the journal cannot hold; any other -errno is a failed read.
 */
#define HOST_ERR_NETNS	  (-ENOENT)
#define HOST_ERR_NO_PROC  (-ENOMEDIUM)
#define HOST_ERR_NEGATIVE (-ERANGE)

/*
 * The host's snapshot: a struct nic named KNOB_HOST_NAME, ifindex 0, host true, with the
 * host-wide knobs' values (LINK_UNSET and host_err where unknown) and every other knob
 * LINK_UNSET. proc_sys: HOST_PROC_SYS, or a test's directory.
 */
void host_snapshot(const char *proc_sys, struct nic *out);
/*
 * 0 when this process can reach the host-wide knobs (it runs in the initial network
 * namespace), else HOST_ERR_NETNS or HOST_ERR_NO_PROC with why filled ("host-wide: ...").
 */
int host_scope(const char *proc_sys, char *why, size_t len);
/* Why host knob k reads as unknown in snapshot host, for a plan's skip note. */
const char *host_why(const struct nic *host, enum knob_id k, char *buf, size_t len);
/* The file of host knob k under proc_sys ("/proc/sys/net/core/netdev_budget"). */
void host_knob_path(const char *proc_sys, enum knob_id k, char *path, size_t len);
/*
 * Parse a host knob's file as the kernel prints it (proc_dointvec: a decimal int and a
 * newline): 0 and *v, -EINVAL for anything else, HOST_ERR_NEGATIVE for a negative value.
 */
int host_knob_parse(const char *text, int64_t *v);
/*
 * Write v to host knob k. Only lib/actuate/actuate.c calls it (the one actuation path);
 * the kernel's errno in err (EINVAL for a value its handler refuses, EACCES/EPERM without
 * the privilege, EROFS on a read-only /proc/sys).
 */
int host_knob_write(const char *proc_sys, enum knob_id k, int64_t v, struct rterr *err);

#endif
