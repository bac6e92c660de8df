#!/bin/sh
# render_report.sh — renders an mbplot report in headless Chromium and checks the screenshot is
# not blank. Not part of `make check` (it needs Debian's chromium, which make check does not).
#
#   tests/render_report.sh [OUT] [SHOT.png]
#
# OUT defaults to out/ (what `make run` fills); when OUT/report.html is missing it runs
# `mbplot report OUT` first. The screenshot (default OUT/report-screenshot.png, 1000 px wide,
# tall enough for the whole page) is decoded with Python's standard library alone and must have
# at least 2% non-white pixels and 50 distinct colours — a page that failed to load, or loaded
# with broken images, is white apart from a little text.
set -eu
OUT=${1:-out}
SHOT=${2:-$OUT/report-screenshot.png}
BIN=${BIN:-build/release/bin}
CHROMIUM=${CHROMIUM:-chromium}
command -v "$CHROMIUM" >/dev/null 2>&1 || {
    echo "render_report.sh: $CHROMIUM not found (Debian: apt-get install chromium)" >&2
    exit 1
}
[ -f "$OUT/report.html" ] || "$BIN/mbplot" report "$OUT" >/dev/null
HTML=$(cd "$OUT" && pwd)/report.html
rm -f "$SHOT"
# --no-sandbox: Chromium refuses to run as root with its sandbox; the page is our own file.
"$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,6000 \
    --screenshot="$SHOT" "file://$HTML" >/dev/null 2>&1 || true
[ -s "$SHOT" ] || { echo "render_report.sh: chromium wrote no screenshot" >&2; exit 1; }
/usr/bin/python3 - "$SHOT" <<'EOF'
import struct, sys, zlib
path = sys.argv[1]
data = open(path, "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6) and interlace == 0, "unexpected PNG layout"
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, rows, i = bytearray(stride), [], 0
for _ in range(h):  # undo the PNG row filters (RFC 2083, 6)
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line))
    prev = line
nonwhite, colours = 0, set()
for r in rows[::4]:  # every fourth row is plenty for a blank test
    for x in range(0, stride, bpp):
        px = r[x:x + 3]
        colours.add(px)
        nonwhite += px != b"\xff\xff\xff"
total = len(rows[::4]) * w
frac = nonwhite / total
print(f"{path}: {w}x{h}, {frac:.1%} non-white pixels, {len(colours)} colours")
if frac < 0.02 or len(colours) < 50:
    sys.exit("render_report.sh: the screenshot looks blank")
EOF
