// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device identity (docs/journal.md "Identity"): which journal record is which device,
 * across renames, netns moves, re-created names and reboots.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "journal_priv.h"
#include "rtltune/ethtool.h"
#include "rtltune/link.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71 /* asm-generic value; 5.14+ */
#endif
#ifndef MAX_ADDR_LEN
#define MAX_ADDR_LEN 32 /* include/linux/netdevice.h */
#endif

static int read_perm_addr(int sock, const char *ifname, char *out, size_t len)
{
	struct {
		struct ethtool_perm_addr pa;
		uint8_t data[MAX_ADDR_LEN];
	} req = {.pa = {.cmd = ETHTOOL_GPERMADDR, .size = MAX_ADDR_LEN}};
	struct ifreq ifr = {0};
	bool nonzero = false;
	size_t off = 0;
	unsigned int i;

	out[0] = '\0';
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&req;
	if (ioctl(sock, SIOCETHTOOL, &ifr) < 0)
		return errno == ENODEV ? -ENODEV : 0; /* no ethtool at all: no permanent address */
	for (i = 0; i < req.pa.size && i < MAX_ADDR_LEN; i++)
		nonzero |= req.data[i] != 0;
	/* Random-address devices (veth, bridge) report all zeroes. */
	for (i = 0; nonzero && i < req.pa.size && i < MAX_ADDR_LEN && off + 3 < len; i++)
		off += snprintf(out + off, len - off, "%s%02x", i ? ":" : "", req.data[i]);
	return 0;
}

/* The netns a socket lives in (SO_NETNS_COOKIE: never reused within a boot); 0 if unknown. */
static uint64_t netns_cookie_of(int sock)
{
	uint64_t cookie = 0;
	socklen_t olen = sizeof(cookie);

	if (getsockopt(sock, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &olen) < 0)
		return 0;
	return cookie;
}

uint64_t jr_netns_cookie(void)
{
	int sock = ethtool_ctl_fd();

	return sock < 0 ? 0 : netns_cookie_of(sock);
}

int journal_ident_read(const char *ifname, struct journal_ident *id, struct rterr *err)
{
	int sock, attempt, r = 0;

	memset(id, 0, sizeof(*id));
	if (!jr_ifname_ok(ifname))
		return rterr_input(err, "invalid interface name '%s'", ifname ? ifname : "");
	snprintf(id->ifname, sizeof(id->ifname), "%s", ifname);
	snprintf(id->boot_id, sizeof(id->boot_id), "%s", jr_boot_id());
	sock = ethtool_ctl_fd();
	if (sock < 0)
		return rterr_sys(err, -sock, "%s: socket", ifname);
	id->netns_cookie = netns_cookie_of(sock);
	/* The ioctl goes by name: make sure the index we record is the device we asked. */
	for (attempt = 0; attempt < 3; attempt++) {
		id->ifindex = ethtool_name_to_index(ifname);
		if (!id->ifindex)
			break;
		r = read_perm_addr(sock, ifname, id->perm_addr, sizeof(id->perm_addr));
		if (r == 0 && ethtool_name_to_index(ifname) == id->ifindex)
			break;
		r = -EAGAIN;
	}
	if (!id->ifindex || r == -ENODEV)
		return rterr_sys(err, ENODEV, "no such interface: %s", ifname);
	if (r < 0)
		return rterr_sys(err, -r, "%s: renamed while reading its identity", ifname);
	return 0;
}

void journal_ident_host(struct journal_ident *id)
{
	memset(id, 0, sizeof(*id));
	snprintf(id->ifname, sizeof(id->ifname), "%s", KNOB_HOST_NAME);
	snprintf(id->boot_id, sizeof(id->boot_id), "%s", jr_boot_id());
	id->netns_cookie = jr_netns_cookie();
}

/*
 * The identity read goes by name: read under the current one until it names our device.
 * Under a rename storm most tries lose: the name is looked up while a rename holds the
 * RTNL, and the ethtool ioctl, which waits for the RTNL, then finds it gone (soak_rename
 * saw 16 tries in a row lose, 1 apply in 113). So the bound is time, not a count: tries go
 * on for IDENT_RENAME_MS (at least IDENT_RENAME_TRIES of them); a lost one costs about one
 * rename (~6 ms in soak_rename's storm), so that is some 30 tries. Kept short: callers
 * hold the journal lock (the daemon waits 300 ms for it) or run on rtltuned's loop.
 */
#define IDENT_RENAME_TRIES 16
#define IDENT_RENAME_MS	   200

int journal_ident_read_index(int ifindex, const char *was, struct journal_ident *id,
			     struct rterr *err)
{
	int64_t start = jr_mono_us();
	char now[IF_NAMESIZE];
	int r, tries;

	for (tries = 0; tries < IDENT_RENAME_TRIES || jr_mono_us() - start < IDENT_RENAME_MS * 1000;
	     tries++) {
		r = link_index_to_name(ifindex, now);
		if (r == -ENODEV)
			return rterr_sys(err, ENODEV, "interface %d (was %s) disappeared", ifindex,
					 was);
		if (r < 0)
			return rterr_sys(err, -r, "%s: name of ifindex %d", was, ifindex);
		r = journal_ident_read(now, id, err);
		if (r == 0 && id->ifindex == ifindex)
			return 0;
		if (r < 0 && r != -ENODEV && r != -EAGAIN)
			return r;
	}
	return rterr_sys(err, EAGAIN,
			 "%s: renamed %d times in %" PRId64 " ms while reading its identity", was,
			 tries, (jr_mono_us() - start) / 1000);
}

/* Every field equal: nothing to rewrite (name, ifindex, netns and boot move). */
bool jr_ident_equal(const struct journal_ident *a, const struct journal_ident *b)
{
	return !strcmp(a->ifname, b->ifname) && a->ifindex == b->ifindex &&
	       a->netns_cookie == b->netns_cookie && !strcmp(a->perm_addr, b->perm_addr) &&
	       !strcmp(a->boot_id, b->boot_id);
}

void jr_ident_describe(const struct journal_ident *id, char *buf, size_t len)
{
	if (journal_ident_is_host(id))
		snprintf(buf, len, "the host's own, netns %" PRIu64 ", boot %.8s", id->netns_cookie,
			 id->boot_id[0] ? id->boot_id : "?");
	else if (id->perm_addr[0])
		snprintf(buf, len, "%s, permanent address %s", id->ifname, id->perm_addr);
	else
		snprintf(buf, len, "%s, ifindex %d, netns %" PRIu64 ", boot %.8s", id->ifname,
			 id->ifindex, id->netns_cookie, id->boot_id[0] ? id->boot_id : "?");
}
