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
	"$OSPROF" html -o "$TMP/diff.html" "$TMP/a.osp" "$TMP/b.osp" || fail "html diff"
for n in big huge empty single r4; do
	"$OSPROF" html -o "$TMP/$n.html" "$TMP/$n.osp" || fail "html $n"
done
cp "$TMP/diff.html" "$ART/report-diff.html"

# Self-contained: no src/href to anything but in-page anchors.
if grep -Eio '(src|href)="[^"#][^"]*"' "$TMP/diff.html"; then fail "report refers to external resources"; fi
size=$(stat -c %s "$TMP/big.html")
[ "$size" -lt 2000000 ] || fail "1,000-profile report is $size bytes (limit 2 MB)"
echo "1,000-profile report: $size bytes"

# Bad usage: one line naming the problem, exit 2.
"$OSPROF" html -o "$TMP/x.html" 2>"$TMP/err" && fail "html without FILE succeeded"
expect_eq "html without FILE exit" "$("$OSPROF" html >/dev/null 2>&1; echo $?)" 2
printf 'osprof-profile-set 1\nbogus\n' >"$TMP/bad.osp"
"$OSPROF" html -o "$TMP/x.html" "$TMP/bad.osp" 2>"$TMP/err"
expect_eq "html bad file exit" "$?" 2
grep -q "bad.osp:2" "$TMP/err" || fail "error does not name FILE:LINE: $(cat "$TMP/err")"
"$OSPROF" html -o "$TMP/x.html" "$TMP/a.osp" "$TMP/r4.osp" 2>"$TMP/err"
expect_eq "html A/B with different r exit" "$?" 2
grep -q "r=4" "$TMP/err" || fail "resolution mismatch message: $(cat "$TMP/err")"

cd "$ROOT/tests/browser" || fail "no tests/browser"
node report.test.mjs "$ART" diff="$TMP/diff.html" big="$TMP/big.html" huge="$TMP/huge.html" \
	empty="$TMP/empty.html" single="$TMP/single.html" r4="$TMP/r4.html" || fail "browser checks failed"
