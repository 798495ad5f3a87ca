#!/usr/bin/env bash
# The DARC search on the depth-6, fanout-4 tree (tests/progs/rc_tree.c, leaf
# l6_1 slow by 1.5 ms in 10% of calls): f0 calls needed to finish (profile +
# search), in-peak calls used, search time, and the target's slowdown during
# the search = its f0 call rate alone / its f0 call rate while searched, for
# each backend, in the same run. Needs root for the uprobe backend.
set -u
source "$(dirname "$0")/lib.sh" "${1:-}"
source "$ROOT/tests/sh/lib/rootcause.sh"
P=$BUILD/tests/progs/rc_tree
bench_tmp
N=6000

t0=$(date +%s%N)
"$P" "$N" 10 1500
t1=$(date +%s%N)
base_rate=$(awk -v n="$N" -v ns=$((t1 - t0)) 'BEGIN { printf "%.1f", n / (ns / 1e9) }')

run() { # BACKEND -> JSON in $TMP/$1
	local stop=$TMP/stop.$1
	"$OSPROF" rootcause --func "$P:rc_root" --backend "$1" --start-ops 300 --json \
		-- "$P" 0 10 1500 "$stop" >"$TMP/$1" 2>"$TMP/$1.err" &
	rc_stop_when_out $! "$TMP/$1.err" "$stop"
}

printf "%-11s %9s %9s %9s %9s %11s %10s %9s\n" backend finished f0_calls search in_peak search_s "calls/s" slowdown
printf "%-11s %9s %9s %9s %9s %11s %10s %9s\n" none - - - - - "$base_rate" 1.00
for b in trampoline uprobe; do
	if [ "$b" = uprobe ] && [ "$(id -u)" -ne 0 ]; then
		echo "uprobe: needs root"
		continue
	fi
	run "$b"
	python3 - "$TMP/$b" "$b" "$base_rate" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rate = d["search_calls"] / (d["search_ns"] / 1e9) if d["search_ns"] else 0
print("%-11s %9s %9d %9d %9d %11.2f %10.1f %9.2f" % (sys.argv[2], d["finished"], d["f0_calls"],
      d["search_calls"], d["in_peak_calls"], d["search_ns"] / 1e9, rate,
      float(sys.argv[3]) / rate if rate else float("nan")))
PY
done
