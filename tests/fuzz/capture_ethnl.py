#!/usr/bin/env python3
"""Save ethtool generic-netlink replies as the kernel sends them, one message per file.

Usage: capture_ethnl.py FIXTURES CORPUS [NIC]        (root; NIC defaults to eth0)

The files are the unit tests' fixtures (tests/unit/fixtures/ethnl/) and the fuzz seeds of
fuzz_ethnl (tests/fuzz/corpus/ethnl/). Written independently of lib/netdev/ethnl*.c, from the
uapi numbers, so a parser bug cannot shape its own test input.

NIC (the host's real NIC, virtio_net here) gets GET requests only. Everything that writes
runs in a network namespace this script creates and deletes: a veth pair with 4 queues
(channels settable), a tap device (coalesce rx-frames settable). The inner part refuses to
run in the root namespace. Next to each capture NAME.msg the outputs of ethtool(8) taken at
the same moment go to NAME.ethtool, so the tests' expected values can be checked by eye;
MANIFEST says what each file is.
"""
import os
import select
import socket
import struct
import subprocess
import sys

NETLINK_GENERIC, SOL_NETLINK = 16, 270
NETLINK_ADD_MEMBERSHIP, NETLINK_CAP_ACK, NETLINK_EXT_ACK = 1, 10, 11
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLA_F_NESTED = 0x8000
GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_CMD_GETPOLICY = 0x10, 3, 10
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME, CTRL_ATTR_MCAST_GROUPS = 1, 2, 7
CTRL_ATTR_POLICY, CTRL_ATTR_OP = 8, 10

# include/uapi/linux/ethtool_netlink_generated.h (6.18)
MSG = dict(STRSET_GET=1, FEATURES_GET=11, FEATURES_SET=12, RINGS_GET=15, RINGS_SET=16,
           CHANNELS_GET=17, CHANNELS_SET=18, COALESCE_GET=19, COALESCE_SET=20,
           PAUSE_GET=21, PAUSE_SET=22)
HEADER, HDR_DEV_INDEX, HDR_FLAGS = 1, 1, 3
FLAG_COMPACT = 1
ETH_SS_FEATURES = 4
CHANNELS_RX_COUNT = 6
COALESCE_RX_MAX_FRAMES = 3
FEATURES_WANTED = 3
BITSET_SIZE, BITSET_VALUE, BITSET_MASK = 2, 4, 5

manifest = []


def attr(atype, data):
    a = struct.pack("HH", 4 + len(data), atype) + data
    return a + b"\0" * ((4 - len(a) % 4) % 4)


def nest(atype, *parts):
    return attr(atype | NLA_F_NESTED, b"".join(parts))


def u32(atype, v):
    return attr(atype, struct.pack("I", v))


def attrs(data):
    off, out = 0, {}
    while off + 4 <= len(data):
        alen, atype = struct.unpack_from("HH", data, off)
        if alen < 4:
            break
        out.setdefault(atype & 0x3FFF, []).append(data[off + 4:off + alen])
        off += (alen + 3) & ~3
    return out


def messages(data):
    off = 0
    while off + 16 <= len(data):
        length, mtype, flags, seq = struct.unpack_from("IHHI", data, off)
        if length < 16 or off + length > len(data):
            break
        yield mtype, flags, seq, data[off:off + length]
        off += (length + 3) & ~3


class Genl:
    def __init__(self, cap_ack=False):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        self.s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        if cap_ack:
            self.s.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.seq = 100
        self.family, self.groups = self.resolve("ethtool")

    def send(self, mtype, cmd, payload, flags=NLM_F_REQUEST):
        self.seq += 1
        body = struct.pack("BBH", cmd, 1, 0) + payload
        self.s.send(struct.pack("IHHII", 16 + len(body), mtype, flags, self.seq, 0) + body)
        return self.seq

    def call(self, mtype, cmd, payload, flags=NLM_F_REQUEST):
        """Every message answering one request, until an error/ACK or (no ACK asked) the reply."""
        seq = self.send(mtype, cmd, payload, flags)
        got = []
        while True:
            for t, _, s, msg in messages(self.s.recv(1 << 20)):
                if s != seq:
                    continue
                got.append(msg)
                if t in (NLMSG_ERROR, NLMSG_DONE) or not flags & (NLM_F_ACK | NLM_F_DUMP):
                    return got

    def resolve(self, name):
        self.family = GENL_ID_CTRL
        reply = self.call(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                          attr(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))[0]
        if struct.unpack_from("H", reply, 4)[0] == NLMSG_ERROR:
            sys.exit(f"capture_ethnl: no genl family {name}")
        a = attrs(reply[20:])
        groups = {}
        for g in attrs(a[CTRL_ATTR_MCAST_GROUPS][0]).values():
            ga = attrs(g[0])
            groups[ga[1][0].rstrip(b"\0").decode()] = struct.unpack("I", ga[2][0])[0]
        return struct.unpack("H", a[CTRL_ATTR_FAMILY_ID][0][:2])[0], groups

    def eth(self, cmd, ifindex, *parts, flags=0, ack=False):
        hdr = nest(HEADER, u32(HDR_DEV_INDEX, ifindex), u32(HDR_FLAGS, flags))
        return self.call(self.family, MSG[cmd], hdr + b"".join(parts),
                         NLM_F_REQUEST | (NLM_F_ACK if ack else 0))

    def set_policy_max(self, cmd):
        """Highest attribute the running kernel's policy for cmd (a SET) accepts."""
        seq = self.send(GENL_ID_CTRL, CTRL_CMD_GETPOLICY,
                        attr(CTRL_ATTR_FAMILY_ID, struct.pack("H", self.family)) +
                        u32(CTRL_ATTR_OP, MSG[cmd]), NLM_F_REQUEST | NLM_F_DUMP)
        top = 0
        while True:
            for t, _, s, msg in messages(self.s.recv(1 << 20)):
                if s != seq:
                    continue
                if t in (NLMSG_ERROR, NLMSG_DONE):
                    return top
                pol = attrs(msg[20:]).get(CTRL_ATTR_POLICY)
                if pol:
                    for idx, body in attrs(pol[0]).items():
                        if idx == 0:  # policy 0 is the command's own; others are nests
                            top = max([top] + list(attrs(body[0]).keys()))


def ifindex(name):
    return socket.if_nametoindex(name)


def ethtool_text(args):
    r = subprocess.run(["ethtool"] + args, capture_output=True, text=True)
    return f"$ ethtool {' '.join(args)}   (exit {r.returncode})\n{r.stdout}{r.stderr}\n"


def save(outdir, name, msgs, what, ethtool=None):
    """The last message answering a request: a GET's reply (no ACK asked) or the error."""
    msg = msgs[-1]
    with open(os.path.join(outdir, name + ".msg"), "wb") as f:
        f.write(msg)
    if ethtool:
        with open(os.path.join(outdir, name + ".ethtool"), "w") as f:
            f.write("".join(ethtool_text(a) for a in ethtool))
    manifest.append(f"{name}.msg\t{len(msg)} bytes\t{what}")


def save_first(outdir, name, msgs, what, ethtool=None):
    save(outdir, name, msgs[:1], what, ethtool)


def nic_captures(out, nic):
    g = Genl()
    i = ifindex(nic)
    manifest.append(f"# {nic} (ifindex {i} at capture): GET requests only")
    save(out, f"{nic}-rings", g.eth("RINGS_GET", i), f"RINGS_GET_REPLY of {nic}",
         [["-g", nic]])
    save(out, f"{nic}-coalesce", g.eth("COALESCE_GET", i), f"COALESCE_GET_REPLY of {nic}",
         [["-c", nic]])
    save(out, f"{nic}-channels", g.eth("CHANNELS_GET", i), f"CHANNELS_GET_REPLY of {nic}",
         [["-l", nic]])
    save(out, f"{nic}-pause", g.eth("PAUSE_GET", i), f"PAUSE_GET of {nic}: reply or error",
         [["-a", nic]])
    save(out, f"{nic}-features-compact", g.eth("FEATURES_GET", i, flags=FLAG_COMPACT),
         f"FEATURES_GET_REPLY of {nic}, compact bitsets", [["-k", nic]])
    save(out, f"{nic}-features-verbose", g.eth("FEATURES_GET", i),
         f"FEATURES_GET_REPLY of {nic}, verbose bitsets (names)", [["-k", nic]])
    save(out, "strset-features", strset_features(g),
         "STRSET_GET_REPLY, ETH_SS_FEATURES, no device")
    save(out, "strset-nohdr-err",
         g.call(g.family, MSG["STRSET_GET"], nest(2, nest(1, u32(1, ETH_SS_FEATURES)))),
         "STRSET_GET without a header: EINVAL, NLMSGERR_ATTR_MISS_TYPE, request echoed")
    lines = [f"{c} {g.set_policy_max(c)}" for c in
             ("RINGS_SET", "COALESCE_SET", "CHANNELS_SET", "PAUSE_SET", "FEATURES_SET")]
    with open(os.path.join(out, "policy.txt"), "w") as f:
        f.write(f"# highest attribute in each SET policy of {os.uname().release}\n")
        f.write("\n".join(lines) + "\n")


def assert_private_netns(outer_ns, nic):
    """The caller's namespace (where NIC lives) is not this one, and NIC is not here."""
    st = os.stat("/proc/self/ns/net")
    if f"{st.st_dev}:{st.st_ino}" == outer_ns or os.path.exists(f"/sys/class/net/{nic}"):
        sys.exit("capture_ethnl: refusing to change devices outside a private namespace")


def strset_features(g):
    """ETH_SS_FEATURES names; a header (flags only, no device) is required since 6.x."""
    return g.call(g.family, MSG["STRSET_GET"], nest(HEADER, u32(HDR_FLAGS, 0)) +
                  nest(2, nest(1, u32(1, ETH_SS_FEATURES))))


def inner(out, outer_ns, nic):
    assert_private_netns(outer_ns, nic)
    g = Genl()
    gc = Genl(cap_ack=True)
    mon = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    mon.bind((0, 0))  # an unbound socket gets no multicast, membership or not
    mon.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, g.groups["monitor"])
    v0, tap = ifindex("v0"), ifindex("tap0")
    manifest.append(f"# in a private netns: veth v0 (ifindex {v0}, 4 rx/4 tx queues), "
                    f"tap0 (ifindex {tap})")

    save(out, "veth-channels", g.eth("CHANNELS_GET", v0), "CHANNELS_GET_REPLY of veth v0",
         [["-l", "v0"]])
    save(out, "veth-rings-err", g.eth("RINGS_GET", v0), "RINGS_GET on veth: EOPNOTSUPP")
    save(out, "veth-features-compact", g.eth("FEATURES_GET", v0, flags=FLAG_COMPACT),
         "FEATURES_GET_REPLY of v0, compact", [["-k", "v0"]])
    save(out, "veth-features-verbose", g.eth("FEATURES_GET", v0),
         "FEATURES_GET_REPLY of v0, verbose", [["-k", "v0"]])
    save(out, "tap-coalesce", g.eth("COALESCE_GET", tap), "COALESCE_GET_REPLY of tap0",
         [["-c", "tap0"]])
    save(out, "tap-features-compact", g.eth("FEATURES_GET", tap, flags=FLAG_COMPACT),
         "FEATURES_GET_REPLY of tap0, compact", [["-k", "tap0"]])
    # Out of range: max rx is 4. With CAP_ACK the request is not echoed (NLM_F_CAPPED).
    save(out, "veth-channels-set-err",
         gc.eth("CHANNELS_SET", v0, u32(CHANNELS_RX_COUNT, 8), ack=True),
         "CHANNELS_SET rx 8 on v0 (max 4): EINVAL + extack + offset, capped")
    save(out, "veth-channels-set-err-echo",
         g.eth("CHANNELS_SET", v0, u32(CHANNELS_RX_COUNT, 8), ack=True),
         "the same without NETLINK_CAP_ACK: the request echoed before the TLVs")
    save(out, "veth-coalesce-set-err",
         g.eth("COALESCE_SET", v0, u32(COALESCE_RX_MAX_FRAMES, 8), ack=True),
         "COALESCE_SET on veth: EOPNOTSUPP")

    # Monitor: changes made by ethtool(8), as rtltuned will see someone else's.
    subprocess.run(["ethtool", "-L", "v0", "rx", "2"], check=True)
    subprocess.run(["ethtool", "-C", "tap0", "rx-frames", "100"], check=True)
    subprocess.run(["ethtool", "-K", "v0", "gro", "on"], check=True)
    names = {19: "ntf-channels", 21: "ntf-coalesce", 13: "ntf-features"}
    seen = set()
    while len(seen) < len(names):
        r, _, _ = select.select([mon], [], [], 5)
        if not r:
            sys.exit(f"capture_ethnl: notifications missing: {set(names) - seen}")
        for t, _, _, msg in messages(mon.recv(1 << 20)):
            cmd = msg[16]
            if t == g.family and cmd in names and cmd not in seen:
                seen.add(cmd)
                save(out, names[cmd], [msg], f"monitor notification (cmd {cmd}) after ethtool")
    save(out, "veth-channels-after", g.eth("CHANNELS_GET", v0),
         "CHANNELS_GET_REPLY after ethtool -L v0 rx 2", [["-l", "v0"]])
    save(out, "tap-coalesce-after", g.eth("COALESCE_GET", tap),
         "COALESCE_GET_REPLY after ethtool -C tap0 rx-frames 100 (tun caps at 64)",
         [["-c", "tap0"]])

    # FEATURES_SET the kernel cannot honour: TSO needs TX checksumming, which is off.
    subprocess.run(["ethtool", "-K", "v0", "tx", "off"], check=True, capture_output=True)
    strs = strset_features(g)[0]
    table = attrs(attrs(attrs(attrs(strs[20:])[2][0])[1][0])[3][0])
    index = {}
    for s in table[1]:
        sa = attrs(s)
        index[sa[2][0].rstrip(b"\0").decode()] = struct.unpack("I", sa[1][0])[0]
    nbits = len(index)
    words = (nbits + 31) // 32
    value = [0] * words
    for n in ("tx-tcp-segmentation", "tx-tcp6-segmentation", "tx-gso-robust"):
        value[index[n] // 32] |= 1 << (index[n] % 32)
    blob = struct.pack(f"{words}I", *value)
    wanted = nest(FEATURES_WANTED, u32(BITSET_SIZE, nbits), attr(BITSET_VALUE, blob),
                  attr(BITSET_MASK, blob))
    save_first(out, "veth-features-set-compact",
               g.eth("FEATURES_SET", v0, wanted, flags=FLAG_COMPACT, ack=True),
               "FEATURES_SET_REPLY: tx-tcp-segmentation, tx-tcp6-segmentation, tx-gso-robust "
               "(fixed) on, with tx-checksumming off: kernel keeps them off", [["-k", "v0"]])
    save(out, "veth-features-wish", g.eth("FEATURES_GET", v0, flags=FLAG_COMPACT),
         "FEATURES_GET_REPLY of v0 after that: wanted differs from active (requested on)",
         [["-k", "v0"]])
    subprocess.run(["ethtool", "-K", "v0", "tso", "off"], check=True, capture_output=True)
    save_first(out, "veth-features-set-verbose",
               g.eth("FEATURES_SET", v0, wanted, ack=True),
               "the same request again after tso off, verbose reply (names)", [["-k", "v0"]])
    with open(os.path.join(out, "MANIFEST.inner"), "w") as f:
        f.write("\n".join(manifest) + "\n")


def corpus(fixtures, out):
    os.makedirs(out, exist_ok=True)
    for name in sorted(os.listdir(fixtures)):
        if name.endswith(".msg"):
            with open(os.path.join(fixtures, name), "rb") as src, \
                    open(os.path.join(out, name[:-4]), "wb") as dst:
                dst.write(src.read())


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "--inner":
        inner(sys.argv[2], sys.argv[3], sys.argv[4])
        return
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, seeds = sys.argv[1], sys.argv[2]
    nic = sys.argv[3] if len(sys.argv) > 3 else "eth0"
    os.makedirs(out, exist_ok=True)
    manifest.append(f"# kernel {os.uname().release}; {ethtool_text(['--version']).splitlines()[1]}")
    if os.path.exists(f"/sys/class/net/{nic}"):
        nic_captures(out, nic)
    else:
        print(f"capture_ethnl: no {nic}: its captures skipped")
    ns = f"rtcap{os.getpid()}"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        ip = ["ip", "-n", ns]
        subprocess.run(ip + ["link", "add", "v0", "numtxqueues", "4", "numrxqueues", "4",
                             "type", "veth", "peer", "name", "v1", "numtxqueues", "4",
                             "numrxqueues", "4"], check=True)
        subprocess.run(ip + ["tuntap", "add", "dev", "tap0", "mode", "tap"], check=True)
        for dev in ("lo", "v0", "v1"):
            subprocess.run(ip + ["link", "set", dev, "up"], check=True)
        st = os.stat("/proc/self/ns/net")
        subprocess.run(["ip", "netns", "exec", ns, sys.executable, os.path.abspath(__file__),
                        "--inner", out, f"{st.st_dev}:{st.st_ino}", nic], check=True)
    finally:
        subprocess.run(["ip", "netns", "del", ns])
    inner_manifest = os.path.join(out, "MANIFEST.inner")
    with open(inner_manifest) as f:
        manifest.extend(f.read().splitlines())
    os.remove(inner_manifest)
    with open(os.path.join(out, "MANIFEST"), "w") as f:
        f.write("\n".join(manifest) + "\n")
    corpus(out, seeds)
    print(f"capture_ethnl: {sum(1 for n in os.listdir(out) if n.endswith('.msg'))} messages")


main()
