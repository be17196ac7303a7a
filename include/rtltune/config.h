/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_CONFIG_H
#define RTLTUNE_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "rtltune/err.h"
#include "rtltune/knob.h"
#include "rtltune/pmqos.h"
#include "rtltune/tuner.h"

/* A list of words from a comma/space separated value ("eth*, enp*"). */
struct strv {
	char **v;
	unsigned int n;
};

/*
 * rtltuned.conf, read by the daemon and by the CLI (which socket the daemon listens on,
 * what `rtltune doctor` says it would manage): one parser, in lib/control/config.c.
 *
 * Daemon settings (docs/daemon.md). Precedence, strongest first: command-line flags,
 * environment (RTLTUNE_SOCKET, RTLTUNE_STATE_DIR), the config file, built-in defaults.
 */
struct rtd_config {
	char path[PATH_MAX];	/* file read, "" when running on defaults */
	struct strv interfaces; /* globs; empty means every non-virtual interface */
	struct strv exclude;	/* globs that win over interfaces */
	struct strv drivers;	/* ethtool driver names; empty means any */
	struct strv chips;	/* chip database ids; empty means any */
	/* Other network namespaces whose interfaces it manages (names as in /run/netns, "*"
	 * every one its veths lead to): docs/namespaces.md. Empty: its own only. */
	struct strv namespaces;
	/* Where those names are: directories of bind-mounted namespace files, the first that
	 * has a name wins (default /run/netns, /run/docker/netns: ip netns, Docker). */
	struct strv netns_dirs;
	char profile[256];	 /* profile applied to matching interfaces; "" observes only */
	bool autotune;		 /* default for new interfaces */
	char metrics[128];	 /* "ADDR:PORT", or "" when off */
	char textfile[PATH_MAX]; /* node_exporter textfile, "" when off */
	uint64_t sample_interval_us;
	bool restore_on_exit;
	/* The tuner may change the host-wide knobs (net.core.*) where this daemon reaches
	 * them (docs/tuning.md "The host's rules"); default yes. */
	bool tune_host;
	/* Load the BPF probes; off: link counters only, no BPF program on the host. */
	bool probes;
	char socket[PATH_MAX];
	char state_dir[PATH_MAX];
	char socket_group[64]; /* group that may read through the socket */
	gid_t socket_gid;
	int log_level; /* LOG_ERR..LOG_DEBUG */
	/* The PM QoS request held while a shallow-idle chip is managed (daemon/pmqos.c). */
	struct pmqos_setting cpu_dma_latency;
	/* The tuner: knobs it never touches, the MTU range it may use (0..0: never), and its
	 * [tuner] section (docs/tuning.md "Tunables"). */
	bool pin[KNOB__COUNT];
	int64_t allowed_mtu_min, allowed_mtu_max;
	struct tuner_config tuner;
};

/* Values given on the command line; NULL / -1 when not given. */
struct rtd_overrides {
	const char *config;
	const char *socket;
	const char *metrics;
	const char *state_dir;
	const char *interfaces;
	const char *profile;
	int autotune; /* -1 not given, 0 from --no-autotune */
};

#define RTD_DEFAULT_CONFIG  RTLTUNE_SYSCONFDIR "/rtltuned.conf"
#define RTD_DEFAULT_METRICS "127.0.0.1:9775"

/*
 * Build the configuration: defaults, then the file (ov->config, else the default path
 * when it exists), then environment and flags. A bad file or value: RTERR_INPUT naming
 * FILE:LINE (or the flag) and what was expected; *cfg is then untouched.
 */
int config_load(const struct rtd_overrides *ov, struct rtd_config *cfg, struct rterr *err);
/*
 * The built-in defaults, then the file at path when path is not NULL: no environment, no
 * flags (what the file says, for a reader other than the daemon). Errors as config_load().
 * *cfg is filled either way (defaults on failure); config_free() it.
 */
int config_read(const char *path, struct rtd_config *cfg, struct rterr *err);
void config_free(struct rtd_config *cfg);
/* Parse ADDR:PORT ("127.0.0.1:9775", "[::1]:9775", "off"). */
int config_parse_listen(const char *text, char *host, size_t hostlen, unsigned int *port);

/*
 * Whether rtltuned manages a link, by the config's interfaces, exclude, drivers and chips
 * (docs/daemon.md "Which interfaces"). kind is IFLA_INFO_KIND ("" for a device), driver
 * the ethtool driver and chip the matched chip id ("" when unknown). why gets the reason
 * either way ("excluded by 'veth*'", "named by interfaces").
 */
struct config_link {
	const char *name;
	const char *netns;  /* the namespace of a pod's interface (name then NETNS/IFACE
			     * matches too), NULL for the daemon's own */
	unsigned int flags; /* IFF_* */
	const char *kind;
	const char *driver;
	const char *chip;
};
bool config_selects(const struct rtd_config *cfg, const struct config_link *l, char *why,
		    size_t whylen);
/* The default netns_dirs (docs/namespaces.md). */
#define RTD_DEFAULT_NETNS_DIRS "/run/netns, /run/docker/netns"
#define NETNS_DIRS_MAX	       8
/* Whether the namespace named name is one of cfg's namespaces. */
bool config_selects_netns(const struct rtd_config *cfg, const char *name);

int strv_split(struct strv *sv, const char *text);
void strv_free(struct strv *sv);
bool strv_contains(const struct strv *sv, const char *word);
char *strv_join(const struct strv *sv, const char *sep);

#endif
