#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Draws callgrind-growth.sh's rows ("target|hosts HOSTS LUNS INSTRUCTIONS"
on stdin) as an SVG on stdout: instructions per LUN past the first (the
fixed cost of one run taken out) against the LUNs of the run, log scale,
one line for one target growing and one for hosts of 256 LUNs.

usage: growth-svg.py BASE_INSTRUCTIONS < rows > plot.svg
"""

import math
import sys

W, H, LEFT, RIGHT, TOP, BOTTOM = 640, 360, 70, 20, 30, 50


def main():
    base = int(sys.argv[1])
    series = {"one target": [], "hosts of 256 LUNs": []}
    for line in sys.stdin:
        kind, _hosts, luns, insn = line.split()
        luns, insn = int(luns), int(insn)
        name = "one target" if kind == "target" else "hosts of 256 LUNs"
        series[name].append((luns, (insn - base) / (luns - 1)))
    points = [p for s in series.values() for p in s]
    xmin, xmax = min(p[0] for p in points), max(p[0] for p in points)
    ymax = max(p[1] for p in points) * 1.25

    def x(v):
        return LEFT + (math.log2(v) - math.log2(xmin)) / (
            math.log2(xmax) - math.log2(xmin) or 1) * (W - LEFT - RIGHT)

    def y(v):
        return H - BOTTOM - v / ymax * (H - TOP - BOTTOM)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="18" text-anchor="middle">scsi-scan: instructions per LUN '
           f'(callgrind, fake kernel) against LUNs scanned</text>',
           f'<line x1="{LEFT}" y1="{H - BOTTOM}" x2="{W - RIGHT}" y2="{H - BOTTOM}" '
           f'stroke="black"/>',
           f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{H - BOTTOM}" stroke="black"/>']
    for i in range(5):
        v = ymax * i / 4
        out.append(f'<text x="{LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">'
                   f'{v / 1000:.0f}k</text>')
        out.append(f'<line x1="{LEFT}" y1="{y(v):.1f}" x2="{W - RIGHT}" y2="{y(v):.1f}" '
                   f'stroke="#ddd"/>')
    ticks = sorted({p[0] for p in points})
    for t in ticks:
        out.append(f'<text x="{x(t):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{t}</text>')
    out.append(f'<text x="{W / 2}" y="{H - 12}" text-anchor="middle">LUNs scanned '
               f'(log scale)</text>')
    for (name, pts), colour, dy in zip(series.items(), ("#1f77b4", "#d62728"), (0, 16)):
        pts.sort()
        path = " ".join(f"{x(a):.1f},{y(b):.1f}" for a, b in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for a, b in pts:
            out.append(f'<circle cx="{x(a):.1f}" cy="{y(b):.1f}" r="3" fill="{colour}"/>')
        out.append(f'<text x="{W - RIGHT - 150}" y="{TOP + 20 + dy}" fill="{colour}">'
                   f'{name}</text>')
    out.append("</svg>")
    print("\n".join(out))


if __name__ == "__main__":
    main()
