#!/usr/bin/env bash
# The fs layer's default tracepoint pairs are the VFS operations of the
# mounted file systems (functions found in their ops tables): on an ext4
# image, N pwrite+fsync give ext4_sync_file and ext4_da_write but no extent
# cache lookups (ext4_es_lookup_extent, an internal helper); --fs-ops all and
# --fs-ops NAME add helpers, an unknown name is one line and exit 2, and
# `osprof list -v fs` marks each pair default or opt-in. The metadata says
# which selection ran.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kl_lib.sh"
need_root
need_btf
kl_ext4 32
N=30
OSPROF_FSOPS=off OSPROF_FS_SUBSYS=ext4 "$OSPROF" run -l fs -o "$TMP/d.osp" -- \
	"$PROGS/kl_fsync" "$KL_MNT/f" $N 2>"$TMP/err" || fail "default run: $(cat "$TMP/err")"
expect_eq "ext4_sync_file (default)" "$(kl_count "$TMP/d.osp" fs ext4_sync_file fs=ext4)" $N
grep -q "^profile fs ext4_es_" "$TMP/d.osp" && fail "a helper pair was timed by default"
grep -q "^meta fs_ops vfs%20(" "$TMP/d.osp" || fail "metadata does not name the selection"
OSPROF_FSOPS=off OSPROF_FS_SUBSYS=ext4 "$OSPROF" run -l fs --fs-ops all -o "$TMP/a.osp" -- \
	"$PROGS/kl_fsync" "$KL_MNT/f" $N 2>"$TMP/err" || fail "--fs-ops all: $(cat "$TMP/err")"
expect_eq "ext4_sync_file (all)" "$(kl_count "$TMP/a.osp" fs ext4_sync_file fs=ext4)" $N
grep -q "^profile fs ext4_es_lookup_extent " "$TMP/a.osp" || fail "--fs-ops all: no extent lookups"
OSPROF_FSOPS=off OSPROF_FS_SUBSYS=ext4 "$OSPROF" run -l fs --fs-ops ext4_es_lookup_extent \
	-o "$TMP/n.osp" -- "$PROGS/kl_fsync" "$KL_MNT/f" $N 2>"$TMP/err" || fail "--fs-ops NAME: $(cat "$TMP/err")"
grep -q "^profile fs ext4_es_lookup_extent " "$TMP/n.osp" || fail "--fs-ops NAME: helper not added"
grep -q "^profile fs ext4_ext_map_blocks " "$TMP/n.osp" && fail "--fs-ops NAME added another helper"
rc=0
"$OSPROF" run -l fs --fs-ops no_such_pair -o "$TMP/x.osp" -- touch "$TMP/ran" 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] || fail "unknown --fs-ops name: exit $rc: $(cat "$TMP/err")"
grep -q "^osprof: --fs-ops: 'no_such_pair' is no tracepoint pair here" "$TMP/err" || fail "message: $(cat "$TMP/err")"
[ ! -e "$TMP/ran" ] || fail "the command ran despite the bad --fs-ops"
"$OSPROF" list -v fs >"$TMP/list" || fail "list -v fs"
grep -q "ext4_sync_file .*\[default: a VFS operation (ops table)\]" "$TMP/list" || fail "list: $(cat "$TMP/list")"
grep -q "ext4_es_lookup_extent .*\[opt-in: an internal helper" "$TMP/list" || fail "list: no opt-in mark"
exit 0
