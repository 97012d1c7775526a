# SPDX-License-Identifier: GPL-3.0-or-later
"""Time as the glTF exporter writes it: the seconds per frame of its key times, and
the slide or cut it makes to animation that starts before frame 0."""

from __future__ import annotations

import numpy as np

from ...core.frames import label
from .. import animdata


def scene_fps(scene) -> float:
    return scene.render.fps / scene.render.fps_base


def exporter_seconds_per_frame(doc, scene) -> float:
    """The seconds per frame the exporter wrote the key times with.

    Blender plays frame f at f * fps_base / fps seconds. With fps_base != 1
    (29.97 fps is 30 / 1.001) exporters disagree: io_scene_gltf2 5.0 writes
    f / (fps * fps_base), 3.4 writes f / fps. Of the three, the one that puts
    the file's key times on whole frames is taken (sampled exports key whole
    frames); Blender's own when none does or fps_base is 1.
    """
    fps, base = float(scene.render.fps), float(scene.render.fps_base)
    real = base / fps
    if abs(base - 1.0) < 1e-12:
        return real
    times = [c.sampler.input for a in doc.animations for c in a.channels]
    if not times:
        return real
    times = np.concatenate(times)

    def off_grid(spf: float) -> float:
        frames = times / spf
        return float(np.abs(frames - np.round(frames)).mean())

    candidates = (real, 1.0 / fps, 1.0 / (fps * base))
    best = min(candidates, key=off_grid)
    return best if off_grid(best) < 1e-3 else real


def exported_start(obj) -> int | None:
    """The frame the exporter starts ``obj``'s animation at: its F-curves' earliest key,
    cut to a whole frame as io_scene_gltf2 does (``int(min(fcurve.range()))``)."""
    fcurves = animdata.object_fcurves(obj)
    starts = [fc.range()[0] for fc in fcurves if len(fc.keyframe_points)]
    return int(min(starts)) if starts else None


def slid_frames(doc, owners: dict, spf: float) -> dict:
    """{node: whole frames} by which the exporter slid each object's animation to start
    at 0 s (``negative_frames`` 'SLIDE', when some animation starts before frame 0):
    Blender's frame f of that node is the file's time (f - slide) x ``spf``. The exporter
    slides each action by its own start by default (export_animation_mode ACTIONS), all of
    them by the earliest (ACTIVE_ACTIONS): read from the file either way, each object's
    nodes' first key time (``owners``: node -> its transform) against where the exporter
    started it. {} when no exported animation starts before frame 0 (a review: one slide
    for the whole file mis-timed every object the exporter had not slid)."""
    objects = {t.owner for t in owners.values()}
    starts = {obj: exported_start(obj) for obj in objects}
    if not any(s is not None and s < 0 for s in starts.values()):
        return {}
    out = {}
    for obj, start in starts.items():
        mine = {n for n, t in owners.items() if t.owner == obj}
        times = [c.sampler.input[0] for a in doc.animations for c in a.channels
                 if c.node in mine and c.sampler.input.size]
        if start is None or not times:
            continue
        slide = start - int(round(min(times) / spf))
        if slide < 0:
            out.update({n: slide for n in mine})
    return out


def time_note(slides: dict, owners: dict, cropped: bool, frames, fps: float,
              exporter_spf: float, moved: list | None = None) -> dict:
    """The report's ``time_note`` when the exporter wrote its key times on another clock
    than Blender's (fps_base != 1), moved or cut animation before frame 0 (each slid
    object's entry has its ``frame_at_0s``), or wrote NLA tracks whose strips move the
    active action (``moved``: a sentence each); nothing otherwise."""
    said = list(moved or [])
    exporter_fps = 1.0 / exporter_spf
    if abs(exporter_fps / fps - 1.0) > 1e-9:
        # Every interval's cause says 'timing' or worse; the cause behind them all, once
        # (a walk: at 29.97 fps the advice asked to key on whole frames, which they were).
        # Key times are seconds from frame 0 (absolute): at frame f the engine is f x the
        # ratio away (a review: frames 1001-1061 drift 2.1 frames, not 0.12).
        drift = max(abs(frames[0]), abs(frames[-1])) * abs(fps / exporter_fps - 1.0) \
            if len(frames) else 0.0
        said.append(
            f"The exporter wrote the key times at {exporter_fps:.6g} frames a second where "
            f"Blender plays {fps:.6g} (render.fps_base is not 1): an engine "
            f"plays the animation {100.0 * abs(exporter_fps / fps - 1.0):.2g}% "
            f"{'faster' if exporter_fps > fps else 'slower'}, {drift:.2g} frames apart by "
            "the last frame compared. Export at a whole frame rate (render.fps_base 1), or "
            "retime in the engine.")
    if slides:
        played = sorted({(owners[n].owner.name, s) for n, s in slides.items()},
                        key=lambda item: item[1])
        named = ", ".join(f"{name}'s frame {s}" for name, s in played[:5])
        more = f" and {len(played) - 5} more" if len(played) > 5 else ""
        said.append(
            "The exporter slid animation that starts before frame 0 to start at 0 s "
            f"(export_negative_frame SLIDE): an engine plays {named}{more} at 0 s; compared "
            "frame for frame.")
    elif cropped:
        said.append(
            "The exporter cut the animation at frame 0 (export_negative_frame CROP): the "
            f"keys before it are not in the file; compared from frame {label(frames[0])}.")
    return {"time_note": " ".join(said)} if said else {}
