# A statically linked command is detected and reported at prepare time, not
# silently left unprofiled; a dynamic one is not flagged.
. "$(dirname "$0")/../lib.sh"
[ -x "$OSPROF" ] || skip "no $OSPROF (build first)"
printf 'int main(void) { return 3; }\n' >"$TMP/tiny.c"
cc -static -o "$TMP/tiny" "$TMP/tiny.c" 2>"$TMP/cc.err" ||
	skip "cannot link statically (libc.a missing?): $(head -n 1 "$TMP/cc.err")"
"$OSPROF" run -l user -o "$TMP/s.osp" -- "$TMP/tiny" 2>"$TMP/err"
expect_eq "exit status of CMD" "$?" 3
grep -q "osprof: $TMP/tiny is statically linked: the user layer cannot interpose on it" "$TMP/err" ||
	fail "no static-binary warning; stderr: $(cat "$TMP/err")"
grep -q "^meta user_static_paths $TMP/tiny\$" "$TMP/s.osp" && grep -q "^meta user_static 1\$" "$TMP/s.osp" ||
	fail "user_static not in metadata"
# A script is judged by its interpreter.
printf '#!%s\n' "$TMP/tiny" >"$TMP/script"
chmod +x "$TMP/script"
"$OSPROF" run -l user -o "$TMP/t.osp" -- "$TMP/script" 2>"$TMP/err2"
grep -q "is statically linked" "$TMP/err2" || fail "script with a static interpreter not flagged"
# Dynamic: no warning.
"$OSPROF" run -l user -o "$TMP/d.osp" -- true 2>"$TMP/err3" || fail "osprof run true"
if grep -q "statically linked" "$TMP/err3"; then fail "dynamic 'true' flagged as static"; fi
if grep -q "user_static" "$TMP/d.osp"; then fail "user_static set for a dynamic command"; fi
exit 0
