// SPDX-License-Identifier: GPL-2.0-only
/*
 * The parser of one napi-get reply of the netdev family (napi.h). Nothing here trusts a
 * length: the buffer may come from a capture or a fuzzer as well as the kernel. Each
 * attribute header must fit what is left of the message, each value its type's size;
 * scalars are read with memcpy, since a buffer need not be aligned.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <string.h>

#include "rtltune/napi.h"

static const struct {
	uint16_t attr;
	const char *name;
	const char *sysfs; /* under /sys/class/net/DEV/, NULL: netlink only */
	int64_t max;	   /* the napi-set policy's bound (net/core/netdev-genl-gen.c) */
} settings[NAPI_SETTING_COUNT] = {
	[NAPI_THREADED] = {RT_NETDEV_A_NAPI_THREADED, "threaded", "threaded", 2},
	[NAPI_DEFER_HARD_IRQS] = {RT_NETDEV_A_NAPI_DEFER_HARD_IRQS, "defer-hard-irqs",
				  "napi_defer_hard_irqs", INT32_MAX},
	[NAPI_GRO_FLUSH_TIMEOUT] = {RT_NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT, "gro-flush-timeout",
				    "gro_flush_timeout", INT64_MAX},
	[NAPI_IRQ_SUSPEND] = {RT_NETDEV_A_NAPI_IRQ_SUSPEND, "irq-suspend-timeout", NULL, INT64_MAX},
};

uint16_t napi_setting_attr(enum napi_setting s)
{
	return settings[s].attr;
}

const char *napi_setting_name(enum napi_setting s)
{
	return (unsigned int)s < NAPI_SETTING_COUNT ? settings[s].name : "?";
}

const char *napi_sysfs_file(enum napi_setting s)
{
	return (unsigned int)s < NAPI_SETTING_COUNT ? settings[s].sysfs : NULL;
}

int napi_list_has_irq(const struct napi_info *list, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (list[i].irq != NAPI_ABSENT)
			return 1;
	return 0;
}

/* A u32 or the family's variable "uint" (4 or 8 bytes), up to max; -EBADMSG otherwise. */
static int read_uint(const uint8_t *p, uint16_t len, int64_t max, int64_t *out)
{
	uint32_t v32;
	uint64_t v64;

	if (len == 4) {
		memcpy(&v32, p, sizeof(v32));
		v64 = v32;
	} else if (len == 8) {
		memcpy(&v64, p, sizeof(v64));
	} else {
		return -EBADMSG;
	}
	if (v64 > (uint64_t)max)
		return -EBADMSG;
	*out = (int64_t)v64;
	return 0;
}

static int setting_of(uint16_t type)
{
	int s;

	for (s = 0; s < NAPI_SETTING_COUNT; s++)
		if (settings[s].attr == type)
			return s;
	return -1;
}

int napi_parse_reply(const void *msg, size_t len, struct napi_info *out)
{
	const uint8_t *p = msg;
	struct nlmsghdr h;
	size_t off, end;
	int s;

	out->id = out->ifindex = out->irq = out->pid = NAPI_ABSENT;
	for (s = 0; s < NAPI_SETTING_COUNT; s++)
		out->set[s] = NAPI_ABSENT;
	if (len < NLMSG_HDRLEN + GENL_HDRLEN)
		return -EBADMSG;
	memcpy(&h, p, sizeof(h));
	if (h.nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN || h.nlmsg_len > len)
		return -EBADMSG;
	end = h.nlmsg_len;
	for (off = NLMSG_HDRLEN + GENL_HDRLEN; off < end;) {
		uint16_t alen, type;
		int64_t *dst = NULL, max = UINT32_MAX;
		int r;

		if (end - off < NLA_HDRLEN)
			return -EBADMSG;
		memcpy(&alen, p + off, sizeof(alen));
		memcpy(&type, p + off + 2, sizeof(type));
		if (alen < NLA_HDRLEN || alen > end - off)
			return -EBADMSG;
		type &= NLA_TYPE_MASK;
		switch (type) {
		case RT_NETDEV_A_NAPI_ID:
			dst = &out->id;
			break;
		case RT_NETDEV_A_NAPI_IFINDEX:
			dst = &out->ifindex, max = INT32_MAX;
			break;
		case RT_NETDEV_A_NAPI_IRQ:
			dst = &out->irq;
			break;
		case RT_NETDEV_A_NAPI_PID:
			dst = &out->pid;
			break;
		default:
			s = setting_of(type);
			if (s >= 0)
				dst = &out->set[s], max = settings[s].max;
		}
		if (dst) {
			r = read_uint(p + off + NLA_HDRLEN, (uint16_t)(alen - NLA_HDRLEN), max,
				      dst);
			if (r < 0)
				return r;
		}
		/* The last attribute's padding may be missing: the message ends at end. */
		off += (size_t)NLA_ALIGN(alen) < end - off ? (size_t)NLA_ALIGN(alen) : end - off;
	}
	/* Every napi-get reply names its NAPI and device. */
	return out->id == NAPI_ABSENT || out->ifindex == NAPI_ABSENT ? -EBADMSG : 0;
}
