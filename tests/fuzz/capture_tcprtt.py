#!/usr/bin/env python3
"""Save NETLINK_SOCK_DIAG dump replies (TCP sockets with INET_DIAG_INFO) as the kernel sends them.

Usage: capture_tcprtt.py FIXTURES CORPUS        (root)

Each file is what one recv() of the dump returned: one or more netlink messages, the last
one NLMSG_DONE in the final file. They are the unit tests' fixtures
(tests/unit/fixtures/tcprtt/) and the fuzz seeds of fuzz_tcprtt (tests/fuzz/corpus/tcprtt/).
Written independently of lib/sampler/tcprtt.c, from the uapi numbers
(include/uapi/linux/inet_diag.h, sock_diag.h, tcp.h), so a parser bug cannot shape its own
test input.

Everything runs in a network namespace this script creates and deletes: iperf3 between
two veth ends in two namespaces (server in one, client in the other, 10.77.0.0/30), the
dump taken in the client's namespace while the test runs. MANIFEST says what each file
holds, with the RTTs as this script decoded them, which the unit tests check.
"""
import os
import socket
import struct
import subprocess
import sys
import time

NETLINK_SOCK_DIAG, SOCK_DIAG_BY_FAMILY = 4, 20
NLM_F_REQUEST, NLM_F_DUMP = 1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
INET_DIAG_INFO, TCP_ESTABLISHED = 2, 1
TCPI_RTT_OFF, TCPI_LAST_DATA_RECV_OFF = 68, 52
NS_A, NS_B = "rtltune-caprtt-a", "rtltune-caprtt-b"


def request(family):
    # struct inet_diag_req_v2: family, protocol, ext, pad, states, sockid (48 bytes)
    req = struct.pack("BBBxI", family, socket.IPPROTO_TCP, 1 << (INET_DIAG_INFO - 1),
                      1 << TCP_ESTABLISHED) + b"\0" * 48
    return struct.pack("IHHII", 16 + len(req), SOCK_DIAG_BY_FAMILY,
                       NLM_F_REQUEST | NLM_F_DUMP, 1, 0) + req


def decode(chunk):
    """RTTs (us) of the established sockets in one recv's messages; whether DONE came."""
    rtts, off, done = [], 0, False
    while off + 16 <= len(chunk):
        mlen, mtype = struct.unpack_from("IH", chunk, off)
        if mtype == NLMSG_DONE:
            done = True
        elif mtype == SOCK_DIAG_BY_FAMILY:
            state = chunk[off + 17]
            aoff = off + 16 + 72
            while aoff + 4 <= off + mlen:
                alen, atype = struct.unpack_from("HH", chunk, aoff)
                if atype == INET_DIAG_INFO and state == TCP_ESTABLISHED:
                    rtts.append(struct.unpack_from("I", chunk, aoff + 4 + TCPI_RTT_OFF)[0])
                aoff += (alen + 3) & ~3
        off += (mlen + 3) & ~3
    return rtts, done


def dump(family):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_SOCK_DIAG)
    s.bind((0, 0))
    s.send(request(family))
    chunks = []
    while True:
        data = s.recv(65536)
        chunks.append(data)
        _, done = decode(data)
        if done:
            return chunks


def inner(fixtures, corpus):
    if os.path.exists("/proc/sys/net/core/netdev_max_backlog"):
        sys.exit("capture_tcprtt.py: refuses the root namespace")
    lines = []
    for fam, name in ((socket.AF_INET, "inet"), (socket.AF_INET6, "inet6")):
        for i, chunk in enumerate(dump(fam)):
            rtts, done = decode(chunk)
            fn = "%s_iperf3_%d.msg" % (name, i)
            for d in (fixtures, corpus):
                with open(os.path.join(d, fn), "wb") as f:
                    f.write(chunk)
            lines.append("%s: %s dump, recv %d, %d bytes, established RTTs (us) %s%s" %
                         (fn, name, i, len(chunk), sorted(rtts), ", ends with DONE" if done else ""))
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
    server = client = None
    for ns in (NS_A, NS_B):
        subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        subprocess.run(["ip", "-n", NS_A, "link", "add", "va", "type", "veth", "peer", "name",
                        "vb", "netns", NS_B], check=True)
        for ns, dev, addr in ((NS_A, "va", "10.77.0.1/30"), (NS_B, "vb", "10.77.0.2/30")):
            subprocess.run(["ip", "-n", ns, "addr", "add", addr, "dev", dev], check=True)
            subprocess.run(["ip", "-n", ns, "link", "set", dev, "up"], check=True)
            subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
        server = subprocess.Popen(["ip", "netns", "exec", NS_A, "iperf3", "-s", "-1"],
                                  stdout=subprocess.DEVNULL)
        for _ in range(50):
            out = subprocess.run(["ip", "netns", "exec", NS_A, "ss", "-Hltn", "sport", "= :5201"],
                                 capture_output=True, text=True).stdout
            if out.strip():
                break
            time.sleep(0.1)
        client = subprocess.Popen(["ip", "netns", "exec", NS_B, "iperf3", "-c", "10.77.0.1",
                                   "-t", "4", "-b", "200M"], stdout=subprocess.DEVNULL)
        for _ in range(50):
            out = subprocess.run(["ip", "netns", "exec", NS_B, "ss", "-Htn", "state",
                                  "established", "dport", "= :5201"],
                                 capture_output=True, text=True).stdout
            if len(out.strip().splitlines()) >= 2:
                break
            time.sleep(0.1)
        time.sleep(1)  # a second of data for the RTT estimates
        out = subprocess.run(["ip", "netns", "exec", NS_B, sys.executable, __file__, "--inner",
                              fixtures, corpus], check=True, capture_output=True, text=True)
        lines = out.stdout.splitlines()
    finally:
        for p in (client, server):
            if p:
                p.wait(timeout=15)
        for ns in (NS_A, NS_B):
            subprocess.run(["ip", "netns", "del", ns], check=False)
    with open(os.path.join(fixtures, "MANIFEST"), "w") as f:
        f.write("Captured by tests/fuzz/capture_tcprtt.py on Linux %s\n" % os.uname().release)
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
