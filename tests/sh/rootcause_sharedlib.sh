#!/usr/bin/env bash
# osprof rootcause across a shared library: f0 in the executable calls
# lib_root through the PLT (named and expanded through the GOT of the running
# process), and f0 inside the library itself; the slow path lib_root ->
# lib_mid -> lib_slow lies in librc_lib.so (tests/progs/rc_libmain.c,
# tests/progs/lib/rc_lib.c). Trampolines first, uprobes if root.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
rc_run_cmd "$TMP/a" --func "$PROGS/rc_libmain:rc_libcall" --backend trampoline --start-ops 300 \
	--folded -- "$PROGS/rc_libmain" 10 1500
rc_check_folded "$TMP/a" "rc_libcall;lib_root;lib_mid;lib_slow"
rc_run_cmd "$TMP/b" --func "$PROGS/librc_lib.so:lib_root" --start-ops 300 --folded \
	-- "$PROGS/rc_libmain_pie" 10 1500
rc_check_folded "$TMP/b" "lib_root;lib_mid;lib_slow"
need_root
need_btf
rc_run_cmd "$TMP/c" --func "$PROGS/rc_libmain_pie:rc_libcall" --backend uprobe --start-ops 300 \
	--folded -- "$PROGS/rc_libmain_pie" 10 1500
rc_check_folded "$TMP/c" "rc_libcall;lib_root;lib_mid;lib_slow"
