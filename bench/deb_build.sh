#!/usr/bin/env bash
# Builds the Debian package from a clean copy of the committed tree
# (dpkg-buildpackage -us -uc -b, a few minutes: hence bench/, not tests/sh)
# and checks what it holds and that it can be installed: the package's files
# are unpacked into a temp dir (dpkg-deb -x; nothing is installed into /),
# the unpacked osprof runs, and `apt-get install --simulate ./osprof_*.deb`
# resolves its dependencies.
# Usage: bench/deb_build.sh [OUTDIR]   (the .deb is copied there if given)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/osprof-deb.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
git -C "$root" archive --prefix=osprof/ HEAD | tar -x -C "$tmp"
(cd "$tmp/osprof" && dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1 || {
	tail -40 "$tmp/build.log"
	echo "deb_build: dpkg-buildpackage failed" >&2
	exit 1
}
deb=$(ls "$tmp"/osprof_*.deb)
dpkg-deb -I "$deb" | sed -n 's/^ \(Package\|Version\|Depends\):/\1:/p'
dpkg-deb -x "$deb" "$tmp/root"
for f in usr/bin/osprof usr/lib/libosprof.so.0 usr/lib/osprof/libosprof-preload.so \
	usr/lib/pkgconfig/osprof.pc usr/share/man/man1/osprof-report.1.gz \
	usr/share/man/man5/osprof-file-format.5.gz usr/share/bash-completion/completions/osprof; do
	[ -e "$tmp/root/$f" ] || { echo "deb_build: $f missing from the package" >&2; exit 1; }
done
"$tmp/root/usr/bin/osprof" --version
apt-get install --simulate "$deb" >"$tmp/apt.log" 2>&1 || {
	cat "$tmp/apt.log"
	echo "deb_build: apt cannot install $deb" >&2
	exit 1
}
echo "deb_build: ok: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"
[ $# -eq 0 ] || cp "$deb" "$1"/
