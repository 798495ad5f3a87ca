#!/usr/bin/env bash
# The VM test phase: boots Debian 12's own kernel (6.1, scripts/vm-run.sh)
# once and runs the kernel tests of tests/vm/tests.list in it; each prints
# its own "subtest" line, which tests/run.sh counts as a test. Needs the VM
# prepared by scripts/vm-setup.sh (scripts/test.sh does it as root). A VM
# that cannot boot is a failure; without a prepared VM it skips, except
# under CI=true. VM_FILTER=NAME runs the matching tests only.
. "$(dirname "$0")/../lib.sh"
need_root
VM_DIR=${VM_DIR:-/var/cache/osprof-vm}
[ -s "$VM_DIR/kver" ] && [ -s "$VM_DIR/initrd.img" ] ||
	skip "no VM prepared in $VM_DIR (run scripts/vm-setup.sh as root)"
command -v qemu-system-x86_64 >/dev/null || skip "needs qemu-system-x86 (scripts/vm-setup.sh)"
# A snapshot of the build and of the sources the tests read: the guest
# reads the host's files live over 9p, so a rebuild during the phase would
# swap binaries under running tests. Not under /tmp, which the guest covers
# with its scratch disk (a checkout under /tmp would vanish from the guest's
# view once the first test starts).
SNAP=$(mktemp -d /var/tmp/osprof-vm-build.XXXXXX)
trap 'rm -rf "$TMP" "$SNAP"' EXIT
tar -C "$BUILD" --exclude=./obj --exclude=./gen -cf - . | tar -C "$SNAP" -xf - ||
	fail "cannot snapshot $BUILD"
mkdir "$SNAP/src"
tar -C "$ROOT" --exclude=./.git --exclude=./build --exclude='./build-*' \
	--exclude=./tests/browser/node_modules -cf - . | tar -C "$SNAP/src" -xf - ||
	fail "cannot snapshot the sources in $ROOT"
BUILD=$SNAP
GUEST_ROOT=$SNAP/src
# The batch runs in VM_BOOTS boots (default 2), each with its share of the
# list (every VM_BOOTS-th test) and its own time limit: under emulation on a
# loaded host one boot's limit was reached with the whole list in it. A
# guest that does not finish (multi-threaded emulation livelocked the guest
# on a jump-label patch, see scripts/vm-run.sh and docs/vm-testing.md) is
# booted once more, said loudly; a test that fails is never retried.
BOOTS=${VM_BOOTS:-2}
# The first soft lockup or RCU stall of the last boot's console, with the
# task, RIP and code bytes of each CPU it names.
lockup_report() {
	grep -m 12 -E 'soft lockup|rcu_preempt detected stall|Kernel panic|^\[ *[0-9.]+\] (RIP: 0010|Code: )' \
		"$TMP/console" 2>/dev/null | sed 's/^/    console: /'
}
# A guest that locks up panics at once (softlockup_panic) rather than at
# the boot's time limit, and its console keeps the warnings (loglevel=5)
# so the report below shows where the CPUs were stuck.
run_vm() { # SHARD
	VM_TIMEOUT=${VM_TIMEOUT:-570} VM_MEM=${VM_MEM:-3G} \
		VM_APPEND="softlockup_panic=1 loglevel=5 ${VM_APPEND:-}" VM_LOG="$TMP/console" \
		"$ROOT/scripts/vm-run.sh" env VM_FILTER="${VM_FILTER:-}" VM_SHARD="$1/$BOOTS" \
		BUILD="$BUILD" bash "$GUEST_ROOT/tests/vm/guest.sh" >"$TMP/out" 2>"$TMP/err"
}
: >"$TMP/all"
for shard in $(seq 0 $((BOOTS - 1))); do
	start=$(date +%s)
	run_vm "$shard"
	rc=$?
	if ! grep -q '^subtest-done' "$TMP/out"; then
		echo "vm phase: boot $shard of $BOOTS: the guest did not finish (exit $rc) after" \
			"$(($(date +%s) - start)) s; booting it once more. Its output was:" >&2
		sed 's/^subtest /first boot: /' "$TMP/out" >&2
		tail -n 30 "$TMP/err" >&2
		lockup_report >&2
		start=$(date +%s)
		run_vm "$shard"
		rc=$?
	fi
	cat "$TMP/out" | tee -a "$TMP/all"
	echo "vm phase: boot $shard of $BOOTS: $(($(date +%s) - start)) s, guest exit $rc"
	[ $rc -eq 0 ] || {
		tail -n 30 "$TMP/err"
		lockup_report
		fail "the VM did not run the tests (exit $rc)"
	}
done
mv "$TMP/all" "$TMP/out"
grep -q '^subtest ' "$TMP/out" || fail "the VM ran no test"
! grep -q '^subtest not ok' "$TMP/out"
