#!/usr/bin/env python3
"""Save RTM_NEWLINK messages as the kernel sends them, one file each, as fuzz seeds.

Usage: capture_links.py OUTDIR [FLAPS]   (run inside a network namespace the caller made)
Writes every message of one RTM_GETLINK dump (dump-N), then listens on RTNLGRP_LINK while
the caller's links change and writes up to FLAPS notifications (event-N): the two shapes
link_info_from_msg() is fed by the link dump and the link monitor.
"""
import os
import select
import socket
import struct
import sys

RTM_NEWLINK, RTM_GETLINK, NLMSG_DONE, NLMSG_ERROR = 16, 18, 3, 2
NLM_F_REQUEST, NLM_F_DUMP = 1, 0x300
RTNLGRP_LINK = 1


def messages(data):
    off = 0
    while off + 16 <= len(data):
        length, mtype = struct.unpack_from("IH", data, off)
        if length < 16 or off + length > len(data):
            break
        yield mtype, data[off:off + length]
        off += (length + 3) & ~3


def main():
    out = sys.argv[1]
    flaps = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    os.makedirs(out, exist_ok=True)
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    body = struct.pack("BxHiII", 0, 0, 0, 0, 0)
    s.send(struct.pack("IHHII", 16 + len(body), RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, 1, 0)
           + body)
    n, done = 0, False
    while not done:
        for mtype, msg in messages(s.recv(1 << 20)):
            if mtype in (NLMSG_DONE, NLMSG_ERROR):
                done = True
                break
            if mtype == RTM_NEWLINK:
                with open(os.path.join(out, f"dump-{n}"), "wb") as f:
                    f.write(msg)
                n += 1
    print(f"dump: {n} messages")
    if not flaps:
        return
    m = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    m.bind((0, 1 << (RTNLGRP_LINK - 1)))
    sys.stdout.write("listening\n")
    sys.stdout.flush()
    got = 0
    while got < flaps:
        r, _, _ = select.select([m], [], [], 5)
        if not r:
            break
        for mtype, msg in messages(m.recv(1 << 20)):
            if mtype == RTM_NEWLINK and got < flaps:
                with open(os.path.join(out, f"event-{got}"), "wb") as f:
                    f.write(msg)
                got += 1
    print(f"events: {got} messages")


main()
