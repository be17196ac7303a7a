/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_PATHS_H
#define RTLTUNE_PATHS_H

#include <stddef.h>

/*
 * Directories to search for profiles ("profiles") or chip files ("chips"), most
 * important first:
 *   1. each directory of the colon-separated environment variable (RTLTUNE_PROFILE_PATH,
 *      RTLTUNE_CHIP_PATH), in order;
 *   2. SYSCONFDIR/rtltune/SUBDIR (admin files, win by name over shipped ones);
 *   3. DATADIR/SUBDIR (shipped);
 *   4. when the running binary sits in a source tree's build/ directory (its parent has a
 *      Makefile and SUBDIR/), that tree's SUBDIR, so `build/rtltune` works uninstalled.
 * Returns a NULL-terminated malloc'ed array (free with paths_free), or NULL on ENOMEM.
 * Directories that do not exist are kept out.
 */
char **paths_search_dirs(const char *env_var, const char *subdir);
/*
 * Read the running binary's path now, for the source-tree directory above: after a change of
 * mount namespace (rtltune -n) under a chroot, /proc/self/exe names the binary from the
 * real root, a path that does not exist in the chroot.
 */
void paths_pin_exe(void);
void paths_free(char **dirs);

/* write(2) until all of buf is written (EINTR retried): 0, or -errno (-ENOSPC when
 * write returns 0). */
int write_full(int fd, const void *buf, size_t len);

#endif
