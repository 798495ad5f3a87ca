#!/usr/bin/env bash
# scripts/demo.sh keeps the installer's output out of sight: a chatty
# installer (300 lines of apt/dpkg-like output) ends up in the log file, the
# terminal gets one summary line for it, then the report.
. "$(dirname "$0")/../lib.sh"
cat >"$TMP/installer" <<'SH'
#!/bin/sh
i=0
while [ $i -lt 150 ]; do
	echo "Unpacking libfake$i (1.0-1) ..."
	echo "Setting up libfake$i (1.0-1) ..."
	i=$((i + 1))
done
SH
chmod +x "$TMP/installer"
out=$(cd "$TMP" && OSPROF_DEMO_INSTALL=$TMP/installer OSPROF_DEMO_BUILD=$BUILD OSPROF_DEMO_NOBUILD=1 OSPROF_DEMO_LOGDIR=$TMP \
	OSPROF_DEMO_OUT=$TMP/demo.osp OSPROF_CALIBRATION=$TMP/calib.osp \
	"$ROOT/scripts/demo.sh" 2>&1) || fail "demo.sh exited $?: $out"
echo "$out" | grep -Eq 'Unpacking|Setting up libfake' && fail "installer output reached the terminal"
expect_eq "summary lines of the installer" "$(echo "$out" | grep -c '^demo: dependencies: ok, 150 packages set up')" 1
log=$(echo "$out" | sed -n 's/^demo: dependencies: .*(log: \(.*\))$/\1/p')
expect_eq "installer log" "$log" "$TMP/demo-install.log"
expect_eq "lines in the installer log" "$(wc -l <"$log")" 300
# Then the report: its header and at least one layer section.
echo "$out" | grep -q '^osprof profile set: ' || fail "no report: $out"
echo "$out" | grep -q '^LAYER user: ' || fail "no user layer in the report: $out"
# Before the report: at most a handful of lines (one per step).
before=$(echo "$out" | sed '/^osprof profile set: /,$d' | wc -l)
[ "$before" -le 6 ] || fail "$before lines before the report: $out"
