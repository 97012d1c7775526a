# SPDX-License-Identifier: GPL-3.0-or-later
"""A camera's pixels for a pixel tolerance (reduce.py): each lens and render size it has
where its keys are checked, and how much what is above its own channels stretches its
view, read from its curves or, where a driver, the NLA or a parent moves them, from
Blender's playback of its shot."""

from __future__ import annotations

import bpy
import numpy as np

from ...core import pixels
from .. import animdata


def camera_frames(plan, played: bool = False) -> tuple[list, float]:
    """(core.pixels.CameraFrame of a perspective camera's plan for each render size, holding
    each distinct lens and shift it has where its keys are checked, the stretch above its
    own channels) or ([], 1.0) for anything else; raises ValueError for a camera whose
    settings make no frame.

    The lens from the camera's own curves at every sample checked (every quarter frame for
    Bezier keys: a snap zoom keyed between frames was read at the frames alone, a walk);
    for the render size of each scene that holds the camera (a file opening on another
    scene than the shot's gave its render size, a walk: 3 px where 1 was asked).
    ``played`` (a pixel tolerance asked for): also as Blender plays the shot
    (``_played_camera``), where a driver or the NLA moves the lens or something above the
    camera may stretch its view; else the stretch at the current frame (the figures in
    pixels beside a tolerance in degrees promise nothing)."""
    obj = plan.obj
    owner = getattr(obj, "owner", obj)
    cam = getattr(owner, "data", None)
    if getattr(obj, "bone_name", "") or owner.type != 'CAMERA' or cam is None:
        return [], 1.0
    if cam.type != 'PERSP':
        kind = {'ORTHO': "orthographic", 'PANO': "panoramic"}.get(cam.type, cam.type.lower())
        raise ValueError(f"it is {kind}, and a pixel tolerance needs a perspective camera")
    times = plan.dense[0] if plan.dense is not None else plan.frames
    statics = {name: float(getattr(cam, name)) for name in _LENS}
    columns = {}
    for fc in animdata.object_fcurves(cam):
        if fc.data_path in statics and fc.array_index == 0:
            columns[fc.data_path] = np.fromiter(map(fc.evaluate, times.tolist()),
                                                dtype=np.float64, count=times.size)
    n = times.size if columns else 1
    table = np.column_stack([columns.get(k, np.full(n, v)) for k, v in statics.items()])
    lens, stretch = (_lens_played_otherwise(cam), _stretch_may_move(owner)) if played \
        else (False, False)
    anisotropy = _stretch(owner)
    if lens or stretch:
        rows, stretches = _played_camera(owner, times, lens)
        if lens:
            table = np.vstack([table, rows])
        anisotropy = max([anisotropy, *stretches])
    scenes = list(getattr(owner, "users_scene", ())) or [bpy.context.scene]
    lens, width, height, shift_x, shift_y = np.unique(table, axis=0).T
    return [pixels.camera_frame(lens, width, height, cam.sensor_fit,
                                render.resolution_x, render.resolution_y,
                                render.resolution_percentage, render.pixel_aspect_x,
                                render.pixel_aspect_y, shift_x, shift_y)
            for render in {id(sc.render): sc.render for sc in scenes}.values()], anisotropy


# The camera settings a pixel's angle depends on, as core.pixels.camera_frame takes them.
_LENS = ("lens", "sensor_width", "sensor_height", "shift_x", "shift_y")

# Whole frames a pixel tolerance plays a shot at (frame_set), evenly spread with both
# ends: a heavy shot costs 33 ms a frame (a review: 100 s for 3,000 frames). Beside them,
# every key of what moves the lens or the stretch, and the frames around it (a second
# review: a parent's scale keyed up and back between two spread frames went unread,
# 2.4 px in a 1 px bake). A driver is read at these frames only.
MAX_PLAYED_FRAMES = 240


def _lens_played_otherwise(cam) -> bool:
    """Whether Blender plays ``cam``'s lens, sensor or shift by more than its active
    action's curves: a driver (a dolly zoom's), an NLA strip. A walk: a driven lens read
    at the current frame kept 0.9 px where Blender's playback moved 10 px."""
    ad = cam.animation_data
    if ad is None:
        return False
    if any(d.data_path in _LENS for d in ad.drivers):
        return True
    return bool(ad.use_nla and len(ad.nla_tracks))


def _stretch_may_move(owner) -> bool:
    """Whether what is above ``owner``'s own channels may stretch differently over the
    shot: a constraint, a parent bone (its pose), or a parent with animation or
    constraints of its own, up the chain."""
    if len(getattr(owner, "constraints", ())) or getattr(owner, "parent_type", "") == 'BONE':
        return True
    return any(p.animation_data is not None or len(p.constraints)
               or getattr(p, "parent_type", "") == 'BONE' for p in _parents(owner))


def _parents(owner):
    """``owner``'s parent, its parent's, up the chain."""
    parent = getattr(owner, "parent", None)
    while parent is not None:
        yield parent
        parent = parent.parent


def _stretch(owner) -> float:
    """How much what is above ``owner``'s own channels in its world matrix can widen an
    angle now: its largest stretch over its smallest (1 under a uniform scale). A turn of
    the object's own channels by a turns its view by up to that times a under a parent
    scaled unevenly (a walk: a camera under an empty scaled (1, 1, 4) moved 2.2 px in a
    1 px bake). What is above is the world matrix over the object's own (matrix_world @
    matrix_basis^-1): a parent bone's stretch and a Child Of's scale count too (a walk: a
    crane's stretched arm bone gave 3 px in a 1 px bake)."""
    if getattr(owner, "parent", None) is None and not len(getattr(owner, "constraints", ())):
        return 1.0
    basis = np.array(owner.matrix_basis, dtype=np.float64)
    if abs(np.linalg.det(basis[:3, :3])) < 1e-12:
        return 1.0
    part = (np.array(owner.matrix_world, dtype=np.float64) @ np.linalg.inv(basis))[:3, :3]
    values = np.linalg.svd(part, compute_uv=False)
    if not (values[-1] > 0.0 and np.isfinite(values).all()):
        return 1.0
    return float(values[0] / values[-1])


def _keys_above(owner) -> np.ndarray:
    """Action times of every key that animates ``owner``'s camera data or what is above its
    own channels (its parents up the chain), in their actions and NLA strips (each strip's
    keys where it places them, its ends too)."""
    out = []
    for item in [getattr(owner, "data", None), *_parents(owner)]:
        ad = getattr(item, "animation_data", None)
        if ad is None:
            continue
        out += [animdata.key_frames(animdata.action_fcurves(
            ad.action, animdata.get_slot_identifier(item)))] if ad.action is not None else []
        for _track, strip in animdata.nla_strips(item):
            slot = animdata.strip_slot_identifier(strip)
            keys = animdata.key_frames(animdata.action_fcurves(strip.action, slot))
            out.append(strip.frame_start + (keys - strip.action_frame_start) * strip.scale)
            out.append(np.array([strip.frame_start, strip.frame_end]))
    return np.concatenate(out) if out else np.zeros(0)


def _evaluated(layer):
    """``layer``'s depsgraph brought up to date (made first for a scene not shown yet: a
    file opened on another scene has none for the shot's)."""
    if layer.depsgraph is None:
        layer.update()
    depsgraph = layer.depsgraph
    depsgraph.update()
    return depsgraph


def _played_camera(owner, times, lens: bool) -> tuple[np.ndarray, list]:
    """((n, 5) rows of ``_LENS`` when ``lens``, [stretch] per frame) as Blender plays the
    camera's shot: its scene (the one holding it, whichever the file opens on: a review
    found a parent's later stretch read as none from another scene) evaluated at whole
    frames of ``times``' span, MAX_PLAYED_FRAMES at most (scene.frame_set and its view
    layer's depsgraph: drivers, NLA, parents, constraints; the frame restored)."""
    scenes = list(getattr(owner, "users_scene", ()))
    scene = bpy.context.scene if not scenes or bpy.context.scene in scenes else scenes[0]
    frames = animdata.scene_frame(scene, np.asarray(times, dtype=np.float64))
    whole = np.arange(np.floor(frames.min()), np.ceil(frames.max()) + 1.0)
    if whole.size > MAX_PLAYED_FRAMES:
        keys = animdata.scene_frame(scene, _keys_above(owner))
        near = (np.floor(keys)[:, None] + np.arange(-1.0, 3.0)[None, :]).ravel()
        near = near[(near >= whole[0]) & (near <= whole[-1])]
        whole = np.unique(np.concatenate([
            np.round(np.linspace(whole[0], whole[-1], MAX_PLAYED_FRAMES)), near]))
    layer = next((v for v in scene.view_layers if owner.name in v.objects), scene.view_layers[0])
    now = (scene.frame_current, scene.frame_subframe)
    rows, stretches = [], []
    try:
        for frame in whole.tolist():
            scene.frame_set(int(frame))
            played = owner.evaluated_get(_evaluated(layer))
            if lens:
                rows.append([float(getattr(played.data, name)) for name in _LENS])
            stretches.append(_stretch(played))
    finally:
        scene.frame_set(now[0], subframe=now[1])
        _evaluated(layer)
    return np.array(rows, dtype=np.float64).reshape(-1, len(_LENS)), stretches
