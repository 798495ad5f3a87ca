#!/usr/bin/env bash
# Nesting precision and recall of `osprof report --json --nesting` against
# bpftrace ground truth stored beside each capture of the nesting corpus
# (scripts/capture-nesting-corpus.sh: NAME.osp + NAME.truth, "OUTER INNER
# COUNT" with OUTER a system call or "-"). Scored: system call -> fs op
# relations, for the fs ops osprof profiled in that capture and bpftrace
# could count (DIR/ops).
#  precision: claimed relations whose count matches the truth
#             (|a - b| <= max(2, 2 %)), over all claimed (measured and
#             count guesses, also shown apart);
#  recall:    truth relations osprof states with a matching count, over all
#             truth relations.
#   bench/nesting_accuracy.sh [BUILD_DIR] [CORPUS_DIR]
# NESTING_VERBOSE=1 lists every mismatch. Targets: precision >= 95 %,
# recall >= 90 %.
set -eu
source "$(dirname "$0")/lib.sh" "${1:-}"
DIR=${2:-$ROOT/tests/data/corpus}/nesting
[ -d "$DIR" ] || { echo "nesting precision/recall: no $DIR (scripts/capture-nesting-corpus.sh)"; exit 0; }
python3 - "$BUILD/osprof" "$DIR" <<'PY'
import glob, json, os, subprocess, sys
osprof, d = sys.argv[1], sys.argv[2]
verbose = os.environ.get("NESTING_VERBOSE")
def close(a, b):
    return abs(a - b) <= max(2, 0.02 * max(a, b))
covered = set(open(os.path.join(d, "ops")).read().split())  # ops bpftrace could count
tot = {"measured": [0, 0], "count": [0, 0]}  # [claimed, right]
rec = [0, 0]  # [truth relations, found]
for osp in sorted(glob.glob(os.path.join(d, "*.osp"))):
    name = os.path.basename(osp)
    truth = {}
    for l in open(osp[:-4] + ".truth"):
        outer, inner, n = l.split()
        truth[(outer, inner)] = truth.get((outer, inner), 0) + int(n)
    out = subprocess.run([osprof, "report", "--json", "--nesting", osp], capture_output=True,
                         text=True, check=True).stdout
    profiled = set()
    claims = {}
    for l in out.splitlines():
        r = json.loads(l)
        if r["inner"]["layer"] != "fs" or r["outer"]["layer"] != "syscall":
            continue
        if r["inner"]["op"] not in covered:
            continue
        profiled.add(r["inner"]["op"])
        key = (r["outer"]["op"] or "-", r["inner"]["op"])
        claims.setdefault(r["evidence"], {})
        claims[r["evidence"]][key] = claims[r["evidence"]].get(key, 0) + r["calls"]
    for line in subprocess.run([osprof, "report", "--json", osp], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        r = json.loads(line)
        if r.get("type") == "profile" and r["layer"] == "fs":
            profiled.add(r["op"])
    for ev, cl in claims.items():
        for key, n in cl.items():
            ok = key in truth and close(n, truth[key])
            tot[ev][0] += 1
            tot[ev][1] += ok
            if verbose and not ok:
                print("  wrong %s %s: %s -> %s: %d (truth %s)" % (ev, name, key[0], key[1], n,
                                                            truth.get(key, 0)))
    measured = claims.get("measured", {})
    for key, n in truth.items():
        if key[1] not in profiled:
            continue  # a pair osprof did not profile in this run
        rec[0] += 1
        ok = key in measured and close(measured[key], n)
        rec[1] += ok
        if verbose and not ok:
            print("  missed %s: %s -> %s: %d (osprof %s)" % (name, key[0], key[1], n,
                                                         measured.get(key, 0)))
c = tot["measured"][0] + tot["count"][0]
r = tot["measured"][1] + tot["count"][1]
def pct(a, b):
    return 100.0 * a / b if b else 0.0
print("nesting precision: %d of %d claimed syscall -> fs relations right (%.1f %%; target >= 95 %%):"
      " measured %d of %d, count guesses %d of %d"
      % (r, c, pct(r, c), tot["measured"][1], tot["measured"][0], tot["count"][1], tot["count"][0]))
print("nesting recall: %d of %d bpftrace relations stated with their count (%.1f %%; target >= 90 %%)"
      % (rec[1], rec[0], pct(rec[1], rec[0])))
PY
