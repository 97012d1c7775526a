# SPDX-License-Identifier: GPL-3.0-or-later
"""One self-contained HTML page from a "quatbake.report/1" document.

No network, no JavaScript: inline CSS and inline SVG charts drawn here in
Python. Per object: a summary table, the findings in words, and charts a
person reads at a glance - deviation per frame, angular speed Blender vs the
method, quaternion length (when the object uses quaternions) - with key
frames marked, long-arc intervals shaded and the worst frame pointed at.

Long animations are drawn with a min/max envelope per pixel column, so a
1,000,000-frame object still makes a small page and no spike disappears.
"""
from __future__ import annotations

import math
import os

import numpy as np

from ..core.words import counted
from .json_report import largest_deviation
from .svg import escape, line_chart

BLENDER_COLOUR = "#d1495b"   # Blender's own interpolation: red
CUSTOM_COLOUR = "#2e86ab"    # QuatBake's method: blue
DEVIATION_COLOUR = "#6a4c93"
PATH_DEVIATION_COLOUR = "#f4a259"   # the part of the deviation off the method's path
NORM_COLOUR = "#e07a00"
LOCATION_COLOUR = "#2a9d8f"

_CSS = """
body{font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;margin:24px auto;
max-width:1040px;color:#222;background:#fafafa;padding:0 16px}
h1{font-size:1.6em;margin-bottom:4px}h2{margin-top:36px;border-bottom:2px solid #ddd;padding-bottom:4px}
.meta{color:#666;margin-top:0}
table{border-collapse:collapse;margin:8px 0 12px;background:#fff}
td,th{border:1px solid #ddd;padding:4px 10px;text-align:left;vertical-align:top}
th{background:#f0f0f0}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.bad{color:#b00020;font-weight:600}.ok{color:#1b7f3b;font-weight:600}.warn{color:#a05a00;font-weight:600}
.advice{font-size:1.1em;padding:8px 12px;background:#fff4e5;border-left:4px solid #f4a259;margin:8px 0}
.advice.clean{background:#eaf7ee;border-left-color:#1b7f3b}
.chart{background:#fff;border:1px solid #e2e2e2;margin:10px 0;display:block;width:100%;height:auto}
.errors li{color:#b00020}
.foot{color:#777;font-size:.85em;margin-top:40px}
.hint{border-bottom:1px dotted #888;cursor:help}
details{margin:8px 0}summary{cursor:pointer;color:#444}
"""


def _label(obj: dict) -> str:
    """How the page names an object entry: "Cube", "Rig: spine" for a pose bone or, for one
    of several clips, "Cube / Walk"."""
    name = f"{obj['name']}: {obj['bone']}" if obj.get("bone") else str(obj["name"])
    return f"{name} / {obj['clip']}" if obj.get("clip") else name


def _fmt(x, digits: int = 2) -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and not math.isfinite(x):
        return "-"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    if x.is_integer() and abs(x) < 1e9:
        return str(int(x))
    return f"{x:.{digits}f}"


def _deg(x) -> str:
    """Degrees with two decimals (tables line up; 180 reads as 180.00, not a frame)."""
    if x is None or not math.isfinite(float(x)):
        return "-"
    return f"{float(x):.2f}"


def _defect_arcs(obj: dict) -> list:
    """long_arc_segments without the keyed spins (key_intervals[*].kind, issue 11)."""
    spins = {tuple(iv["frames"]) for iv in obj.get("key_intervals") or []
             if iv.get("kind") == "spin"}
    return [seg for seg in obj.get("long_arc_segments", []) if tuple(seg) not in spins]


_KIND_LABELS = {"flip": "long way round (flipped sign)", "wrap": "long way round (Euler wrap)",
                "euler": "long way round (Euler channels)", "spin": "keyed spin",
                "step": "stepped"}


# The panel's verdict thresholds (addon/analyze/entries.FINE_DEG, docs/panel.md): a largest
# difference under this many degrees is "fine".
FINE_DEG = 0.1


def _status(obj: dict) -> tuple[str, str]:
    """(CSS class, word) for an object: long way round, visible, or fine; an
    object whose rotation is fine but which has other findings says so."""
    # The analysis' own verdict (core.findings.verdict) where the report has one: it knows
    # which long ways the Turns setting keeps.
    word = obj.get("verdict")
    if word:
        return ({"long way round": "bad", "visible": "warn", "to check": "warn"}.get(word, "ok"),
                word)
    if _defect_arcs(obj):
        return "bad", "long way round"
    dev = largest_deviation(obj) or 0.0
    if dev >= FINE_DEG:
        return "warn", "visible"
    if obj.get("findings"):
        return "ok", "fine, see advice"
    return "ok", "fine"


def _deviation_class(obj: dict) -> str:
    """The colour of a largest-difference number: red with its verdict's long way round
    (a report walk: a kept spin's 0.00 was red), else orange from the visible size (a 0.00
    is never orange)."""
    if _status(obj)[1] == "long way round":
        return "bad"
    return "warn" if (obj.get("max_deviation_deg") or 0.0) >= FINE_DEG else "ok"


_BETWEEN_HINT = ("Where a channel jumps between two neighbouring keys (an Euler angle "
                 "wrapping from 179 to -179 deg, a quaternion key's flipped sign), Blender's "
                 "playback is sampled in sixteenths of the interval too: a spin there is "
                 "invisible at whole frames and seen by motion blur and retiming.")

_DEVIATION_HINT = ("The angle between the orientation Blender plays and the compared "
                   "method's interpolation of the same keys, at the worst frame. Under "
                   f"{FINE_DEG:g} deg nobody sees it (fine).")
_LONG_WAY_HINT = ("Key intervals Blender turns through more than 180 degrees where the "
                  "shortest rotation is smaller: a flipped quaternion sign or an Euler wrap.")
_FLOAT32_HINT = ("Blender stores keys as 32-bit floats: far from the origin their spacing "
                 "(the step) grows, and a move smaller than it cannot be keyed exactly.")
_NORM_HINT = ("Blender interpolates the four quaternion channels separately; between keys "
              "their length drops below 1 and the turn speeds up and slows down.")


def _hint(text: str, explanation: str) -> str:
    """``text`` with a dotted underline; hovering shows ``explanation``."""
    return f'<span class="hint" title="{escape(explanation)}">{escape(text)}</span>'


# The worst frame is pointed at only when there is a deviation worth seeing.
MARKER_MIN_DEG = 0.01

# Key intervals listed in the table; longer animations list the worst ones.
MAX_INTERVAL_ROWS = 30
# A table of more key intervals than this (or of intervals that do not turn
# at all) is folded: one line that opens it.
FOLD_ROWS = 12
_CV_HINT = ("How much the turning speed varies between the two keys, relative to its mean: "
            "0% is an even turn.")


def _interval_table(obj: dict, method: str) -> str:
    """Per key interval: how far Blender turns vs the shortest way, and speed evenness."""
    intervals = obj.get("key_intervals") or []
    if not intervals:
        return ""
    long_arcs = {tuple(seg) for seg in obj.get("long_arc_segments", [])}
    shown = intervals
    note = ""
    if len(intervals) > MAX_INTERVAL_ROWS:
        def waste(iv):
            return (iv.get("blender_turn_deg") or 0.0) - (iv.get("shortest_deg") or 0.0)
        shown = sorted(sorted(intervals, key=waste, reverse=True)[:MAX_INTERVAL_ROWS],
                       key=lambda iv: iv["frames"][0])
        note = (f'<p class="meta">The {MAX_INTERVAL_ROWS} intervals with the most extra turning '
                f'of {len(intervals)}; report.json has them all.</p>')
    rows = []
    for iv in shown:
        a, b = iv["frames"]
        bad = ((a, b) in long_arcs or [a, b] in obj.get("long_arc_segments", [])) \
            and iv.get("kind") != "spin"
        label = _KIND_LABELS.get(iv.get("kind"), "long way round" if bad else "")
        cv_b, cv_c = iv.get("blender_speed_cv"), iv.get("custom_speed_cv")
        # The flag sits in the Keys cell: a column of its own was empty for
        # every object without a long way round.
        flag = f' <span class="{"bad" if bad else "meta"}">{escape(label)}</span>' if label else ""
        rows.append(
            f'<tr><td>{_fmt(a)}-{_fmt(b)}{flag}</td>'
            f'<td class="num {"bad" if bad else ""}">{_fmt(iv.get("blender_turn_deg"), 1)}</td>'
            f'<td class="num">{_fmt(iv.get("shortest_deg"), 1)}</td>'
            f'<td class="num">{"-" if cv_b is None else f"{100 * cv_b:.0f}%"}</td>'
            f'<td class="num">{"-" if cv_c is None else f"{100 * cv_c:.0f}%"}</td></tr>')
    table = ('<table><tr><th>Keys</th><th>Blender turns (deg)</th><th>Shortest (deg)</th>'
             f'<th>{_hint("Speed variation, Blender", _CV_HINT)}</th>'
             f'<th>Speed variation, {escape(method)}</th></tr>' + "".join(rows) + "</table>")
    quiet = all(abs(iv.get("blender_turn_deg") or 0.0) < 0.05 for iv in shown)
    if len(shown) > FOLD_ROWS or quiet:
        what = "no turn in any of them" if quiet else "click to show"
        return (note + f'<details><summary>{len(shown)} key intervals ({what})</summary>'
                + table + "</details>")
    return note + table


def _object_section(obj: dict, method: str, index: int) -> str:
    pf = obj.get("per_frame", {})
    frames = np.asarray(pf.get("frame", []), dtype=np.float64)
    keys = [float(k) for k in obj.get("keys", [])]
    bands = [(float(a), float(b)) for a, b in _defect_arcs(obj)]
    cls, word = _status(obj)
    worst = obj.get("worst_frame")
    parts = [f'<h2 id="obj-{index}">{escape(_label(obj))} <span class="{cls}">({escape(word)})</span></h2>']
    advice_cls = "advice clean" if cls == "ok" else "advice"
    parts.append(f'<div class="{advice_cls}">{escape(obj.get("advice", ""))}</div>')
    arcs = ", ".join(f"{_fmt(a)}-{_fmt(b)}" for a, b in _defect_arcs(obj)) or "none"
    rows = [
        ("Rotation mode", obj.get("rotation_mode")),
        ("Frames", "-".join(_fmt(f) for f in obj.get("frames", []))),
        ("Keys", ", ".join(_fmt(k) for k in keys) if len(keys) <= 40
         else f"{len(keys)} keys, {_fmt(keys[0])} ... {_fmt(keys[-1])}"),
        (_hint("Largest difference from " + method, _DEVIATION_HINT),
         f"{_deg(obj.get('max_deviation_deg'))} deg at frame {_fmt(worst)}"),
        ("Typical difference (RMS)", f"{_deg(obj.get('rms_deviation_deg'))} deg"),
        ("Off the path / timing", f"{_deg(obj.get('max_path_deviation_deg'))} deg off the "
         f"{method} path, {_deg(obj.get('max_timing_deviation_deg'))} deg of timing"),
        (_hint("Long way round (key intervals)", _LONG_WAY_HINT), arcs),
    ]
    if obj.get("worst_between_frame") is not None:
        rows.insert(4, (_hint("Largest difference between frames", _BETWEEN_HINT),
                        f"{_deg(obj.get('max_between_deviation_deg'))} deg at frame "
                        f"{_fmt(obj['worst_between_frame'])}"))
    nd = obj.get("norm_drift")
    if nd:
        shrink = nd.get("min_norm")
        words = ("stays a rotation" if shrink is not None and shrink > 0.99
                 else "shrinks between keys")
        rows.append((_hint("Quaternion length (Blender's channels)", _NORM_HINT),
                     f"{words}: {_fmt(nd.get('min_norm'), 3)} - {_fmt(nd.get('max_norm'), 3)} "
                     "(1 = a rotation)"))
    if obj.get("euler_wraps"):
        rows.append(("Euler wraps", "; ".join(
            f"{w['channel']} {_fmt(w['from_deg'], 0)} -> {_fmt(w['to_deg'], 0)} deg "
            f"(keys {_fmt(w['frames'][0])}-{_fmt(w['frames'][1])})" for w in obj["euler_wraps"])))
    if obj.get("gimbal_min_margin_deg") is not None:
        rows.append(("Closest to gimbal lock", f"{_fmt(obj['gimbal_min_margin_deg'])} deg "
                     f"({len(obj.get('gimbal_frames', []))} frames within the warning margin)"))
    vj = obj.get("velocity_jumps") or {}
    if vj.get("frames"):
        bj = [v for v in vj.get("blender_deg_per_frame", []) if v is not None]
        cj = [v for v in vj.get("custom_deg_per_frame", []) if v is not None]
        rows.append(("Largest angular velocity jump at a key",
                     f"Blender {_fmt(max(bj, default=None))}, {method} {_fmt(max(cj, default=None))} deg/frame"))
    f32 = obj.get("float32_risk")
    if f32:
        count = len(f32.get('frames', []))
        words = "none" if not count else f"{count} frames move less than a key can store"
        rows.append((_hint("Too far from the origin to key precisely", _FLOAT32_HINT),
                     f"{words} (coordinates up to {_fmt(f32.get('max_coordinate'), 0)} units; "
                     f"smallest step there {f32.get('float32_step', 0):.2g})"))
    if obj.get("location_speed_ratio") is not None:
        rows.append(("Location speed, fastest/slowest segment", f"{_fmt(obj['location_speed_ratio'], 1)}x"))
    if obj.get("exponential_approach"):
        rows.append(("Creeping approach (filter-style lerp)", "; ".join(
            f"keys {_fmt(r['frames'][0])}-{_fmt(r['frames'][1])}, ratio {_fmt(r['ratio'], 2)}"
            for r in obj["exponential_approach"])))
    if obj.get("jitter_frames"):
        rows.append(("Small-angle jitter", f"{len(obj['jitter_frames'])} frames"))
    # Header cells may carry a hover hint (already HTML); plain strings are escaped.
    parts.append("<table>" + "".join(
        f"<tr><th>{k if k.startswith('<span') else escape(k)}</th><td>{escape(v)}</td></tr>"
        for k, v in rows) + "</table>")
    if len(obj.get("findings", [])) > 1:
        parts.append("<ul>" + "".join(f"<li>{escape(s)}</li>" for s in obj["findings"]) + "</ul>")

    parts.append(_interval_table(obj, method))

    dev = pf.get("deviation_deg", [])
    worst_dev = obj.get("max_deviation_deg")
    span = (float(frames[0]), float(frames[-1])) if frames.size else None
    parts.append(line_chart(
        f"{_label(obj)}: deviation of Blender's interpolation from {method}",
        frames, [("deviation", dev, DEVIATION_COLOUR)]
        # Issue 11: the part of it that is off the method's path (the rest is timing).
        + ([("off the path", pf["path_deviation_deg"], PATH_DEVIATION_COLOUR)]
           if pf.get("path_deviation_deg") else []),
        y_label="deviation (deg)", keys=keys,
        bands=bands, marker=(worst, worst_dev, f"worst: {worst_dev:.2f} deg at frame {_fmt(worst)}")
        if worst_dev is not None and worst_dev >= MARKER_MIN_DEG else None,
        chart_id=f"deviation-{index}"))
    # Speeds are per step from the previous frame: the first frame has none, so
    # the speed charts start at the second frame (no fake ramp up from 0).
    parts.append(line_chart(
        f"{_label(obj)}: angular speed, Blender vs {method}",
        frames[1:], [("Blender", pf.get("blender_speed_deg", [])[1:], BLENDER_COLOUR),
                     (method, pf.get("custom_speed_deg", [])[1:], CUSTOM_COLOUR)],
        y_label="speed (deg/frame)", keys=keys, bands=bands, chart_id=f"speed-{index}",
        x_range=span))
    segments = obj.get("location_segments") or []
    if "location_speed" in pf and segments:
        loc_keys = sorted({float(f) for seg in segments for f in seg["frames"]})
        ratio = obj.get("location_speed_ratio")
        note = f" (segments {ratio:.1f}x apart)" if ratio else ""
        parts.append(line_chart(
            f"{_label(obj)}: speed along the path{note}",
            frames[1:], [("location speed", pf["location_speed"][1:], LOCATION_COLOUR)],
            y_label="speed (units/frame)", keys=loc_keys, chart_id=f"location-{index}",
            x_range=span))
    if "blender_norm" in pf:
        parts.append(line_chart(
            f"{_label(obj)}: length of Blender's quaternion channels (1 = a rotation)",
            frames, [("|q| before normalising", pf["blender_norm"], NORM_COLOUR)],
            y_label="quaternion length", keys=keys, bands=bands, y_min=None, y_ref=1.0,
            chart_id=f"norm-{index}"))
    return "\n".join(parts)


def _after_bake_section(report: dict) -> str:
    """Before -> after for every object the file plays a QuatBake bake of."""
    after = report.get("after_bake") or []
    if not after:
        return ""
    rows = []
    for a in after:
        was = a.get("before_long_arc_segments") or []
        now = a.get("long_arc_segments") or []
        if was and not now:
            outcome, cls = "long way round fixed", "ok"
        elif now:
            outcome, cls = "still the long way round", "bad"
        else:
            outcome, cls = "no long way round before or after", ""
        if a.get("verdict") == "within tolerance":
            bake = a.get("bake") or {}
            outcome = (f"within {bake.get('tolerance_deg', 0):g} deg, {bake.get('keys', 0):,d} "
                       "keys" + (", long way round fixed" if was else ""))
            cls = "ok"
        name = a.get("name", "") + (f": {a['bone']}" if a.get("bone") else "")
        rows.append(
            f'<tr><td>{escape(name)}</td>'
            f'<td class="num">{_deg(a.get("before_max_deviation_deg"))}</td>'
            f'<td class="num">{_deg(a.get("max_deviation_deg"))}</td>'
            f'<td class="{cls}">{escape(outcome)}</td><td>{escape(a.get("advice", ""))}</td></tr>')
    return ('<h2 id="after-bake">After the bake</h2>'
            '<p class="meta">The objects below play a QuatBake bake. The sections further down '
            'describe their keys before the bake; this table compares what plays now.</p>'
            '<table><tr><th>Object</th><th title="Largest difference between Blender\'s own '
            'interpolation of the original keys and the method">Before (deg)</th>'
            '<th title="The same for the baked keys">After (deg)</th><th>Outcome</th>'
            '<th>Advice now</th></tr>' + "".join(rows) + "</table>")


def _blenders(report: dict) -> str:
    """"saved by Blender X, analysed by Blender Y" (or only the second when unknown)."""
    analysed = f"analysed by Blender {escape(report.get('blender_version', ''))}"
    saved = report.get("saved_by_blender")
    if saved:
        return f"file saved by Blender {escape(saved)}, {analysed}"
    return analysed


def page_subject(report: dict) -> str:
    """What the page is about, for its title: the objects analysed (an armature once for
    its bones), then the file. Blender keeps no record of the file an object was imported
    from, so after an import the objects' names stand for it: the BVH and FBX importers
    name the armature after the file, glTF keeps the file's node names (issue 24: the
    title named only the open .blend, "(unsaved file)" after an import)."""
    names = list(dict.fromkeys(obj.get("name", "") for obj in report.get("objects", [])))
    names += [s.get("name", "") for s in report.get("skipped", [])
              if s.get("name", "") not in names]
    names = [n for n in dict.fromkeys(names) if n]
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    where = report.get("file", "")
    if shown and where:
        # "(unsaved file)" comes in its own parentheses.
        return f"{shown} {where}" if where.startswith("(") else f"{shown} ({where})"
    return shown or where


def _counted(objects: list) -> str:
    """What the report's rows are: "2 objects", "8 bones", "1 object and 8 bones" (a walk:
    a rig's 8 bones read "8 object(s)")."""
    bones = sum(1 for o in objects if o.get("bone"))
    parts = [counted(len(objects) - bones, "object")] if len(objects) > bones or not bones \
        else []
    if bones:
        parts.append(counted(bones, "bone"))
    return " and ".join(parts)


def render_html(report: dict) -> str:
    """The HTML page (a str) for a report dict."""
    method = report.get("method", "")
    objects = report.get("objects", [])
    title = f"QuatBake report: {page_subject(report)}"
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>",
           f"<h1>{escape(title)}</h1>",
           f'<p class="meta">{_blenders(report)} &middot; compared with '
           f'<b>{escape(method)}</b> &middot; {_counted(objects)} &middot; schema '
           f'{escape(report.get("schema", ""))}</p>']
    if objects:
        out.append(
            "<table><tr><th>Object</th><th>Mode</th><th>Frames</th><th>Keys</th>"
            f"<th>{_hint('Largest difference (deg)', _DEVIATION_HINT)}</th>"
            f"<th>{_hint('Typical difference (deg)', 'Root mean square of the difference over all frames.')}</th>"
            "<th>Worst frame</th>"
            f"<th>{_hint('Long way round', _LONG_WAY_HINT)}</th><th>Advice</th></tr>")
        armature = None
        for i, obj in enumerate(objects):
            if obj.get("bone") and obj["name"] != armature:
                # Bone rows are grouped per armature (worst first, see json_report).
                armature = obj["name"]
                count = sum(1 for o in objects if o.get("bone") and o["name"] == armature)
                out.append(f'<tr class="armature"><th colspan="9">Armature {escape(armature)} '
                           f'&middot; {counted(count, "bone")}, worst first</th></tr>')
            elif not obj.get("bone"):
                armature = None
            cls = _deviation_class(obj)
            arcs = ", ".join(f"{_fmt(a)}-{_fmt(b)}" for a, b in _defect_arcs(obj))
            out.append(
                f'<tr><td><a href="#obj-{i}">{escape(_label(obj))}</a></td><td>{escape(obj.get("rotation_mode"))}</td>'
                f'<td>{escape("-".join(_fmt(f) for f in obj.get("frames", [])))}</td>'
                f'<td class="num">{len(obj.get("keys", []))}</td>'
                f'<td class="num {cls}">{_deg(obj.get("max_deviation_deg"))}</td>'
                f'<td class="num">{_deg(obj.get("rms_deviation_deg"))}</td>'
                f'<td class="num">{_fmt(obj.get("worst_frame"))}</td>'
                f'<td class="{"bad" if arcs else ""}">{escape(arcs or "none")}</td>'
                f'<td>{escape(obj.get("advice", ""))}</td></tr>')
        out.append("</table>")
    out.append(_after_bake_section(report))
    errors = report.get("errors", [])
    if errors:
        out.append('<h2>Not analysed</h2><ul class="errors">' + "".join(
            f"<li>{escape(e.get('message', ''))}</li>" for e in errors) + "</ul>")
    skipped = report.get("skipped", [])
    if skipped:
        # Left out on purpose (no rotation keys): why, and what their location keys show.
        out.append('<h2>Skipped</h2><ul class="skipped">' + "".join(
            f"<li>{escape(e.get('message', ''))}"
            + "".join(f"<br>Location: {escape(f)}" for f in e.get("findings", [])) + "</li>"
            for e in skipped) + "</ul>")
    for i, obj in enumerate(objects):
        out.append(_object_section(obj, method, i))
    out.append(
        '<p class="foot">Deviation: geodesic angle between the orientation Blender evaluates from '
        "the object's own channels and QuatBake's interpolation of the same keys. Speed: angle "
        "turned since the previous frame. Angles are computed as 2&middot;atan2(|v|, |w|), exact "
        "near 0 and 180 degrees (no arccos, no NaN). Shaded: key intervals Blender takes the long "
        "way round. Made by QuatBake; this page needs no network.</p></body></html>")
    return "\n".join(out)


def write_html(report: dict, path: str | os.PathLike) -> None:
    """Write the page for ``report`` to ``path`` (via a temporary file)."""
    from .files import write_text

    write_text(render_html(report), path)
