# Data of a process killed by SIGKILL is not lost: the child does N rounds
# then SIGKILLs itself (no exit handler runs); all its ops are counted and
# the set records one killed process.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/preload_common.bash"
N=100
"$OSPROF" run -l user --by pid -o "$TMP/p.osp" -- "$OPS_N" $N "$WORK" --sigkill || fail "osprof run exited $?"
check_counts "$TMP/p.osp" $N 2 fork=1
expect_eq "user_killed" "$(meta "$TMP/p.osp" user_killed)" 1
