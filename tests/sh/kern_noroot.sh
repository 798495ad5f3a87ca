#!/usr/bin/env bash
# Without root, kernel layers fail with one clear line and a non-zero exit.
. "$(dirname "$0")/../lib.sh"
need_root
command -v setpriv >/dev/null || skip "setpriv not installed"
cp "$OSPROF" "$TMP/osprof"
chmod 755 "$TMP" "$TMP/osprof"
cd "$TMP" || fail "cd"
setpriv --reuid=nobody --regid=nogroup --clear-groups "$TMP/osprof" run -l syscall -o /dev/null -- true \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -ne 0 ] || fail "succeeded without root"
expect_eq "error lines" "$(wc -l <"$TMP/err")" 1
grep -q 'the syscall layer needs root' "$TMP/err" || fail "unclear error: $(cat "$TMP/err")"
setpriv --reuid=nobody --regid=nogroup --clear-groups "$TMP/osprof" record -l syscall -a -d 1 -o /dev/null \
	>"$TMP/out" 2>"$TMP/err"
[ $? -ne 0 ] || fail "record succeeded without root"
grep -q 'needs root' "$TMP/err" || fail "unclear record error: $(cat "$TMP/err")"
echo ok
