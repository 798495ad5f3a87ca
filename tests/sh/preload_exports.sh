# The preload library exports exactly its interposers (preload/exports.map),
# one per op of preload/ops.def plus exec and _exit, and at least 60 of
# them; `osprof list -v user` prints the same op table.
. "$(dirname "$0")/../lib.sh"
[ -r "$PRELOAD" ] || skip "no $PRELOAD (build first)"
sed -n 's/^OSP_OP(\(.*\))$/\1/p' "$ROOT/preload/ops.def" | sort >"$TMP/ops"
n=$(wc -l <"$TMP/ops")
[ "$n" -ge 60 ] || fail "only $n interposed functions"
{ cat "$TMP/ops"; printf '%s\n' execve execv execvp execvpe fexecve _exit _Exit; } | sort >"$TMP/want"
nm -D --defined-only "$PRELOAD" | awk '$2 ~ /^[TtWi]$/ { print $3 }' | sed 's/@.*//' | sort -u >"$TMP/got"
diff "$TMP/want" "$TMP/got" >"$TMP/diff" || fail "exports differ from ops.def: $(cat "$TMP/diff")"
# Every interposed name exists in this libc, except names this glibc lacks.
libc=$(ldd /bin/true | awk '/libc.so/ { print $3 }')
nm -D --defined-only "$libc" | awk '{ print $3 }' | sed 's/@.*//' | sort -u >"$TMP/libc"
missing=$(comm -23 "$TMP/ops" "$TMP/libc")
[ -z "$missing" ] || echo "note: not in $libc: $missing"
if [ -x "$OSPROF" ]; then
	"$OSPROF" list -v user >"$TMP/list" 2>&1 || fail "osprof list -v user failed"
	grep -q "^user  *$n libc" "$TMP/list" || fail "osprof list: no user summary line: $(head -n 1 "$TMP/list")"
	for op in $(cat "$TMP/ops"); do
		grep -qw -- "$op" "$TMP/list" || fail "osprof list -v user lacks $op"
	done
fi
exit 0
