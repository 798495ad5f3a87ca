# fs --func: where the kernel refuses fentry/fexit and has no kprobes (this
# machine), one clear line names both modes and why each failed, and osprof
# exits non-zero without running the command; an unknown symbol is named;
# `osprof list fs` shows the discovered pairs and the --func attach modes.
. "$(dirname "$0")/../lib.sh"
need_root
need_btf
"$OSPROF" list fs >"$TMP/list" || fail "osprof list fs failed"
grep -Eq "^fs +[0-9]+ tracepoint pairs .*via (raw_tp|tracepoint)" "$TMP/list" || fail "list: $(head -n 1 "$TMP/list")"
grep -q "ext4_sync_file .*ext4:ext4_sync_file_enter .. ext4_sync_file_exit" "$TMP/list" ||
	fail "list fs does not show the ext4_sync_file pair"
grep -q "^  --func .*fentry/fexit" "$TMP/list" || fail "list fs: no --func attach modes"

"$OSPROF" run -l fs --func vfs_read -o "$TMP/f.osp" -- touch "$TMP/ran" 2>"$TMP/err"
rc=$?
if [ $rc -eq 0 ]; then
	# a kernel that allows fentry or kprobes: then it must have timed vfs_read
	"$OSPROF" report --csv "$TMP/f.osp" | grep -q '"fs","vfs_read"' || fail "vfs_read not profiled"
	exit 0
fi
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "expected one line, got: $(cat "$TMP/err")"
grep -q "^osprof: --func vfs_read: .*fentry/fexit (.*) and kprobe/kretprobe (.*)" "$TMP/err" ||
	fail "message does not name both modes: $(cat "$TMP/err")"
if [ ! -e /sys/bus/event_source/devices/kprobe ]; then
	grep -q "kprobe/kretprobe (not in this kernel" "$TMP/err" || fail "kprobe reason: $(cat "$TMP/err")"
fi
[ ! -e "$TMP/ran" ] || fail "the command ran although the probe failed"
grep -q "^  --func   unavailable here: fentry/fexit refused" "$TMP/list" ||
	fail "list fs does not say --func is unavailable: $(grep -- --func "$TMP/list")"
"$OSPROF" run -l fs --func no_such_function_xyz -- true 2>"$TMP/err2"
expect_eq "unknown symbol: usage error" $? 2
grep -q "no_such_function_xyz: no kernel function" "$TMP/err2" || fail "unknown symbol message: $(cat "$TMP/err2")"
exit 0
