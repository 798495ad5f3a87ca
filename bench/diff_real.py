#!/usr/bin/env python3
"""Scores `osprof diff` and peak detection on the real-workload corpus
(tests/data/corpus/real, scripts/capture-real-corpus.sh) and peak stability
on the whole corpus.

  bench/diff_real.py OSPROF CORPUS_DIR [--check]

Per phase-3 metric (each with the 3-phase selection around it):
  FP     unchanged-repeat pairs ('* same') in which any profile "differs"
  FN     controlled changes whose changed profile is not "differs"
  TOP3   controlled changes whose changed profile ranks in the top 3
Peak split stability: for every pair of repeats of one variant, profiles with
>= 1,000 calls on both sides: how many have the same number of peaks.
--check exits 1 unless the default (EMD) meets the targets: 0 FP, 0 FN,
every changed op in the top 3, identical peak count on >= 95 %.
"""
import json
import os
import subprocess
import sys
from collections import defaultdict

METRICS = ["EMD", "TOTOPS", "TOTLAT", "CHISQUARE", "GROUPOPS", "GROUPLAT", "INTERSECT", "JEFFREY"]
MIN_CALLS = 1000


def diff(osprof, a, b, metric):
    out = subprocess.run([osprof, "diff", "--json", "-m", metric, a, b],
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def label(o):
    dims = ",".join("%s=%s" % kv for kv in sorted(o["dims"].items()))
    return "%s:%s%s" % (o["layer"], o["op"], " " + dims if dims else "")


def peak_counts(osprof, path, cache):
    if path not in cache:
        out = subprocess.run([osprof, "peaks", "--json", "--calibration", "none", path],
                             check=True, capture_output=True, text=True).stdout
        cache[path] = {label(o): (o["count"], len(o["peaks"]))
                       for o in map(json.loads, out.splitlines()) if o["unit"] == "ns"}
    return cache[path]


def read_labels(d):
    rows = []
    for l in open(os.path.join(d, "labels")):
        if l.startswith("#") or not l.strip():
            continue
        a, b, op, lab = l.split()
        rows.append((os.path.join(d, a), os.path.join(d, b), op, lab))
    return rows


def main():
    osprof, corpus = sys.argv[1], sys.argv[2]
    check = "--check" in sys.argv
    real = os.path.join(corpus, "real")
    rows = read_labels(real) if os.path.exists(os.path.join(real, "labels")) else []
    same = sorted({(a, b) for a, b, op, lab in rows if op == "*"})
    changes = [(a, b, op) for a, b, op, lab in rows if op != "*" and lab == "differs"]
    print("real corpus %s: %d unchanged-repeat pairs, %d controlled changes (%d sets)"
          % (real, len(same), len(changes), len({x for p in same for x in p} | {x for c in changes for x in c[:2]})))
    print("%-10s | %5s %8s | %5s %5s | %s" % ("METRIC", "FP", "FP-OPS", "FN", "TOP3", "misses"))
    ok = True
    verbose = os.environ.get("DIFF_ACCURACY_VERBOSE")
    for m in METRICS:
        fp = fp_ops = fn = top3 = 0
        misses = []
        for a, b in same:
            d = [e for e in diff(osprof, a, b, m) if e["verdict"] == "differs"]
            fp += bool(d)
            fp_ops += len(d)
            if d:
                misses.extend("FP %s %s %s: %s" % (os.path.basename(a), os.path.basename(b), label(e), e["reason"]) for e in d)
        for a, b, op in changes:
            d = diff(osprof, a, b, m)
            differs = [label(e) for e in d if e["verdict"] == "differs"]
            if op in differs:
                top3 += differs.index(op) < 3
                if differs.index(op) >= 3:
                    misses.append("RANK %s %s %s: rank %d" % (os.path.basename(a), os.path.basename(b), op, differs.index(op) + 1))
            else:
                fn += 1
                e = [e for e in d if label(e) == op]
                misses.append("FN %s %s %s: %s" % (os.path.basename(a), os.path.basename(b), op,
                                                    e[0]["verdict"] + ": " + e[0]["reason"] if e else "absent"))
        print("%-10s | %5d %8d | %5d %4d/%d | %d" % (m, fp, fp_ops, fn, top3, len(changes), len(misses)))
        if m == "EMD":
            ok &= fp == 0 and fn == 0 and top3 == len(changes)
            emd_misses = misses
    for x in (emd_misses if verbose else emd_misses[:40]):
        print("  EMD " + x)

    # Peak split stability over repeats of one variant, app and real corpus.
    cache, same_n, total = {}, 0, 0
    unstable = []
    pairs = list(same)
    app_labels = os.path.join(corpus, "labels")
    if os.path.exists(app_labels):
        pairs += sorted({(a, b) for a, b, op, lab in read_labels(corpus)
                         if lab == "same" and a.rsplit("-", 1)[0] == b.rsplit("-", 1)[0]})
    for a, b in pairs:
        pa, pb = peak_counts(osprof, a, cache), peak_counts(osprof, b, cache)
        for k in pa.keys() & pb.keys():
            if pa[k][0] >= MIN_CALLS and pb[k][0] >= MIN_CALLS:
                total += 1
                if pa[k][1] == pb[k][1]:
                    same_n += 1
                else:
                    unstable.append("%s %s %s: %d vs %d peaks" % (os.path.basename(a), os.path.basename(b), k, pa[k][1], pb[k][1]))
    rate = 100.0 * same_n / total if total else 0
    print("peak split stability: %d of %d repeated profiles with >= %d calls have the same peak count (%.1f %%; target >= 95 %%)"
          % (same_n, total, MIN_CALLS, rate))
    for u in unstable[: 40 if verbose else 10]:
        print("  split " + u)
    ok &= rate >= 95
    return 0 if ok or not check else 1


if __name__ == "__main__":
    sys.exit(main())
