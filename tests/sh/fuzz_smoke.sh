# Bounded libFuzzer runs of every fuzz target (tests/fuzz/fuzz_*.c) on a copy
# of its seed corpus: any crash, leak or sanitizer report fails the test.
. "$(dirname "$0")/../lib.sh"
secs=${OSPROF_FUZZ_SECONDS:-15}
found=0
for bin in "$BUILD"/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	found=1
	name=$(basename "$bin")
	mkdir -p "$TMP/$name"
	if [ -d "$ROOT/tests/fuzz/corpus/$name" ]; then
		cp -r "$ROOT/tests/fuzz/corpus/$name/." "$TMP/$name/"
	fi
	"$bin" -max_total_time="$secs" -rss_limit_mb=1024 -artifact_prefix="$TMP/" "$TMP/$name" \
		>"$TMP/$name.log" 2>&1 || {
		tail -n 40 "$TMP/$name.log"
		fail "$name crashed (reproducer in the log above)"
	}
	grep -q "Done [0-9]* runs" "$TMP/$name.log" || fail "$name did not run"
	echo "$name: $(grep -o 'Done [0-9]* runs' "$TMP/$name.log")"
done
[ "$found" = 1 ] || fail "no fuzz targets built in $BUILD/fuzz (make fuzz)"
