#!/bin/bash
# scripts/lint-structure.py (run by `make lint`) fails on what docs/architecture.md rules
# out, and passes this tree: a call cycle between daemon/ files, a setter called outside
# the actuator, a lib/ file over 1200 lines, a lib/ file outside a module folder, a cycle
# between lib/ modules (by include, then by call), a module including another's private
# header, a cycle between the files of one lib/ module (by call, by include of its private
# headers). Built in a scratch tree from tiny C files.
. "$(dirname "$0")/../lib.sh"
command -v nm >/dev/null || t_skip "nm (binutils) not installed"

t_eq "$(cd "$TOP" && python3 scripts/lint-structure.py build >/dev/null 2>&1; echo $?)" 0 "this tree passes"

S=$T_TMP/tree
mkdir -p "$S/daemon" "$S/lib" "$S/cli" "$S/build/daemon" "$S/build/lib" "$S/build/cli"
cd "$S"
printf 'void b_next(void);\nvoid a_start(void) { b_next(); }\n' >daemon/alpha.c
printf 'void c_more(void);\nvoid b_next(void) { c_more(); }\n' >daemon/beta.c
printf 'void a_start(void);\nvoid c_more(void) { a_start(); }\n' >daemon/gamma.c
printf 'int link_set_u32(void);\nint peek(void) { return link_set_u32(); }\n' >cli/cmd_peek.c
{ echo 'int big(void) { return 0; }'; for ((i = 0; i < 1200; i++)); do echo "/* $i */"; done; } >lib/big.c
# lib/alpha and lib/beta include each other's public header; beta reaches into alpha's
# private one.
mkdir -p include/rtltune lib/alpha lib/beta build/lib/alpha build/lib/beta
printf 'int a_fn(void);\n' >include/rtltune/alpha.h
printf 'int b_fn(void);\n' >include/rtltune/beta.h
printf '#define A_PRIV 1\n' >lib/alpha/alpha_priv.h
printf '#include "rtltune/beta.h"\nint a_fn(void) { return b_fn(); }\n' >lib/alpha/alpha.c
printf '#include "rtltune/alpha.h"\n#include "../alpha/alpha_priv.h"\nint b_fn(void) { return A_PRIV; }\n' >lib/beta/beta.c
for f in daemon/alpha daemon/beta daemon/gamma cli/cmd_peek lib/big lib/alpha/alpha lib/beta/beta; do
	cc -Iinclude -c "$f.c" -o "build/$f.o"
done
rc=0
python3 "$TOP/scripts/lint-structure.py" build 2>"$T_TMP/err" || rc=$?
cat "$T_TMP/err"
t_eq "$rc" 1 "exit status with all three broken"
grep -q 'call cycle between daemon/ files: daemon/alpha.c -> daemon/beta.c (b_next), daemon/beta.c -> daemon/gamma.c (c_more), daemon/gamma.c -> daemon/alpha.c (a_start)' "$T_TMP/err" ||
	t_fail "the cycle is not named step by step"
grep -q 'cli/cmd_peek.o calls link_set_u32: only lib/actuate/actuate.o may change a NIC' "$T_TMP/err" || t_fail "the setter call is not named"
grep -q 'lib/big.c has 1201 lines (at most 1200' "$T_TMP/err" || t_fail "the long lib/ file is not named"
grep -q 'lib/big.c is not in a module folder (lib/MODULE/)' "$T_TMP/err" || t_fail "the loose lib/ file is not named"
grep -q 'cycle between lib/ modules: lib/alpha/ -> lib/beta/ (lib/alpha/alpha.c includes rtltune/beta.h), lib/beta/ -> lib/alpha/ (lib/beta/beta.c includes rtltune/alpha.h)' "$T_TMP/err" ||
	t_fail "the include cycle between lib/ modules is not named step by step"
grep -q 'lib/beta/beta.c includes ../alpha/alpha_priv.h: the private header of lib/alpha/' "$T_TMP/err" ||
	t_fail "the reach into another module's private header is not named"
echo "ok: each rule names what broke it"

# Break the cycle: a layer calls down only.
printf 'void c_more(void) { }\n' >daemon/gamma.c
cc -c daemon/gamma.c -o build/daemon/gamma.o
rm cli/cmd_peek.c build/cli/cmd_peek.o lib/big.c build/lib/big.o
# The rest fixed; no include runs back up from beta, but a call does: still a cycle
# between the modules, and the only thing wrong.
printf 'int a_fn(void);\nint b_fn(void) { return a_fn(); }\n' >lib/beta/beta.c
cc -Iinclude -c lib/beta/beta.c -o build/lib/beta/beta.o
rc=0
python3 "$TOP/scripts/lint-structure.py" build 2>"$T_TMP/err" || rc=$?
cat "$T_TMP/err"
t_eq "$rc" 1 "exit status with a call cycle between lib/ modules"
grep -q 'cycle between lib/ modules: lib/alpha/ -> lib/beta/ (lib/alpha/alpha.c includes rtltune/beta.h), lib/beta/ -> lib/alpha/ (lib/beta/beta.c calls a_fn (lib/alpha/alpha.c))' "$T_TMP/err" ||
	t_fail "the call cycle between lib/ modules is not named"
grep -q 'private header' "$T_TMP/err" && t_fail "a private-header breach reported after it was removed"
printf 'int b_fn(void) { return 1; }\n' >lib/beta/beta.c
cc -Iinclude -c lib/beta/beta.c -o build/lib/beta/beta.o

t_eq "$(python3 "$TOP/scripts/lint-structure.py" build >/dev/null 2>&1; echo $?)" 0 "the same tree without a cycle"

# Inside one module: alpha.c and alpha_util.c call each other, and two private headers
# include each other (their guards let it compile); each a cycle between the module's files.
printf 'int b_fn(void);\nint a_util(void);\nint a_fn(void) { return a_util() + b_fn(); }\n' >lib/alpha/alpha.c
printf 'int a_fn(void);\nint a_util(void) { return a_fn(); }\n' >lib/alpha/alpha_util.c
printf '#ifndef A_PRIV\n#define A_PRIV 1\n#include "alpha_more.h"\n#endif\n' >lib/alpha/alpha_priv.h
printf '#ifndef A_MORE\n#define A_MORE 1\n#include "alpha_priv.h"\n#endif\n' >lib/alpha/alpha_more.h
for f in lib/alpha/alpha lib/alpha/alpha_util; do
	cc -Iinclude -c "$f.c" -o "build/$f.o"
done
rc=0
python3 "$TOP/scripts/lint-structure.py" build 2>"$T_TMP/err" || rc=$?
cat "$T_TMP/err"
t_eq "$rc" 1 "exit status with cycles between the files of one lib/ module"
grep -q 'cycle between the files of lib/alpha/: lib/alpha/alpha.c -> lib/alpha/alpha_util.c (a_util), lib/alpha/alpha_util.c -> lib/alpha/alpha.c (a_fn)' "$T_TMP/err" ||
	t_fail "the call cycle between the files of lib/alpha/ is not named step by step"
grep -q 'cycle between lib/ modules' "$T_TMP/err" && t_fail "a cycle inside one module reported as one between modules"
t_eq "$(grep -c 'cycle between the files of lib/alpha/' "$T_TMP/err")" 1 "one cycle reported per module"
# The calls made one way: the include cycle between the private headers is what is left.
printf 'int a_util(void) { return 2; }\n' >lib/alpha/alpha_util.c
cc -Iinclude -c lib/alpha/alpha_util.c -o build/lib/alpha/alpha_util.o
rc=0
python3 "$TOP/scripts/lint-structure.py" build 2>"$T_TMP/err" || rc=$?
cat "$T_TMP/err"
t_eq "$rc" 1 "exit status with an include cycle between a module's private headers"
grep -q 'cycle between the files of lib/alpha/: lib/alpha/alpha_more.h -> lib/alpha/alpha_priv.h (#include), lib/alpha/alpha_priv.h -> lib/alpha/alpha_more.h (#include)' "$T_TMP/err" ||
	t_fail "the include cycle between the private headers of lib/alpha/ is not named"
printf '#ifndef A_MORE\n#define A_MORE 1\n#endif\n' >lib/alpha/alpha_more.h
t_eq "$(python3 "$TOP/scripts/lint-structure.py" build >/dev/null 2>&1; echo $?)" 0 "the module's files calling and including one way"
