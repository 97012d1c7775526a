# SPDX-License-Identifier: GPL-3.0-or-later
"""The ``quatbake.export-check/1`` report as JSON and as one self-contained HTML page.

The dict is built by ``addon.export_check.check_objects``; this module only
turns it into text (numpy values to Python, NaN/inf to null, per-frame values
rounded) and draws the page: a summary table, then per object a chart of the
deviation per frame (exported keys marked) and the intervals with a cause.
"""

from __future__ import annotations

import json
import os

import numpy as np

from .files import write_text
from .html_report import DEVIATION_COLOUR
from .json_report import clean, frame_value, max_deviation  # noqa: F401 (max_deviation: this report's too)
from .svg import escape, line_chart

SCHEMA = "quatbake.export-check/1"

# Per-frame values: 1e-7 deg / scene units is below what float32 keys resolve
# (a sampled export plays ~4e-5 deg off) and keeps long scenes small.
DECIMALS = 7

CAUSE_TEXT = {
    "not_exported": (
        "the file has no animation for it while Blender plays it moving (a Transform Cache "
        "from a USD or Alembic import, a driver, a constraint): the engine holds one pose"
    ),
    "inherited": (
        "a pose bone follows the node above it, which the player plays off: its own "
        "motion may be right"
    ),
    "stepped": "STEP sampler: the player holds each key while Blender moves",
    "timing": "the exporter wrote the key times on another clock than Blender plays (fps_base)",
    "before_first_key": "before the first exported key the player holds it while Blender moves",
    "after_last_key": "after the last exported key the player holds it while Blender moves",
    "key_mismatch": "the exported keys are not Blender's pose at their own frames",
    "sign_flip": (
        "a key's quaternion sign is flipped: Blender turns the long way, the player does not"
    ),
    "turn_lost": "Blender turns more than 180 deg between two exported keys; a player cannot",
    "cubic_sign_flip": (
        "the exporter wrote two CUBICSPLINE keys as q and -q: the spec's cubic, unlike its "
        "slerp, does not take the short arc"
    ),
    "handle_lengths": (
        "the exporter wrote the Bezier handles' slopes as CUBICSPLINE tangents and dropped "
        "their lengths, which are not a third of the interval: the engine plays another curve"
    ),
    "cubic_vs_bezier": "CUBICSPLINE in the player is not Blender's per-channel Bezier",
    "linear_vs_blender": "the player's slerp between keys is not Blender's per-channel curves",
    "between_samples": (
        "a sampled export at quarter frames: the player slerps between the sampled frames "
        "where Blender plays its Bezier curve"
    ),
    "stepped_sampled": (
        "a sampled export of a stepped (Constant) key: the player turns over the frame "
        "before the jump that Blender makes at once"
    ),
}


def entry_label(entry: dict) -> str:
    """"Cube", or "Rig: arm" for a pose bone's entry (``name`` is its armature's)."""
    return f"{entry['name']}: {entry['bone']}" if entry.get("bone") else entry["name"]


def _rounded_intervals(intervals) -> list:
    return [
        dict(iv, frames=[frame_value(f) for f in iv["frames"]],
             worst_frame=frame_value(iv["worst_frame"]))
        for iv in intervals
    ]


def _rounded_bezier(block: dict) -> dict:
    block = dict(block)
    block["worst_frame"] = frame_value(block.get("worst_frame", 0))
    block["intervals"] = _rounded_intervals(block.get("intervals", []))
    per = block.get("per_sample", {})
    block["per_sample"] = {
        "frame": [frame_value(f) for f in np.asarray(per.get("frame", []), float)],
        "deviation_deg": np.round(np.asarray(per.get("deviation_deg", []), float), DECIMALS),
    }
    return block


def _rounded(report: dict) -> dict:
    out = dict(report)
    out["frames"] = [frame_value(f) for f in report.get("frames", [])]
    objects = []
    for obj in report.get("objects", []):
        obj = dict(obj)
        obj["frames"] = [frame_value(f) for f in obj.get("frames", [])]
        obj["worst_frame"] = frame_value(obj.get("worst_frame", 0))
        obj["intervals"] = _rounded_intervals(obj.get("intervals", []))
        if obj.get("bezier"):
            obj["bezier"] = _rounded_bezier(obj["bezier"])
        per_frame = {}
        for name, values in obj.get("per_frame", {}).items():
            arr = np.asarray(values, dtype=np.float64)
            per_frame[name] = (
                [frame_value(f) for f in arr] if name == "frame" else np.round(arr, DECIMALS)
            )
        obj["per_frame"] = per_frame
        objects.append(obj)
    out["objects"] = objects
    return out


def dumps(report: dict) -> str:
    """Strict JSON text of the report."""
    return json.dumps(clean(_rounded(report)), allow_nan=False, separators=(",", ":"))


def write_json(report: dict, path: str | os.PathLike) -> None:
    write_text(dumps(report), path)



def _g(x, digits: int = 4) -> str:
    return "-" if x is None else f"{float(x):.{digits}g}"


def _chart(obj: dict) -> str:
    """Deviation per frame, the intervals with a cause marked at their ends."""
    frames = obj["per_frame"]["frame"]
    if len(frames) < 2:
        return ""
    ends = sorted({f for iv in obj.get("intervals", [])[:200] for f in iv["frames"]})
    bezier = obj.get("bezier")
    if bezier and len(bezier["per_sample"]["frame"]) >= 2:
        # Bezier keys: every quarter frame (the whole frames are among them).
        ends = sorted({f for iv in bezier.get("intervals", [])[:200] for f in iv["frames"]})
        return line_chart(f"{entry_label(obj)}: deviation per quarter frame",
                          bezier["per_sample"]["frame"],
                          [("deviation", bezier["per_sample"]["deviation_deg"], DEVIATION_COLOUR)],
                          y_label="deviation (deg)", keys=ends, chart_id=f"dev-{entry_label(obj)}")
    return line_chart(f"{entry_label(obj)}: deviation per frame", frames,
                      [("deviation", obj["per_frame"]["deviation_deg"], DEVIATION_COLOUR)],
                      y_label="deviation (deg)", keys=ends, chart_id=f"dev-{entry_label(obj)}")


def _bezier_html(obj: dict) -> str:
    """The Bezier keys as exported against the Linear keys that would play instead."""
    b = obj.get("bezier")
    if not b:
        return ""
    how = {"keys": "CUBICSPLINE at Blender's keys", "sampled": "sampled, a LINEAR key per frame",
           "other": "as they are"}.get(b.get("exported_as"), b.get("exported_as", ""))
    rows = [
        "<table><tr><th>Bezier keys</th><th>Keys</th><th>Rotation bytes</th>"
        "<th>Max dev. at quarter frames (deg)</th><th>at frames (deg)</th></tr>",
        f"<tr><td>as exported ({escape(how)})</td><td class='num'>{b.get('blender_keys', 0)} "
        f"-> {obj.get('key_count', 0)}</td><td class='num'>{b.get('rotation_bytes', 0)}</td>"
        f"<td class='num'>{_g(b.get('max_deviation_deg'))}</td>"
        f"<td class='num'>{_g(obj.get('max_deviation_deg'))}</td></tr>",
    ]
    lin = b.get("linear")
    if lin:
        rows.append(
            f"<tr><td>Keys: Linear within {_g(lin['tolerance_deg'])} deg "
            f"({'the bake' if b.get('tolerance_from') == 'bake' else 'default'} tolerance)</td>"
            f"<td class='num'>{lin['keys']}</td><td class='num'>{lin['animation_bytes']}</td>"
            f"<td class='num'>{_g(lin['max_deviation_quarter_deg'])}</td>"
            f"<td class='num'>{_g(lin['max_deviation_deg'])}</td></tr>"
        )
    rows.append("</table>")
    verdict = (f"<p class='bad'>{escape(b['advice'])}</p>" if b.get("linear_is_better")
               else "<p>The Bezier keys as exported are the better choice for this engine.</p>")
    return "".join(rows) + verdict


def render_html(report: dict) -> str:
    title = f"QuatBake export check: {report.get('file', '')}"
    opts = (
        ", ".join(f"{k}={v}" for k, v in report.get("exporter_options", {}).items()) or "defaults"
    )
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        (
            f"<title>{escape(title)}</title><style>body{{font-family:sans-serif;margin:1.5em}}"
            "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px}"
            ".bad{color:#b00020;font-weight:bold}.num{text-align:right}</style></head><body>"
        ),
        f"<h1>{escape(title)}</h1>",
        (
            f"<p>Blender {escape(report.get('blender_version', ''))}, glTF exporter "
            f"{escape(report.get('exporter_version', ''))}, options: {escape(opts)}; "
            f"{escape(report.get('fps', ''))} fps; file {report.get('gltf_bytes', 0)} bytes; schema "
            f"{escape(report.get('schema', ''))}.</p>"
        ),
        f"<p>{escape(report['time_note'])}</p>" if report.get("time_note") else "",
        (
            "<table><tr><th>Object</th><th>Sampler</th><th>Rotation keys</th><th>Bytes</th>"
            "<th>Max dev. (deg)</th><th>Worst frame</th><th>Causes</th></tr>"
        ),
    ]
    for obj in report.get("objects", []):
        causes = ", ".join(f"{k} x{v}" for k, v in obj.get("causes", {}).items()) or "none"
        out.append(
            f"<tr><td>{escape(entry_label(obj))}</td>"
            f"<td>{escape(obj.get('interpolation') or '-')}</td>"
            f"<td class='num'>{obj.get('key_count', 0)}</td>"
            f"<td class='num'>{obj.get('animation_bytes', 0)}</td>"
            f"<td class='num{' bad' if obj.get('causes') else ''}'>"
            f"{_g(obj.get('max_deviation_deg'))}</td>"
            f"<td class='num'>{_g(obj.get('worst_frame'), 6)}</td><td>{escape(causes)}</td></tr>"
        )
    out.append("</table>")
    if report.get("errors"):
        out.append(
            "<h2>Not checked</h2><ul>"
            + "".join(f"<li>{escape(e['message'])}</li>" for e in report["errors"])
            + "</ul>"
        )
    if report.get("skipped"):
        out.append(
            "<h2>Not compared</h2><ul>"
            + "".join(f"<li>{escape(e['message'])}</li>" for e in report["skipped"])
            + "</ul>"
        )
    for obj in report.get("objects", []):
        out.append(f"<h2>{escape(entry_label(obj))}</h2><p>{escape(obj.get('advice', ''))}</p>"
                   f"{_chart(obj)}")
        out.append(_bezier_html(obj))
        if obj.get("note"):
            out.append(f"<p>{escape(obj['note'])}</p>")
        if obj.get("intervals"):
            out.append(
                "<table><tr><th>Keys (frames)</th><th>Cause</th><th>Max dev. (deg)</th>"
                "<th>Blender turns (deg)</th><th>Player turns (deg)</th></tr>"
            )
            for iv in obj["intervals"][:200]:
                a, b = iv["frames"]
                out.append(
                    f"<tr><td>{_g(a, 6)}-{_g(b, 6)}</td>"
                    f"<td title='{escape(CAUSE_TEXT.get(iv['cause'], ''))}'>{escape(iv['cause'])}</td>"
                    f"<td class='num'>{_g(iv['max_deviation_deg'])}</td>"
                    f"<td class='num'>{_g(iv['blender_turn_deg'])}</td>"
                    f"<td class='num'>{_g(iv['player_turn_deg'])}</td></tr>"
                )
            out.append("</table>")
        else:
            out.append("<p>Plays as in Blender (every interval within 0.01 deg).</p>")
    out.append(
        "<p>Deviation: geodesic angle between the world orientation Blender plays "
        "(frame_set) and the glTF 2.0 spec evaluation of the exported file, mapped back "
        "to Blender's Z-up space. "
        + " ".join(f"<b>{escape(k)}</b>: {escape(v)}." for k, v in CAUSE_TEXT.items())
        + "</p>"
    )
    out.append("</body></html>")
    return "\n".join(out)


def write_html(report: dict, path: str | os.PathLike) -> None:
    write_text(render_html(report), path)


