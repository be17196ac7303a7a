#!/usr/bin/env python3
"""Structure checks for `make lint` (docs/architecture.md): what the design promises.

Usage: lint-structure.py BUILD_DIR

1. No call cycle between daemon/ files: every reference from one daemon object to a
   symbol another defines (functions and data, from nm) is an edge; any cycle fails.
2. Only the actuator changes a NIC: the setters (link_set_u32, link_set_u32s,
   ethtool_features_set_index, ethtool_group_set, ethnl_set, ethnl_features_set,
   ethnl_features_set_many) are referenced by no object of lib/,
   cli/ or daemon/ but lib/actuate.o (and the files that define them).
3. No file of lib/ over 1200 lines (split by concern, not by size).
Exit 1 with what broke each rule; 0 silently.
"""
import glob
import os
import subprocess
import sys

SETTERS = {"link_set_u32", "link_set_u32s", "ethtool_features_set_index", "ethtool_group_set",
           "ethnl_set", "ethnl_features_set", "ethnl_features_set_many"}
SETTER_HOMES = {"lib/link.o", "lib/ethtool.o", "lib/ethtool_groups.o", "lib/ethnl.o"}
ACTUATOR = "lib/actuate.o"
MAX_LIB_LINES = 1200


def symbols(obj):
    """(defined, undefined) global symbol sets of an object file."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRCGS":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
    return defined, undefined


def daemon_graph(build):
    objs = {}
    for src in sorted(glob.glob("daemon/*.c")):
        name = os.path.basename(src)[:-2]
        obj = os.path.join(build, "daemon", name + ".o")
        if not os.path.exists(obj):
            sys.exit(f"lint-structure: {obj} missing (run make first)")
        objs[name] = symbols(obj)
    owner = {sym: name for name, (defs, _) in objs.items() for sym in defs}
    graph = {name: {} for name in objs}
    for name, (_, undef) in objs.items():
        for sym in sorted(undef):
            if sym in owner and owner[sym] != name:
                graph[name].setdefault(owner[sym], sym)
    return graph


def find_cycle(graph):
    """One cycle as a list of (file, symbol) steps, or None (iterative DFS)."""
    state = {}
    for start in graph:
        if state.get(start):
            continue
        stack = [(start, iter(graph[start].items()))]
        path = [start]
        state[start] = 1
        while stack:
            node, it = stack[-1]
            for nxt, sym in it:
                if state.get(nxt) == 1:
                    i = path.index(nxt)
                    cyc = path[i:] + [nxt]
                    return [(cyc[k], graph[cyc[k]][cyc[k + 1]], cyc[k + 1])
                            for k in range(len(cyc) - 1)]
                if not state.get(nxt):
                    state[nxt] = 1
                    path.append(nxt)
                    stack.append((nxt, iter(graph[nxt].items())))
                    break
            else:
                state[node] = 2
                path.pop()
                stack.pop()
    return None


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    errors = []
    cycle = find_cycle(daemon_graph(build))
    if cycle:
        steps = ", ".join(f"daemon/{a}.c -> daemon/{b}.c ({s})" for a, s, b in cycle)
        errors.append(f"call cycle between daemon/ files: {steps}")
    for obj in sorted(glob.glob(os.path.join(build, "lib", "*.o")) +
                      glob.glob(os.path.join(build, "cli", "*.o")) +
                      glob.glob(os.path.join(build, "daemon", "*.o"))):
        rel = os.path.relpath(obj, build)
        if rel == ACTUATOR or rel in SETTER_HOMES:
            continue
        used = symbols(obj)[1] & SETTERS
        if used:
            errors.append(f"{rel} calls {', '.join(sorted(used))}: only {ACTUATOR} may "
                          "change a NIC (actuate.h)")
    for src in sorted(glob.glob("lib/*.c")):
        with open(src, encoding="utf-8") as f:
            n = sum(1 for _ in f)
        if n > MAX_LIB_LINES:
            errors.append(f"{src} has {n} lines (at most {MAX_LIB_LINES}: split it by concern)")
    for e in errors:
        print(f"lint-structure: {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
