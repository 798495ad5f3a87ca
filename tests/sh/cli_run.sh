# osprof run: exit status of CMD is passed on, 127 for a missing command,
# usage errors name the flag and exit 2.
. "$(dirname "$0")/../lib.sh"
cd "$TMP"
"$OSPROF" run -l user -o "$TMP/x.osp" -- /nonexistent/cmd 2>"$TMP/err"
expect_eq "missing command exit" "$?" "127"
grep -q "command not found" "$TMP/err" || fail "message: $(cat "$TMP/err")"
"$OSPROF" run -l user -o "$TMP/x.osp" -- sh -c 'exit 3'
expect_eq "exit status passed on" "$?" "3"
[ -s "$TMP/x.osp" ] || fail "no profile written"
"$OSPROF" report "$TMP/x.osp" >/dev/null || fail "written profile does not read back"
"$OSPROF" run -l user -o "$TMP/x.osp" -- sh -c 'kill -TERM $$'
expect_eq "killed by signal" "$?" "143"
err=$("$OSPROF" run -r 3 -- true 2>&1)
expect_eq "bad -r exit" "$?" "2"
echo "$err" | grep -q -- "-r/--resolution: '3'" || fail "bad -r message: $err"
err=$("$OSPROF" run -l nosuch -- true 2>&1)
expect_eq "bad layer exit" "$?" "2"
echo "$err" | grep -q "unknown layer 'nosuch'" || fail "bad layer message: $err"
"$OSPROF" run 2>/dev/null
expect_eq "no command exit" "$?" "2"
"$OSPROF" run --help | grep -q "usage: osprof run" || fail "--help"
# --by that no chosen layer splits by is a usage error naming who does.
err=$("$OSPROF" run -l user --by caller -o "$TMP/by.osp" -- true 2>&1)
expect_eq "--by caller with -l user: exit" "$?" "2"
echo "$err" | grep -q "none of the layers user splits by caller (lock does)" || fail "--by message: $err"
[ ! -e "$TMP/by.osp" ] || fail "a profile was written despite the usage error"
exit 0
