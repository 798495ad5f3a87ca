#!/usr/bin/env bash
# README.md's "Quick start" runs as written: every command of its sh block,
# taken from the README itself (so the test follows the document), run in a
# temp dir with the build's osprof first in PATH, must exit 0 and print
# something or write the file it names with -o.
. "$(dirname "$0")/../lib.sh"
command -v jq >/dev/null || skip "jq missing (scripts/install-deps.sh)"
cmds=$(awk '/^## Quick start/{on=1; next} on && /^## /{exit}
	on && /^```sh/{blk=1; next} on && blk && /^```/{blk=0; next} on && blk' "$ROOT/README.md" |
	sed -e 's/[[:space:]]\+#.*$//' -e '/^[[:space:]]*$/d')
[ "$(echo "$cmds" | wc -l)" -ge 5 ] || fail "Quick start block not found: $cmds"
export PATH=$BUILD:$PATH
cd "$TMP" || fail "cd $TMP"
n=0
while IFS= read -r cmd; do
	out=$(bash -o pipefail -c "$cmd" 2>&1 </dev/null) || fail "'$cmd' exited $?: $out"
	file=$(echo "$cmd" | sed -n 's/.* -o \([^ ]*\).*/\1/p')
	if [ -z "$out" ] && ! { [ -n "$file" ] && [ -s "$file" ]; }; then
		fail "'$cmd' printed nothing and wrote nothing"
	fi
	[ -z "$file" ] || [ -s "$file" ] || fail "'$cmd' did not write $file"
	n=$((n + 1))
done <<<"$cmds"
echo "$n Quick start commands ran"
