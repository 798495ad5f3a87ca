# Sourced by tests/sh/preload_*.sh (after tests/lib.sh): run ops_n under
# `osprof run -l user` and compare every op's count with what ops_n --list
# says one round issues, times the rounds and workers.
[ -x "$OSPROF" ] || skip "no $OSPROF (build first)"
[ -r "$PRELOAD" ] || skip "no $PRELOAD (build first)"
OPS_N=$PROGS/ops_n
[ -x "$OPS_N" ] || skip "no $OPS_N (build first)"
# tmpfs keeps the fsyncs of the rounds cheap.
WORK=$TMP
[ -d /dev/shm ] && [ -w /dev/shm ] && WORK=$(mktemp -d /dev/shm/osprof-preload.XXXXXX)
trap 'rm -rf "$TMP"; [ "$WORK" = "$TMP" ] || rm -rf "$WORK"' EXIT

# check_counts FILE ROUNDS WORKERS [OP=COUNT ...]
# Sums each op over all profiles (any dims) of the report's NDJSON and
# requires exactly ROUNDS*WORKERS*per_round for ops_n's ops, the extra
# OP=COUNT pairs for others, and nothing else.
check_counts() {
	local file=$1 rounds=$2 workers=$3
	shift 3
	report_profiles "$file" >"$TMP/report.json" || fail "osprof report --json $file"
	"$OPS_N" --list >"$TMP/list" || fail "ops_n --list"
	python3 - "$TMP/report.json" "$TMP/list" "$rounds" "$workers" "$@" <<'PY' || fail "counts differ"
import json, sys
report, listing, rounds, workers = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
want = {}
for line in open(listing):
    op, per = line.split()
    want[op] = int(per) * rounds * workers
for kv in sys.argv[5:]:
    op, n = kv.split("=")
    want[op] = int(n)
got = {}
for line in open(report):
    p = json.loads(line)
    if p["layer"] != "user":
        continue
    if sum(b["count"] for b in p["buckets"]) != p["count"]:
        print("%s: buckets sum to %d, count %d" % (p["op"], sum(b["count"] for b in p["buckets"]), p["count"]))
        sys.exit(1)
    got[p["op"]] = got.get(p["op"], 0) + p["count"]
bad = 0
for op in sorted(set(want) | set(got)):
    if got.get(op, 0) != want.get(op, 0):
        print("%s: got %d, want %d" % (op, got.get(op, 0), want.get(op, 0)))
        bad = 1
print("%d ops checked" % len(want))
sys.exit(bad)
PY
}

# meta FILE KEY: value of a metadata line of a .osp file.
meta() { awk -v k="$2" '$1 == "meta" && $2 == k { print $3 }' "$1"; }
