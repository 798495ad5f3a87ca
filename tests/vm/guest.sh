#!/usr/bin/env bash
# Runs inside the VM (tests/sh/vm_stock_kernel.sh boots it): prepares the
# bare guest, then runs each test of tests/vm/tests.list with CI=true and
# prints one line per test, "subtest ok|not ok|skip NAME ...", which
# tests/run.sh counts like tests of its own.
cd "$(dirname "$0")/../.." || exit 1
. tests/vm/guest-prep.sh >/dev/null 2>&1
export CI=true OSPROF_EXPECT_VFSOPS=1 BUILD=${BUILD:-$PWD/build}
echo "subtest-info kernel $(uname -r)"
log=$(mktemp)
# VM_SHARD=K/N: this boot runs every N-th test of the list from the K-th
shard=${VM_SHARD:-0/1}
i=-1
grep -v '^#' tests/vm/tests.list | while read -r name flags; do
	[ -n "$name" ] || continue
	case $name in *"${VM_FILTER:-}"*) ;; *) continue ;; esac
	i=$((i + 1))
	[ $((i % ${shard#*/})) -eq "${shard%/*}" ] || continue
	start=$(date +%s)
	fsops=off
	[ "${flags:-}" = vfsops ] && fsops=on
	OSPROF_FSOPS=$fsops timeout 300 bash "tests/sh/$name.sh" >"$log" 2>&1 </dev/null
	rc=$?
	secs=$(($(date +%s) - start))
	if [ $rc -eq 0 ]; then
		echo "subtest ok $name (${secs}s)"
	elif [ $rc -eq 77 ]; then
		echo "subtest skip $name: $(tail -n 1 "$log")"
	else
		echo "subtest not ok $name (${secs}s, exit $rc)"
		tail -n 20 "$log" | sed 's/^/    /'
	fi
done
rm -f "$log"
echo "subtest-done"
