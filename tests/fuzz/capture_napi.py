#!/usr/bin/env python3
"""Save netdev generic-netlink napi-get replies as the kernel sends them, one message a file.

Usage: capture_napi.py FIXTURES CORPUS        (root)

The files are the unit tests' fixtures (tests/unit/fixtures/napi/) and the fuzz seeds of
fuzz_napi (tests/fuzz/corpus/napi/). Written independently of lib/netdev/napi*.c, from the uapi
numbers (include/uapi/linux/netdev.h), so a parser bug cannot shape its own test input.

The host's eth0 is only read (napi-get). Everything that writes runs in a network
namespace this script creates and deletes: a veth pair whose va has GRO on (so it has a
NAPI), with per-NAPI settings changed by napi-set before the capture. MANIFEST says what
each file holds and the values set, which the unit tests check.
"""
import os
import socket
import struct
import subprocess
import sys

NETLINK_GENERIC, SOL_NETLINK, NETLINK_EXT_ACK = 16, 270, 11
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
NAPI_GET, NAPI_SET = 11, 14
A_IFINDEX, A_ID, A_DEFER, A_GRO_FLUSH, A_SUSPEND, A_THREADED = 1, 2, 5, 6, 7, 8
NS = "rtltune-capnapi"


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


class Genl:
    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        self.s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.s.bind((0, 0))
        self.seq = 1

    def request(self, family, cmd, flags, payload):
        self.seq += 1
        body = struct.pack("BBH", cmd, 1, 0) + payload
        self.s.send(struct.pack("IHHII", 16 + len(body), family, NLM_F_REQUEST | flags,
                                self.seq, 0) + body)
        msgs = []
        while True:
            data = self.s.recv(65536)
            off = 0
            while off < len(data):
                mlen, mtype = struct.unpack_from("IH", data, off)
                msg = data[off:off + mlen]
                off += (mlen + 3) & ~3
                if mtype == NLMSG_ERROR:
                    err = struct.unpack_from("i", msg, 16)[0]
                    if err:
                        raise OSError(-err, "netlink request refused")
                    return msgs
                if mtype == NLMSG_DONE:
                    return msgs
                msgs.append(msg)

    def family(self, name):
        reply = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK,
                             attr(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
        return struct.unpack("H", attrs(reply[0][20:])[CTRL_ATTR_FAMILY_ID][:2])[0]


def save(fixtures, corpus, name, msg, what):
    for d in (fixtures, corpus):
        with open(os.path.join(d, name + ".msg"), "wb") as f:
            f.write(msg)
    return "%s.msg: %s" % (name, what)


def inner(fixtures, corpus):
    # Host-wide sysctls exist in the initial namespace only (net/core/sysctl_net_core.c).
    if os.path.exists("/proc/sys/net/core/netdev_max_backlog"):
        sys.exit("capture_napi.py: the writing part refuses the root namespace")
    nl = Genl()
    fam = nl.family("netdev")
    va = socket.if_nametoindex("va")
    napis = nl.request(fam, NAPI_GET, NLM_F_DUMP, attr(A_IFINDEX, struct.pack("I", va)))
    napi_id = struct.unpack("I", attrs(napis[0][20:])[A_ID][:4])[0]
    lines = [save(fixtures, corpus, "veth_gro_default", napis[0],
                  "napi-get of va (veth, GRO on), kernel defaults: threaded 0, defer 0, "
                  "gro-flush 0, suspend 0")]
    nl.request(fam, NAPI_SET, NLM_F_ACK,
               attr(A_ID, struct.pack("I", napi_id)) + attr(A_THREADED, struct.pack("I", 1)) +
               attr(A_DEFER, struct.pack("I", 7)) +
               attr(A_GRO_FLUSH, struct.pack("Q", 250000)) +
               attr(A_SUSPEND, struct.pack("Q", 3000000)))
    napis = nl.request(fam, NAPI_GET, NLM_F_DUMP, attr(A_IFINDEX, struct.pack("I", va)))
    lines.append(save(fixtures, corpus, "veth_gro_set", napis[0],
                      "napi-get of va after napi-set: threaded 1 (a pid), defer 7, "
                      "gro-flush 250000, suspend 3000000"))
    return lines


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--inner":
        for line in inner(sys.argv[2], sys.argv[3]):
            print(line)
        return
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    fixtures, corpus = (os.path.abspath(p) for p in sys.argv[1:3])
    for d in (fixtures, corpus):
        os.makedirs(d, exist_ok=True)
    lines = []
    nl = Genl()
    fam = nl.family("netdev")
    eth0 = nl.request(fam, NAPI_GET, NLM_F_DUMP,
                      attr(A_IFINDEX, struct.pack("I", socket.if_nametoindex("eth0"))))
    if eth0:
        lines.append(save(fixtures, corpus, "eth0_virtio", eth0[0],
                          "napi-get of the host's eth0 (virtio_net), read only"))
    subprocess.run(["ip", "netns", "add", NS], check=True)
    try:
        ip = ["ip", "-n", NS]
        subprocess.run(ip + ["link", "add", "va", "type", "veth", "peer", "name", "vb"],
                       check=True)
        subprocess.run(ip + ["link", "set", "va", "up"], check=True)
        subprocess.run(ip + ["link", "set", "vb", "up"], check=True)
        subprocess.run(["ip", "netns", "exec", NS, "ethtool", "-K", "va", "gro", "on"],
                       check=True)
        out = subprocess.run(["ip", "netns", "exec", NS, sys.executable, __file__, "--inner",
                              fixtures, corpus], check=True, capture_output=True, text=True)
        lines += out.stdout.splitlines()
    finally:
        subprocess.run(["ip", "netns", "del", NS], check=False)
    with open(os.path.join(fixtures, "MANIFEST"), "w") as f:
        f.write("Captured by tests/fuzz/capture_napi.py on Linux %s\n" % os.uname().release)
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
