# SPDX-License-Identifier: GPL-3.0-or-later
"""The scene's frame and the time its actions play at.

Output Properties > Time Remapping (``render.frame_map_old`` / ``frame_map_new``)
stretches playback: at scene frame f Blender evaluates every action at
f * old / new (its ``framelen``). Keys, analyses and overlays live in action time;
the playhead the animator moves is in scene frames. Without remapping the two are
the same number.
"""
from __future__ import annotations


def _framelen(scene) -> float:
    render = scene.render
    return render.frame_map_old / render.frame_map_new


def played_time(scene) -> float:
    """The action time Blender plays at the scene's current frame and subframe."""
    return (scene.frame_current + scene.frame_subframe) * _framelen(scene)


def action_time(scene, frame: float) -> float:
    """The action time Blender plays at scene frame ``frame``."""
    return frame * _framelen(scene)


def scene_frame(scene, time: float) -> float:
    """The scene frame (subframe included) at which Blender plays action ``time``."""
    return time / _framelen(scene)


def show_time(scene, time: float) -> None:
    """Move the playhead to where action ``time`` plays (``frame_set``)."""
    frame = scene_frame(scene, time)
    whole = int(frame // 1)
    scene.frame_set(whole, subframe=frame - whole)
