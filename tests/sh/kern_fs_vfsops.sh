#!/usr/bin/env bash
# The fs layer's VFS ops on tmpfs, ext4 (loop image) and overlayfs: a static
# program doing N pwrite64, N pread64 and N fsync on a file of each gives,
# per file system (fs=TYPE), exactly the write_iter, read_iter and fsync
# counts strace sees, through fentry and through kprobes forced with
# OSPROF_ATTACH=kprobe. Where the kernel allows neither (this development
# machine), one line says which file systems cannot be seen and why, and the
# run goes on (exit 0) with the rest, as does a run with the default layers;
# OSPROF_EXPECT_VFSOPS=1 (the VM phase) makes that a failure.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kern.bash"
. "$ROOT/tests/kl_lib.sh"
need_root
need_btf
command -v strace >/dev/null || skip "needs strace"
N=50
# The three ops checked (each probe costs an attach and detach, slow under
# the VM phase's emulation; tests/sh/kern_demo.sh runs with all of them).
export OSPROF_FSOPS_OPS=read_iter,write_iter,fsync
cc -O2 -static -o "$TMP/fsops_rw" "$ROOT/tests/progs/fsops_rw.c" 2>"$TMP/cc.err" ||
	skip "cannot link statically (libc.a missing?): $(head -n 1 "$TMP/cc.err")"
# The program lives on ramfs, a type not measured: exec reads it through
# read_iter.
mkdir -p "$TMP/t" "$TMP/b" "$TMP/o"
mount -t tmpfs tmpfs "$TMP/t" || fail "cannot mount tmpfs"
trap 'umount "$TMP/o" 2>/dev/null; umount "$TMP/t" "$TMP/b" 2>/dev/null; kl_cleanup' EXIT
mount -t ramfs ramfs "$TMP/b" || fail "cannot mount ramfs"
cp "$TMP/fsops_rw" "$TMP/b/fsops_rw"
BIN=$TMP/b/fsops_rw

# tmpfs alone first: where the VFS ops cannot attach, the run goes on.
"$OSPROF" run -l syscall,fs --fs tmpfs -o "$TMP/h.osp" -- "$BIN" $N "$TMP/t/h" 2>"$TMP/h.err" ||
	fail "run -l syscall,fs --fs tmpfs failed: $(cat "$TMP/h.err")"
expect_eq "syscall pread64" "$(prof_count "$TMP/h.osp" "syscall pread64")" $N
if grep -q "cannot see the VFS operations of" "$TMP/h.err"; then
	[ "${OSPROF_EXPECT_VFSOPS:-}" = 1 ] && fail "VFS ops expected here: $(cat "$TMP/h.err")"
	line=$(grep "cannot see the VFS operations of" "$TMP/h.err")
	[ "$(grep -c "VFS operations" "$TMP/h.err")" -eq 1 ] || fail "said more than once: $(cat "$TMP/h.err")"
	echo "$line" | grep -q "of tmpfs here: fentry/fexit .*, kprobe/kretprobe .*; a kernel with BPF trampolines (fentry) or CONFIG_KPROBES would time them" ||
		fail "line does not say which and why: $line"
	"$OSPROF" run -o "$TMP/d.osp" -- "$BIN" 3 "$TMP/t/d" 2>"$TMP/d.err" ||
		fail "default layers failed: $(cat "$TMP/d.err")"
	grep -q "^profile syscall pread64" "$TMP/d.osp" || fail "default run: no syscall profile"
	echo "ok (VFS ops unavailable here, said once: $line)"
	exit 0
fi
expect_eq "tmpfs read_iter" "$(prof_count "$TMP/h.osp" "fs read_iter fs=tmpfs")" $N

kl_ext4 64
# overlayfs's layers on ramfs too: its calls into the upper file system
# would otherwise add to that type's counts
mkdir -p "$KL_MNT/d" "$TMP/b/lower" "$TMP/b/upper" "$TMP/b/work"
mount -t overlay overlay -o "lowerdir=$TMP/b/lower,upperdir=$TMP/b/upper,workdir=$TMP/b/work" "$TMP/o" ||
	fail "cannot mount overlayfs"
files=("$TMP/t/f" "$KL_MNT/d/f" "$TMP/o/f")

# strace's view of the same workload: N of each call per file
strace -f -y -e trace=pread64,pwrite64,fsync -o "$TMP/st" "$BIN" $N "${files[@]}" || fail "strace failed"
rm -f "${files[@]}"
# strace_n CALL FILE: calls on that file (-y prints the fd's path)
strace_n() { grep -c "^[0-9]* *$1([0-9]*<$2>" "$TMP/st"; }
for f in "${files[@]}"; do
	for c in pread64 pwrite64 fsync; do
		expect_eq "strace $c $f" "$(strace_n $c "$f")" $N
	done
done

types=(tmpfs ext4 overlay)
for mode in auto kprobe; do
	o=$TMP/$mode.osp
	rm -f "${files[@]}"
	if [ $mode = kprobe ]; then export OSPROF_ATTACH=kprobe; fi
	"$OSPROF" run -l fs --fs tmpfs,ext4,overlay -o "$o" -- "$BIN" $N "${files[@]}" 2>"$TMP/err" ||
		fail "$mode: run failed: $(cat "$TMP/err")"
	unset OSPROF_ATTACH
	for i in 0 1 2; do
		t=${types[$i]} f=${files[$i]}
		expect_eq "$t $mode read_iter" "$(prof_count "$o" "fs read_iter fs=$t")" "$(strace_n pread64 "$f")"
		expect_eq "$t $mode write_iter" "$(prof_count "$o" "fs write_iter fs=$t")" "$(strace_n pwrite64 "$f")"
		expect_eq "$t $mode fsync" "$(prof_count "$o" "fs fsync fs=$t")" "$(strace_n fsync "$f")"
	done
done
grep -q "^meta attach_modes .*fs:kprobe" "$TMP/kprobe.osp" ||
	fail "forced kprobes not used: $(grep attach_modes "$TMP/kprobe.osp")"
grep -q "^meta attach_modes .*fs:fentry" "$TMP/auto.osp" ||
	echo "note: fentry refused here, timed through $(grep attach_modes "$TMP/auto.osp")"
echo ok
