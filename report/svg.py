# SPDX-License-Identifier: GPL-3.0-or-later
"""The one SVG line chart both HTML reports draw: series over frames, a min/max
envelope per pixel column (every peak kept), key marks, shaded bands, a marker
and a legend. No numpy array leaves here; the page that embeds it needs no script.
"""
from __future__ import annotations

import html
import math

import numpy as np

# Chart geometry (SVG user units; the SVG scales to the page width).
WIDTH = 960
HEIGHT = 260
MARGIN_LEFT = 64
MARGIN_RIGHT = 16
MARGIN_TOP = 34
MARGIN_BOTTOM = 46

# More points than this per series are reduced to a min/max envelope of this
# many columns (about one per pixel of the plot area).
MAX_COLUMNS = 900

# Key marks: dashed lines up to this many keys, triangles only up to the
# second number, none beyond (a baked action has a key on every frame).
MAX_KEY_LINES = 60
MAX_KEY_MARKS = 400

# The legend's row: each entry is its sample line and label; a title this
# wide per character (15 px bold) that would reach it moves the legend to a
# row of its own, LEGEND_ROW units lower.
TITLE_CHAR_PX = 8.6
LEGEND_ROW = 18

# Long-way-round bands and key marks (the page's CSS legend uses the same colours).
LONG_ARC_FILL = "#f4a259"
KEY_COLOUR = "#7d7d7d"


def legend_width(label: str) -> float:
    return 7 * len(label) + 36


def escape(text) -> str:
    return html.escape(str(text), quote=True)


def nice_ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    """Round tick values (1, 2, 5 x 10^k steps) covering [lo, hi]."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo]
    raw = (hi - lo) / max(count - 1, 1)
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.ceil(lo / step - 1e-9) * step
    ticks = []
    t = start
    while t <= hi + 1e-9 * step:
        ticks.append(0.0 if abs(t) < step * 1e-9 else t)
        t += step
    return ticks


def tick_label(t: float) -> str:
    if abs(t) >= 1e4 or (t != 0 and abs(t) < 1e-3):
        return f"{t:.3g}"
    return f"{t:.10g}" if float(t).is_integer() else f"{t:.4g}"


def envelope(x: np.ndarray, y: np.ndarray, columns: int = MAX_COLUMNS):
    """Points to draw: all of them, or a min/max pair per column when there are many."""
    if x.size <= 2 * columns:
        return x, y
    edges = np.linspace(0, x.size, columns + 1).astype(int)
    xs, ys = [], []
    for a, b in zip(edges[:-1], edges[1:]):
        if b <= a:
            continue
        seg = y[a:b]
        finite = np.isfinite(seg)
        if not finite.any():
            continue
        i_min = a + int(np.nanargmin(seg))
        i_max = a + int(np.nanargmax(seg))
        for i in sorted({i_min, i_max}):
            xs.append(x[i])
            ys.append(y[i])
    return np.array(xs), np.array(ys)


def line_chart(title: str, x, series, *, y_label: str, x_label: str = "frame", keys=(),
           bands=(), marker=None, y_min: float | None = 0.0, y_ref: float | None = None,
           chart_id: str = "", x_range: tuple[float, float] | None = None) -> str:
    """An SVG line chart. series: [(label, y values, colour)]; bands: [(x0, x1)] shaded."""
    x = np.asarray(x, dtype=np.float64)
    plot_w = WIDTH - MARGIN_LEFT - MARGIN_RIGHT
    legend = [(label, colour, "line" if i == 0 else "dashed")
              for i, (label, _, colour) in enumerate(series)]
    if keys:
        legend.append(("key frame", KEY_COLOUR, "dash"))
    if bands:
        legend.append(("long way round", LONG_ARC_FILL, "box"))
    legend_w = sum(legend_width(label) for label, _, _ in legend)
    # A title that would run into the legend gets the legend on a row of its own.
    two_rows = MARGIN_LEFT + TITLE_CHAR_PX * len(title) + 16 > WIDTH - MARGIN_RIGHT - legend_w
    top = MARGIN_TOP + (LEGEND_ROW if two_rows else 0)
    legend_y = 15 + (LEGEND_ROW if two_rows else 0)
    height = HEIGHT + (LEGEND_ROW if two_rows else 0)
    plot_h = height - top - MARGIN_BOTTOM
    ys = [np.asarray([np.nan if v is None else v for v in y], dtype=np.float64)
          for _, y, _ in series]
    finite = np.concatenate([y[np.isfinite(y)] for y in ys] + [np.zeros(0)])
    lo = float(finite.min()) if finite.size else 0.0
    hi = float(finite.max()) if finite.size else 1.0
    if y_min is not None:
        lo = min(lo, y_min)
    if y_ref is not None:
        lo, hi = min(lo, y_ref), max(hi, y_ref)
    if hi - lo < 1e-9:
        # A flat series: centre it (a length of 1 shows 0.9-1.1), or 0-1 from a zero floor.
        if y_min is not None and lo <= y_min:
            hi = lo + 1.0
        else:
            d = max(0.1 * abs(lo), 1e-3)
            lo, hi = lo - d, hi + d
    pad = 0.05 * (hi - lo)
    hi += pad
    if y_min is None or lo < y_min:
        lo -= pad
    if x_range is not None:
        x0, x1 = float(x_range[0]), float(x_range[1])
    else:
        x0 = float(x[0]) if x.size else 0.0
        x1 = float(x[-1]) if x.size else 1.0
    if x1 <= x0:
        x1 = x0 + 1.0

    def px(v):
        return MARGIN_LEFT + (np.asarray(v, dtype=np.float64) - x0) / (x1 - x0) * plot_w

    def py(v):
        return top + plot_h - (np.asarray(v, dtype=np.float64) - lo) / (hi - lo) * plot_h

    out = [f'<svg class="chart" id="{escape(chart_id)}" xmlns="http://www.w3.org/2000/svg" '
           f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(title)}">',
           f'<title>{escape(title)}</title>',
           f'<rect x="{MARGIN_LEFT}" y="{top}" width="{plot_w}" height="{plot_h}" '
           'fill="#fcfcfc" stroke="#bbb"/>']
    # Long-arc intervals: shaded bands behind everything else.
    for a, b in bands:
        xa, xb = float(px(max(a, x0))), float(px(min(b, x1)))
        out.append(f'<rect x="{xa:.1f}" y="{top}" width="{max(xb - xa, 1.0):.1f}" '
                   f'height="{plot_h}" fill="{LONG_ARC_FILL}" fill-opacity="0.28"/>')
    # Grid and tick labels.
    for t in nice_ticks(lo, hi):
        yy = float(py(t))
        out.append(f'<line x1="{MARGIN_LEFT}" x2="{MARGIN_LEFT + plot_w}" y1="{yy:.1f}" y2="{yy:.1f}" '
                   'stroke="#e6e6e6"/>')
        out.append(f'<text x="{MARGIN_LEFT - 6}" y="{yy + 4:.1f}" font-size="11" text-anchor="end" '
                   f'fill="#555">{tick_label(t)}</text>')
    for t in nice_ticks(x0, x1, 10):
        xx = float(px(t))
        out.append(f'<line x1="{xx:.1f}" x2="{xx:.1f}" y1="{top + plot_h}" '
                   f'y2="{top + plot_h + 5}" stroke="#888"/>')
        out.append(f'<text x="{xx:.1f}" y="{top + plot_h + 18}" font-size="11" '
                   f'text-anchor="middle" fill="#555">{tick_label(t)}</text>')
    if y_ref is not None:
        yy = float(py(y_ref))
        out.append(f'<line x1="{MARGIN_LEFT}" x2="{MARGIN_LEFT + plot_w}" y1="{yy:.1f}" y2="{yy:.1f}" '
                   'stroke="#1b7f3b" stroke-dasharray="2 3"/>')
    # Key frames: dashed vertical lines with a small triangle on the frame axis;
    # dense (baked) keys get triangles only, and none past MAX_KEY_MARKS.
    shown_keys = [k for k in keys if x0 <= k <= x1]
    if len(shown_keys) > MAX_KEY_MARKS:
        shown_keys = []
    for k in shown_keys:
        xx = float(px(k))
        if len(shown_keys) <= MAX_KEY_LINES:
            out.append(f'<line x1="{xx:.1f}" x2="{xx:.1f}" y1="{top}" y2="{top + plot_h}" '
                       f'stroke="{KEY_COLOUR}" stroke-dasharray="4 3" stroke-width="1"/>')
        out.append(f'<path d="M{xx - 4:.1f},{top + plot_h} l4,-7 l4,7 z" fill="{KEY_COLOUR}"/>')
    # Series: the first one wide and light underneath, so a second series that
    # coincides with it (Blender = method) still shows both.
    for i, ((label, _, colour), y) in enumerate(zip(series, ys)):
        xs, yv = envelope(x, y)
        ok = np.isfinite(yv)
        if not ok.any():
            continue
        width, opacity = ("4", "0.75") if i == 0 and len(series) > 1 else ("2", "1")
        # Every series after the first is dashed: where two coincide (Blender's
        # speed = the method's) both stay visible, the dashes over the solid line.
        dash = ' stroke-dasharray="8 5"' if i > 0 else ""
        pts = " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(px(xs[ok]), py(yv[ok])))
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="{width}"{dash} '
                   f'stroke-opacity="{opacity}" stroke-linejoin="round" points="{pts}">'
                   f'<title>{escape(label)}</title></polyline>')
    if marker is not None:
        mx, my, mlabel = marker
        if mx is not None and my is not None and math.isfinite(my):
            cx, cy = float(px(mx)), float(py(my))
            anchor = "end" if cx > MARGIN_LEFT + 0.7 * plot_w else "start"
            dx = -8 if anchor == "end" else 8
            out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="5" fill="none" stroke="#000" '
                       'stroke-width="2"/>')
            out.append(f'<text x="{cx + dx:.1f}" y="{max(cy - 8, top + 12):.1f}" font-size="12" '
                       f'text-anchor="{anchor}" fill="#000">{escape(mlabel)}</text>')
    # Title, axis labels, legend.
    out.append(f'<text x="{MARGIN_LEFT}" y="20" font-size="15" font-weight="600" fill="#222">'
               f'{escape(title)}</text>')
    out.append(f'<text x="{MARGIN_LEFT + plot_w / 2:.0f}" y="{height - 8}" font-size="12" '
               f'text-anchor="middle" fill="#333">{escape(x_label)}</text>')
    out.append(f'<text transform="translate(16,{top + plot_h / 2:.0f}) rotate(-90)" '
               f'font-size="12" text-anchor="middle" fill="#333">{escape(y_label)}</text>')
    if not shown_keys:
        legend = [item for item in legend if item[2] != "dash"]
    lx = WIDTH - MARGIN_RIGHT
    ly = legend_y
    for label, colour, kind in reversed(legend):
        lx -= legend_width(label)
        if kind == "box":
            out.append(f'<rect x="{lx}" y="{ly - 6}" width="18" height="12" fill="{colour}" '
                       'fill-opacity="0.4"/>')
        elif kind in ("dash", "dashed"):
            dash, stroke = ("4 3", 2) if kind == "dash" else ("8 5", 3)
            out.append(f'<line x1="{lx}" x2="{lx + 22}" y1="{ly}" y2="{ly}" stroke="{colour}" '
                       f'stroke-dasharray="{dash}" stroke-width="{stroke}"/>')
        else:
            out.append(f'<line x1="{lx}" x2="{lx + 22}" y1="{ly}" y2="{ly}" stroke="{colour}" '
                       'stroke-width="3"/>')
        out.append(f'<text x="{lx + 27}" y="{ly + 4}" font-size="12" fill="#333">{escape(label)}</text>')
    out.append("</svg>")
    return "\n".join(out)
