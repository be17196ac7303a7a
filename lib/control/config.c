// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtltuned.conf: INI through inih, every error naming FILE:LINE and what was expected.
 * The daemon loads it; the CLI reads it to find the daemon's socket and, for doctor, what
 * the daemon would manage.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <net/if.h>
#include <unistd.h>

#include "rtltune/config.h"
#include "rtltune/control.h"
#include "rtltune/inifile.h"

#ifndef RTLTUNE_STATEDIR
#define RTLTUNE_STATEDIR "/var/lib/rtltune"
#endif

/* Bounds that keep a typo from turning the sampler into a busy loop or a no-op. */
#define SAMPLE_MIN_US 100000ULL
#define SAMPLE_MAX_US 3600000000ULL

int strv_split(struct strv *sv, const char *text)
{
	char *copy = strdup(text), *save = NULL, *tok, **grown;

	strv_free(sv);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		grown = realloc(sv->v, (sv->n + 2) * sizeof(*grown));
		if (!grown)
			goto oom;
		sv->v = grown;
		sv->v[sv->n] = strdup(tok);
		if (!sv->v[sv->n])
			goto oom;
		sv->v[++sv->n] = NULL;
	}
	free(copy);
	return 0;
oom:
	free(copy);
	strv_free(sv);
	return -ENOMEM;
}

void strv_free(struct strv *sv)
{
	unsigned int i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

bool strv_contains(const struct strv *sv, const char *word)
{
	unsigned int i;

	for (i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], word) == 0)
			return true;
	return false;
}

char *strv_join(const struct strv *sv, const char *sep)
{
	size_t len = 1, i;
	char *out;

	for (i = 0; i < sv->n; i++)
		len += strlen(sv->v[i]) + strlen(sep);
	out = calloc(1, len);
	for (i = 0; out && i < sv->n; i++) {
		if (i)
			strcat(out, sep);
		strcat(out, sv->v[i]);
	}
	return out;
}

void config_free(struct rtd_config *cfg)
{
	strv_free(&cfg->interfaces);
	strv_free(&cfg->namespaces);
	strv_free(&cfg->netns_dirs);
	strv_free(&cfg->exclude);
	strv_free(&cfg->drivers);
	strv_free(&cfg->chips);
}

int config_parse_listen(const char *text, char *host, size_t hostlen, unsigned int *port)
{
	const char *colon;
	char *end;
	unsigned long p;
	size_t n;

	if (text[0] == '[') {
		const char *close = strchr(text, ']');

		if (!close || close[1] != ':')
			return -EINVAL;
		n = (size_t)(close - text - 1);
		colon = close + 1;
		text++;
	} else {
		colon = strrchr(text, ':');
		if (!colon)
			return -EINVAL;
		n = (size_t)(colon - text);
	}
	if (n == 0 || n >= hostlen)
		return -EINVAL;
	memcpy(host, text, n);
	host[n] = '\0';
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (errno || *end || end == colon + 1 || p == 0 || p > 65535)
		return -EINVAL;
	*port = (unsigned int)p;
	return 0;
}

static int parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = {"yes", "true", "on", "1"};
	static const char *const no[] = {"no", "false", "off", "0"};
	unsigned int i;

	for (i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0)
			return *out = true, 0;
		if (strcasecmp(v, no[i]) == 0)
			return *out = false, 0;
	}
	return -EINVAL;
}

/* "1s", "500ms", "2m", "1h", or a bare number of seconds. */
static int parse_duration(const char *v, uint64_t *us)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (errno || end == v || x < 0)
		return -EINVAL;
	while (isspace((unsigned char)*end))
		end++;
	if (*end == '\0' || strcmp(end, "s") == 0)
		x *= 1e6;
	else if (strcmp(end, "ms") == 0)
		x *= 1e3;
	else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		x *= 60e6;
	else if (strcmp(end, "h") == 0)
		x *= 3600e6;
	else
		return -EINVAL;
	/* "nan", "inf" and 1e300 pass strtod(); converting them to an integer is undefined. */
	if (!(x >= 0 && x < (double)UINT64_MAX))
		return -EINVAL;
	*us = (uint64_t)x;
	return 0;
}

static int parse_level(const char *v, int *out)
{
	static const char *const names[] = {"error", "warning", "notice", "info", "debug"};
	static const int levels[] = {LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG};
	unsigned int i;

	for (i = 0; i < 5; i++)
		if (strcasecmp(v, names[i]) == 0)
			return *out = levels[i], 0;
	return -EINVAL;
}

static int resolve_group(const char *name, gid_t *gid)
{
	struct group *gr;
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(name, &end, 10);
	if (!errno && *name && !*end) {
		*gid = (gid_t)n;
		return 0;
	}
	gr = getgrnam(name);
	if (!gr)
		return -ENOENT;
	*gid = gr->gr_gid;
	return 0;
}

/* netns_dirs: absolute directories, at most NETNS_DIRS_MAX of them. */
static int netns_dirs_parse(struct rtd_config *cfg, const char *value, char *why, size_t whylen)
{
	struct strv sv = {0};
	unsigned int i;
	int r = strv_split(&sv, value);

	if (r < 0)
		return r;
	for (i = 0; i < sv.n; i++)
		if (sv.v[i][0] != '/' || strlen(sv.v[i]) >= 256) {
			snprintf(
				why, whylen,
				"netns_dirs: expected absolute directory paths (shorter than 256), "
				"got '%s'",
				sv.v[i]);
			strv_free(&sv);
			return -EINVAL;
		}
	if (sv.n > NETNS_DIRS_MAX) {
		snprintf(why, whylen, "netns_dirs: at most %d directories, got %u", NETNS_DIRS_MAX,
			 sv.n);
		strv_free(&sv);
		return -EINVAL;
	}
	strv_free(&cfg->netns_dirs);
	cfg->netns_dirs = sv;
	return 0;
}

/* Check and store one value. why gets what was expected; the caller adds where. */
static int config_set(struct rtd_config *cfg, const char *key, const char *value, char *why,
		      size_t whylen)
{
	unsigned int port;
	char host[64];
	uint64_t us;

#define COPY(field)                                                                                \
	do {                                                                                       \
		if (strlen(value) >= sizeof(cfg->field)) {                                         \
			snprintf(why, whylen, "%s: longer than %zu characters", key,               \
				 sizeof(cfg->field) - 1);                                          \
			return -EINVAL;                                                            \
		}                                                                                  \
		strcpy(cfg->field, value);                                                         \
	} while (0)

	if (strcmp(key, "interfaces") == 0)
		return strv_split(&cfg->interfaces, value);
	if (strcmp(key, "exclude") == 0)
		return strv_split(&cfg->exclude, value);
	if (strcmp(key, "drivers") == 0)
		return strv_split(&cfg->drivers, value);
	if (strcmp(key, "chips") == 0)
		return strv_split(&cfg->chips, value);
	if (strcmp(key, "namespaces") == 0)
		return strv_split(&cfg->namespaces, value);
	if (strcmp(key, "netns_dirs") == 0)
		return netns_dirs_parse(cfg, value, why, whylen);
	if (strcmp(key, "profile") == 0) {
		COPY(profile);
		if (strcmp(value, "none") == 0)
			cfg->profile[0] = '\0';
		return 0;
	}
	if (strcmp(key, "autotune") == 0 || strcmp(key, "restore_on_exit") == 0 ||
	    strcmp(key, "tune_host") == 0) {
		bool *b = key[0] == 'a'	  ? &cfg->autotune
			  : key[0] == 'r' ? &cfg->restore_on_exit
					  : &cfg->tune_host;

		if (parse_bool(value, b) < 0) {
			snprintf(why, whylen, "%s: expected yes or no, got '%s'", key, value);
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(key, "probes") == 0) {
		if (parse_bool(value, &cfg->probes) < 0) {
			snprintf(why, whylen, "probes: expected on or off, got '%s'", value);
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(key, "metrics") == 0) {
		if (strcmp(value, "off") == 0 || strcmp(value, "no") == 0 || !*value) {
			cfg->metrics[0] = '\0';
			return 0;
		}
		if (config_parse_listen(value, host, sizeof(host), &port) < 0) {
			snprintf(why, whylen, "metrics: expected ADDR:PORT or off, got '%s'",
				 value);
			return -EINVAL;
		}
		COPY(metrics);
		return 0;
	}
	if (strcmp(key, "textfile") == 0) {
		if (strcmp(value, "off") == 0) {
			cfg->textfile[0] = '\0';
			return 0;
		}
		if (value[0] != '/') {
			snprintf(why, whylen,
				 "textfile: expected an absolute path or off, got '%s'", value);
			return -EINVAL;
		}
		COPY(textfile);
		return 0;
	}
	if (strcmp(key, "sample_interval") == 0) {
		if (parse_duration(value, &us) < 0 || us < SAMPLE_MIN_US || us > SAMPLE_MAX_US) {
			snprintf(why, whylen,
				 "sample_interval: expected a duration from 100ms to 1h (\"1s\", "
				 "\"500ms\"), got '%s'",
				 value);
			return -EINVAL;
		}
		cfg->sample_interval_us = us;
		return 0;
	}
	if (strcmp(key, "socket") == 0 || strcmp(key, "state_dir") == 0) {
		if (value[0] != '/') {
			snprintf(why, whylen, "%s: expected an absolute path, got '%s'", key,
				 value);
			return -EINVAL;
		}
		if (key[1] == 'o')
			COPY(socket);
		else
			COPY(state_dir);
		return 0;
	}
	if (strcmp(key, "socket_group") == 0) {
		if (resolve_group(value, &cfg->socket_gid) < 0) {
			snprintf(why, whylen, "socket_group: no such group '%s'", value);
			return -EINVAL;
		}
		COPY(socket_group);
		return 0;
	}
	if (strcmp(key, "pin") == 0) {
		struct strv knobs = {0};
		unsigned int i;
		int k;

		if (strv_split(&knobs, value) < 0)
			return -ENOMEM;
		memset(cfg->pin, 0, sizeof(cfg->pin));
		for (i = 0; i < knobs.n; i++) {
			k = knob_from_name(knobs.v[i]);
			if (k < 0) {
				snprintf(why, whylen, "pin: unknown knob '%s' (expected one of %s)",
					 knobs.v[i], knob_names_list());
				strv_free(&knobs);
				return -EINVAL;
			}
			cfg->pin[k] = true;
		}
		strv_free(&knobs);
		return 0;
	}
	if (strcmp(key, "allowed_mtu") == 0) {
		long long lo, hi;
		int n = 0;

		if (strcmp(value, "none") == 0) {
			cfg->allowed_mtu_min = cfg->allowed_mtu_max = 0;
			return 0;
		}
		if (sscanf(value, "%lld-%lld%n", &lo, &hi, &n) != 2 || value[n] || lo < 68 ||
		    hi < lo || hi > 65535) {
			snprintf(why, whylen,
				 "allowed_mtu: expected MIN-MAX within 68-65535 (\"1500-9000\") or "
				 "none, got '%s'",
				 value);
			return -EINVAL;
		}
		cfg->allowed_mtu_min = lo;
		cfg->allowed_mtu_max = hi;
		return 0;
	}
	if (strcmp(key, "cpu_dma_latency") == 0) {
		if (pmqos_parse_setting(value, &cfg->cpu_dma_latency) < 0) {
			snprintf(why, whylen,
				 "cpu_dma_latency: expected auto, off or microseconds from 0 to %d "
				 "(\"10\", \"10us\"), got '%s'",
				 PMQOS_MAX_US, value);
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(key, "log_level") == 0) {
		if (parse_level(value, &cfg->log_level) < 0) {
			snprintf(why, whylen,
				 "log_level: expected error, warning, notice, info or debug, got "
				 "'%s'",
				 value);
			return -EINVAL;
		}
		return 0;
	}
	snprintf(why, whylen,
		 "unknown key '%s' (expected interfaces, exclude, drivers, chips, namespaces, "
		 "netns_dirs, profile, autotune, tune_host, probes, metrics, textfile, "
		 "sample_interval, "
		 "restore_on_exit, socket, state_dir, socket_group, log_level, pin, allowed_mtu or "
		 "cpu_dma_latency)",
		 key);
	return -EINVAL;
#undef COPY
}

static void config_defaults(struct rtd_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->autotune = true;
	cfg->tune_host = true;
	cfg->probes = true;
	snprintf(cfg->metrics, sizeof(cfg->metrics), "%s", RTD_DEFAULT_METRICS);
	cfg->sample_interval_us = 1000000;
	snprintf(cfg->socket, sizeof(cfg->socket), "%s", CONTROL_DEFAULT_SOCKET);
	snprintf(cfg->state_dir, sizeof(cfg->state_dir), "%s", RTLTUNE_STATEDIR);
	snprintf(cfg->socket_group, sizeof(cfg->socket_group), "root");
	cfg->socket_gid = 0;
	cfg->log_level = LOG_INFO;
	cfg->cpu_dma_latency.mode = PMQOS_AUTO;
	tuner_config_default(&cfg->tuner);
	strv_split(&cfg->netns_dirs, RTD_DEFAULT_NETNS_DIRS);
}

/* The first value refused (lib/base/inifile.c stops reading there). */
struct parse_state {
	struct inifile ini;
	struct rtd_config *cfg;
	unsigned int err_line; /* 0 while nothing was refused */
	char err_why[1024];
	int err_errno;
};

static int config_handler(struct inifile *ini, const char *section, const char *name,
			  const char *value)
{
	struct parse_state *ps = ini->user;
	char why[1024];
	int r;

	if (strcmp(section, "tuner") == 0) {
		struct rterr terr = {0};

		r = tuner_config_set(&ps->cfg->tuner, name, value, &terr);
		snprintf(why, sizeof(why), "[tuner] %s", terr.msg);
	} else if (section[0] && strcmp(section, "daemon") != 0) {
		snprintf(why, sizeof(why), "unknown section [%s] (expected [daemon] or [tuner])",
			 section);
		r = -EINVAL;
	} else {
		why[0] = '\0';
		r = config_set(ps->cfg, name, value, why, sizeof(why));
		if (r == -ENOMEM)
			snprintf(why, sizeof(why), "out of memory");
	}
	if (r < 0) {
		ps->err_line = ini->lineno;
		ps->err_errno = -r;
		snprintf(ps->err_why, sizeof(ps->err_why), "%s", why);
		return 0;
	}
	return 1;
}

static int config_read_file(const char *path, struct rtd_config *cfg, struct rterr *err)
{
	struct parse_state ps = {.cfg = cfg};
	FILE *f;
	int r;

	f = fopen(path, "re");
	if (!f && errno == ENOENT)
		return rterr_input(err, "config %s: no such file", path);
	if (!f)
		return rterr_sys(err, errno, "cannot read config %s", path);
	/* An over-long line goes to inih in pieces, each on the line it came from. */
	ps.ini = (struct inifile){.path = path, .user = &ps, .key = config_handler};
	r = inifile_parse(&ps.ini, f);
	fclose(f);
	if (r == 0 && !ps.err_line)
		return 0;
	if (r < 0)
		return rterr_sys(err, ENOMEM, "%s: reading config", path);
	/* inih's own syntax error came before any value we rejected. */
	if (r > 0)
		return rterr_input(err,
				   "%s:%d: expected 'key = value', a [daemon] section header or "
				   "a comment",
				   path, r);
	if (ps.err_errno == ENOMEM)
		return rterr_sys(err, ENOMEM, "%s:%u", path, ps.err_line);
	return rterr_input(err, "%s:%u: %s", path, ps.err_line, ps.err_why);
}

static int apply_override(struct rtd_config *cfg, const char *key, const char *value,
			  const char *origin, struct rterr *err)
{
	char why[512];
	int r = config_set(cfg, key, value, why, sizeof(why));

	if (r == -ENOMEM)
		return rterr_sys(err, ENOMEM, "%s", origin);
	if (r < 0)
		return rterr_input(err, "%s: %s", origin, why);
	return 0;
}

int config_read(const char *path, struct rtd_config *cfg, struct rterr *err)
{
	int r;

	config_defaults(cfg);
	if (!path)
		return 0;
	r = config_read_file(path, cfg, err);
	if (r < 0)
		return r;
	r = tuner_config_check(&cfg->tuner, err);
	if (r < 0) {
		rterr_prefix(err, "%s: [tuner]: ", path);
		return r;
	}
	snprintf(cfg->path, sizeof(cfg->path), "%s", path);
	return 0;
}

int config_load(const struct rtd_overrides *ov, struct rtd_config *out, struct rterr *err)
{
	struct rtd_config cfg;
	const char *path = ov->config, *env;
	int r;

	if (!path && access(RTD_DEFAULT_CONFIG, F_OK) == 0)
		path = RTD_DEFAULT_CONFIG;
	r = config_read(path, &cfg, err);
	if (r < 0)
		goto fail;
	env = getenv("RTLTUNE_SOCKET");
	if (env && *env && (r = apply_override(&cfg, "socket", env, "RTLTUNE_SOCKET", err)) < 0)
		goto fail;
	env = getenv("RTLTUNE_STATE_DIR");
	if (env && *env &&
	    (r = apply_override(&cfg, "state_dir", env, "RTLTUNE_STATE_DIR", err)) < 0)
		goto fail;
	if (ov->socket && (r = apply_override(&cfg, "socket", ov->socket, "--socket", err)) < 0)
		goto fail;
	if (ov->state_dir &&
	    (r = apply_override(&cfg, "state_dir", ov->state_dir, "--state-dir", err)) < 0)
		goto fail;
	if (ov->metrics && (r = apply_override(&cfg, "metrics", ov->metrics, "--metrics", err)) < 0)
		goto fail;
	if (ov->interfaces &&
	    (r = apply_override(&cfg, "interfaces", ov->interfaces, "--interfaces", err)) < 0)
		goto fail;
	if (ov->profile && (r = apply_override(&cfg, "profile", ov->profile, "--profile", err)) < 0)
		goto fail;
	if (ov->autotune == 0)
		cfg.autotune = false;
	config_free(out);
	*out = cfg;
	return 0;
fail:
	config_free(&cfg);
	return r;
}

/* A glob "names" an interface when it matches and is more than a bare wildcard. */
/* A glob that names interfaces (virtual ones are managed only by name): one that does not
 * start with a wildcard, after the NETNS/ of a pod's. */
static bool glob_names(const char *glob)
{
	const char *slash = strchr(glob, '/');

	if (slash)
		glob = slash + 1;
	return glob[0] != '*' && glob[0] != '?' && glob[0] != '[';
}

/* Whether glob matches the link: its name, or a pod's NETNS/IFACE. */
static bool glob_matches(const char *glob, const struct config_link *l)
{
	char full[512];

	if (!l->netns)
		return fnmatch(glob, l->name, 0) == 0;
	snprintf(full, sizeof(full), "%s/%s", l->netns, l->name);
	return fnmatch(glob, full, FNM_PATHNAME) == 0 ||
	       (!strchr(glob, '/') && fnmatch(glob, l->name, 0) == 0);
}

bool config_selects_netns(const struct rtd_config *c, const char *name)
{
	unsigned int i;

	for (i = 0; i < c->namespaces.n; i++)
		if (fnmatch(c->namespaces.v[i], name, 0) == 0)
			return true;
	return false;
}

bool config_selects(const struct rtd_config *c, const struct config_link *l, char *why,
		    size_t whylen)
{
	bool matched = c->interfaces.n == 0, named = false;
	unsigned int i;

	if (l->flags & IFF_LOOPBACK) {
		snprintf(why, whylen, "loopback");
		return false;
	}
	for (i = 0; i < c->interfaces.n; i++) {
		if (glob_matches(c->interfaces.v[i], l)) {
			matched = true;
			named |= glob_names(c->interfaces.v[i]);
		}
	}
	if (!matched) {
		snprintf(why, whylen, "name matches no glob in interfaces");
		return false;
	}
	for (i = 0; i < c->exclude.n; i++) {
		if (glob_matches(c->exclude.v[i], l)) {
			snprintf(why, whylen, "excluded by '%s'", c->exclude.v[i]);
			return false;
		}
	}
	/* Virtual devices (veth, bridge, bond, vlan, tun, ...) carry an IFLA_INFO_KIND. They
	 * ride on a real NIC that is tuned on its own, so only an explicit glob takes them. */
	if (l->kind[0] && !named) {
		snprintf(why, whylen,
			 "virtual (%s): name it with a glob in interfaces to manage it", l->kind);
		return false;
	}
	if (c->drivers.n && !strv_contains(&c->drivers, l->driver)) {
		snprintf(why, whylen, "driver '%s' not in drivers",
			 l->driver[0] ? l->driver : "unknown");
		return false;
	}
	if (c->chips.n && !strv_contains(&c->chips, l->chip)) {
		snprintf(why, whylen, "chip '%s' not in chips", l->chip[0] ? l->chip : "none");
		return false;
	}
	snprintf(why, whylen, "%s", named ? "named by interfaces" : "selected");
	return true;
}
