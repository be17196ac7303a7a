/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_CHIPDB_H
#define RTLTUNE_CHIPDB_H

#include <stdbool.h>
#include <stdint.h>

#include "rtltune/err.h"
#include "rtltune/knob.h"
#include "rtltune/pci.h"

struct nic;

/* The chip file format this code reads ("format = 1" before the first section). */
#define CHIPDB_FORMAT "1"

/*
 * The chip database: what rtnetlink cannot tell us about a NIC (jumbo limits the driver
 * enforces late, offloads it silently drops, links it resets). chips/NAME.conf, format in
 * docs/chips.md. Entries match on driver, PCI vendor:device, PCI revision and an ethtool
 * firmware-version glob; the most specific matching entry wins.
 */

/* Behaviours a tuner must plan around. Names (chip_quirk_name) are the file syntax. */
enum chip_quirk {
	CHIP_Q_JUMBO_DISABLES_TSO = 1u << 0,	     /* MTU > 1500 forces TSO/TX csum off */
	CHIP_Q_JUMBO_DISABLES_PAUSE = 1u << 1,	     /* MTU > 1500 stops pause frames */
	CHIP_Q_TSO_IPV4_ONLY = 1u << 2,		     /* no TSO for IPv6 */
	CHIP_Q_MTU_CHANGE_NEEDS_LINK_DOWN = 1u << 3, /* EBUSY while up */
	CHIP_Q_MTU_CHANGE_RESETS_LINK = 1u << 4,     /* link flap / queue rebuild */
	CHIP_Q_TSO_OFF_BY_DEFAULT = 1u << 5,
	CHIP_Q_TSO_RETRANSMIT_STORM = 1u << 6, /* field reports: TSO on -> retransmits */
	CHIP_Q_NO_NATIVE_XDP = 1u << 7,
	CHIP_Q_NEEDS_SMALL_GSO = 1u << 8,      /* slow parts do better with small GSO */
	CHIP_Q_BIG_TCP_NEEDS_HBH = 1u << 9,    /* IPv6 BIG TCP uses a hop-by-hop header */
	CHIP_Q_XDP_CAPS_MTU = 1u << 10,	       /* attaching XDP lowers the max MTU */
	CHIP_Q_TUNE_WITH_MASTER = 1u << 11,    /* traffic also crosses a master netdev */
	CHIP_Q_TSO_DROPS_OPTIONS = 1u << 12,   /* no TSO for packets with IP/TCP options */
	CHIP_Q_MTU_CHANGE_MAY_FAIL = 1u << 13, /* MTU change reallocates (ENOMEM) */
	CHIP_Q_GRO_OFF_BY_DEFAULT = 1u << 14,
	CHIP_Q_JUDGE_SLOWLY = 1u << 15, /* throughput noisy: long windows */
	/* The driver rewrites interrupt coalescing itself (r8169 8168: IntrMitigate 0 at
	 * every open, reset, resume): such a change is re-applied, not left to an admin. */
	CHIP_Q_COALESCE_RESET_BY_DRIVER = 1u << 16,
	/* rx/tx-usecs change only in the request that turns adaptive moderation off (i40e,
	 * ice: EINVAL otherwise). */
	CHIP_Q_USECS_NEED_ADAPTIVE_OFF = 1u << 17,
	CHIP_Q_QUEUE_CHANGE_RESETS_LINK = 1u << 18, /* ring/channel change rebuilds queues */
	CHIP_Q_TX_COALESCE_FOLLOWS_RX = 1u << 19,   /* shared vectors: tx-usecs must stay 0 */
	CHIP_Q_SHALLOW_IDLE = 1u << 20, /* IRQs miss deep-idle CPUs: rtltuned holds PM QoS */
};
#define CHIP_QUIRK_COUNT 21

const char *chip_quirk_name(enum chip_quirk q);	       /* "jumbo-disables-tso" */
const char *chip_quirk_description(enum chip_quirk q); /* one line, for docs and `chips` */
int chip_quirk_from_name(const char *name);	       /* the bit, or -1 */

/* The limits a chip entry may declare are enum chip_limit (knob.h). */
const char *chip_limit_name(enum chip_limit l); /* "max_mtu", the file key */

/* What an entry declares it matches on (bits of chip_entry.fields, chip_why.fields). */
enum chip_field {
	CHIP_F_DRIVER = 1u << 0,
	CHIP_F_PCI = 1u << 1,
	CHIP_F_REVISION = 1u << 2,
	CHIP_F_FIRMWARE = 1u << 3,
};
/*
 * Specificity of each field; an entry's score is the sum over the fields it declares. The
 * firmware string outweighs PCI id + revision together: r8169 picks the firmware file from
 * the chip's XID (its real identity), while the PCI revision only correlates with it.
 */
#define CHIP_SCORE_DRIVER   1
#define CHIP_SCORE_PCI	    2
#define CHIP_SCORE_REVISION 4
#define CHIP_SCORE_FIRMWARE 8

#define CHIP_MAX_REVISIONS 8

struct chip_hint {
	char profile[32];
	enum knob_id knob;
	struct knob_value value;
};

/* max.KNOB = N: a ceiling for a knob the chip table has no named limit for (rings,
 * channels, coalescing): "max" in a profile and every value are cut to it. */
struct chip_knob_max {
	enum knob_id knob;
	int64_t value;
};

struct chip_entry {
	char id[48]; /* the [section] name, unique in the database */
	char name[96];
	unsigned int fields; /* enum chip_field bits */
	int score;
	char driver[32];
	uint16_t pci_vendor, pci_device;
	uint8_t revisions[CHIP_MAX_REVISIONS]; /* any of these PCI revisions */
	unsigned int n_revisions;
	char firmware[64];		   /* fnmatch(3) glob */
	int64_t limits[CHIP_LIMIT__COUNT]; /* LINK_UNSET (-1) when not declared */
	int big_tcp;			   /* 1 yes, 0 no, -1 not declared */
	uint32_t quirks;		   /* enum chip_quirk bits */
	int32_t cpu_dma_latency_us;	   /* shallow-idle's PM QoS value; -1 not declared */
	struct chip_hint *hints;
	unsigned int n_hints;
	struct chip_knob_max *maxes;
	unsigned int n_maxes;
	char note[1024];
	char file[256];	   /* path the entry was read from */
	unsigned int line; /* line of its [section] header */
};

struct chipdb {
	struct chip_entry *entries; /* load order: files by name, then file order */
	unsigned int n;
	char **files; /* files read (after hiding), NULL-terminated */
};

/* Identity of a NIC as matching sees it; chip_ident_from_nic() fills it from a snapshot. */
struct chip_ident {
	const char *driver;   /* ethtool driver, "" or NULL unknown */
	const char *firmware; /* ethtool firmware-version, "" or NULL none */
	struct pci_ident pci;
};
void chip_ident_from_nic(const struct nic *nic, struct chip_ident *out);

/*
 * Load every NAME.conf in the directories of paths_search_dirs("RTLTUNE_CHIP_PATH", "chips").
 * A file name in an earlier directory hides the same name in later ones (/etc wins over
 * /usr/share). Errors are RTERR_INPUT "FILE:LINE: ..." naming what was expected.
 */
int chipdb_load_default(struct chipdb **db, struct rterr *err);
/* Same from an explicit NULL-terminated directory list (most important first). */
int chipdb_load_dirs(const char *const *dirs, struct chipdb **db, struct rterr *err);
/* One file into db (db may hold entries already: duplicate ids are errors). */
int chipdb_load_file(struct chipdb *db, const char *path, struct rterr *err);
struct chipdb *chipdb_new(void);
void chipdb_free(struct chipdb *db);

/* Why an entry won. */
#define CHIP_WHY_MAX_LOST 8
struct chip_why {
	unsigned int fields; /* fields of the winner that matched (all it declares) */
	int score;
	unsigned int n_candidates; /* entries that matched, winner included */
	/* Matching entries that lost, best first (at most CHIP_WHY_MAX_LOST). */
	const struct chip_entry *lost[CHIP_WHY_MAX_LOST];
	unsigned int n_lost;
	/* One readable sentence: what matched, what lost, or why nothing matched. */
	char text[512];
};

/*
 * The most specific entry matching id, or NULL. An entry matches when every field it
 * declares matches (driver exact, pci vendor:device, revision, firmware glob). Highest
 * score wins; equal scores go to the entry loaded first (file name order, then line).
 * why may be NULL.
 */
const struct chip_entry *chipdb_match(const struct chipdb *db, const struct chip_ident *id,
				      struct chip_why *why);
const struct chip_entry *chipdb_match_nic(const struct chipdb *db, const struct nic *nic,
					  struct chip_why *why);
const struct chip_entry *chipdb_find(const struct chipdb *db, const char *id);

static inline bool chip_has_quirk(const struct chip_entry *e, enum chip_quirk q)
{
	return e && (e->quirks & (uint32_t)q);
}
/* The entry's declared limit, or LINK_UNSET (also for e == NULL). */
int64_t chip_limit(const struct chip_entry *e, enum chip_limit l);
/* The entry's max.KNOB for k, LINK_UNSET when it declares none (or e is NULL). */
int64_t chip_knob_max(const struct chip_entry *e, enum knob_id k);

/* Per-profile hint "hint.PROFILE.KNOB = value": 0 and *out filled, or -ENOENT. */
int chip_hint(const struct chip_entry *e, const char *profile, enum knob_id knob,
	      struct knob_value *out);

/* Where an effective limit came from. */
enum chip_limit_source { CHIP_SRC_NONE, CHIP_SRC_KERNEL, CHIP_SRC_TABLE };
const char *chip_limit_source_name(enum chip_limit_source s); /* "kernel", "chip", "none" */

struct chip_limit_eff {
	int64_t value;	/* LINK_UNSET when neither side knows */
	int64_t kernel; /* what the kernel reports (LINK_UNSET when it does not) */
	int64_t table;	/* what the entry declares (LINK_UNSET when it does not) */
	enum chip_limit_source source;
};

/*
 * Effective limits: the lower of the kernel's reported limit and the table's; the kernel
 * wins ties and whenever the table is silent. Kernel sides: max_mtu = IFLA_MAX_MTU,
 * tso_max_size / tso_max_segs = IFLA_TSO_MAX_*, gso_max_size = IFLA_TSO_MAX_SIZE (the kernel
 * refuses more), gro_max_size = 524280 on kernels that report tso_max_size (5.19+). The
 * table's gso_max_size is also capped by its tso_max_size, and by 65536 when big_tcp = no.
 * e may be NULL (kernel only).
 */
void chip_effective_limits(const struct chip_entry *e, const struct nic *nic,
			   struct chip_limit_eff out[CHIP_LIMIT__COUNT]);

#endif
