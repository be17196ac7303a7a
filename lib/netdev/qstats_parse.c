// SPDX-License-Identifier: GPL-2.0-only
/*
 * The parser of one qstats-get reply of the netdev family (qstats.h). Nothing here trusts a
 * length: the buffer may come from a capture or a fuzzer as well as the kernel. Each
 * attribute header must fit what is left of the message, each value its type's size;
 * scalars are read with memcpy, since a buffer need not be aligned.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <string.h>

#include "rtltune/qstats.h"

/* The spec's doc of each counter (Documentation/netlink/specs/netdev.yaml), shortened. */
static const struct {
	const char *name, *key, *help;
} stats[QSTAT_COUNT] = {
#define Q(id, name, key, help) [id] = {name, key, help}
	Q(QSTAT_RX_PACKETS, "rx-packets", "rx_packets",
	  "Packets received and passed to the stack (XDP counts as the stack)."),
	Q(QSTAT_RX_BYTES, "rx-bytes", "rx_bytes", "Bytes of those packets."),
	Q(QSTAT_TX_PACKETS, "tx-packets", "tx_packets",
	  "Packets sent: in device memory (DMA completion)."),
	Q(QSTAT_TX_BYTES, "tx-bytes", "tx_bytes", "Bytes of those packets."),
	Q(QSTAT_RX_ALLOC_FAIL, "rx-alloc-fail", "rx_alloc_fail",
	  "Times an skb or buffer allocation failed on the receive path (a drop or not, by "
	  "driver)."),
	Q(QSTAT_RX_HW_DROPS, "rx-hw-drops", "rx_hw_drops",
	  "Packets that entered the device and never left it (no buffer, errors, policies, "
	  "filters)."),
	Q(QSTAT_RX_HW_DROP_OVERRUNS, "rx-hw-drop-overruns", "rx_hw_drop_overruns",
	  "Packets the device dropped for a transient lack of resources (buffers, "
	  "descriptors): ring overruns."),
	Q(QSTAT_RX_CSUM_COMPLETE, "rx-csum-complete", "rx_csum_complete",
	  "Packets marked CHECKSUM_COMPLETE."),
	Q(QSTAT_RX_CSUM_UNNECESSARY, "rx-csum-unnecessary", "rx_csum_unnecessary",
	  "Packets marked CHECKSUM_UNNECESSARY."),
	Q(QSTAT_RX_CSUM_NONE, "rx-csum-none", "rx_csum_none",
	  "Packets the device did not checksum."),
	Q(QSTAT_RX_CSUM_BAD, "rx-csum-bad", "rx_csum_bad",
	  "Packets with a bad checksum (delivered all the same)."),
	Q(QSTAT_RX_HW_GRO_PACKETS, "rx-hw-gro-packets", "rx_hw_gro_packets",
	  "Packets the device coalesced from smaller ones (HW-GRO, not LRO)."),
	Q(QSTAT_RX_HW_GRO_BYTES, "rx-hw-gro-bytes", "rx_hw_gro_bytes",
	  "Bytes of those coalesced packets."),
	Q(QSTAT_RX_HW_GRO_WIRE_PACKETS, "rx-hw-gro-wire-packets", "rx_hw_gro_wire_packets",
	  "Wire packets the device coalesced into bigger ones (HW-GRO)."),
	Q(QSTAT_RX_HW_GRO_WIRE_BYTES, "rx-hw-gro-wire-bytes", "rx_hw_gro_wire_bytes",
	  "Bytes of those wire packets."),
	Q(QSTAT_RX_HW_DROP_RATELIMITS, "rx-hw-drop-ratelimits", "rx_hw_drop_ratelimits",
	  "Packets the device dropped for exceeding its receive rate limit."),
	Q(QSTAT_TX_HW_DROPS, "tx-hw-drops", "tx_hw_drops",
	  "Packets that arrived at the device and never left it (errors, policies, filters)."),
	Q(QSTAT_TX_HW_DROP_ERRORS, "tx-hw-drop-errors", "tx_hw_drop_errors",
	  "Packets dropped as invalid or malformed."),
	Q(QSTAT_TX_CSUM_NONE, "tx-csum-none", "tx_csum_none",
	  "Packets that needed no checksum from the device."),
	Q(QSTAT_TX_NEEDS_CSUM, "tx-needs-csum", "tx_needs_csum",
	  "Packets the device had to checksum."),
	Q(QSTAT_TX_HW_GSO_PACKETS, "tx-hw-gso-packets", "tx_hw_gso_packets",
	  "Packets the device segmented (hardware GSO/TSO)."),
	Q(QSTAT_TX_HW_GSO_BYTES, "tx-hw-gso-bytes", "tx_hw_gso_bytes", "Bytes of those packets."),
	Q(QSTAT_TX_HW_GSO_WIRE_PACKETS, "tx-hw-gso-wire-packets", "tx_hw_gso_wire_packets",
	  "Wire-sized packets the device made of them."),
	Q(QSTAT_TX_HW_GSO_WIRE_BYTES, "tx-hw-gso-wire-bytes", "tx_hw_gso_wire_bytes",
	  "Bytes of those wire packets."),
	Q(QSTAT_TX_HW_DROP_RATELIMITS, "tx-hw-drop-ratelimits", "tx_hw_drop_ratelimits",
	  "Packets the device dropped for exceeding its transmit rate limit."),
	Q(QSTAT_TX_STOP, "tx-stop", "tx_stop",
	  "Times the driver stopped a transmit queue because it was full."),
	Q(QSTAT_TX_WAKE, "tx-wake", "tx_wake",
	  "Times the driver restarted a stopped transmit queue."),
#undef Q
};

const char *qstat_name(enum qstat s)
{
	return (unsigned int)s < QSTAT_COUNT ? stats[s].name : "?";
}

const char *qstat_key(enum qstat s)
{
	return (unsigned int)s < QSTAT_COUNT ? stats[s].key : "?";
}

const char *qstat_help(enum qstat s)
{
	return (unsigned int)s < QSTAT_COUNT ? stats[s].help : "?";
}

bool qstat_is_bytes(enum qstat s)
{
	return s == QSTAT_RX_BYTES || s == QSTAT_TX_BYTES || s == QSTAT_RX_HW_GRO_BYTES ||
	       s == QSTAT_RX_HW_GRO_WIRE_BYTES || s == QSTAT_TX_HW_GSO_BYTES ||
	       s == QSTAT_TX_HW_GSO_WIRE_BYTES;
}

static int read_u32(const uint8_t *p, uint16_t len, uint32_t *out)
{
	if (len != 4)
		return -EBADMSG;
	memcpy(out, p, sizeof(*out));
	return 0;
}

/* The family's variable "uint": 4 or 8 bytes. */
static int read_uint(const uint8_t *p, uint16_t len, uint64_t *out)
{
	uint32_t v32;

	if (len == 8) {
		memcpy(out, p, sizeof(*out));
		return 0;
	}
	if (read_u32(p, len, &v32) < 0)
		return -EBADMSG;
	*out = v32;
	return 0;
}

int qstats_parse_reply(const void *msg, size_t len, struct qstats *out)
{
	bool have_type = false, have_id = false;
	const uint8_t *p = msg;
	uint32_t ifindex = 0, qtype = 0;
	struct nlmsghdr h;
	size_t off, end;

	memset(out, 0, sizeof(*out));
	out->queue_type = QSTATS_DEVICE;
	if (len < NLMSG_HDRLEN + GENL_HDRLEN)
		return -EBADMSG;
	memcpy(&h, p, sizeof(h));
	if (h.nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN || h.nlmsg_len > len)
		return -EBADMSG;
	end = h.nlmsg_len;
	for (off = NLMSG_HDRLEN + GENL_HDRLEN; off < end;) {
		const uint8_t *val;
		uint16_t alen, type, vlen;
		int r = 0;

		if (end - off < NLA_HDRLEN)
			return -EBADMSG;
		memcpy(&alen, p + off, sizeof(alen));
		memcpy(&type, p + off + 2, sizeof(type));
		if (alen < NLA_HDRLEN || alen > end - off)
			return -EBADMSG;
		type &= NLA_TYPE_MASK;
		val = p + off + NLA_HDRLEN;
		vlen = (uint16_t)(alen - NLA_HDRLEN);
		if (type == RT_NETDEV_A_QSTATS_IFINDEX) {
			r = read_u32(val, vlen, &ifindex);
		} else if (type == RT_NETDEV_A_QSTATS_QUEUE_TYPE) {
			r = read_u32(val, vlen, &qtype);
			have_type = true;
		} else if (type == RT_NETDEV_A_QSTATS_QUEUE_ID) {
			r = read_u32(val, vlen, &out->queue_id);
			have_id = true;
		} else if (type >= RT_NETDEV_A_QSTATS_RX_PACKETS &&
			   type < RT_NETDEV_A_QSTATS_RX_PACKETS + QSTAT_COUNT) {
			unsigned int s = type - RT_NETDEV_A_QSTATS_RX_PACKETS;

			r = read_uint(val, vlen, &out->val[s]);
			out->have |= 1u << s;
		}
		if (r < 0)
			return r;
		/* The last attribute's padding may be missing: the message ends at end. */
		off += (size_t)NLA_ALIGN(alen) < end - off ? (size_t)NLA_ALIGN(alen) : end - off;
	}
	/* Every reply names its device; a queue's names its type and number too. */
	if (ifindex < 1 || ifindex > INT32_MAX || have_type != have_id ||
	    (have_type && qtype != RT_NETDEV_QUEUE_TYPE_RX && qtype != RT_NETDEV_QUEUE_TYPE_TX))
		return -EBADMSG;
	out->ifindex = (int)ifindex;
	if (have_type)
		out->queue_type = (int)qtype;
	return 0;
}
