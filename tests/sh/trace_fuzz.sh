# Bounded libFuzzer run of the trace segment reader and record decoder
# (tests/fuzz/fuzz_trace_reader.c) on a copy of its seed corpus.
. "$(dirname "$0")/../lib.sh"
command -v clang >/dev/null || skip "clang not installed"
bin=$BUILD/fuzz/fuzz_trace_reader
make -s -C "$ROOT" BUILD="$BUILD" "$bin" >"$TMP/build.log" 2>&1 || {
	cat "$TMP/build.log"
	fail "cannot build $bin"
}
mkdir -p "$TMP/corpus"
cp "$ROOT"/tests/fuzz/corpus/fuzz_trace_reader/* "$TMP/corpus/"
"$bin" -max_total_time="${OSPROF_FUZZ_SECONDS:-10}" -rss_limit_mb=1024 -artifact_prefix="$TMP/" \
	"$TMP/corpus" >"$TMP/fuzz.log" 2>&1 || {
	tail -n 40 "$TMP/fuzz.log"
	fail "fuzz_trace_reader crashed (reproducer in the log above)"
}
grep -q "Done [0-9]* runs" "$TMP/fuzz.log" || fail "fuzz_trace_reader did not run"
grep -o "Done [0-9]* runs" "$TMP/fuzz.log"
