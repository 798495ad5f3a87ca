#!/usr/bin/env bash
# attach-table.sh [JSON...]: the portability table of docs/portability.md —
# what attaches how on each kernel — from `osprof list --json` outputs.
# Without arguments (root): lists this machine's kernel and, when the VM is
# prepared (scripts/vm-setup.sh), Debian 12's own kernel booted under qemu,
# and prints the Markdown table to stdout.
#   scripts/attach-table.sh > docs/portability-table.md
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OSPROF=${OSPROF:-$ROOT/build/osprof}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ $# -eq 0 ]; then
	"$OSPROF" list --json >"$tmp/host.json"
	set -- "$tmp/host.json"
	if [ -s "${VM_DIR:-/var/cache/osprof-vm}/kver" ]; then
		# the guest's list needs the modules of its file systems (and of NFS's
		# RPC, for the rpc layer) loaded
		"$ROOT/scripts/vm-run.sh" sh -c "modprobe -q ext4; modprobe -q fuse; modprobe -q sunrpc; $OSPROF list --json" \
			>"$tmp/vm.json" 2>"$tmp/vm.err" || { cat "$tmp/vm.err" >&2; exit 1; }
		set -- "$@" "$tmp/vm.json"
	fi
fi
python3 - "$@" <<'PY'
import json, sys
kernels, rows, order = [], {}, []
for path in sys.argv[1:]:
    d = json.load(open(path))
    kernels.append(d["kernel"])
    for layer in d["layers"]:
        for it in layer["items"]:
            key = (layer["layer"], it["item"])
            if key not in rows:
                rows[key] = {}
                order.append(key)
            rows[key][d["kernel"]] = (it["mode"] or "-", it["text"])
print("| layer | part | " + " | ".join(kernels) + " |")
print("|---|---|" + "---|" * len(kernels))
for key in order:
    cells = []
    for k in kernels:
        mode, text = rows[key].get(k, ("-", ""))
        cells.append(mode if mode != "unavailable" else "unavailable (" + text.split("unavailable", 1)[1].strip(" :;") + ")")
    part = "" if key[1] == key[0] else key[1]
    print(f"| {key[0]} | {part} | " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
PY
