#!/usr/bin/env python3
"""Structure checks for `make lint` (docs/architecture.md): what the design promises.

Usage: lint-structure.py BUILD_DIR

1. No call cycle between daemon/ files: every reference from one daemon object to a
   symbol another defines (functions and data, from nm) is an edge; any cycle fails.
2. Only the actuator changes a NIC: the setters (link_set_u32, link_set_u32s,
   ethtool_features_set_index, ethtool_group_set, ethnl_set, ethnl_features_set,
   ethnl_features_set_many, around_set, napi_nl_set, queue_write, host_knob_write) are
   referenced by no object of lib/, cli/ or daemon/ but lib/actuate/actuate.o (and the
   files that define them).
3. No file of lib/ over 1200 lines (split by concern, not by size).
4. lib/ is module folders (lib/MODULE/*.c and its private headers); a public header
   include/rtltune/X.h (or .def) belongs to the module holding X.c, or X_*.c, or the
   module of the longest Y.c with X = Y_* (knob_attrs.h is base's, journal.h journal's).
   An edge from module A to module B is an include of B's public header by a file of A
   (or by A's public header), or a call from an object of A to a symbol B defines.
   - no module includes another module's private header ("../B/x.h"), and no file of
     cli/ or daemon/ includes a private header of lib/;
   - no cycle between modules, by include or by call: each module uses only modules
     below it;
   - no include cycle between public headers.
5. No cycle between the files of one lib/ module: an edge from file a to file b of the
   same module is an include of b (a private header) by a, or a call from a.o to a symbol
   b.o defines; the files of a module call one way, its base helpers at the bottom.
Exit 1 with what broke each rule; 0 silently. With --layers, print lib/'s modules by
layer (the lowest first), each with the modules it uses.
"""
import glob
import os
import re
import subprocess
import sys

SETTERS = {"link_set_u32", "link_set_u32s", "ethtool_features_set_index", "ethtool_group_set",
           "ethnl_set", "ethnl_features_set", "ethnl_features_set_many", "around_set",
           "napi_nl_set", "queue_write", "host_knob_write"}
# around_set() (the actuator's one call for NAPI and queue knobs) calls the other two.
SETTER_HOMES = {"lib/netdev/link.o", "lib/netdev/ethtool.o", "lib/netdev/ethtool_groups.o",
                "lib/netdev/ethnl.o", "lib/netdev/around.o", "lib/netdev/napi.o",
                "lib/netdev/queues.o", "lib/host/hostknob.o"}
ACTUATOR = "lib/actuate/actuate.o"
MAX_LIB_LINES = 1200
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


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


def includes(path):
    with open(path, encoding="utf-8") as f:
        return INCLUDE_RE.findall(f.read())


def lib_modules():
    """{module: [its files]} for lib/MODULE/*.[ch]; a file directly in lib/ is an error."""
    mods = {}
    for path in sorted(glob.glob("lib/*/*.[ch]")):
        mods.setdefault(path.split("/")[1], []).append(path)
    loose = sorted(glob.glob("lib/*.[ch]"))
    return mods, loose


def header_owner(stem, c_owner):
    """The module a public header belongs to (rule 4), or None."""
    if stem in c_owner:
        return c_owner[stem]
    mods = {m for t, m in c_owner.items() if t.startswith(stem + "_")}
    if len(mods) == 1:
        return mods.pop()
    prefixes = [t for t in c_owner if stem.startswith(t + "_")]
    if prefixes:
        return c_owner[max(prefixes, key=len)]
    return None


def lib_graph(build, errors):
    """Module edges {a: {b: why}} from includes and calls; private-header breaches to errors."""
    mods, loose = lib_modules()
    for path in loose:
        errors.append(f"{path} is not in a module folder (lib/MODULE/)")
    c_owner = {os.path.basename(f)[:-2]: m for m, files in mods.items()
               for f in files if f.endswith(".c")}
    pub_owner = {}
    for hdr in sorted(glob.glob("include/rtltune/*.h") + glob.glob("include/rtltune/*.def")):
        stem = os.path.splitext(os.path.basename(hdr))[0]
        owner = header_owner(stem, c_owner)
        if owner is None:
            errors.append(f"{hdr} belongs to no lib/ module (name it after a file of one)")
        else:
            pub_owner[os.path.relpath(hdr, "include")] = owner
    graph = {m: {} for m in mods}
    hgraph = {h: {} for h in pub_owner}

    def edge(a, b, why):
        if a != b:
            graph[a].setdefault(b, why)

    for hdr, owner in pub_owner.items():
        for inc in includes(os.path.join("include", hdr)):
            if inc in pub_owner:
                hgraph[hdr].setdefault(inc, "#include")
                edge(owner, pub_owner[inc], f"include/{hdr} includes {inc}")
    for mod, files in mods.items():
        for path in files:
            for inc in includes(path):
                if inc in pub_owner:
                    edge(mod, pub_owner[inc], f"{path} includes {inc}")
                    continue
                target = os.path.normpath(os.path.join(os.path.dirname(path), inc))
                parts = target.split(os.sep)
                if len(parts) == 3 and parts[0] == "lib" and parts[1] != mod:
                    errors.append(f"{path} includes {inc}: the private header of lib/"
                                  f"{parts[1]}/ (use its public header in include/rtltune/)")
    for path in sorted(glob.glob("cli/*.[ch]") + glob.glob("daemon/*.[ch]")):
        for inc in includes(path):
            target = os.path.normpath(os.path.join(os.path.dirname(path), inc))
            if target.startswith("lib" + os.sep):
                errors.append(f"{path} includes {inc}: a private header of lib/")
    objs = {}
    for mod, files in mods.items():
        for src in files:
            if src.endswith(".c"):
                obj = os.path.join(build, src[:-2] + ".o")
                if not os.path.exists(obj):
                    sys.exit(f"lint-structure: {obj} missing (run make first)")
                objs[src] = (mod, symbols(obj))
    owner = {sym: (mod, src) for src, (mod, (defs, _)) in objs.items() for sym in defs}
    for src, (mod, (_, undef)) in sorted(objs.items()):
        for sym in sorted(undef):
            if sym in owner:
                edge(mod, owner[sym][0], f"{src} calls {sym} ({owner[sym][1]})")
    return graph, hgraph, objs, owner


def file_graphs(mods, objs, owner):
    """{module: {file: {file: why}}}: includes and calls between the files of one module."""
    graphs = {}
    for mod, files in mods.items():
        fg = {f: {} for f in files}
        for path in files:
            for inc in includes(path):
                target = os.path.normpath(os.path.join(os.path.dirname(path), inc))
                if target in fg and target != path:
                    fg[path].setdefault(target, "#include")
            if path in objs:
                for sym in sorted(objs[path][1][1]):
                    if sym in owner and owner[sym][0] == mod and owner[sym][1] != path:
                        fg[path].setdefault(owner[sym][1], sym)
        graphs[mod] = fg
    return graphs


def layers(graph):
    """Modules by layer: a module sits one above the highest module it uses."""
    level = {}

    def depth(m):
        if m not in level:
            level[m] = 0
            level[m] = 1 + max((depth(d) for d in graph[m]), default=-1)
        return level[m]

    for m in graph:
        depth(m)
    return [sorted(m for m in graph if level[m] == n) for n in range(max(level.values()) + 1)]


def main():
    args = [a for a in sys.argv[1:] if a != "--layers"]
    build = args[0] if args else "build"
    errors = []
    cycle = find_cycle(daemon_graph(build))
    if cycle:
        steps = ", ".join(f"daemon/{a}.c -> daemon/{b}.c ({s})" for a, s, b in cycle)
        errors.append(f"call cycle between daemon/ files: {steps}")
    for obj in sorted(glob.glob(os.path.join(build, "lib", "**", "*.o"), recursive=True) +
                      glob.glob(os.path.join(build, "cli", "*.o")) +
                      glob.glob(os.path.join(build, "daemon", "*.o"))):
        rel = os.path.relpath(obj, build)
        if rel == ACTUATOR or rel in SETTER_HOMES:
            continue
        used = symbols(obj)[1] & SETTERS
        if used:
            errors.append(f"{rel} calls {', '.join(sorted(used))}: only {ACTUATOR} may "
                          "change a NIC (actuate.h)")
    for src in sorted(glob.glob("lib/**/*.c", recursive=True)):
        with open(src, encoding="utf-8") as f:
            n = sum(1 for _ in f)
        if n > MAX_LIB_LINES:
            errors.append(f"{src} has {n} lines (at most {MAX_LIB_LINES}: split it by concern)")
    graph, hgraph, objs, owner = lib_graph(build, errors)
    for mod, fg in sorted(file_graphs(lib_modules()[0], objs, owner).items()):
        cycle = find_cycle(fg)
        if cycle:
            steps = ", ".join(f"{a} -> {b} ({why})" for a, why, b in cycle)
            errors.append(f"cycle between the files of lib/{mod}/: {steps}")
    cycle = find_cycle(graph)
    if cycle:
        steps = ", ".join(f"lib/{a}/ -> lib/{b}/ ({why})" for a, why, b in cycle)
        errors.append(f"cycle between lib/ modules: {steps}")
    cycle = find_cycle(hgraph)
    if cycle:
        steps = " -> ".join(f"include/{a}" for a, _, _ in cycle) + f" -> include/{cycle[0][0]}"
        errors.append(f"include cycle between public headers: {steps}")
    if "--layers" in sys.argv[1:] and not errors:
        for n, mods in enumerate(layers(graph)):
            print(f"{n}: " + ", ".join(f"{m} ({' '.join(sorted(graph[m])) or '-'})" for m in mods))
    for e in errors:
        print(f"lint-structure: {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
