# SPDX-License-Identifier: GPL-3.0-or-later
"""The overlay's geometry: sample the objects to draw and build float32 line arrays.

The other half of :mod:`.overlay`, which owns the handlers, the cache, the
draw callback and the panel. Split off because this half needs the
interpolation engine (``core.interp``, ``core.triads``, ``animdata``) and
registering the add-on must not load it: ``overlay`` imports this module on
its first rebuild, i.e. when the overlay is switched on (measured in
benchmarks/bench_register.py). No GPU here: everything runs headless.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...core import interp, quat, rotation, triads
from .. import animdata, record, versions
from ..transform import AnimatedTransform, keyed_bone_names, rig_bone_fcurves
from ..ui.compare import compare_method
from .legend import Legend

# More samples than this per object is a mistake (a key at frame 1e6), not a path to draw.
MAX_SAMPLES = 100_000

# The line sets of every object, in the order build_overlay returns them; the
# current frame's triad is picked separately (current_arrays).
LINE_SETS = ("ghost_halo", "ghosts", "long_arc", "kept", "path", "spokes_halo", "spokes",
             "triads", "marks_halo", "marks")
# Thinned copies for zoomed-out views (core.triads.LOD_LEVELS), named
# "<set>@<level>": the sets that have a triad per drawn frame, and the key marks and
# spokes (dense keys are thinned too).
THINNED_SETS = triads.THINNED_SETS
# What a view needs to thin the drawn triads on screen (overlay.draw.arrays_for_view),
# joined with the line sets but never uploaded: "triad_info" has one row per triad of
# "triads" (its origin in world space; rank = the coarsest LOD level that keeps it, its
# axis length, 1 for a key pose), "mark_owner" and "spoke_owner" one per row of "marks"
# and "spokes": the number, in "triad_info", of the key pose the row belongs to.
INDEX_SETS = ("triad_info", "mark_owner", "spoke_owner")


# Names at the paths' ends (scene.quatbake.overlay_show_names): text this many pixels
# high (times the UI scale), this far right of the end point, light on a dark shadow.
LABEL_SIZE_PX = 12
LABEL_OFFSET_PX = 8.0
LABEL_COLOR = (1.0, 1.0, 1.0, 0.95)
LABEL_SHADOW = (0.0, 0.0, 0.0, 0.8)
# Two names closer than this (pixels) count as overlapping.
LABEL_GAP_PX = 2.0


def place_labels(found, width: float, height: float, offset: float = LABEL_OFFSET_PX) -> list:
    """Where to draw the names at the paths' ends, in region pixels; no GPU.

    ``found``: (name, x, y, text width, text height) per path end, (x, y) its end
    projected into a region ``width`` x ``height`` pixels. Each name starts ``offset``
    pixels right of its end, centred on it vertically. A name that would leave the
    region, or overlap (within LABEL_GAP_PX) a name placed before it, is skipped:
    a rig's bones all ending by the same foot show one readable name, not a smudge.
    Returns (name, x, y) of the lower-left corners to draw at, in ``found``'s order.
    """
    placed = []
    boxes = []
    for name, x, y, w, h in found:
        left, bottom = x + offset, y - h / 2.0
        if left < 0.0 or bottom < 0.0 or left + w > width or bottom + h > height:
            continue
        box = (left - LABEL_GAP_PX, bottom - LABEL_GAP_PX,
               left + w + LABEL_GAP_PX, bottom + h + LABEL_GAP_PX)
        if any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3]
               for b in boxes):
            continue
        boxes.append(box)
        placed.append((name, left, bottom))
    return placed


def thinned_name(line_set: str, level: int) -> str:
    """The cached array's name of ``line_set`` at LOD ``level`` (level 1: the set itself)."""
    return line_set if level == 1 else f"{line_set}@{level}"


@dataclass
class Samples:
    """One object's per-frame samples, kept to re-pick the current frame's triad."""

    frames: np.ndarray
    quats: np.ndarray
    positions: np.ndarray
    matrix: np.ndarray | None
    size: float | None = None     # a bone's own triad size (from its length)
    camera: bool = False      # draw the view direction (-Z) on the current triad


@dataclass
class Geometry:
    """What one rebuild produces: the arrays to upload, the samples, the legend."""

    arrays: dict[str, tuple[np.ndarray, np.ndarray]]  # per line set: float32 (N, 3), (N, 4)
    samples: list[Samples]
    legend: Legend
    # (name, world position (3,)) where each drawn path, or turn arc, ends
    labels: list = field(default_factory=list)


def _is_pinned(obj) -> bool:
    record = getattr(obj, "quatbake", None)
    return bool(record is not None and record.overlay_pinned)


def _moves(t, fcurves=None) -> bool:
    """Whether the transform's rotation or location channels (delta ones included) hold
    keys: what the overlay draws a path of (custom properties or scale alone: nothing)."""
    found = (animdata.rotation_fcurves(t, None, fcurves) + animdata.location_fcurves(t, fcurves)
             + animdata.delta_rotation_fcurves(t, None, fcurves)
             + animdata.delta_location_fcurves(t, fcurves))
    return any(fc is not None and len(fc.keyframe_points) for fc in found)


def overlay_objects(view_layer) -> list:
    """Selected or pinned objects of the view layer that have rotation or location keys;
    of a rig, its visible bones keyed on rotation or location (a bone in a hidden bone
    collection, on a hidden layer or hidden itself is not drawn): the selected ones, or,
    in Object Mode with none of them selected (a fresh BVH import), all of them."""
    if view_layer is None:
        return []
    found = []
    for obj in view_layer.objects:
        if not (obj.select_get(view_layer=view_layer) or _is_pinned(obj)):
            continue
        if _moves(obj):
            found.append(obj)
        # A rig: its selected keyed bones, so a 50-bone rig stays readable.
        shown = [n for n in keyed_bone_names(obj) if versions.bone_visible(obj, n)]
        names = [n for n in shown if versions.bone_selected(obj, n)]
        if not names and getattr(obj, "mode", 'OBJECT') != 'POSE':
            # Bone selection is made in Pose Mode; in Object Mode an armature with none
            # selected shows its keyed, visible bones rather than nothing.
            names = shown
        if names:
            by_bone = animdata.fcurves_by_bone(animdata.object_fcurves(obj))
            found += [AnimatedTransform(obj, n) for n in names
                      if _moves(AnimatedTransform(obj, n), by_bone.get(n, []))]
    return found


def _sample_frames(keys: np.ndarray) -> np.ndarray:
    """Every whole frame across the keyed range, plus subframe keys themselves."""
    start, end = np.floor(keys[0]), np.ceil(keys[-1])
    if end - start + 1 > MAX_SAMPLES:
        raise ValueError(
            f"the keys span {end - start:.0f} frames (frames {start:.0f} to {end:.0f}); "
            f"the overlay draws at most {MAX_SAMPLES} frames. Delete the stray key."
        )
    return np.union1d(np.arange(start, end + 1.0), keys)


@dataclass
class ObjectSamples:
    """One object's per-frame orientations, as the overlay compares them.

    Not baked: ``ours`` is the method applied to the orientations at the
    rotation keys (a preview of the bake), ``blender`` the action as it plays.
    Baked by QuatBake (``baked``): ``ours`` is the action as it plays
    (QuatBake's keys, replayed exactly) and ``blender`` is Blender's own
    interpolation of the original keys, which are also the key poses drawn
    larger.
    """

    frames: np.ndarray        # (n,) sample frames (include every key frame)
    ours: np.ndarray          # (n, 4)
    blender: np.ndarray       # (n, 4)
    positions: np.ndarray     # (n, 3)
    rot_keys: np.ndarray      # (k,) rotation key frames (the original keys once baked)
    baked: bool
    kinds: tuple | None = None   # core.turns kind of each key interval (None: < 2 keys)

    def __iter__(self):
        # object_samples returned (frames, ours, blender, positions, rot_keys)
        # before it returned this record: unpacking it still gives those five.
        return iter((self.frames, self.ours, self.blender, self.positions, self.rot_keys))

    @property
    def playing(self) -> np.ndarray:
        """What the viewport plays now: the bake once baked, Blender's curves before."""
        return self.ours if self.baked else self.blender


def interval_kinds(obj, frames, playing, rot_keys, mode=None, fcurves=None) -> tuple | None:
    """(core.turns kinds of ``obj``'s key intervals, their tracking), or None with
    fewer than two keys. ``playing``: the orientations at ``frames`` (keys included)."""
    from ...core import turns
    from ..animdata import turn_inputs

    if rot_keys.size < 2:
        return None
    mode = mode or obj.rotation_mode
    # The keyed channels: the regular ones, or the delta ones when only those move
    # (a BVH object import); their values decide spin against wrap, and steps.
    keyed_fcs = animdata.rotation_fcurves(obj, mode, fcurves)
    defaults = animdata.rotation_defaults(obj, mode)
    if not animdata.has_keys(keyed_fcs):
        keyed_fcs = animdata.delta_rotation_fcurves(obj, mode, fcurves)
        defaults = animdata.delta_rotation_defaults(obj, mode)
    key_raw = animdata.evaluate_channels(keyed_fcs, defaults, rot_keys)
    key_quats = playing[np.searchsorted(frames, rot_keys)]
    tracking = turn_inputs.track(obj, mode, fcurves, rot_keys, key_quats, key_raw)
    stepped = turn_inputs.stepped_intervals(keyed_fcs, rot_keys)
    return turns.classify(mode, key_raw, tracking.differs, stepped), tracking


def object_samples(obj, method: str, turns: str = "AUTO", timing: str = "EVEN") -> ObjectSamples:
    """Sample ``obj`` for the overlay (see ObjectSamples). The preview follows
    ``turns`` and ``timing`` as a bake would (kept spins, steps)."""
    original = record.original_channels(obj)
    # Orientations are what Blender composes: delta rotation @ rotation.
    if original is None:
        rot_keys = animdata.orientation_key_frames(obj)
    else:
        fcurves, mode = original
        rot_keys = animdata.orientation_key_frames(obj, mode, fcurves)
    loc_keys = animdata.key_frames(animdata.location_fcurves(obj)
                                   + animdata.delta_location_fcurves(obj))
    frames = _sample_frames(np.union1d(rot_keys, loc_keys))
    positions = animdata.evaluate_full_location(obj, frames)
    playing = animdata.evaluate_orientation(obj, frames)
    if original is not None:
        fcurves, mode = original
        blender = animdata.evaluate_orientation(obj, frames, mode, fcurves)
        found = interval_kinds(obj, frames, blender, rot_keys, mode, fcurves)
        return ObjectSamples(frames, playing, blender, positions, rot_keys, True,
                             found and found[0])
    ours, kinds = _preview(obj, frames, playing, rot_keys, method, turns, timing)
    return ObjectSamples(frames, ours, playing, positions, rot_keys, False, kinds)


def _preview(obj, frames, playing, rot_keys, method: str, turns: str, timing: str,
             fcurves=None) -> tuple:
    """(orientations, kinds): ``method`` on ``obj``'s keys at ``frames``, following
    ``turns`` and ``timing`` as a bake would; ``playing`` (n, 4) are Blender's own
    orientations there (its channels, or ``fcurves``). (playing, None) without keys."""
    from ...core import turn_interp

    if not rot_keys.size:
        return playing, None
    # The samples include every key frame: the orientations at the keys are
    # already evaluated, no second pass over the F-curves.
    key_quats = playing[np.searchsorted(frames, rot_keys)]
    found = interval_kinds(obj, frames, playing, rot_keys, None, fcurves)
    if found is None:
        return interp.interpolate(rot_keys, key_quats, frames, method=method.lower()), None
    kinds, tracking = found
    if timing == "KEYED":
        tracking = _with_frames(obj, rot_keys, key_quats)
    return turn_interp.interpolate_keys(rot_keys, key_quats, tracking, kinds, turns,
                                        method.lower(), frames, timing, playing), kinds


def _with_frames(obj, rot_keys, key_quats):
    """Tracking that includes every whole frame (Timing: Keyed looks progress up there)."""
    from ..animdata import turn_inputs

    key_raw = animdata.evaluate_rotation_raw(obj, rot_keys)
    return turn_inputs.track(obj, obj.rotation_mode, None, rot_keys, key_quats, key_raw,
                             extra=_sample_frames(rot_keys))


def is_camera(obj) -> bool:
    """Whether ``obj`` is a camera: its current triad also draws the view direction (-Z)."""
    return getattr(obj, "type", "") == 'CAMERA'


def original_bone_channels(t):
    """(fcurves, rotation mode) of a baked bone's original channels, or None."""
    rec = t.owner_record
    if rec is None or rec.original_action is None or rec.baked_action is None:
        return None
    if animdata.get_action(t) != rec.baked_action or not t.quatbake.baked:
        return None
    fcurves = animdata.action_fcurves(rec.original_action, record.original_slot(rec))
    return fcurves, t.quatbake.original_rotation_mode or t.rotation_mode


def _rotations(world: np.ndarray) -> np.ndarray:
    """(n, 4) orientations of (n, 4, 4) world matrices, for the triads.

    A bone under a parent scaled unevenly is sheared (its axes are not square to each
    other), so no rotation matches all three. The triad keeps the bone's own direction,
    its Y axis, exactly (the way Blender draws the bone), takes X square to it in the
    plane of the two, and Z = X x Y: a right-handed triad even under a mirroring scale.
    Without shear this is the matrix's rotation.
    """
    y = world[:, :3, 1] / np.linalg.norm(world[:, :3, 1], axis=1, keepdims=True)
    x = world[:, :3, 0] - np.einsum("ij,ij->i", world[:, :3, 0], y)[:, None] * y
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    basis = np.stack((x, y, np.cross(x, y)), axis=-1)       # the axes as columns
    return rotation.matrix_to_quat(basis)


def bone_samples(t, method: str, cache: dict, turns: str = "AUTO",
                 timing: str = "EVEN") -> tuple:
    """(frames, ours, blender, positions, rot_keys, bone length in world units) of a pose
    bone: see ``bone_object_samples``."""
    sampled, length = bone_object_samples(t, method, cache, turns, timing)
    return (*sampled, length)


def bone_object_samples(t, method: str, cache: dict, turns: str = "AUTO",
                        timing: str = "EVEN") -> tuple:
    """(ObjectSamples, bone length in world units): ``object_samples`` for a pose bone, in
    world space along the animation: positions are the bone's head, orientations its world
    rotation (armature @ pose matrix down the chain, ``AnimatedTransform.bone_world_matrices``).
    "Ours" changes only this bone's own rotation (the method on its keys following ``turns``
    and ``timing`` as a bake would, or its baked channels); its parents play as they do."""
    original = original_bone_channels(t)
    own_fcurves, mode = original if original is not None else (None, None)
    # The bone's curves in the playing action, looked up once for the whole rig.
    live = rig_bone_fcurves(t.owner, cache).get(t.bone_name, [])
    rot_keys = animdata.orientation_key_frames(t, mode, own_fcurves if original else live)
    loc_keys = animdata.key_frames(animdata.location_fcurves(t, live))
    frames = _sample_frames(np.union1d(rot_keys, loc_keys))
    playing = t.bone_world_matrices(frames, cache=cache)
    kinds = None
    if original is not None:
        theirs = t.bone_world_matrices(frames, own_fcurves=own_fcurves, own_mode=mode,
                                       cache=cache)
        ours = playing
        local = animdata.evaluate_orientation(t, frames, mode, own_fcurves)
        found = interval_kinds(t, frames, local, rot_keys, mode, own_fcurves)
        kinds = found and found[0]
    else:
        theirs = playing
        ours = playing
        if rot_keys.size:
            local = animdata.evaluate_orientation(t, frames, None, live)
            own, kinds = _preview(t, frames, local, rot_keys, method, turns, timing, live)
            ours = t.bone_world_matrices(frames, own_quats=own, cache=cache)
    scale = float(np.cbrt(abs(np.linalg.det(np.array(t.owner.matrix_world)[:3, :3]))))
    sampled = ObjectSamples(frames, _rotations(ours), _rotations(theirs), playing[:, :3, 3],
                            rot_keys, original is not None, kinds)
    return sampled, t.target.bone.length * scale


def long_arc_mask(obj, frames: np.ndarray, blender: np.ndarray, rot_keys: np.ndarray):
    """Per key interval, whether Blender turns the long way, with the spins between
    neighbouring keys sampled (animdata.far_turn_subframes); None when there are none,
    and triads.build_overlay's own check on the per-frame samples is exact."""
    keys = rot_keys[(rot_keys >= frames[0]) & (rot_keys <= frames[-1])] if frames.size else rot_keys
    original = record.original_channels(obj)
    fcurves, mode = original if original is not None else (None, None)
    extra = animdata.far_turn_subframes(obj, keys, mode, fcurves)
    extra = extra[~np.isin(extra, frames)]
    if extra.size == 0:
        return None
    t = np.concatenate([frames, extra])
    q = np.concatenate([blender, animdata.evaluate_orientation(obj, extra, mode, fcurves)])
    order = np.argsort(t, kind="stable")
    return triads.long_arc_intervals(t[order], q[order], keys)


def parent_matrix(obj) -> np.ndarray | None:
    """The parent's transform applied to the channels (None when unparented)."""
    if obj.parent is None:
        return None
    return np.array(obj.parent.matrix_world @ obj.matrix_parent_inverse, dtype=np.float64)


def _float32_arrays(lines: list[triads.LineSet]) -> tuple[np.ndarray, np.ndarray]:
    """Join line sets into the contiguous float32 (points, colours) the GPU batch takes."""
    joined = triads.LineSet.join(lines)
    return (
        np.ascontiguousarray(joined.points, dtype=np.float32),
        np.ascontiguousarray(joined.colors, dtype=np.float32),
    )


@dataclass
class Sampled:
    """One transform sampled for the overlay (what ``build_part`` draws from)."""

    name: str                 # the legend's name (a bone's with its rig)
    short_name: str           # the name at the path's end (a bone's own, an object's)
    sampled: ObjectSamples
    matrix: np.ndarray | None     # the parent's world transform (objects), None: world
    camera: bool
    size: float | None            # a bone's triad size (None: Triad Size)
    mask: np.ndarray | None       # long_arc_mask (objects)
    speeds: np.ndarray | None     # angular_speed of ``ours`` (None: fewer than 2 samples)


@dataclass
class Part:
    """One transform's drawn geometry: float32 arrays per line set (its thinned copies
    included), already in world space, and what the legend counts of it."""

    name: str
    arrays: dict          # line set name -> (float32 (m, 3), float32 (m, 4))
    samples: Samples
    label: tuple | None   # (short name, world position (3,)) at the path's end
    spacing: dict         # LOD level -> triad_spacing of the triads drawn at it
    long_arc_count: int
    spin_count: int
    step_count: int
    in_place: bool
    baked: bool
    fixed_long_arc_count: int
    camera: bool
    speed_max: float          # the legend top the path's colours were made for
    path_speed: np.ndarray    # (n-1,) the path's speeds as build_overlay colours them

    def recoloured(self, speed_max: float) -> "Part":
        """This part with its path coloured for the legend top ``speed_max`` (degrees per
        frame): the only line set that depends on the other paths drawn beside it."""
        if speed_max == self.speed_max:
            return self
        points, _ = self.arrays["path"]
        colors = np.repeat(triads.speed_colors(self.path_speed, speed_max), 2, axis=0) \
            if self.path_speed.size else np.zeros((0, 4))
        arrays = dict(self.arrays)
        arrays["path"] = (points, np.ascontiguousarray(colors, dtype=np.float32))
        return Part(**{**self.__dict__, "arrays": arrays, "speed_max": speed_max})

    @property
    def nbytes(self) -> int:
        held = sum(p.nbytes + c.nbytes for p, c in self.arrays.values())
        s = self.samples
        return held + s.frames.nbytes + s.quats.nbytes + s.positions.nbytes


def set_names() -> list[str]:
    """Every cached array's name: LINE_SETS and their thinned copies."""
    names = list(LINE_SETS)
    for level in triads.LOD_LEVELS[1:]:
        names += [thinned_name(name, level) for name in THINNED_SETS]
    return names


def transform_name(obj) -> str:
    return getattr(obj, "display_name", obj.name)


def sample_transform(obj, settings, chains: dict) -> Sampled:
    """Sample one transform to draw (``chains``: shared by the bones of one pass, see
    ``bone_object_samples``). Raises ValueError for a broken key."""
    name = transform_name(obj)
    mask = None
    if getattr(obj, "bone_name", ""):
        # World space already: the bone's head and rotation along the animation,
        # its triads sized from its length (Triad Size 0.5 = half the bone).
        sampled, length = bone_object_samples(obj, compare_method(settings), chains,
                                              settings.turns, settings.timing)
        matrix, size, camera = None, float(settings.overlay_size) * length, False
    else:
        sampled = object_samples(obj, compare_method(settings), settings.turns,
                                 settings.timing)
        # Blender's own curves, spins between neighbouring keys sampled too
        # (the original keys once baked: what the bake fixed).
        mask = long_arc_mask(obj, sampled.frames, sampled.blender, sampled.rot_keys)
        matrix, size, camera = parent_matrix(obj), None, is_camera(obj)
    speeds = triads.angular_speed(sampled.ours, sampled.frames) \
        if sampled.frames.size > 1 else None
    # the name at the path's end: a bone's own (its rig is beside it), an object's
    return Sampled(name, getattr(obj, "bone_name", "") or obj.name, sampled, matrix, camera,
                   size, mask, speeds)


def problem_text(name: str, exc: Exception) -> str:
    """The legend's sentence for a transform that could not be sampled."""
    if isinstance(exc, ValueError):    # ChannelError is a ValueError: a broken key
        return f"{name}: {exc}"
    # not foreseen: named in the legend, the others drawn
    return (f"{name}: QuatBake could not sample it "
            f"({type(exc).__name__}: {exc}); please report this.")


def legend_top(sampled: list) -> float:
    """One legend for all paths, so equal colours mean equal speeds; a round top at a
    high percentile, so one spike does not flatten the ramp (core.triads.legend_scale)."""
    return triads.legend_scale([s.speeds for s in sampled if s.speeds is not None])


def build_part(s: Sampled, settings, speed_max: float) -> Part:
    """One sampled transform's geometry (world space, float32) with the path coloured for
    ``speed_max``."""
    sampled, matrix, camera, size = s.sampled, s.matrix, s.camera, s.size
    step = max(1, int(settings.overlay_step))
    triad_size = float(settings.overlay_size) if size is None else size
    world = sampled.positions if matrix is None else (
        sampled.positions @ matrix[:3, :3].T + matrix[:3, 3])
    # Turning where it stands: a turn arc, not a starburst of triads at one point.
    in_place = triads.is_in_place(world, sampled.ours, triad_size)
    # The band marks what plays now: after a bake the short arc, so a fixed
    # long arc disappears; the original's long arcs are counted as fixed.
    geometry = triads.build_overlay(
        sampled.frames, sampled.ours, sampled.positions, sampled.rot_keys,
        step=step, size=triad_size,
        ghost_quats=sampled.blender if settings.overlay_show_ghost else None,
        long_arc_quats=sampled.playing, speed_max=speed_max, view_axis=camera,
        # kinds: only flips and wraps get the long-arc band; spins and steps
        # the kept one (of the original keys once baked)
        interval_kinds=sampled.kinds,
        # the denser check is of Blender's curves: what plays only before a bake
        long_arc_mask=None if sampled.baked else s.mask,
        in_place=in_place,
    )
    lines = {key: getattr(geometry, key) for key in LINE_SETS}
    # Thinned copies are row selections of the full sets (no recomputation).
    for level in triads.LOD_LEVELS[1:]:
        for key, found in geometry.thinned(level).items():
            lines[thinned_name(key, level)] = found
    arrays = {key: _float32_arrays([found if matrix is None else found.transformed(matrix)])
              for key, found in lines.items()}
    placed = geometry.triad_positions if matrix is None else (
        geometry.triad_positions @ matrix[:3, :3].T + matrix[:3, 3])
    spacing = {level: triads.triad_spacing(placed, geometry.chosen[geometry.levels[level][0]])
               for level in triads.LOD_LEVELS}
    arrays.update(_triad_index(geometry, placed, triad_size))
    label = None
    if geometry.label_at is not None:
        at = geometry.label_at if matrix is None else matrix[:3, :3] @ geometry.label_at \
            + matrix[:3, 3]
        label = (s.short_name, at)
    fixed = 0
    if sampled.baked:
        fixed = int(s.mask.sum()) if s.mask is not None else triads.long_arc_count(
            sampled.frames, sampled.blender, sampled.rot_keys)
    # The path's speeds exactly as build_overlay colours them (of the normalised
    # orientations), so another legend top recolours it without a new build.
    path_speed = triads.angular_speed(quat.normalize(sampled.ours), sampled.frames) \
        if sampled.frames.size > 1 else np.zeros(0)
    return Part(s.name, arrays,
                Samples(sampled.frames, sampled.ours, sampled.positions, matrix, size, camera),
                label, spacing, geometry.long_arc_count, geometry.spin_count,
                geometry.step_count, bool(geometry.in_place), sampled.baked, fixed, camera,
                float(speed_max), path_speed)


def _triad_index(geometry, placed: np.ndarray, triad_size: float) -> dict:
    """The INDEX_SETS of one part (``placed``: where each sample's triad sits, world)."""
    chosen, is_key = geometry.chosen, geometry.triad_is_key
    rank = np.ones(chosen.size)
    for level in triads.LOD_LEVELS:
        rank[geometry.levels[level][0]] = level
    info = np.zeros((chosen.size, 4))
    info[:, 0] = rank
    info[:, 1] = np.where(is_key, triad_size * triads.KEY_SCALE, triad_size)
    info[:, 2] = is_key
    keys = np.flatnonzero(is_key)
    marks = np.concatenate([np.repeat(keys, rows) for rows in geometry.mark_layout]) \
        if geometry.marks.points.shape[0] else np.zeros(0, np.int64)
    spokes = np.repeat(keys, 2) if geometry.spokes.points.shape[0] else np.zeros(0, np.int64)
    return {"triad_info": (np.ascontiguousarray(placed[chosen], dtype=np.float32),
                           info.astype(np.float32)),
            "mark_owner": (marks.astype(np.int64), np.zeros((marks.size, 0), np.float32)),
            "spoke_owner": (spokes.astype(np.int64), np.zeros((spokes.size, 0), np.float32))}


def assemble(parts: list[Part], problems: list[str], speed_max: float,
             arrays: dict | None = None) -> Geometry:
    """The Geometry of ``parts`` drawn together (``arrays``: their joined arrays when the
    caller already has them, see ``join``)."""
    legend = Legend()
    legend.problems = list(problems)
    level_spacings: dict = {level: [] for level in triads.LOD_LEVELS}
    labels = []
    for part in parts:
        for level, value in part.spacing.items():
            level_spacings[level].append(value)
        if part.label is not None:
            labels.append(part.label)
        legend.long_arc_count += part.long_arc_count
        legend.spin_count += part.spin_count
        legend.step_count += part.step_count
        if part.in_place:
            legend.in_place.append(part.name)
        if part.baked:
            legend.baked_objects.append(part.name)
            legend.fixed_long_arc_count += part.fixed_long_arc_count
        if part.camera:
            legend.cameras.append(part.name)
        legend.objects.append(part.name)
    legend.speed_max = speed_max if parts else 0.0
    legend.level_spacing = {level: float(np.median(found))
                            for level, found in level_spacings.items() if found}
    legend.triad_spacing = legend.level_spacing.get(1, 0.0)
    if arrays is None:
        arrays = join(parts)
    return Geometry(arrays, [part.samples for part in parts], legend, labels)


def join(parts: list[Part]) -> dict:
    """The float32 arrays of every line set, the parts' rows one after the other."""
    out = {}
    # The owners count the triads of all the parts before theirs.
    offsets = np.cumsum([0] + [part.arrays["triad_info"][0].shape[0] for part in parts])
    for key in ("mark_owner", "spoke_owner"):
        found = [(owners + offset, empty) for part, offset in zip(parts, offsets)
                 for owners, empty in [part.arrays[key]] if owners.shape[0]]
        out[key] = (np.concatenate([o for o, _ in found]), np.concatenate([e for _, e in found])) \
            if found else (np.zeros(0, np.int64), np.zeros((0, 0), np.float32))
    for key in set_names() + ["triad_info"]:
        found = [part.arrays[key] for part in parts if part.arrays[key][0].shape[0]]
        if not found:
            out[key] = (np.zeros((0, 3), np.float32), np.zeros((0, 4), np.float32))
        elif len(found) == 1:
            out[key] = found[0]
        else:
            out[key] = (np.concatenate([p for p, _ in found]),
                        np.concatenate([c for _, c in found]))
    return out


def build(view_layer, settings) -> Geometry:
    """Sample every object to draw and build the line arrays and the legend, from scratch
    (the overlay's own rebuilds go through ``overlay.reuse``, which reuses what did not
    change; this is also the fresh build the tests compare it with).

    ``settings`` is ``scene.quatbake`` (None: nothing to draw). An object whose
    keys cannot be read is skipped and named in ``Legend.problems``.
    """
    if settings is None:
        return assemble([], [], 0.0)
    collected = []
    problems = []
    chains: dict = {}
    for obj in overlay_objects(view_layer):
        try:
            collected.append(sample_transform(obj, settings, chains))
        except Exception as exc:  # noqa: BLE001 - named in the legend, the others drawn
            problems.append(problem_text(transform_name(obj), exc))
    speed_max = legend_top(collected)
    return assemble([build_part(s, settings, speed_max) for s in collected], problems,
                    speed_max)


def current_arrays(samples: list[Samples], frame: float, size: float) -> tuple[np.ndarray, np.ndarray]:
    """Float32 (points, colours) of every object's emphasised triad at ``frame`` (frames, may be fractional)."""
    lines = []
    for s in samples:
        cur = triads.current_triad(s.frames, s.quats, s.positions, frame,
                                   size if s.size is None else s.size, view_axis=s.camera)
        lines.append(cur if s.matrix is None else cur.transformed(s.matrix))
    return _float32_arrays(lines)

