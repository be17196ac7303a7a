#!/usr/bin/env python3
"""Save netdev generic-netlink qstats-get replies as the kernel sends them, one message a file.

Usage: capture_qstats.py FIXTURES CORPUS        (root not needed: qstats-get is a read)

The files are the unit tests' fixtures (tests/unit/fixtures/qstats/) and the fuzz seeds of
fuzz_qstats (tests/fuzz/corpus/qstats/). Written independently of lib/netdev/qstats*.c,
from the uapi numbers (include/uapi/linux/netdev.h), so a parser bug cannot shape its own
test input.

Only reads: qstats-get of the host's eth0 (virtio_net here), per device and per queue, and
of a veth pair in a network namespace this script creates and deletes (veth has no queue
stats: the dump answers nothing). MANIFEST says what each file holds and, for the unit
tests, the attributes the kernel put in each message.
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
QSTATS_GET = 12
A_IFINDEX, A_QUEUE_TYPE, A_QUEUE_ID, A_SCOPE = 1, 2, 3, 4
SCOPE_QUEUE = 1
# enum of NETDEV_A_QSTATS_* from 8 on, in order (include/uapi/linux/netdev.h, 6.18).
NAMES = ["rx-packets", "rx-bytes", "tx-packets", "tx-bytes", "rx-alloc-fail", "rx-hw-drops",
         "rx-hw-drop-overruns", "rx-csum-complete", "rx-csum-unnecessary", "rx-csum-none",
         "rx-csum-bad", "rx-hw-gro-packets", "rx-hw-gro-bytes", "rx-hw-gro-wire-packets",
         "rx-hw-gro-wire-bytes", "rx-hw-drop-ratelimits", "tx-hw-drops", "tx-hw-drop-errors",
         "tx-csum-none", "tx-needs-csum", "tx-hw-gso-packets", "tx-hw-gso-bytes",
         "tx-hw-gso-wire-packets", "tx-hw-gso-wire-bytes", "tx-hw-drop-ratelimits", "tx-stop",
         "tx-wake"]
NS = "rtltune-capqstats"


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


def describe(msg):
    """The attributes of one reply as 'name=value' words, for MANIFEST."""
    words = []
    for t, v in sorted(attrs(msg[20:]).items()):
        val = struct.unpack("I" if len(v) == 4 else "Q", v)[0] if len(v) in (4, 8) else None
        if t == A_IFINDEX:
            words.append("ifindex=%d" % val)
        elif t == A_QUEUE_TYPE:
            words.append("queue-type=%s" % ("rx", "tx")[val])
        elif t == A_QUEUE_ID:
            words.append("queue-id=%d" % val)
        elif 8 <= t < 8 + len(NAMES):
            words.append("%s=%d" % (NAMES[t - 8], val))
        else:
            words.append("attr%d(%d bytes)" % (t, len(v)))
    return " ".join(words)


def save(fixtures, corpus, name, msg):
    for d in (fixtures, corpus):
        with open(os.path.join(d, name + ".msg"), "wb") as f:
            f.write(msg)
    return "%s.msg: %s" % (name, describe(msg))


def dump(nl, fam, ifindex, per_queue):
    payload = attr(A_IFINDEX, struct.pack("I", ifindex))
    if per_queue:
        payload += attr(A_SCOPE, struct.pack("I", SCOPE_QUEUE))
    return nl.request(fam, QSTATS_GET, NLM_F_DUMP, payload)


def inner():
    nl = Genl()
    fam = nl.family("netdev")
    va = socket.if_nametoindex("va")
    print("veth: %d device messages, %d queue messages" %
          (len(dump(nl, fam, va, False)), len(dump(nl, fam, va, True))))


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--inner":
        inner()
        return
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    fixtures, corpus = (os.path.abspath(p) for p in sys.argv[1:3])
    for d in (fixtures, corpus):
        os.makedirs(d, exist_ok=True)
    nl = Genl()
    fam = nl.family("netdev")
    eth0 = socket.if_nametoindex("eth0")
    lines = []
    dev = dump(nl, fam, eth0, False)
    if len(dev) != 1:
        sys.exit("capture_qstats.py: eth0 answered %d device messages, not 1" % len(dev))
    lines.append(save(fixtures, corpus, "eth0_device", dev[0]))
    for msg in dump(nl, fam, eth0, True):
        a = attrs(msg[20:])
        qtype = ("rx", "tx")[struct.unpack("I", a[A_QUEUE_TYPE])[0]]
        qid = struct.unpack("I", a[A_QUEUE_ID])[0]
        lines.append(save(fixtures, corpus, "eth0_%s%d" % (qtype, qid), msg))
    subprocess.run(["ip", "netns", "add", NS], check=True)
    try:
        ip = ["ip", "-n", NS]
        subprocess.run(ip + ["link", "add", "va", "type", "veth", "peer", "name", "vb"],
                       check=True)
        subprocess.run(ip + ["link", "set", "va", "up"], check=True)
        out = subprocess.run(["ip", "netns", "exec", NS, sys.executable, __file__, "--inner"],
                             check=True, capture_output=True, text=True)
        lines += out.stdout.splitlines()
    finally:
        subprocess.run(["ip", "netns", "del", NS], check=False)
    with open(os.path.join(fixtures, "MANIFEST"), "w") as f:
        f.write("Captured by tests/fuzz/capture_qstats.py on Linux %s (read only)\n" %
                os.uname().release)
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
