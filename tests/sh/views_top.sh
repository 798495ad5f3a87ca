#!/usr/bin/env bash
# osprof top under tmux (send-keys, capture-pane), data from --replay of
# generated files: counts shown equal the file's, keys select, filter by
# layer, pause, write and quit; rates per recorded slice; empty sets, one bucket, r=4 and 10,000
# profiles; no terminal -> exit 2.
. "$(dirname "$0")/../lib.sh"
command -v tmux >/dev/null || skip "tmux not installed (scripts/install-deps.sh)"
GEN=$PROGS/ospgen
S=top
# A private tmux server (-L), kept alive by an idle session between the
# stages: no interference with other tmux users, no race with a server
# that is shutting down after its last session ended.
SOCK=osprof-views-top-$$
tm() { tmux -L "$SOCK" "$@"; }
tm new-session -d -s keep "sleep 600"
cleanup() { tm kill-server 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

pane() { tm capture-pane -p -t "$S"; }
# wait_for REGEX: polls the pane until it matches (the view redraws on its
# own interval, so there is no event to wait on); fails after 15 s.
wait_for() {
	for _ in $(seq 150); do
		pane | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	pane | sed 's/^/    | /' >&2
	fail "pane never showed /$1/"
}
start() { # start ARGS...: osprof top in a WxH (150x45) tmux pane; exit status -> $TMP/rc
	rm -f "$TMP/rc"
	tm new-session -d -s "$S" -x "${W:-150}" -y "${H:-45}" \
		"$OSPROF top $* 2>$TMP/stderr; echo \$? >$TMP/rc; sleep 60"
}
stop() { # stop: q, then the exit status must be 0
	tm send-keys -t "$S" q
	for _ in $(seq 100); do [ -s "$TMP/rc" ] && break; sleep 0.1; done
	expect_eq "top exit status" "$(cat "$TMP/rc" 2>/dev/null)" 0
	tm kill-session -t "$S"
}
# Data rows of the table: lines between the column header and the pane rule.
rows() { pane | awk '/^LAYER /{t=1; next} /─/{t=0} t && NF'; }
csv_count() { # csv_count FILE LABEL
	"$OSPROF" report --csv "$1" | awk -F, -v want="$2" 'NR > 1 {
		gsub(/"/, ""); d = $3; gsub(/;/, " ", d);
		l = $1 ":" $2 (d != "" ? " " d : ""); if (l == want) print $5 }'
}

"$GEN" -o "$TMP/a.osp" -n 40 -s 10 || fail ospgen

# Not a terminal: one clear line, exit 2.
"$OSPROF" top --replay "$TMP/a.osp" </dev/null >"$TMP/out" 2>"$TMP/err"
expect_eq "top without a terminal" "$?" 2
grep -q "needs a terminal" "$TMP/err" || fail "no terminal message: $(cat "$TMP/err")"

start --replay "$TMP/a.osp" -i 50ms -o "$TMP/w.osp"
wait_for 'replay finished'
wait_for 'profiles: 40 of 40'
# Every row's COUNT equals the file's count for that profile.
n=0
while read -r layer op c1 c2 count _; do
	label="$layer:$op $c1 $c2"
	expect_eq "count of $label" "$count" "$(csv_count "$TMP/a.osp" "$label")"
	n=$((n + 1))
done < <(rows)
[ "$n" -ge 10 ] || fail "only $n rows shown"
first=$(rows | head -1 | awk '{print $1 ":" $2 " " $3 " " $4}')
pane | grep -q "^.\{0,4\}$first (cumulative)" || fail "histogram pane does not show the first row '$first'"
pane | grep -q 'nsecs *: count *distribution' || fail "no bcc-style histogram"

# j selects the second row: the histogram pane follows.
second=$(rows | sed -n 2p | awk '{print $1 ":" $2 " " $3 " " $4}')
tm send-keys -t "$S" j
wait_for "$second \\(cumulative\\)"

# l filters to one layer; every row then has it.
tm send-keys -t "$S" l
wait_for 'layer: (syscall|fs|block|user) '
layer=$(pane | sed -n 's/^ layer: \([a-z]*\) .*/\1/p')
[ "$layer" != all ] || fail "layer filter did not change"
others=$(rows | awk -v l="$layer" '$1 != l' | wc -l)
expect_eq "rows of other layers with filter $layer" "$others" 0
tm send-keys -t "$S" L
wait_for 'layer: all '

# c switches to last-interval values, p pauses, w writes.
tm send-keys -t "$S" c
wait_for 'values: last interval'
tm send-keys -t "$S" p
wait_for '\[PAUSED\]'
tm send-keys -t "$S" w
wait_for "wrote 40 profiles to $TMP/w.osp"
expect_eq "profiles written" "$("$OSPROF" report --csv "$TMP/w.osp" | tail -n +2 | wc -l)" 40
expect_eq "count written for $first" "$(csv_count "$TMP/w.osp" "$first")" \
	"$(csv_count "$TMP/a.osp" "$first")"
stop

# z zeroes the counters; -d ends the view by itself.
start --replay "$TMP/a.osp" -i 50ms -d 3s
wait_for 'replay finished'
tm send-keys -t "$S" z
wait_for '^user +[a-z]+ +comm=gen pid=[0-9]+ +0 '
expect_eq "rows with operations or a rate after z" "$(rows | awk '$5 != 0 || $6 != 0' | wc -l)" 0
for _ in $(seq 100); do [ -s "$TMP/rc" ] && break; sleep 0.1; done
expect_eq "exit status after -d" "$(cat "$TMP/rc" 2>/dev/null)" 0
tm kill-session -t "$S"

# Ctrl-C with -o: what was collected is written before exiting.
start --replay "$TMP/a.osp" -i 50ms -o "$TMP/int.osp"
wait_for 'replay finished'
tm send-keys -t "$S" C-c
for _ in $(seq 100); do [ -s "$TMP/rc" ] && break; sleep 0.1; done
expect_eq "exit status after Ctrl-C" "$(cat "$TMP/rc")" 0
grep -q "40 profiles written to $TMP/int.osp" "$TMP/stderr" || fail "no flush message: $(cat "$TMP/stderr")"
expect_eq "count flushed for $first" "$(csv_count "$TMP/int.osp" "$first")" \
	"$(csv_count "$TMP/a.osp" "$first")"
tm kill-session -t "$S"

# An 80x24 terminal: all numeric columns and the key line still fit.
W=80 H=24 start --replay "$TMP/a.osp" -i 50ms
wait_for 'replay finished'
wait_for 'COUNT +RATE/s +TOTAL +MEAN +P99$'
wait_for '^ q quit'
stop

# --replay rates are per recorded slice (500 ops in each 1 s slice: 500/s),
# not per refresh interval (which would read 500 / 50 ms = 10000/s).
{
	printf 'osprof-profile-set 1\nr 1\nslice_ns 1000000000\nprofile syscall read comm=x\n'
	printf 'stats 15000 15000000 1000 1000\nbuckets 10:15000\n'
	for i in $(seq 0 29); do printf 'slice %d 10:500\n' "$i"; done
	printf 'end 1\n'
} >"$TMP/rate.osp"
start --replay "$TMP/rate.osp" -i 50ms
wait_for 'replay finished'
wait_for '^syscall +read +comm=x +15000 '
expect_eq "replay rate per recorded slice" "$(rows | awk '$2 == "read" {print $5}')" 500
stop

# Edge cases: no profiles, one bucket and an empty profile, r=4, 10,000.
"$GEN" -o "$TMP/empty.osp" -n 0 || fail ospgen
start --replay "$TMP/empty.osp" -i 50ms
wait_for 'waiting for operations'
stop
"$GEN" -o "$TMP/single.osp" -n 3 --single --empty-profile || fail ospgen
start --replay "$TMP/single.osp" -i 50ms
wait_for 'profiles: 4 of 4'
wait_for '4096 -> 8191 +: [0-9]+ +\|\*+\|'
tm send-keys -t "$S" End
wait_for 'syscall:idle \(cumulative\)'
wait_for 'no operations'
stop
"$GEN" -o "$TMP/r4.osp" -n 4 -r 4 -s 3 || fail ospgen
start --replay "$TMP/r4.osp" -i 50ms
wait_for 'replay finished'
wait_for 'nsecs *: count'
stop
"$GEN" -o "$TMP/huge.osp" -n 10000 || fail ospgen
start --replay "$TMP/huge.osp" -i 200ms
wait_for 'profiles: 10000 of 10000'
tm send-keys -t "$S" NPage NPage j
wait_for 'profiles: 10000 of 10000'
stop
