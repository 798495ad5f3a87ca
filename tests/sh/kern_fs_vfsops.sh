#!/usr/bin/env bash
# The fs layer's VFS ops on tmpfs, ext4 (loop image) and overlayfs: a static
# program doing N pwrite64, N pread64 and N fsync gives exactly N write_iter,
# read_iter and fsync calls of that file system (fs=TYPE), the same N strace
# counts, through fentry and through kprobes forced with OSPROF_ATTACH=kprobe.
# Where the kernel allows neither (this development machine), one line says
# which file systems cannot be seen and why, and the run goes on (exit 0)
# with the rest; OSPROF_EXPECT_VFSOPS=1 (the VM phase) makes that a failure.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kern.bash"
. "$ROOT/tests/kl_lib.sh"
need_root
need_btf
command -v strace >/dev/null || skip "needs strace"
N=50
cc -O2 -static -o "$TMP/fsops_rw" "$ROOT/tests/progs/fsops_rw.c" 2>"$TMP/cc.err" ||
	skip "cannot link statically (libc.a missing?): $(head -n 1 "$TMP/cc.err")"

# Host degrade check first: tmpfs only.
mkdir -p "$TMP/t"
mount -t tmpfs tmpfs "$TMP/t" || fail "cannot mount tmpfs"
trap 'umount "$TMP/t" 2>/dev/null; umount "$TMP/o" 2>/dev/null; kl_cleanup' EXIT
"$OSPROF" run -l syscall,fs --fs tmpfs -o "$TMP/h.osp" -- "$TMP/fsops_rw" "$TMP/t/f" $N 2>"$TMP/h.err" ||
	fail "run -l syscall,fs --fs tmpfs failed: $(cat "$TMP/h.err")"
expect_eq "syscall pread64" "$(prof_count "$TMP/h.osp" "syscall pread64")" $N
if grep -q "cannot see the VFS operations of" "$TMP/h.err"; then
	[ "${OSPROF_EXPECT_VFSOPS:-}" = 1 ] && fail "VFS ops expected here: $(cat "$TMP/h.err")"
	line=$(grep "cannot see the VFS operations of" "$TMP/h.err")
	[ "$(grep -c "VFS operations" "$TMP/h.err")" -eq 1 ] || fail "said more than once: $(cat "$TMP/h.err")"
	echo "$line" | grep -q "of tmpfs here: fentry/fexit .*, kprobe/kretprobe .*; a kernel with BPF trampolines (fentry) or CONFIG_KPROBES would time them" ||
		fail "line does not say which and why: $line"
	# the default layers still succeed
	"$OSPROF" run -o "$TMP/d.osp" -- "$TMP/fsops_rw" "$TMP/t/g" 3 2>"$TMP/d.err" ||
		fail "default layers failed: $(cat "$TMP/d.err")"
	grep -q "^profile syscall pread64" "$TMP/d.osp" || fail "default run: no syscall profile"
	echo "ok (VFS ops unavailable here, said once: $line)"
	exit 0
fi

# strace's view of the same workload
strace -f -e trace=pread64,pwrite64,fsync -o "$TMP/st" "$TMP/fsops_rw" "$TMP/t/s" $N || fail "strace failed"
for c in pread64 pwrite64 fsync; do
	expect_eq "strace $c" "$(grep -c "^[0-9]* *$c(" "$TMP/st")" $N
done

# check TYPE DIR BIN: exact counts on TYPE, fentry (or kprobe) then forced kprobe
check() {
	local type=$1 file=$2/f bin=$3 mode
	for mode in auto kprobe; do
		rm -f "$file"
		if [ $mode = kprobe ]; then
			OSPROF_ATTACH=kprobe "$OSPROF" run -l fs --fs "$type" -o "$TMP/$type-$mode.osp" -- "$bin" "$file" $N 2>"$TMP/err" ||
				fail "$type ($mode): run failed: $(cat "$TMP/err")"
			grep -q "^meta attach_modes .*fs:kprobe" "$TMP/$type-$mode.osp" || fail "$type: kprobe not used: $(grep attach_modes "$TMP/$type-$mode.osp")"
		else
			"$OSPROF" run -l fs --fs "$type" -o "$TMP/$type-$mode.osp" -- "$bin" "$file" $N 2>"$TMP/err" ||
				fail "$type ($mode): run failed: $(cat "$TMP/err")"
		fi
		local o=$TMP/$type-$mode.osp
		expect_eq "$type $mode read_iter" "$(prof_count "$o" "fs read_iter fs=$type")" "$(grep -c '^[0-9]* *pread64(' "$TMP/st")"
		expect_eq "$type $mode write_iter" "$(prof_count "$o" "fs write_iter fs=$type")" "$(grep -c '^[0-9]* *pwrite64(' "$TMP/st")"
		expect_eq "$type $mode fsync" "$(prof_count "$o" "fs fsync fs=$type")" "$(grep -c '^[0-9]* *fsync(' "$TMP/st")"
	done
	grep -q "^meta attach_modes .*fs:fentry" "$TMP/$type-auto.osp" ||
		echo "note: $type timed through $(grep attach_modes "$TMP/$type-auto.osp") (fentry refused)"
}

# The program lives on another file system than the one measured: exec
# reads it through read_iter.
kl_ext4 64
cp "$TMP/fsops_rw" "$KL_MNT/fsops_rw"
check tmpfs "$TMP/t" "$KL_MNT/fsops_rw"
cp "$TMP/fsops_rw" "$TMP/t/fsops_rw"
mkdir -p "$KL_MNT/d"
check ext4 "$KL_MNT/d" "$TMP/t/fsops_rw"
mkdir -p "$TMP/t/lower" "$TMP/t/upper" "$TMP/t/work" "$TMP/o"
mount -t overlay overlay -o "lowerdir=$TMP/t/lower,upperdir=$TMP/t/upper,workdir=$TMP/t/work" "$TMP/o" ||
	skip "cannot mount overlayfs"
check overlay "$TMP/o" "$TMP/t/fsops_rw"
echo ok
