#!/usr/bin/env bash
# The demo's run (scripts/demo.sh without its install and build steps): the
# bundled workload under `osprof run -l user,syscall,fs,block,lock` on a
# disk file system exits 0 with profiles of every layer, whatever this
# kernel lacks (degrade, don't die), and the report reads it.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kl_lib.sh"
need_root
need_btf
[ -x "$BUILD/osprof-demo" ] || fail "no $BUILD/osprof-demo (make all)"
kl_ext4 128
"$OSPROF" run -l user,syscall,fs,block,lock -o "$TMP/demo.osp" -- "$BUILD/osprof-demo" "$KL_MNT" \
	>/dev/null 2>"$TMP/err" || fail "demo run failed: $(cat "$TMP/err")"
for l in user syscall fs block; do
	grep -q "^profile $l " "$TMP/demo.osp" || fail "no $l profile: $(cat "$TMP/err")"
done
grep -q "^profile syscall fsync" "$TMP/demo.osp" || fail "no syscall fsync"
"$OSPROF" report --pct 50,99 "$TMP/demo.osp" >"$TMP/report" || fail "report failed"
grep -q "^user:" "$TMP/report" || fail "report: no user profile"
echo ok
