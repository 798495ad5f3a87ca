#!/usr/bin/env bash
# osprof html in a real browser: headless Debian chromium driven by
# Playwright (tests/browser/report.test.mjs) sorts, selects and switches
# views and checks the DOM; screenshots land in $BUILD/artifacts/.
. "$(dirname "$0")/../lib.sh"
command -v node >/dev/null || skip "node not installed (scripts/install-deps.sh)"
[ -x /usr/bin/chromium ] || skip "chromium not installed (scripts/install-deps.sh)"
[ -d "$ROOT/tests/browser/node_modules/playwright-core" ] ||
	skip "playwright-core missing: run scripts/install-deps.sh (npm ci in tests/browser)"
GEN=$PROGS/ospgen
ART=$BUILD/artifacts
node --check "$ROOT/render/html/report.js" || fail "report.js does not parse"
mkdir -p "$ART"

"$GEN" -o "$TMP/a.osp" -n 32 -s 20 --rootcause || fail "ospgen a"
"$GEN" -o "$TMP/b.osp" -n 32 -S 7 --shift 4 || fail "ospgen b"
"$GEN" -o "$TMP/big.osp" -n 1000 -s 10 || fail "ospgen big"
"$GEN" -o "$TMP/huge.osp" -n 10000 || fail "ospgen huge"
"$GEN" -o "$TMP/empty.osp" -n 0 || fail "ospgen empty"
"$GEN" -o "$TMP/single.osp" -n 3 --single --empty-profile || fail "ospgen single"
"$GEN" -o "$TMP/r4.osp" -n 4 -r 4 || fail "ospgen r4"

OSPROF_CALIBRATION=$ROOT/tests/data/views-calib.osp \
	"$OSPROF" html -o "$TMP/diff.html" --rootcause "$ROOT/tests/data/views-rootcause.folded" \
	"$TMP/a.osp" "$TMP/b.osp" || fail "html diff"
# Sizes beside latencies: block request sizes total more "units" than any
# latency, yet the grid keeps them after the latencies.
cat >"$TMP/sizes.osp" <<'OSP'
osprof-profile-set 1
r 1
slice_ns 0
profile block device dev=vda
stats 10 100000 10000 10000
buckets 14:10
profile block size dev=vda
unit bytes
stats 10 409600 40960 40960
buckets 16:10
profile syscall read
stats 20 20000 1000 1000
buckets 10:20
profile syscall read_bytes
unit bytes
stats 20 81920 4096 4096
buckets 13:20
end 4
OSP
for n in big huge empty single r4 sizes; do
	"$OSPROF" html -o "$TMP/$n.html" "$TMP/$n.osp" || fail "html $n"
done
cp "$TMP/diff.html" "$ART/report-diff.html"

# Self-contained: no src/href to anything but in-page anchors.
if grep -Eio '(src|href)="[^"#][^"]*"' "$TMP/diff.html"; then fail "report refers to external resources"; fi
size=$(stat -c %s "$TMP/big.html")
[ "$size" -lt 2000000 ] || fail "1,000-profile report is $size bytes (limit 2 MB)"
echo "1,000-profile report: $size bytes"
# A long recording: 1,000 profiles of 100 slices each stays under 2 MB
# (heat maps for the 100 with the most latency; --heatmaps 0 embeds all).
"$GEN" -o "$TMP/long.osp" -n 1000 -s 100 || fail "ospgen long"
"$OSPROF" html -o "$TMP/long.html" "$TMP/long.osp" || fail "html long"
size=$(stat -c %s "$TMP/long.html")
[ "$size" -lt 2000000 ] || fail "1,000 profiles x 100 slices: $size bytes (limit 2 MB)"
"$OSPROF" html -o "$TMP/long-all.html" --heatmaps 0 "$TMP/long.osp" || fail "html --heatmaps 0"
[ "$(stat -c %s "$TMP/long-all.html")" -gt "$size" ] || fail "--heatmaps 0 did not embed more slices"
"$OSPROF" html -o "$TMP/x.html" --heatmaps lots "$TMP/long.osp" 2>/dev/null
expect_eq "bad --heatmaps exit" "$?" 2

# Bad usage: one line naming the problem, exit 2.
"$OSPROF" html -o "$TMP/x.html" 2>"$TMP/err" && fail "html without FILE succeeded"
expect_eq "html without FILE exit" "$("$OSPROF" html >/dev/null 2>&1; echo $?)" 2
printf 'osprof-profile-set 1\nbogus\n' >"$TMP/bad.osp"
"$OSPROF" html -o "$TMP/x.html" "$TMP/bad.osp" 2>"$TMP/err"
expect_eq "html bad file exit" "$?" 2
grep -q "bad.osp:2" "$TMP/err" || fail "error does not name FILE:LINE: $(cat "$TMP/err")"
"$OSPROF" html -o "$TMP/x.html" "$TMP/a.osp" "$TMP/r4.osp" 2>"$TMP/err" ||
	fail "html A/B with different r: $(cat "$TMP/err")"
grep -q "comparing at r=1" "$TMP/err" || fail "no note about the resolutions: $(cat "$TMP/err")"
"$OSPROF" html -o "$TMP/drop.html" --drop-dim pid "$TMP/a.osp" "$TMP/b.osp" || fail "html --drop-dim"
# A: 32 profiles over 2 pids + 3 root-cause paths -> 19; B: 32 -> 16.
expect_eq "profiles after --drop-dim pid" "$(grep -o '{"l":' "$TMP/drop.html" | wc -l)" 35
printf 'a;b 1\nbroken\n' >"$TMP/bad.folded"
"$OSPROF" html -o "$TMP/x.html" --rootcause "$TMP/bad.folded" "$TMP/a.osp" 2>"$TMP/err"
expect_eq "bad --rootcause exit" "$?" 2
grep -q "bad.folded:2: " "$TMP/err" || fail "bad folded file message: $(cat "$TMP/err")"

cd "$ROOT/tests/browser" || fail "no tests/browser"
node report.test.mjs "$ART" diff="$TMP/diff.html" big="$TMP/big.html" huge="$TMP/huge.html" \
	empty="$TMP/empty.html" single="$TMP/single.html" r4="$TMP/r4.html" sizes="$TMP/sizes.html" ||
	fail "browser checks failed"
