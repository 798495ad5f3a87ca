#!/usr/bin/env bash
# make install into a DESTDIR: the layout, the soname and its link, a program
# built with `pkg-config --cflags --libs osprof` that runs against the
# installed library, the installed osprof finding its preload library
# (PREFIX/lib/osprof), `man -l` on every page (one per command of
# cli/commands.def, plus osprof(1) and osprof-file-format(5)), bash
# completion of commands, options and layers, and make uninstall.
. "$(dirname "$0")/../lib.sh"
for t in make pkg-config man help2man cc; do
	command -v $t >/dev/null || skip "$t missing (scripts/install-deps.sh)"
done
san=0
case $(basename "$BUILD") in *asan*) san=1 ;; esac
D=$TMP/stage
# Generated files go to TMP too: the test changes nothing but its temp dir
# (and builds what the build directory lacks).
mk() { make -s -C "$ROOT" SAN=$san BUILD="$BUILD" MAN_DIR="$TMP/man" PC_FILE="$TMP/osprof.pc" \
	PREFIX=/usr DESTDIR="$D" "$@"; }
mk install >"$TMP/install.log" 2>&1 || { cat "$TMP/install.log"; fail "make install"; }

for f in bin/osprof lib/libosprof.a lib/libosprof.so lib/libosprof.so.0 \
	lib/osprof/libosprof-preload.so lib/osprof/libosprof-darc-agent.so \
	include/osprof/osprof.h include/osprof/instrument.h lib/pkgconfig/osprof.pc \
	share/man/man1/osprof.1 share/man/man5/osprof-file-format.5 \
	share/bash-completion/completions/osprof share/zsh/vendor-completions/_osprof; do
	[ -e "$D/usr/$f" ] || fail "not installed: /usr/$f"
done
# -V, --version and the version command agree.
v=$("$D/usr/bin/osprof" --version) || fail "--version"
case $v in "osprof "[0-9]*) ;; *) fail "--version printed '$v'" ;; esac
expect_eq "osprof -V" "$("$D/usr/bin/osprof" -V)" "$v"
expect_eq "osprof version" "$("$D/usr/bin/osprof" version)" "$v"
expect_eq "soname link" "$(readlink "$D/usr/lib/libosprof.so.0")" \
	"libosprof.so.$("$D/usr/bin/osprof" --version | awk '{print $2}')"

# A program of the library's users, built only through pkg-config.
cat >"$TMP/app.c" <<'C'
#include <stdio.h>
#include <osprof/instrument.h>
int main(void)
{
	for (int i = 0; i < 1000; i++) {
		OSP_PRE(step);
		OSP_POST(step);
	}
	return osp_instrument_flush(getenv("OUT")) ? 1 : 0;
}
C
sed -i '1i #include <stdlib.h>' "$TMP/app.c"
export PKG_CONFIG_SYSROOT_DIR=$D PKG_CONFIG_LIBDIR=$D/usr/lib/pkgconfig
flags=$(pkg-config --cflags --libs osprof) || fail "pkg-config osprof"
echo "$flags" | grep -q -- "-I$D/usr/include" || fail "pkg-config cflags: $flags"
# shellcheck disable=SC2086
cc -o "$TMP/app" "$TMP/app.c" $flags || fail "build with pkg-config flags"
readelf -d "$TMP/app" | grep -q 'NEEDED.*\[libosprof.so.0\]' || fail "app does not need libosprof.so.0"
LD_LIBRARY_PATH=$D/usr/lib OUT=$TMP/app.osp "$TMP/app" || fail "app against the installed library"
out=$("$D/usr/bin/osprof" report --summary "$TMP/app.osp") || fail "installed osprof report"
echo "$out" | grep -Eq '^app:step +1000 ' || fail "app profile: $out"

# The installed osprof preloads the installed library (not the build tree's).
"$D/usr/bin/osprof" list -v user | grep -q "library: $D/usr/lib/osprof/libosprof-preload.so" ||
	fail "installed osprof does not find PREFIX/lib/osprof/libosprof-preload.so"
"$D/usr/bin/osprof" run -l user -o "$TMP/cat.osp" -- cat /etc/hostname >/dev/null ||
	fail "installed osprof run -l user"
"$D/usr/bin/osprof" report --summary "$TMP/cat.osp" | grep -q '^user:read ' || fail "no user:read"

# Every page renders without warnings, one per command.
n=0
for p in "$D"/usr/share/man/man*/*; do
	w=$(MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null) || fail "man -l $p"
	[ -z "$w" ] || fail "man warnings on $(basename "$p"): $w"
	MANWIDTH=80 man -l "$p" 2>/dev/null | grep -q . || fail "empty page $p"
	n=$((n + 1))
done
cmds=$(grep -c '^OSP_CMD(' "$ROOT/cli/commands.def")
expect_eq "man pages" "$n" "$((cmds + 2))"
for c in $(sed -n 's/^OSP_CMD(\([a-z_]*\),.*/\1/p' "$ROOT/cli/commands.def"); do
	# The page carries the command's options, word for word from --help.
	opt=$("$OSPROF" "$c" --help | grep -oE -- '--[a-z][a-z-]+' | head -1)
	[ -z "$opt" ] && continue
	MANWIDTH=200 man -l "$D/usr/share/man/man1/osprof-$c.1" 2>/dev/null | grep -q -- "$opt" ||
		fail "osprof-$c.1 lacks $opt"
done

# Subcommands (trace) are documented in their command's page.
MANWIDTH=200 man -l "$D/usr/share/man/man1/osprof-trace.1" 2>/dev/null | grep -q -- '--rotate-time' ||
	fail "osprof-trace.1 lacks trace record's options"

# bash completion: commands, options of a command, layers.
comp() { # comp WORD... : completions of the last word
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _osprof; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$D/usr/share/bash-completion/completions/osprof" "$@"
}
export PATH=$D/usr/bin:$PATH
comp osprof re | grep -qx report || fail "bash completion: no 'report' for 're'"
comp osprof report --p | grep -qx -- --pct || fail "bash completion: no --pct"
comp osprof run -l sys | grep -qx syscall || fail "bash completion: no layer syscall"
comp osprof run -l user,sy | grep -qx user,syscall || fail "bash completion: no user,syscall"
comp osprof plot --op user:prea | grep -qx user:pread64 || fail "bash completion: no op user:pread64"
if command -v zsh >/dev/null; then
	zsh -n "$D/usr/share/zsh/vendor-completions/_osprof" || fail "zsh completion syntax"
fi

mk uninstall >/dev/null || fail "make uninstall"
left=$(find "$D" -type f -o -type l)
[ -z "$left" ] || fail "left after uninstall: $left"
