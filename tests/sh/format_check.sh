# Every C source and header is clang-format clean (.clang-format).
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
command -v clang-format >/dev/null || skip "clang-format not installed"
files=$(git ls-files '*.c' '*.h' 2>/dev/null | grep -v '^lib/log_table.c$')
[ -n "$files" ] || skip "not a git checkout"
clang-format --dry-run -Werror $files || fail "run 'make format'"
