#!/usr/bin/env python3
"""Print link attributes straight from rtnetlink, as an independent check of rtltune.

iproute2 6.1 (Debian 12) neither sets nor prints gso_ipv4_max_size/gro_ipv4_max_size, so
tests read them here. Usage: linkattr.py IFNAME [ATTR...]  (runs in the caller's netns)
Prints "name value" lines; a value the kernel does not send prints as "null".
"""
import socket
import struct
import sys

NAMES = {
    4: "mtu", 40: "gso_max_segs", 41: "gso_max_size", 50: "min_mtu", 51: "max_mtu",
    58: "gro_max_size", 59: "tso_max_size", 60: "tso_max_segs",
    63: "gso_ipv4_max_size", 64: "gro_ipv4_max_size",
}
RTM_GETLINK, RTM_NEWLINK, NLMSG_ERROR = 18, 16, 2
IFLA_IFNAME = 3


def getlink(ifname):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    name = ifname.encode() + b"\0"
    attr = struct.pack("HH", 4 + len(name), IFLA_IFNAME) + name
    attr += b"\0" * ((4 - len(attr) % 4) % 4)
    body = struct.pack("BxHiII", 0, 0, 0, 0, 0) + attr
    s.send(struct.pack("IHHII", 16 + len(body), RTM_GETLINK, 1, 1, 0) + body)
    data = s.recv(65536)
    length, mtype = struct.unpack_from("IH", data)
    if mtype == NLMSG_ERROR:
        err = -struct.unpack_from("i", data, 16)[0]
        sys.exit(f"linkattr: {ifname}: errno {err}")
    attrs, off = {}, 16 + 16
    while off + 4 <= length:
        alen, atype = struct.unpack_from("HH", data, off)
        if alen < 4:
            break
        payload = data[off + 4:off + alen]
        if (atype & 0x3FFF) in NAMES and len(payload) >= 4:
            attrs[NAMES[atype & 0x3FFF]] = struct.unpack_from("I", payload)[0]
        off += (alen + 3) & ~3
    return attrs


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    attrs = getlink(sys.argv[1])
    for name in sys.argv[2:] or sorted(NAMES.values()):
        print(name, attrs.get(name, "null"))


if __name__ == "__main__":
    main()
