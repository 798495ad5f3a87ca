#!/usr/bin/env bash
# Peak labels never overlap: six close peaks in a wide plot, as SVG (each
# label's box from its text length at the 11 px font) and as a gnuplot
# script (labels in pixels of the 900 px terminal, 9.5 px per character; the key sits below every
# peak label, so on the PNG it covers none).
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || skip "python3 missing"
cat >"$TMP/p.osp" <<'OSP'
osprof-profile-set 1
r 1
slice_ns 0
profile syscall read
stats 600 600000 200 200000
buckets 8:100 10:100 12:100 14:100 16:100 18:100
profile syscall write
stats 2 1000000000 2 999999998
buckets 2:1 30:1
end 2
OSP
"$OSPROF" plot -o "$TMP/p.svg" --op syscall:read "$TMP/p.osp" || fail "plot svg"
"$OSPROF" plot -o "$TMP/w.svg" "$TMP/p.osp" || fail "plot svg (both)"
"$OSPROF" plot -o "$TMP/p.gp" "$TMP/p.osp" || fail "plot gp"
python3 - "$TMP/p.svg" "$TMP/w.svg" <<'PY' || fail "SVG labels overlap"
import sys, xml.etree.ElementTree as ET
for path in sys.argv[1:]:
    root = ET.parse(path).getroot()
    boxes = []
    for el in root.iter():
        if not el.tag.endswith("text"):
            continue
        cls = el.get("class", "")
        if cls != "peak-label" and el.get("data-w") is None:
            continue
        x, y, w = float(el.get("x")), float(el.get("y")), float(el.get("data-w"))
        assert w >= 6 * len(el.text), (el.text, w)  # a real width, not 0
        lo = x - w / 2 if cls == "peak-label" else x
        boxes.append((lo, lo + w, y, el.text))
    labels = [b for b in boxes]
    assert sum(1 for b in labels if b[3].startswith("P")) >= 6, labels
    for i, a in enumerate(labels):
        for b in labels[:i]:
            if abs(a[2] - b[2]) < 11 and a[0] < b[1] and b[0] < a[1]:
                sys.exit("%s: %r overlaps %r" % (path, a, b))
PY
python3 - "$TMP/p.gp" <<'PY' || fail "gnuplot labels overlap or the key covers one"
import re, sys
panels = open(sys.argv[1]).read().split("\n# --- ")[1:]
for p in panels:
    xr = re.search(r"set xrange \[(-?\d+):(-?\d+)\]", p)
    lo, hi = int(xr.group(1)), int(xr.group(2))
    px = 660.0 / (hi - lo)
    labels = [(float(m.group(2)), float(m.group(3)), m.group(1))
              for m in re.finditer(r"set label \d+ '(P\d+ [^']*)' at ([\d.]+), graph ([\d.]+) center", p)]
    key = re.search(r"set key at graph [\d.]+, graph ([\d.-]+) right top", p)
    assert key, "no key position"
    ky = float(key.group(1))
    for x, y, t in labels:
        assert y > ky, "key at %.2f covers %s at %.2f" % (ky, t, y)
    for i, (x, y, t) in enumerate(labels):
        for (x2, y2, t2) in labels[:i]:
            w, w2 = 9.5 * len(t), 9.5 * len(t2)
            a0, b0 = (x - lo) * px - w / 2, (x2 - lo) * px - w2 / 2
            if y == y2 and a0 < b0 + w2 and b0 < a0 + w:
                sys.exit("%s overlaps %s" % (t, t2))
    print(len(labels), "labels, key at", ky)
PY
if command -v gnuplot >/dev/null; then
	"$OSPROF" plot -o "$TMP/p.png" "$TMP/p.osp" || fail "plot png"
	[ "$(head -c 4 "$TMP/p.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "not a PNG"
fi
true
