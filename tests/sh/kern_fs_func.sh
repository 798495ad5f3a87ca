# fs --func: where the kernel refuses fentry/fexit and has no kprobes (this
# machine), one clear line names both modes and why each failed, and the run
# goes on with the tracepoint pairs (degrade, don't die); with nothing else
# in the layer and no other layer, it is an error and the command does not
# run; an unknown symbol is named;
# `osprof list fs` shows the discovered pairs and the --func attach modes.
. "$(dirname "$0")/../lib.sh"
need_root
need_btf
"$OSPROF" list fs >"$TMP/list" || fail "osprof list fs failed"
grep -Eq "^fs +[0-9]+ tracepoint pairs .*via (raw_tp|tracepoint)" "$TMP/list" || fail "list: $(head -n 1 "$TMP/list")"
grep -q "ext4_sync_file .*ext4:ext4_sync_file_enter .. ext4_sync_file_exit" "$TMP/list" ||
	fail "list fs does not show the ext4_sync_file pair"
grep -q "^  --func .*fentry/fexit" "$TMP/list" || fail "list fs: no --func attach modes"

# --fs-ops all: touch calls no VFS operation that has a tracepoint pair,
# but exec reads its binary through ext4's helpers (extent lookups)
"$OSPROF" run -l fs --fs-ops all --func vfs_read -o "$TMP/f.osp" -- touch "$TMP/ran" 2>"$TMP/err"
rc=$?
if "$OSPROF" report --csv "$TMP/f.osp" 2>/dev/null | grep -q '"fs","vfs_read"'; then
	exit 0 # a kernel that allows fentry or kprobes timed it
fi
expect_eq "run with --func refused but tracepoint pairs present" $rc 0
[ -e "$TMP/ran" ] || fail "the command did not run"
[ "$(grep -c -- '--func' "$TMP/err")" -eq 1 ] || fail "expected one --func line, got: $(cat "$TMP/err")"
grep -q "^osprof: --func vfs_read: .*fentry/fexit (.*) and kprobe/kretprobe (.*); going on without it" "$TMP/err" ||
	fail "message does not name both modes: $(cat "$TMP/err")"
if [ ! -e /sys/bus/event_source/devices/kprobe ]; then
	grep -q "kprobe/kretprobe (not in this kernel" "$TMP/err" || fail "kprobe reason: $(cat "$TMP/err")"
fi
grep -q '^profile fs ' "$TMP/f.osp" || fail "no tracepoint-pair profile in the run"
# A layer with nothing to attach beside one that works: the run goes on
# without it, said once, and the set names it.
OSPROF_FS_SUBSYS=none_here OSPROF_FSOPS=off "$OSPROF" run -l syscall,fs -o "$TMP/d.osp" -- touch "$TMP/ran2" 2>"$TMP/err"
expect_eq "run with one layer left" $? 0
[ -e "$TMP/ran2" ] || fail "the command did not run"
expect_eq "going-on lines" "$(grep -c "going on without the fs layer" "$TMP/err")" 1
grep -q "^meta layers_unavailable fs$" "$TMP/d.osp" || fail "layers_unavailable not in the set"
grep -q "^meta layers syscall$" "$TMP/d.osp" || fail "layers: $(grep '^meta layers ' "$TMP/d.osp")"
# Nothing left to attach: an error, and the command does not run.
rm -f "$TMP/ran"
OSPROF_FS_SUBSYS=none_here OSPROF_FSOPS=off "$OSPROF" run -l fs --func vfs_read -o "$TMP/g.osp" -- touch "$TMP/ran" 2>"$TMP/err"
expect_eq "run with nothing attachable" $? 1
[ ! -e "$TMP/ran" ] || fail "the command ran although nothing could attach"
grep -q "osprof: fs: nothing to time" "$TMP/err" || fail "no final error line: $(cat "$TMP/err")"
grep -q "^  --func   unavailable here: fentry/fexit refused" "$TMP/list" ||
	fail "list fs does not say --func is unavailable: $(grep -- --func "$TMP/list")"
"$OSPROF" run -l fs --func no_such_function_xyz -- true 2>"$TMP/err2"
expect_eq "unknown symbol: usage error" $? 2
grep -q "no_such_function_xyz: no kernel function" "$TMP/err2" || fail "unknown symbol message: $(cat "$TMP/err2")"
exit 0
