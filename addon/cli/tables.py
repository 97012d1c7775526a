# SPDX-License-Identifier: GPL-3.0-or-later
"""The plain-text tables the commands print on stdout."""
from __future__ import annotations

from ...core.frames import label, span


def past(worst: float, limit: float) -> str:
    """``worst`` (degrees) with as many decimals, two at least, as tell it from the
    --fail-above ``limit`` it is above (a pipeline walk: "Largest deviation 6.59 deg is
    above --fail-above 6.59 deg", for 6.594)."""
    places = 2
    while places < 6 and round(worst, places) <= limit:
        places += 1
    return f"{worst:.{places}f}"


def who(entry: dict) -> str:
    name = f"{entry['name']}: {entry['bone']}" if entry.get("bone") else entry["name"]
    return f"{name} / {entry['clip']}" if entry.get("clip") else name


def report_table(report: dict) -> str:
    rows = [("object", "mode", "frames", "max dev", "off path", "rms", "worst", "between",
             "long arcs")]
    for o in report["objects"]:
        # Keyed spins go the long way on purpose (key_intervals[*].kind, issue 11).
        spins = {tuple(iv["frames"]) for iv in o.get("key_intervals", [])
                 if iv.get("kind") == "spin"}
        arcs = ",".join(span(a, b) + (" spin" if (a, b) in spins else "")
                        for a, b in o["long_arc_segments"]) or "-"
        path = o.get("max_path_deviation_deg")
        rows.append((who(o), o["rotation_mode"], span(*o["frames"][:2]),
                     f"{o['max_deviation_deg']:.2f}", "-" if path is None else f"{path:.2f}",
                     f"{o['rms_deviation_deg']:.2f}", label(o['worst_frame']), _between(o),
                     arcs))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    for o in report["objects"]:
        lines.append(f"{who(o)}: {o['advice']}")
    for e in report.get("errors", []) + report.get("skipped", []):
        lines.append(e["message"])
    return "\n".join(lines)


def _between(entry: dict) -> str:
    """The largest deviation between the frames and its subframe ("180.00 at 212.5"), or
    "-" where nothing was sampled between them."""
    frame = entry.get("worst_between_frame")
    if frame is None:
        return "-"
    return f"{entry.get('max_between_deviation_deg') or 0.0:.2f} at {label(frame)}"


def check_table(report: dict) -> str:
    # "max loc": a node the engine moves elsewhere (not exported, or its parent) is off in
    # place while its rotation agrees (a USD-written camera not exported: 2.5e-06 deg, 1.5e+03
    # units; the table showed only the degrees).
    rows = [("object", "sampler", "keys", "bytes", "max dev", "max loc", "worst", "causes")]
    for o in report["objects"]:
        causes = ",".join(f"{k}x{v}" for k, v in o["causes"].items()) or "-"
        rows.append((who(o), o["interpolation"] or "-", str(o["key_count"]),
                     str(o["animation_bytes"]), f"{o['max_deviation_deg']:.4g}",
                     f"{o['max_location_deviation']:.4g}", label(o['worst_frame']), causes))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines += [f"{who(o)}: {o['advice']}" for o in report["objects"] if o["causes"]]
    lines += [f"{who(o)}: {o['note']}" for o in report["objects"] if o.get("note")]
    # Every object asked for, as report_table: those not compared too (stderr says them as
    # well), so the table saved alone never reads as if they were fine.
    lines += [e["message"] for e in report.get("errors", []) + report.get("skipped", [])]
    return "\n".join(lines)
