# The preload library exports exactly its interposers (preload/exports.map),
# one per op of preload/ops.def plus the exec family, and at least 60 of
# them; `osprof list user` prints the same op table.
. "$(dirname "$0")/../lib.sh"
[ -r "$PRELOAD" ] || skip "no $PRELOAD (build first)"
sed -n 's/^OSP_OP(\(.*\))$/\1/p' "$ROOT/preload/ops.def" | sort >"$TMP/ops"
n=$(wc -l <"$TMP/ops")
[ "$n" -ge 60 ] || fail "only $n interposed functions"
{ cat "$TMP/ops"; printf '%s\n' execve execv execvp execvpe fexecve; } | sort >"$TMP/want"
nm -D --defined-only "$PRELOAD" | awk '$2 ~ /^[TtWi]$/ { print $3 }' | sed 's/@.*//' | sort -u >"$TMP/got"
diff "$TMP/want" "$TMP/got" >"$TMP/diff" || fail "exports differ from ops.def: $(cat "$TMP/diff")"
# Every interposed name exists in this libc, except names this glibc lacks.
libc=$(ldd /bin/true | awk '/libc.so/ { print $3 }')
nm -D --defined-only "$libc" | awk '{ print $3 }' | sed 's/@.*//' | sort -u >"$TMP/libc"
missing=$(comm -23 "$TMP/ops" "$TMP/libc")
[ -z "$missing" ] || echo "note: not in $libc: $missing"
if [ -x "$OSPROF" ]; then
	"$OSPROF" list user >"$TMP/list" 2>&1 || "$OSPROF" list >"$TMP/list" 2>&1 || true
	if grep -q "pwritev64v2" "$TMP/list"; then
		for op in $(cat "$TMP/ops"); do
			grep -qw -- "$op" "$TMP/list" || fail "osprof list user lacks $op"
		done
	fi
fi
exit 0
