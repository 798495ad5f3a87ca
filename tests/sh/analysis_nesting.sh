# Measured nesting against bpftrace in the same run: N write()+fsync() pairs
# on an ext4 loop image; bpftrace counts the ext4 fs events by the system
# call in flight on the same thread, and `osprof report` must state the same
# parents with the same counts ("syscall:fsync -> fs:ext4_sync_file: N of N
# calls"). The report offers no count guess that the order of layers
# forbids, and every nesting line is measured or says "guess".
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kl_lib.sh"
need_root
need_btf
command -v bpftrace >/dev/null || skip "needs bpftrace (ground truth)"
kl_tracefs
kl_ext4 32
N=60
cat >"$TMP/truth.bt" <<'EOF'
tracepoint:raw_syscalls:sys_enter /comm == "kl_fsync"/ { @in[tid] = args->id; }
tracepoint:raw_syscalls:sys_exit /comm == "kl_fsync"/ { delete(@in[tid]); }
tracepoint:ext4:ext4_sync_file_enter /comm == "kl_fsync"/ { @sync[@in[tid]] = count(); }
tracepoint:ext4:ext4_da_write_begin /comm == "kl_fsync"/ { @wb[@in[tid]] = count(); }
EOF
kl_bpftrace "$TMP/truth.bt" "$TMP/truth.out"
OSPROF_FS_SUBSYS=ext4 "$OSPROF" run -l syscall,fs -o "$TMP/n.osp" -- \
	"$PROGS/kl_fsync" "$KL_MNT/f" $N 2>"$TMP/err" || fail "osprof run failed: $(cat "$TMP/err")"
kl_bpftrace_end
# bpftrace map lines: "@sync[74]: 60" (74 = fsync, 1 = write on x86_64)
truth() { sed -n "s/^@$1\[$2\]: \([0-9]*\)$/\1/p" "$TMP/truth.out"; }
expect_eq "bpftrace: ext4_sync_file under fsync" "$(truth sync 74)" $N
"$OSPROF" report "$TMP/n.osp" >"$TMP/r.txt" || fail "report failed"
grep -q "^  syscall:fsync -> fs:ext4_sync_file fs=ext4: $(truth sync 74) of $N calls$" "$TMP/r.txt" ||
	fail "measured fsync nesting differs from bpftrace ($(truth sync 74)): $(grep -- '->' "$TMP/r.txt")"
wb=$(truth wb 1)
[ -n "$wb" ] || fail "bpftrace saw no write_begin under write: $(cat "$TMP/truth.out")"
grep -Eq "^  syscall:write -> fs:ext4(_da)?_write fs=ext4: $wb of [0-9]+ calls$" "$TMP/r.txt" ||
	fail "measured write nesting differs from bpftrace ($wb): $(grep -- '->' "$TMP/r.txt")"
# Every nesting line is measured or a guess; none goes up the layers.
sed -n '/^Nesting/,/^$/p' "$TMP/r.txt" >"$TMP/nest.txt"
if grep -E '^  ' "$TMP/nest.txt" | grep -Ev -- ' -> |: guess: ' | grep -q .; then
	fail "a nesting line neither measured nor a guess: $(cat "$TMP/nest.txt")"
fi
if grep -E 'guess: (syscall|fs):[^ ]+ may call user:|guess: syscall:[^ ]+ may call syscall:' \
	"$TMP/nest.txt"; then
	fail "a guess the order of layers forbids"
fi
# --json --nesting: the same relations, one object per line, that parse
"$OSPROF" report --json --nesting "$TMP/n.osp" >"$TMP/n.json" || fail "report --json --nesting"
python3 - "$TMP/n.json" "$(truth sync 74)" "$wb" <<'PY' || fail "--json --nesting: $(cat "$TMP/n.json")"
import json, sys
rels = [json.loads(l) for l in open(sys.argv[1])]
assert rels, "no relations"
for r in rels:
    assert r["type"] == "nesting" and r["evidence"] in ("measured", "count"), r
    for side in ("outer", "inner"):
        assert set(r[side]) == {"layer", "op", "dims"}, r
    assert isinstance(r["calls"], int) and r["calls"] <= r["inner_calls"], r
def find(outer, inner_prefix):
    return [r for r in rels if r["evidence"] == "measured" and r["outer"]["layer"] == "syscall"
            and r["outer"]["op"] == outer and r["inner"]["op"].startswith(inner_prefix)]
sync = find("fsync", "ext4_sync_file")
assert len(sync) == 1 and sync[0]["calls"] == int(sys.argv[2]), sync
assert sync[0]["inner"]["dims"] == {"fs": "ext4"}, sync
write = find("write", "ext4")
assert any(r["calls"] == int(sys.argv[3]) for r in write), write
# a measured op never gets a count guess
measured = {(r["inner"]["layer"], r["inner"]["op"]) for r in rels if r["evidence"] == "measured"}
assert not [r for r in rels if r["evidence"] == "count"
            and (r["inner"]["layer"], r["inner"]["op"]) in measured], "guess for a measured op"
PY
exit 0
