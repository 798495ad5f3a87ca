#!/usr/bin/env bash
# osprof rootcause's trampoline backend on ordinary optimised code: Debian's
# zlib (libz.a of zlib1g-dev, as shipped, linked whole into
# tests/progs/rcz_deflate). Every zlib function must be hookable as f0
# (>= 95 % by a jump to a trampoline, none refused), and the search from f0 =
# deflate must explain the slow peak (random input) by deflate_fast, reached
# through deflate's indirect call via the configuration table (a site no
# jump fits: uprobes when root, else a breakpoint). Every call site of zlib
# must take a probe while the program runs correctly.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
[ -r "$BUILD/libosprof-darc-agent.so" ] || fail "agent not built"
LIBZ=$(cc -print-file-name=libz.a)
[ -r "$LIBZ" ] || skip "no libz.a (zlib1g-dev)"
P=$PROGS/rcz_deflate

nm "$LIBZ" | awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u >"$TMP/names"
"$BUILD/tests/rc_coverage" "$P" "$TMP/names" >"$TMP/cov" || fail "rc_coverage failed"
read -r nfn njump nrefused < <(awk '/^functions / { sub(":", "", $2); print $2, $6, $11 }' "$TMP/cov")
[ "$nfn" -ge 100 ] || fail "only $nfn zlib functions found in $P"
expect_eq "zlib functions refused" "$nrefused" 0
[ $((njump * 100)) -ge $((nfn * 95)) ] ||
	fail "only $njump of $nfn zlib functions hooked by trampoline: $(cat "$TMP/cov")"
grep "^functions\|^call sites" "$TMP/cov"

# Live: every call site of zlib patched at once under deflate (each timed),
# while the program inflates each output back and checks it; then removed.
RCZ_VERIFY=1 OSPROF_DARC_AGENT=$BUILD/libosprof-darc-agent.so timeout 300 \
	"$BUILD/tests/rc_patch_all" "$P" deflate "$TMP/names" "$TMP/stop" 0 10 >"$TMP/all" ||
	fail "zlib with every site patched failed: $(cat "$TMP/all")"
cat "$TMP/all"
read -r nsites nfail < <(awk '/^sites / { sub(":", "", $2); print $2, $NF }' "$TMP/all")
expect_eq "sites that could not be probed" "$nfail" 0
[ "$nsites" -ge 300 ] || fail "only $nsites zlib call sites"

rc_run_cmd "$TMP/json" --func "$P:deflate" --start-ops 300 --allow-loss --json -- "$P" 0 10
python3 - "$TMP/json" "$(id -u)" <<'PY' || fail "zlib search: $(cat "$TMP/json.err")"
import json, sys
d = json.load(open(sys.argv[1]))
fallback = "uprobe" if sys.argv[2] == "0" else "breakpoint"
assert d["finished"] and d["backend"] == "trampoline", d["finished"]
t = d["tree"]
assert t["name"] == "deflate" and t["probe"] == "trampoline", t["name"]
kids = [k for k in t["children"] if k["status"] != "not a main contributor"]
assert len(kids) == 1 and kids[0]["name"].startswith("deflate_fast [via *("), kids
assert kids[0]["probe"] == fallback, kids[0]["probe"]  # an indirect call
p = d["probes"]
print("search probes:", p)
assert p["trampoline"] >= 10 * (p["breakpoint"] + p["uprobe"]), p
PY
