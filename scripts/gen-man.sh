#!/usr/bin/env bash
# Generates the man pages from the program's own --help text (help2man), so
# the pages cannot drift from it: osprof(1), one osprof-COMMAND(1) per entry
# of cli/commands.def (new commands get a page without touching this script),
# and osprof-file-format(5) from docs/file-format.md.
# Usage: scripts/gen-man.sh OSPROF_BINARY OUTDIR
set -euo pipefail
osprof=$1
out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
version=$("$osprof" --version | awk '{print $2}')
mkdir -p "$out"
see=$(mktemp)
trap 'rm -f "$see"' EXIT

# help2man names a page after the program's basename: set the title to
# OSPROF-COMMAND and keep "osprof COMMAND" in the NAME line.
page() { # page NAME SUMMARY COMMAND-LINE
	{
		# A command with subcommands (trace) documents each one too, from
		# its own --help, in a section of its own.
		# shellcheck disable=SC2086
		for sub in $($3 --help 2>/dev/null | awk '/^Subcommands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{on=0}'); do
			echo "[${1^^} ${sub^^}]"
			echo '.nf'
			# shellcheck disable=SC2086
			$3 "$sub" --help 2>&1 | sed -e 's/\\/\\e/g' -e 's/^[.'"'"']/\\\&&/' -e 's/-/\\-/g'
			echo '.fi'
		done
		echo '[SEE ALSO]'
		echo '.BR osprof (1),'
		sed -n 's/^OSP_CMD(\([a-z_]*\),.*/.BR osprof-\1 (1),/p' "$root/cli/commands.def"
		echo '.BR osprof-file-format (5)'
	} >"$see"
	help2man --no-info --no-discard-stderr --version-string="$version" \
		--name="$2" --section=1 --source=osprof --include="$see" "$3" |
		sed "1,5s/^\.TH OSPROF /.TH ${1^^} /" >"$out/$1.1.tmp"
	mv "$out/$1.1.tmp" "$out/$1.1"
}

page osprof "profile operating-system latency distributions" "$osprof"
sed -n 's/^OSP_CMD(\([a-z_]*\), *"\(.*\)")$/\1\t\2/p' "$root/cli/commands.def" |
	while IFS=$'\t' read -r cmd summary; do
		page "osprof-$cmd" "$summary" "$osprof $cmd"
	done
awk -v version="$version" -f "$root/dist/md2man.awk" "$root/docs/file-format.md" \
	>"$out/osprof-file-format.5.tmp"
mv "$out/osprof-file-format.5.tmp" "$out/osprof-file-format.5"
