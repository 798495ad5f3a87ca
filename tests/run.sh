#!/usr/bin/env bash
# Runs every unit-test binary and shell test, and ends with the line
# "N passed, M failed, K skipped" that CI reads.
# Usage: tests/run.sh [BUILD_DIR] [--unit-only] [FILTER]
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
BUILD=$(cd "$BUILD" && pwd) || exit 2
UNIT_ONLY=0
FILTER=""
shift || true
for a in "$@"; do
	case $a in
	--unit-only) UNIT_ONLY=1 ;;
	*) FILTER=$a ;;
	esac
done
export BUILD CI="${CI:-}"
pass=0 failn=0 skipn=0
failed=()
log=$(mktemp)
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	case $(basename "$t") in *"$FILTER"*) ;; *) continue ;; esac
	if "$t" >"$log" 2>&1; then rc=0; else rc=$?; fi
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	pass=$((pass + p))
	failn=$((failn + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		failn=$((failn + 1)) # crashed before reporting
		f=1
	fi
	if [ "$f" -gt 0 ]; then
		failed+=("$(basename "$t")")
		sed 's/^/    /' "$log"
	fi
	echo "$(basename "$t"): $p ok, $f failed"
done
if [ "$UNIT_ONLY" -eq 0 ]; then
	for t in "$ROOT"/tests/sh/*.sh; do
		[ -f "$t" ] || continue
		name=$(basename "$t" .sh)
		case $name in *"$FILTER"*) ;; *) continue ;; esac
		start=$(date +%s)
		if bash "$t" >"$log" 2>&1; then rc=0; else rc=$?; fi
		secs=$(($(date +%s) - start))
		# A script that runs a batch elsewhere (the VM phase) reports each
		# test as "subtest ok|not ok|skip NAME ...": counted one by one.
		if grep -q '^subtest \(ok\|not ok\|skip\) ' "$log"; then
			sp=$(grep -c '^subtest ok ' "$log")
			sf=$(grep -c '^subtest not ok ' "$log")
			ss=$(grep -c '^subtest skip ' "$log")
			sed -n "s#^subtest \(ok\|not ok\|skip\) #\1 $name/#p; /^    /p" "$log"
			pass=$((pass + sp))
			skipn=$((skipn + ss))
			failn=$((failn + sf))
			# the batch itself failed (the VM timed out): a failure too
			if [ "$rc" -ne 0 ] && ! grep -q '^subtest-done' "$log"; then
				sf=$((sf + 1))
				failn=$((failn + 1))
				echo "not ok $name (${secs}s): the batch did not finish"
				grep -v '^subtest\|^    ' "$log" | tail -n 10 | sed 's/^/    /'
			fi
			if [ "$sf" -gt 0 ]; then
				failed+=("$name")
			elif [ "$rc" -ne 0 ]; then
				failn=$((failn + 1))
				failed+=("$name")
				echo "not ok $name (${secs}s)"
				tail -n 30 "$log" | sed 's/^/    /'
			fi
			echo "$name: ${secs}s"
			continue
		fi
		if [ "$rc" -eq 0 ]; then
			pass=$((pass + 1))
			echo "ok $name (${secs}s)"
		elif [ "$rc" -eq 77 ]; then
			skipn=$((skipn + 1))
			echo "skip $name: $(tail -n 1 "$log")"
		else
			failn=$((failn + 1))
			failed+=("$name")
			echo "not ok $name (${secs}s)"
			tail -n 30 "$log" | sed 's/^/    /'
		fi
	done
fi
rm -f "$log"
if [ "${#failed[@]}" -gt 0 ]; then
	echo "failed: ${failed[*]}"
fi
echo "$pass passed, $failn failed, $skipn skipped"
[ "$failn" -eq 0 ]
