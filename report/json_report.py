# SPDX-License-Identifier: GPL-3.0-or-later
"""The report JSON document, schema "quatbake.report/1" (docs/report.md, docs/schema/).

The contract fixes ``schema``, ``blender_version``, ``file``, ``method`` and, per
object, ``name``, ``rotation_mode``, ``frames``, ``keys``,
``max_deviation_deg``, ``rms_deviation_deg``, ``long_arc_segments`` and
``per_frame`` {frame, deviation_deg, blender_speed_deg, custom_speed_deg}.
Everything else here is an extra field. NaN and infinities never reach the
file: they become null (strict JSON has no NaN).
"""
from __future__ import annotations

import json
import math
import os
from typing import Iterable

import numpy as np

from ..core.intervals import Intervals
from .files import write_text

SCHEMA = "quatbake.report/1"

# Per-frame values are rounded to this many decimals: 1e-6 deg is far below
# float32 key storage (~1e-5 deg) and keeps a 100,000-frame report small.
DECIMALS = 6


def frame_value(f) -> int | float:
    """A whole frame as an int (as the reports write them), else a float."""
    f = float(f)
    return int(f) if f.is_integer() else f


def _num(x, decimals: int | None = None):
    if x is None:
        return None
    x = float(x)
    if not math.isfinite(x):
        return None
    return round(x, decimals) if decimals is not None else x


class _Plain(list):
    """A list already as JSON writes it (plain Python numbers, finite, None, strings, and
    dicts of those), as ``_array`` and ``core.intervals.Intervals`` make it: ``clean``
    passes it as it is. A 31-bone mocap clip of 2,753 frames has 600,000 per-frame values
    and 85,000 key intervals, and looking at each one again took most of a 19 s
    ``quatbake report`` (issue 23)."""


def _array(values, decimals: int = DECIMALS) -> list:
    arr = np.round(np.asarray(values, dtype=np.float64), decimals)
    out = arr.tolist()
    if not np.isfinite(arr).all():
        out = [v if math.isfinite(v) else None for v in out]
    return _Plain(out)


# Values JSON writes as they are (a float only when finite: see clean).
_AS_THEY_ARE = {str, bool, int, type(None)}


def clean(value):
    """``value`` with numpy types turned into Python ones and NaN/inf into None."""
    kind = type(value)
    if kind is _Plain or kind in _AS_THEY_ARE:
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    # Plain items without a call each (``x - x == 0.0`` is False for NaN and +-inf): a
    # mocap clip's report has 85,000 key intervals of seven values.
    if kind is dict:
        return {k if type(k) is str else str(k):
                v if type(v) in _AS_THEY_ARE or (type(v) is float and v - v == 0.0)
                else clean(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [v if type(v) in _AS_THEY_ARE or (type(v) is float and v - v == 0.0)
                else clean(v) for v in value]
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, np.ndarray):
        return clean(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return _num(value)
    return value


def object_entry(a) -> dict:
    """The report entry of one ``core.analysis.ObjectAnalysis``."""
    frames = np.asarray(a.frames, dtype=np.float64)
    per_frame = {
        "frame": _Plain(frame_value(f) for f in frames),
        "deviation_deg": _array(a.deviation_deg),
        "blender_speed_deg": _array(a.blender_speed_deg),
        "custom_speed_deg": _array(a.custom_speed_deg),
    }
    if a.norm is not None:
        per_frame["blender_norm"] = _array(a.norm["per_frame"])
    if getattr(a, "path_deviation_deg", None) is not None:
        per_frame["path_deviation_deg"] = _array(a.path_deviation_deg)
        per_frame["timing_deviation_deg"] = _array(a.timing_deviation_deg)
    if getattr(a, "location_speed", None) is not None:
        per_frame["location_speed"] = _array(a.location_speed)
    norm = None
    if a.norm is not None:
        norm = {k: v for k, v in a.norm.items() if k != "per_frame"}
    entry = {
        "name": a.name,
        **({"bone": a.bone} if getattr(a, "bone", "") else {}),
        **({"clip": a.clip} if getattr(a, "clip", "") else {}),
        "rotation_mode": a.rotation_mode,
        **({"rotation_channels": list(a.channels)} if getattr(a, "channels", None) else {}),
        # A Transform Cache moves it (USD, Alembic imports): where the samples came from.
        **({"transform_cache": dict(a.cache)} if getattr(a, "cache", None) else {}),
        "frames": [frame_value(frames[0]), frame_value(frames[-1])] if frames.size else [],
        "keys": [frame_value(k) for k in a.keys],
        "max_deviation_deg": _num(a.max_deviation_deg, DECIMALS),
        "rms_deviation_deg": _num(a.rms_deviation_deg, DECIMALS),
        # Issue 11: how much of the deviation is off the method's path, and how
        # much is only where along it (timing); the settings the path used.
        "max_path_deviation_deg": _num(getattr(a, "max_path_deviation_deg", None), DECIMALS),
        "max_timing_deviation_deg": _num(getattr(a, "max_timing_deviation_deg", None), DECIMALS),
        # Between the frames, where a channel jumps (a wrap between neighbouring frames).
        "max_between_deviation_deg": _num(getattr(a, "max_between_deviation_deg", 0.0),
                                          DECIMALS),
        "worst_between_frame": (None if getattr(a, "worst_between_frame", None) is None
                                else frame_value(a.worst_between_frame)),
        "turns": getattr(a, "turns", "AUTO"),
        "timing": getattr(a, "timing", "EVEN"),
        "long_arc_segments": [[frame_value(s[0]), frame_value(s[1])] for s in a.long_arc_segments],
        "per_frame": per_frame,
        # Extra fields (contract: "more fields are welcome").
        "worst_frame": frame_value(a.worst_frame),
        "advice": a.advice,
        "verdict": _verdict(a),
        "findings": list(a.findings),
        # Intervals' rows are as JSON writes them; a list from elsewhere is cleaned.
        "key_intervals": _Plain(a.intervals) if isinstance(a.intervals, Intervals)
        else list(a.intervals),
        "velocity_jumps": {
            "frames": [frame_value(f) for f in a.velocity_jumps["frames"]],
            "blender_deg_per_frame": _array(a.velocity_jumps["blender_deg"]),
            "custom_deg_per_frame": _array(a.velocity_jumps["custom_deg"]),
        },
        "norm_drift": norm,
        "custom_norm_min": a.custom_norm_min,
        "euler_wraps": a.euler_wraps,
        "gimbal_frames": [frame_value(f) for f in a.gimbal_frames],
        "gimbal_min_margin_deg": a.gimbal_min_margin_deg,
        "float32_risk": a.float32_risk,
        "location_segments": a.location_segments,
        "location_speed_ratio": a.location_speed_ratio,
        "exponential_approach": a.exponential_approach,
        "jitter_frames": [frame_value(f) for f in a.jitter_frames],
    }
    return clean(entry)


def after_bake_entry(before, after) -> dict:
    """The after-bake section of one baked object: ``before`` analyses the keys
    the bake replaced, ``after`` the baked action (both ObjectAnalysis)."""
    entry = {
        "name": after.name,
        "bone": getattr(after, "bone", "") or None,
        "rotation_mode": after.rotation_mode,
        "before_max_deviation_deg": _num(before.max_deviation_deg, DECIMALS),
        "before_long_arc_segments": [[frame_value(s[0]), frame_value(s[1])]
                                     for s in before.long_arc_segments],
        "max_deviation_deg": _num(after.max_deviation_deg, DECIMALS),
        "rms_deviation_deg": _num(after.rms_deviation_deg, DECIMALS),
        "long_arc_segments": [[frame_value(s[0]), frame_value(s[1])] for s in after.long_arc_segments],
        "advice": after.advice,
        "verdict": _verdict(after),
    }
    if getattr(after, "bake_method", ""):
        # How the bake was made: its advice never asks for it again (issue 24).
        entry["bake"] = {"method": after.bake_method,
                         "tolerance_deg": _num(after.bake_tolerance_deg, DECIMALS),
                         "keys": int(after.bake_keys)}
    if entry["bone"] is None:
        del entry["bone"]
    return clean(entry)


def _verdict(a) -> str:
    """core.findings.verdict, for an analysis (anything else: "")."""
    from ..core import analysis, findings

    return findings.verdict(a) if isinstance(a, analysis.ObjectAnalysis) else ""


def skipped_entry(item) -> dict:
    """The ``skipped`` entry of a transform left out on purpose: an (object name, sentence)
    pair, or a record with ``name``, ``message`` and optionally ``bone``, ``clip``,
    ``findings`` (what its location keys show) and ``location_keys`` (frames)
    (``addon.analyze.Skipped``)."""
    if isinstance(item, tuple):
        name, message = item
        return {"object": str(name), "message": str(message)}
    entry = {"object": item.name, "message": item.message}
    if getattr(item, "bone", ""):
        entry["bone"] = item.bone
    if getattr(item, "clip", ""):
        entry["clip"] = item.clip
    if getattr(item, "location_keys", None):
        entry["location_keys"] = [frame_value(f) for f in item.location_keys]
    if getattr(item, "findings", None) is not None:
        entry["findings"] = list(item.findings)
    return clean(entry)


def build_report(analyses: Iterable, *, blender_version: str, file: str, method: str,
                 errors: Iterable[tuple[str, str]] = (), skipped: Iterable = ()) -> dict:
    """The whole report: analyses are ObjectAnalysis; errors are (object name, sentence);
    ``skipped`` the transforms left out on purpose (``skipped_entry``), written only when
    there are some."""
    report = {
        "schema": SCHEMA,
        "blender_version": str(blender_version),
        "file": str(file),
        "method": str(method),
        "objects": _armatures_grouped([object_entry(a) for a in analyses]),
        "errors": [{"object": name, "message": message} for name, message in errors],
    }
    left = [skipped_entry(s) for s in skipped]
    if left:
        report["skipped"] = left
    return report


def _armatures_grouped(entries: list) -> list:
    """Entries in the given order, except that an armature's bone rows come together
    (where its first row was), worst bone first, so a 60-bone rig reads top-down."""
    out, groups = [], {}
    for entry in entries:
        if "bone" not in entry:
            out.append(entry)
            continue
        if entry["name"] not in groups:
            groups[entry["name"]] = []
            out.append(groups[entry["name"]])
        groups[entry["name"]].append(entry)
    flat = []
    for item in out:
        if isinstance(item, list):
            flat += sorted(item, key=lambda e: -(largest_deviation(e) or 0.0))
        else:
            flat.append(item)
    return flat


def dumps(report: dict) -> str:
    """Strict JSON text (raises ValueError if a NaN slipped through). A report of
    build_report is written as it is (it is clean already); anything else is cleaned
    first."""
    try:
        return json.dumps(report, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError):   # numpy values, NaN, keys JSON cannot write
        return json.dumps(clean(report), allow_nan=False, separators=(",", ":"))


def write_json(report: dict, path: str | os.PathLike) -> None:
    """Write ``report`` to ``path`` (through a temporary file, so a failure leaves no half file)."""
    write_text(dumps(report), path)


def largest_deviation(entry: dict) -> float | None:
    """An entry's largest deviation, at its frames or between them (None when it has
    none): what ``--fail-above`` judges. A wrap between two neighbouring frames is 0 deg
    off at both and about 180 deg off half-way, where motion blur samples it."""
    at_frames = entry.get("max_deviation_deg")
    if at_frames is None:
        return None
    return max(at_frames, entry.get("max_between_deviation_deg") or 0.0)


def largest_frame(entry: dict):
    """Where ``largest_deviation`` is: the subframe between frames when that is larger,
    else ``worst_frame`` (None when the entry has neither)."""
    if (entry.get("max_between_deviation_deg") or 0.0) > (entry.get("max_deviation_deg")
                                                           or 0.0):
        return entry.get("worst_between_frame")
    return entry.get("worst_frame")


def max_deviation(report: dict) -> float:
    """Largest deviation over the report's objects, at frames or between them (0 when
    none)."""
    values = [largest_deviation(o) for o in report.get("objects", [])]
    return max((v for v in values if v is not None), default=0.0)
