#!/bin/bash
# Exposure: the /metrics server (libmicrohttpd with connection, memory and timeout limits
# set on purpose) survives malformed, oversized, pipelined and slow requests from raw
# sockets: each gets a 4xx answer or is closed, rtltuned keeps answering on its control
# socket and on /metrics throughout, a slowloris flood costs at most the connection limit
# and is shed by the idle timeout, and fds and RSS come back to where they started. By
# default it listens on loopback only.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
HTTP_LIMIT=128  # HTTP_MAX_CONNECTIONS in daemon/http.c
HTTP_IDLE_S=10  # HTTP_CONN_TIMEOUT_S

ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" v0 "$nsb" v1

# Default listener: loopback, port 9775 (no --metrics flag, empty config).
: >"$T_TMP/empty.conf"
ip netns exec "$ns" "$RTLTUNED" --foreground --config "$T_TMP/empty.conf" --socket "$T_TMP/run/default.sock" \
	--state-dir "$T_TMP/state-default" >"$T_TMP/default.log" 2>&1 &
DEF=$!
t_defer "kill -9 $DEF 2>/dev/null || true"
for ((i = 0; i < 100; i++)); do
	RTLTUNE_SOCKET=$T_TMP/run/default.sock "$RTLTUNE" status >/dev/null 2>&1 && break
	sleep 0.05
done
listen=$(ip netns exec "$ns" ss -Hltn | awk '{ print $4 }' | sort | tr '\n' ' ')
t_eq "$listen" "127.0.0.1:9775 " "TCP listeners of rtltuned with the default config"
kill $DEF
wait $DEF 2>/dev/null || true

D_PORT=9776
printf '[daemon]\nsample_interval = 200ms\n' >"$T_TMP/rtltuned.conf"
d_start "$ns" --config "$T_TMP/rtltuned.conf" --interfaces v0 --no-autotune
for _ in 1 2 3; do d_http /metrics >/dev/null; d_rtl --json status >/dev/null; done
d_wait_samples 2
fds0=$(d_fds)
rss0=$(d_rss_kib)
echo "# baseline: $fds0 fds, $rss0 KiB RSS"

# Each case prints "NAME RESULT": the status code of the first answer, or "closed".
ip netns exec "$ns" python3 - "$D_PORT" >"$T_TMP/cases" <<'PY'
import socket, sys, threading, time
port = int(sys.argv[1])

def conn():
    s = socket.create_connection(("127.0.0.1", port), timeout=15)
    return s

def first_status(s):
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except (ConnectionResetError, socket.timeout):
        pass
    if not data.startswith(b"HTTP/"):
        return "closed"
    return data.split(b" ", 2)[1].decode()

def case(name, payload, slow=0.0):
    s = conn()
    try:
        if slow:
            for b in payload:
                s.sendall(bytes([b]))
                time.sleep(slow)
        else:
            s.sendall(payload)
    except (BrokenPipeError, ConnectionResetError):
        pass
    print(name, first_status(s), flush=True)
    s.close()

ok = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
case("plain", ok)
case("garbage", b"\x00\xff\xfe garbage \x01\r\n\r\n")
case("method", b"DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
case("post_body", b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n" + b"a" * 1048576)
case("big_header", b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100000 + b"\r\n\r\n")
case("many_headers", b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + b"X-H: 1\r\n" * 20000 + b"\r\n")
case("big_url", b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
case("traversal", b"GET /../../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n")
case("version", b"GET /metrics HTTP/9.9\r\nHost: x\r\n\r\n")
case("http10", b"GET /metrics HTTP/1.0\r\n\r\n")
case("bad_chunked", b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzzzz\r\n")
case("binary_1mib", bytes((i * 7919) % 256 for i in range(1 << 20)))
case("gzip_q", b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip;q=abc, *;q=-1\r\n\r\n")

# 100 requests pipelined in one write: 100 answers.
s = conn()
s.sendall(ok * 100)
got, data, deadline = 0, b"", time.time() + 10
while got < 100 and time.time() < deadline:
    chunk = s.recv(1 << 20)
    if not chunk:
        break
    data += chunk
    got = data.count(b"HTTP/1.1 200")
print("pipelined", got, flush=True)
s.close()

# One request dribbled in a byte every 20 ms while another client is served at once.
t = threading.Thread(target=case, args=("slow_request", ok, 0.02))
t.start()
time.sleep(0.2)
t0 = time.time()
case("during_slow", ok)
print("during_slow_ms", int((time.time() - t0) * 1000), flush=True)
t.join()
PY
cat "$T_TMP/cases"
res() { awk -v n="$1" '$1 == n { print $2 }' "$T_TMP/cases"; }
is_4xx_or_closed() { case $(res "$1") in 4[0-9][0-9] | closed) echo "ok: $1 -> $(res "$1")" ;; *) t_fail "$1 answered $(res "$1")" ;; esac; }
t_eq "$(res plain)" 200 "plain scrape"
for c in garbage big_header many_headers big_url bad_chunked binary_1mib; do is_4xx_or_closed $c; done
t_eq "$(res method)" 405 "DELETE"
# An answer before the body is read ends in a reset that may eat the 405 on the way.
case $(res post_body) in 405 | closed) echo "ok: POST with a 1 MiB body -> $(res post_body)" ;;
*) t_fail "POST with a 1 MiB body answered $(res post_body)" ;; esac
t_eq "$(res traversal)" 404 "path traversal"
case $(res version) in 505 | 400 | closed) echo "ok: HTTP/9.9 -> $(res version)" ;; *) t_fail "HTTP/9.9 answered $(res version)" ;; esac
t_eq "$(res http10)" 200 "HTTP/1.0 without Host"
t_eq "$(res gzip_q)" 200 "nonsense Accept-Encoding"
t_eq "$(res pipelined)" 100 "answers to 100 pipelined requests"
t_eq "$(res slow_request)" 200 "request sent a byte every 20 ms"
t_eq "$(res during_slow)" 200 "scrape while the slow request dribbles"
t_le "$(res during_slow_ms)" 2000 "its latency (ms)"
kill -0 "$D_PID" || t_fail "rtltuned died"

t_log "slowloris: 200 connections that never finish their headers"
ip netns exec "$ns" python3 - "$D_PORT" >"$T_TMP/loris" 2>&1 <<'PY' &
import socket, sys, time
port, socks = int(sys.argv[1]), []
for i in range(200):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        socks.append(s)
    except OSError:
        pass
print("opened", len(socks), flush=True)
time.sleep(30)
PY
LORIS=$!
t_defer "kill $LORIS 2>/dev/null || true"
for ((i = 0; i < 100; i++)); do grep -q opened "$T_TMP/loris" && break; sleep 0.05; done
cat "$T_TMP/loris"
fds_flood=$(d_fds)
echo "# during the flood: $fds_flood fds"
# 128 connections, and up to 4 short-lived fds (one accepted past the limit before it is
# closed, a control client): 179-180 measured over a baseline of 51.
t_le "$fds_flood" $((fds0 + HTTP_LIMIT + 4)) "rtltuned fds during the flood (baseline + connection limit)"
d_rtl --json status >/dev/null || t_fail "control socket not answering during the flood"
echo "ok: control socket answers during the flood"
# A scrape queued behind the flood is served once the idle timeout frees slots.
start=$(date +%s)
ip netns exec "$ns" python3 -c '
import sys, urllib.request
sys.stdout.write(urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=30).read().decode())
' "$D_PORT" | grep -q '^rtltune_knob_value' || t_fail "/metrics during the flood"
waited=$(($(date +%s) - start))
echo "# a scrape during the flood waited ${waited}s"
t_le "$waited" $((HTTP_IDLE_S + 8)) "seconds a scrape waits behind the flood (one idle timeout)"
# The scrape got a slot the idle timeout freed: the flood's first connections are shed
# while their client still holds them open. Those past the limit sat in the listen backlog
# and would be shed one idle timeout later (20 s in all, measured); the client goes now
# instead, and every fd must come back (bounded wait).
t_le "$(d_fds)" $((fds0 + HTTP_LIMIT + 4)) "rtltuned fds after the first idle timeout"
kill $LORIS 2>/dev/null || true
wait $LORIS 2>/dev/null || true
for ((i = 0; i < 300; i++)); do
	[ "$(d_fds)" -le "$fds0" ] && break
	sleep 0.1
done
t_le "$(d_fds)" "$fds0" "rtltuned fds after the flood's client went"
d_http /metrics | grep -q '^rtltune_knob_value' || t_fail "/metrics after the flood"
echo "ok: /metrics answers after the flood"

d_wait_samples 2
fds1=$(d_fds)
rss1=$(d_rss_kib)
echo "# rtltuned: fds $fds0 -> $fds1, RSS $rss0 -> $rss1 KiB"
t_eq "$fds1" "$fds0" "rtltuned fds at the end"
t_le "$rss1" $((rss0 + 2048)) "rtltuned RSS at the end (KiB, 2 MiB slack)"
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "rtltuned clean exit"
