# osprof mount passes data and semantics through unchanged: real workloads
# run through the mount and on the lower directory directly must agree.
#   fio --verify=crc32c over sequential, random and mixed jobs (any verify
#   error fails), tar extract + diff -r, git clone of a local repository +
#   git fsck, postmark, dbench, and tests/progs/fs_semantics (rename, link,
#   unlink, chmod, truncate, xattr, symlink results and errno of failing
#   calls, identical output through the mount and directly).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/stack_lib.sh"
for t in fio tar git postmark dbench; do
	command -v $t >/dev/null || skip "no $t (scripts/install-deps.sh installs it)"
done
DIRECT=$TMP/direct
mkdir -p "$DIRECT"
# through NAME SCRIPT: runs SCRIPT with bash in $MNT/NAME (the lower
# directory $LOWER/NAME seen through osprof mount); its status is returned.
through() {
	mkdir -p "$LOWER/$1"
	"$OSPROF" mount -o "$TMP/$1.osp" -C "$MNT/$1" "$LOWER" "$MNT" -- bash -c "$2"
}
direct() {
	mkdir -p "$DIRECT/$1"
	(cd "$DIRECT/$1" && bash -c "$2")
}

# Semantics: same results, same errno, same file facts.
SEM="'$PROGS/fs_semantics' ."
direct sem "$SEM" >"$TMP/sem.direct" || fail "fs_semantics failed on the lower fs"
through sem "$SEM" >"$TMP/sem.mount" || fail "fs_semantics failed through the mount"
diff -u "$TMP/sem.direct" "$TMP/sem.mount" || fail "semantics differ through the mount"
grep -q "E[A-Z]" "$TMP/sem.direct" || fail "fs_semantics made no failing call"
[ "$(stack_count "$TMP/sem.osp" rename)" -ge 5 ] || fail "renames not profiled"
[ "$(stack_count "$TMP/sem.osp" setxattr)" -ge 4 ] || fail "setxattr not profiled"

# fio: written data verified with crc32c, sequential, random and mixed.
cat >"$TMP/verify.fio" <<'JOB'
[global]
ioengine=psync
directory=.
verify=crc32c
verify_fatal=1
do_verify=1
stonewall
[seq]
rw=write
bs=64k
size=8m
[rand]
rw=randwrite
bs=4k
size=4m
[mixed]
rw=randrw
rwmixread=50
bs=16k
size=4m
JOB
FIO="fio --output-format=terse --minimal '$TMP/verify.fio' >'$TMP/fio.out'"
through fio "$FIO" || fail "fio verify through the mount failed: $(cat "$TMP/fio.out")"
awk -F';' '$5 != 0 { bad = 1 } END { exit bad }' "$TMP/fio.out" ||
	fail "a fio job reported an error: $(cat "$TMP/fio.out")"
[ "$(stack_count "$TMP/fio.osp" write)" -ge 1 ] || fail "fio's writes not profiled"

# tar: a source tree extracted through the mount equals the original.
tar -C "$ROOT" -cf "$TMP/src.tar" lib include cli tests/sh
through tar "tar -xf '$TMP/src.tar' && tar -df '$TMP/src.tar'" || fail "tar through the mount failed"
for d in lib include cli tests/sh; do
	diff -r "$ROOT/$d" "$LOWER/tar/$d" >/dev/null || fail "tar extract differs in $d"
done

# git: clone (pack protocol, not hard links) and fsck through the mount.
REPO=$TMP/repo
git init -q "$REPO"
cp -r "$ROOT/lib" "$REPO/"
git -C "$REPO" add -A
git -C "$REPO" -c user.name=t -c user.email=t@t commit -qm one
cp -r "$ROOT/include" "$REPO/"
git -C "$REPO" add -A
git -C "$REPO" -c user.name=t -c user.email=t@t commit -qm two
through git "git clone -q --no-local '$REPO' clone && git -C clone fsck --full --strict &&
	git -C clone gc -q && git -C clone fsck --full --strict" 2>"$TMP/git.err" ||
	fail "git clone/fsck through the mount failed: $(cat "$TMP/git.err")"
expect_eq "cloned HEAD" "$(git -C "$LOWER/git/clone" rev-parse HEAD)" "$(git -C "$REPO" rev-parse HEAD)"
diff -r -x .git "$REPO" "$LOWER/git/clone" >/dev/null || fail "cloned work tree differs"

# postmark: small-file create/read/append/delete transactions.
PM="printf 'set location .\nset number 300\nset transactions 600\nset seed 7\nrun\nquit\n' | postmark >'$TMP/pm.out'"
through postmark "$PM" || fail "postmark through the mount failed"
grep -q "Time:" "$TMP/pm.out" || fail "postmark did not finish: $(cat "$TMP/pm.out")"
grep -qi "error" "$TMP/pm.out" && fail "postmark reported an error"
[ -z "$(ls -A "$LOWER/postmark")" ] || fail "postmark left files behind (deletes lost)"

# dbench: the NetBench load (create, rename, lock, xattr-free) for 3 seconds.
DB="dbench -c /usr/share/dbench/client.txt -D . -t 3 2 >'$TMP/db.out' 2>&1"
through dbench "$DB" || fail "dbench through the mount failed: $(tail -5 "$TMP/db.out")"
grep -q "^Throughput" "$TMP/db.out" || fail "dbench did not finish: $(tail -5 "$TMP/db.out")"
grep -E "ERROR|failed for|Expected" "$TMP/db.out" && fail "dbench saw an unexpected result"
mountpoint -q "$MNT" && fail "left mounted"
exit 0
