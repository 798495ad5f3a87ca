# The entry points real builds bind are the ones counted: a small program is
# compiled plain, with _FORTIFY_SOURCE=2, and with _FILE_OFFSET_BITS=64; for
# each build, every interposed symbol it imports (objdump -T) must be counted
# exactly N times under `osprof run -l user`.
. "$(dirname "$0")/../lib.sh"
[ -x "$OSPROF" ] || skip "no $OSPROF (build first)"
command -v objdump >/dev/null || skip "no objdump (binutils)"
cat >"$TMP/prog.c" <<'C'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
/* Every call happens exactly N times; the lengths come from argv so that
 * fortified builds cannot prove them safe and bind the checking variants. */
int main(int argc, char **argv)
{
	int n = atoi(argv[1]), flags = argc > 9 ? O_RDWR : O_RDONLY;
	size_t len = (size_t)atoi(argv[3]);
	char buf[64], link[256];
	struct stat st;
	for (int i = 0; i < n; i++) {
		int fd = open(argv[2], flags);
		if (fd < 0 || read(fd, buf, len) < 0 || pread(fd, buf, len, 0) < 0 || fstat(fd, &st) ||
		    lseek(fd, 0, SEEK_SET) < 0 || readlink("/proc/self/exe", link, len) < 0 ||
		    stat(argv[2], &st))
			return 1;
		close(fd);
	}
	return 0;
}
C
N=50
sed -n 's/^OSP_OP(\(.*\))$/\1/p' "$ROOT/preload/ops.def" | sort >"$TMP/ops"
for flavour in plain "-D_FORTIFY_SOURCE=2" "-D_FORTIFY_SOURCE=2 -D_FILE_OFFSET_BITS=64"; do
	# shellcheck disable=SC2086
	cc -O2 $([ "$flavour" = plain ] || echo "$flavour") -o "$TMP/prog" "$TMP/prog.c" 2>"$TMP/cc.err" ||
		skip "cannot compile the test program ($flavour): $(head -n 1 "$TMP/cc.err")"
	objdump -T "$TMP/prog" | awk '/UND/ { print $NF }' | sort -u | comm -12 - "$TMP/ops" >"$TMP/bound"
	[ "$(wc -l <"$TMP/bound")" -ge 7 ] || fail "$flavour: only $(wc -l <"$TMP/bound") interposed symbols bound"
	"$OSPROF" run -l user -o "$TMP/f.osp" -- "$TMP/prog" $N /etc/hostname 16 || fail "$flavour: run exited $?"
	report_profiles "$TMP/f.osp" >"$TMP/f.json"
	while read -r op; do
		got=$(python3 -c 'import json,sys; print(sum(p["count"] for p in map(json.loads, open(sys.argv[1])) if p["op"] == sys.argv[2]))' "$TMP/f.json" "$op")
		expect_eq "$flavour: $op" "$got" $N
	done <"$TMP/bound"
	echo "$flavour: $(tr '\n' ' ' <"$TMP/bound")"
done
