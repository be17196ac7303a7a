#!/usr/bin/env python3
"""Print a device's NAPIs straight from the netdev generic netlink family (napi-get), as
an independent check of rtltune's lib/netdev/napi*.c: one line per NAPI,
"id=N threaded=T pid=P defer=D gro_flush=G suspend=S" (an attribute the kernel did not
send prints as "-"). Usage: napi_get.py IFNAME (in the caller's netns).
"""
import socket
import struct
import sys

NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 0x10, 3, 1, 2
NAPI_GET = 11
FIELDS = [("id", 2), ("threaded", 8), ("pid", 4), ("defer", 5), ("gro_flush", 6),
          ("suspend", 7)]


def attr(atype, data):
    a = struct.pack("HH", 4 + len(data), atype) + data
    return a + b"\0" * ((4 - len(a) % 4) % 4)


def attrs(buf):
    out, off = {}, 0
    while off + 4 <= len(buf):
        alen, atype = struct.unpack_from("HH", buf, off)
        out[atype & 0x3FFF] = buf[off + 4:off + alen]
        off += (alen + 3) & ~3
    return out


def request(s, family, cmd, flags, payload, seq):
    body = struct.pack("BBH", cmd, 1, 0) + payload
    s.send(struct.pack("IHHII", 16 + len(body), family, NLM_F_REQUEST | flags, seq, 0) + body)
    msgs = []
    while True:
        data = s.recv(65536)
        off = 0
        while off < len(data):
            mlen, mtype = struct.unpack_from("IH", data, off)
            msg = data[off:off + mlen]
            off += (mlen + 3) & ~3
            if mtype == NLMSG_ERROR:
                err = struct.unpack_from("i", msg, 16)[0]
                if err:
                    sys.exit("napi_get.py: kernel refused: errno %d" % -err)
                return msgs
            if mtype == NLMSG_DONE:
                return msgs
            msgs.append(msg)


def main():
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
    s.bind((0, 0))
    reply = request(s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK,
                    attr(CTRL_ATTR_FAMILY_NAME, b"netdev\0"), 1)
    fam = struct.unpack("H", attrs(reply[0][20:])[CTRL_ATTR_FAMILY_ID][:2])[0]
    ifindex = socket.if_nametoindex(sys.argv[1])
    for msg in request(s, fam, NAPI_GET, NLM_F_DUMP, attr(1, struct.pack("I", ifindex)), 2):
        a = attrs(msg[20:])
        vals = []
        for name, t in FIELDS:
            v = a.get(t)
            vals.append("%s=%s" % (name, "-" if v is None else
                                   struct.unpack("Q" if len(v) == 8 else "I", v)[0]))
        print(" ".join(vals))


if __name__ == "__main__":
    main()
