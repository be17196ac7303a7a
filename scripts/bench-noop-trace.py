#!/usr/bin/python3
# The A/A control of scripts/bench-probes.sh: takes rtltune trace's place in a round and
# attaches nothing. It prints trace's "Tracing" line (the bench waits for it) and exits 0
# on SIGINT (the bench's stop), so the round differs from "off" only in that a tracer
# process was started and is waiting: what is left of on/off beyond this is the probes'.
import signal
import sys

signal.signal(signal.SIGINT, lambda *_: sys.exit(0))  # set even where SIGINT came ignored
sys.stderr.write("Tracing nothing (the A/A control)\n")
sys.stderr.flush()
while True:
    signal.pause()
