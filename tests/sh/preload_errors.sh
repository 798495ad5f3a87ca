# Error paths of the user layer: a missing preload library is one clear line
# and a failing run; a damaged counter file is named, counted in metadata and
# does not stop the rest from being written; the library loaded outside
# osprof passes calls through.
. "$(dirname "$0")/../lib.sh"
[ -x "$OSPROF" ] || skip "no $OSPROF (build first)"
OSPROF_PRELOAD_LIB=$TMP/nope.so "$OSPROF" run -l user -o "$TMP/a.osp" -- true 2>"$TMP/err"
rc=$?
[ "$rc" -ne 0 ] || fail "run with a missing preload library exited 0"
grep -q "osprof: user layer: cannot read $TMP/nope.so: No such file or directory (set OSPROF_PRELOAD_LIB)" "$TMP/err" ||
	fail "unclear error: $(cat "$TMP/err")"
[ ! -e "$TMP/a.osp" ] || fail "a profile was written despite the error"
OSPROF_PRELOAD_LIB=$TMP/nope.so "$OSPROF" list user | grep -q "NOT FOUND" || fail "list does not report the missing library"

# LD_PRELOAD splits on spaces and colons: such a path is refused clearly.
if [ -r "$PRELOAD" ]; then
	mkdir -p "$TMP/a b"
	cp "$PRELOAD" "$TMP/a b/"
	OSPROF_PRELOAD_LIB="$TMP/a b/libosprof-preload.so" "$OSPROF" run -l user -o "$TMP/sp.osp" -- true 2>"$TMP/err_sp" &&
		fail "a library path with a space was accepted"
	grep -q "LD_PRELOAD cannot carry a path with a space or colon" "$TMP/err_sp" ||
		fail "unclear error: $(cat "$TMP/err_sp")"
fi

# A file of garbage among the counter files.
"$OSPROF" run -l user -o "$TMP/b.osp" -- sh -c 'printf garbage >"$OSPROF_PRELOAD_DIR/9-0.ospu"; cat /dev/null' 2>"$TMP/err2"
expect_eq "exit status (a lost counter file is a loss)" "$?" 3
grep -q "osprof: user layer: 9-0.ospu: truncated header" "$TMP/err2" || fail "bad file not named: $(cat "$TMP/err2")"
grep -q "^meta user_bad_files 1$" "$TMP/b.osp" || fail "user_bad_files not recorded"
report_profiles "$TMP/b.osp" | grep -q '"op":"' || fail "the good files were not collected"

# Outside osprof (no OSPROF_PRELOAD_DIR): calls pass through, results intact.
[ -r "$PRELOAD" ] || skip "no $PRELOAD"
# A sanitizer build's library loads only after the ASan runtime (osprof run
# arranges that itself; here we do).
PL=$PRELOAD
asan=$(ldd "$PRELOAD" | awk '/libasan/ { print $3 }')
if [ -n "$asan" ]; then
	PL=$asan:$PRELOAD
	export ASAN_OPTIONS=detect_leaks=0
fi
out=$(LD_PRELOAD=$PL sh -c 'echo hi >"$1"; cat "$1"' sh "$TMP/f")
expect_eq "pass-through output" "$out" hi
if [ -x "$PROGS/ops_n" ]; then
	LD_PRELOAD=$PL "$PROGS/ops_n" 5 "$TMP" || fail "ops_n under a pass-through preload"
fi

# Interposed calls that fail keep the real call's errno (and are counted).
"$OSPROF" run -l user -o "$TMP/e.osp" -- "$PROGS/ops_n" --errno || fail "errno changed by an interposer"
report_profiles "$TMP/e.osp" | grep -q '"op":"open".*"count":1,' || fail "failed open not counted"
exit 0
