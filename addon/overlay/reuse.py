# SPDX-License-Identifier: GPL-3.0-or-later
"""The overlay's per-transform geometry cache: rebuild only what changed.

Sampling a transform and building its lines costs ~18 ms for each bone of the CMU
walk (525 frames); the whole rig 0.55 s of CPU. The overlay's handler runs on every
depsgraph update (a selection, a settings change, moving anything), so each
transform's geometry is kept with a **key** of everything it is made from, and made
again only when that key changes. What the key holds, and why:

- **The keys themselves**, as a 128-bit BLAKE2b digest per F-curve of its keyframes'
  ``co``, both handles and interpolation, read with ``foreach_get`` (plus easing, back,
  amplitude and period when an interpolation uses them), its extrapolation, mute flag,
  data path and index, and every property of its F-modifiers. A digest, not the
  action's pointer or a key count: Python can move a key without a depsgraph tag, a
  bake or revert assigns another action whose freed pointer a later one may reuse, and
  undo restores keys in place. Keeping the arrays themselves for an exact compare
  would hold a dense rig's keys twice (600 curves x 10,000 keys: 250 MB); a collision
  of 128-bit digests is not a practical risk. ~0.15 ms per curve, so the walk's 96
  curves cost ~15 ms against 450-550 for its rebuild. The action's pointer and slot are
  in the key too, so another action is never mistaken for this one even with the same
  keys (it rebuilds, never draws stale).
- **What a reader takes where a channel has no keys**: the unkeyed channels' values
  (location, rotation in every mode, deltas; for bones scale), the rotation mode. A
  *keyed* channel's value is left out: Blender writes the animated value into it on
  every frame change, which would make every frame rebuild.
- **The bake record** (the original action's curves for this transform and its
  rotation mode, while the baked action plays), so a bake and a revert rebuild.
- **Bones:** the same for every bone up the parent chain (its curves, unkeyed values,
  rest matrix, parent, inherit and local-location flags, length), and the armature's
  ``matrix_world`` (the samples are in world space). An armature animated as an
  object therefore rebuilds its bones on frame changes: their drawn paths do move.
- **The settings that shape the samples** (Compare's method, Turns, Timing) and then
  the drawing (Triad Every, Triad Size, Ghosts), and an object's parent transform
  (``parent.matrix_world @ matrix_parent_inverse``) and camera-ness. The thinned
  copies for zoomed-out views are built for every level at once, so the view (zoom,
  LOD level) is no input: the draw callback picks the level.

Two steps, so an object under a moving parent only redraws: the *samples* (keyed by
the first three) and the *part* (samples + drawing settings + parent transform).
The legend's speed top depends on every path drawn: a part built for another top only
gets its path recoloured (``geometry.Part.recoloured``). The joined arrays are kept
for the list of parts they join (and those of the build before, so deselecting and
selecting again joins nothing), so an update that changes nothing uploads nothing.

Nothing here holds an RNA reference: entries are found by (object name, bone name)
and hold numpy arrays, so undo cannot leave a dangling pointer. Parts of transforms
no longer drawn are kept (re-selecting one costs a lookup) within IDLE_BYTES.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from .. import animdata, record
from ..animdata.actions import enum_value
from ..transform import rig_bone_fcurves
from ..ui.compare import compare_method
from . import geometry

# Parts of transforms not drawn now are kept up to this many bytes of arrays (the
# least recently drawn go first): the CMU walk's 31 bones hold about 21 MB.
IDLE_BYTES = 256 * 1024 * 1024

_KEY_FIELDS = ("co", "handle_left", "handle_right")
# Easing, back, amplitude and period change the curve only for these interpolations.
_PLAIN_INTERPOLATIONS = ('CONSTANT', 'LINEAR', 'BEZIER')
_OBJECT_PROPS = ("location", "rotation_quaternion", "rotation_euler", "rotation_axis_angle",
                 "delta_location", "delta_rotation_quaternion", "delta_rotation_euler")
_BONE_PROPS = ("location", "rotation_quaternion", "rotation_euler", "rotation_axis_angle",
               "scale")


def _rna_state(struct, depth: int = 0) -> tuple:
    """Every plain property of ``struct`` (an F-modifier), its collections one level down
    (an envelope's control points): what the modifier changes the curve by."""
    out = []
    for prop in struct.bl_rna.properties:
        name = prop.identifier
        if name == "rna_type" or prop.type == 'POINTER':
            continue
        if prop.type == 'COLLECTION':
            if depth == 0:
                out.append((name, tuple(_rna_state(item, 1) for item in getattr(struct, name))))
            continue
        value = getattr(struct, name)
        if isinstance(value, set):
            value = tuple(sorted(value))
        elif not isinstance(value, (str, bytes)) and hasattr(value, "__len__"):
            value = tuple(value)
        out.append((name, value))
    return tuple(out)


class _Pass:
    """What one build reads once: each curve's digest, each bone's state, each rig's
    curves by bone (looked up by pointer and name; dropped when the build ends)."""

    def __init__(self, settings) -> None:
        self.digests: dict = {}
        self.bones: dict = {}
        self.chains: dict = {}     # geometry's own sharing between a rig's bones
        self.by_bone: dict = {}
        self.plain = {enum_value("interpolation", name)
                      for name in _PLAIN_INTERPOLATIONS}
        self.sampling = (compare_method(settings), settings.turns, settings.timing)
        self.drawing = (int(settings.overlay_step), float(settings.overlay_size),
                        bool(settings.overlay_show_ghost))

    def digest(self, fc) -> bytes:
        pointer = fc.as_pointer()
        found = self.digests.get(pointer)
        if found is None:
            found = self.digests[pointer] = self._digest(fc)
        return found

    def _digest(self, fc) -> bytes:
        h = hashlib.blake2b(digest_size=16)
        kps = fc.keyframe_points
        n = len(kps)
        modifiers = tuple(_rna_state(m) for m in fc.modifiers)
        h.update(repr((fc.data_path, fc.array_index, bool(fc.mute), fc.extrapolation, n,
                       modifiers)).encode())
        if n:
            buf = np.empty(2 * n, dtype=np.float32)
            for name in _KEY_FIELDS:
                kps.foreach_get(name, buf)
                h.update(buf.tobytes())
            # Through animdata: Blender 3.4 reads a linked action's enums key by key.
            interpolation = animdata.read_keyframe_arrays(fc, ("interpolation",))["interpolation"]
            h.update(np.ascontiguousarray(interpolation, dtype=np.int32).tobytes())
            if not set(np.unique(interpolation).tolist()) <= self.plain:
                easing = animdata.read_keyframe_arrays(fc, ("easing", "back", "amplitude",
                                                            "period"))
                for name in ("easing", "back", "amplitude", "period"):
                    h.update(np.ascontiguousarray(easing[name]).tobytes())
        return h.digest()

    def curves_state(self, fcurves) -> tuple:
        return tuple(self.digest(fc) for fc in fcurves if fc is not None)

    def rig_curves(self, owner) -> dict:
        return rig_bone_fcurves(owner, self.chains)

    def original_by_bone(self, fcurves, owner_name: str, action) -> dict:
        key = (owner_name, action.as_pointer() if action is not None else 0)
        found = self.by_bone.get(key)
        if found is None:
            found = self.by_bone[key] = animdata.fcurves_by_bone(fcurves)
        return found


def _unkeyed_values(target, prefix: str, props, fcurves) -> tuple:
    """The values of ``props`` on ``target`` whose channels are not all keyed and unmuted
    in ``fcurves`` (None in a keyed channel's place: Blender rewrites it every frame)."""
    keyed: dict = {}
    for fc in fcurves:
        path = (fc.data_path, fc.array_index)
        ok = bool(len(fc.keyframe_points)) and not fc.mute
        keyed[path] = keyed.get(path, True) and ok
    out = []
    for prop in props:
        values = getattr(target, prop, None)
        if values is None:
            continue
        path = prefix + prop
        out.append(tuple(None if keyed.get((path, i)) else float(v)
                         for i, v in enumerate(values)))
    return tuple(out)


def _matrix(m) -> tuple:
    return tuple(float(v) for row in m for v in row)


def _action_state(owner) -> tuple:
    action = animdata.get_action(owner)
    return (action.as_pointer() if action is not None else 0,
            animdata.get_slot_identifier(owner))


def _bone_state(p: _Pass, t, pbone, live: list) -> tuple:
    """One bone of a chain: what its pose matrix is made from, but its parents."""
    key = (t.owner.name, pbone.name)
    found = p.bones.get(key)
    if found is None:
        bone = pbone.bone
        prefix = pbone.path_from_id() + "."
        found = p.bones[key] = (
            pbone.name, pbone.rotation_mode, bone.parent.name if bone.parent else "",
            _matrix(bone.matrix_local), bone.inherit_scale,
            bool(bone.use_inherit_rotation), bool(bone.use_local_location),
            float(bone.length), _unkeyed_values(pbone, prefix, _BONE_PROPS, live),
            p.curves_state(live))
    return found


def sample_key(p: _Pass, t) -> tuple:
    """Everything ``geometry.sample_transform`` reads of ``t`` (see the module doc)."""
    if getattr(t, "bone_name", ""):
        owner = t.owner
        by_bone = p.rig_curves(owner)
        chain = []
        pbone = t.target
        while pbone is not None:
            chain.append(_bone_state(p, t, pbone, by_bone.get(pbone.name, [])))
            pbone = pbone.parent
        original = geometry.original_bone_channels(t)
        baked = None
        if original is not None:
            fcurves, mode = original
            mine = p.original_by_bone(fcurves, owner.name, t.owner_record.original_action)
            mine = mine.get(t.bone_name, [])
            # Its channels keyed live but not in the original read their live value.
            baked = (mode, p.curves_state(mine),
                     _unkeyed_values(t.target, t.path_prefix, _BONE_PROPS, mine))
        return ("bone", owner.name, t.bone_name, p.sampling, _action_state(owner),
                _matrix(owner.matrix_world), baked, tuple(chain))
    live = animdata.object_fcurves(t)
    original = record.original_channels(t)
    baked = None
    if original is not None:
        fcurves, mode = original
        baked = (mode, p.curves_state(fcurves),
                 _unkeyed_values(t, "", _OBJECT_PROPS, fcurves))
    return ("object", t.name, p.sampling, _action_state(t), t.rotation_mode,
            _unkeyed_values(t, "", _OBJECT_PROPS, live), p.curves_state(live), baked)


def part_key(p: _Pass, t, samples: tuple) -> tuple:
    """The sample key plus what drawing them reads: the settings, the parent transform."""
    if getattr(t, "bone_name", ""):
        return (samples, p.drawing)
    parent = geometry.parent_matrix(t)
    return (samples, p.drawing, None if parent is None else parent.tobytes(),
            geometry.is_camera(t))


@dataclass
class _Entry:
    sample_key: tuple | None
    sampled: object             # geometry.Sampled, or the legend's problem sentence (str)
    part_key: tuple | None = None
    part: object = None         # geometry.Part (its path for part.speed_max)
    used: int = 0               # the build that last drew it


@dataclass
class Stats:
    """What the builds did, for the tests and the benchmark."""

    builds: int = 0         # GeometryCache.build calls
    sampled: int = 0        # transforms sampled (the expensive step)
    parts: int = 0          # parts built (core.triads.build_overlay)
    recoloured: int = 0     # parts whose path was recoloured for another legend top
    reused: int = 0         # transforms drawn from the cache as they were
    joins: int = 0          # times the joined arrays were made again


class GeometryCache:
    """Per-transform samples and parts, and the joined arrays of the last build."""

    def __init__(self) -> None:
        self.entries: dict = {}
        # (the parts joined, their arrays): the parts are held, so none of them can be
        # freed and another made in its place that an identity test would mistake for it
        self.joined: tuple | None = None
        self.earlier: list = []      # the joined arrays before those, kept for one build
        self.stats = Stats()

    def clear(self) -> None:
        self.entries.clear()
        self.joined = None
        self.earlier = []

    def build(self, view_layer, settings) -> tuple:
        """(geometry.Geometry, whether its arrays differ from the last build's): the same
        geometry ``geometry.build`` makes from scratch, reusing every unchanged part."""
        self.stats.builds += 1
        if settings is None:
            geo = geometry.assemble([], [], 0.0)
            changed = not self._same(self.joined, ())
            self.joined, self.earlier = ((), geo.arrays), []
            return geo, changed
        p = _Pass(settings)
        use = self.stats.builds
        drawn = []      # (entry, transform) in the drawn order
        problems = []
        for t in geometry.overlay_objects(view_layer):
            name = geometry.transform_name(t)
            ident = (t.owner.name if getattr(t, "bone_name", "") else t.name,
                     getattr(t, "bone_name", ""))
            try:
                key = sample_key(p, t)
            except Exception:  # noqa: BLE001 - unreadable for the key: never cached
                key = None
            entry = self.entries.get(ident)
            if entry is None or key is None or entry.sample_key != key:
                try:
                    sampled = geometry.sample_transform(t, settings, p.chains)
                except Exception as exc:  # noqa: BLE001 - named in the legend
                    sampled = geometry.problem_text(name, exc)
                self.stats.sampled += 1
                entry = self.entries[ident] = _Entry(key, sampled)
            entry.used = use
            if isinstance(entry.sampled, str):
                problems.append(entry.sampled)
            else:
                drawn.append((entry, t))
        speed_max = geometry.legend_top([e.sampled for e, _t in drawn])
        parts = []
        for entry, t in drawn:
            key = None if entry.sample_key is None else part_key(p, t, entry.sample_key)
            if entry.part is None or key is None or entry.part_key != key:
                if not getattr(t, "bone_name", ""):
                    # the parent's transform now, not when the samples were made
                    entry.sampled.matrix = geometry.parent_matrix(t)
                entry.part = geometry.build_part(entry.sampled, settings, speed_max)
                entry.part_key = key
                self.stats.parts += 1
            elif entry.part.speed_max != speed_max:
                entry.part = entry.part.recoloured(speed_max)
                self.stats.recoloured += 1
            else:
                self.stats.reused += 1
            parts.append(entry.part)
        self._evict(use)
        parts = tuple(parts)
        changed = not self._same(self.joined, parts)
        if changed:
            # Deselecting and selecting again draws the parts of two builds ago.
            earlier = [j for j in self.earlier if self._same(j, parts)]
            if earlier:
                found = earlier[0]
            else:
                found = (parts, geometry.join(parts))
                self.stats.joins += 1
            if self.joined is not None:
                self.earlier = [self.joined]
            self.joined = found
        return geometry.assemble(list(parts), problems, speed_max, self.joined[1]), changed

    @staticmethod
    def _same(joined, parts: tuple) -> bool:
        return joined is not None and len(joined[0]) == len(parts) and all(
            a is b for a, b in zip(joined[0], parts))

    def _evict(self, use: int) -> None:
        idle = sorted((e.used, ident) for ident, e in self.entries.items() if e.used != use)
        held = sum(self._bytes(self.entries[ident]) for _u, ident in idle)
        for _used, ident in idle:          # the least recently drawn first
            if held <= IDLE_BYTES:
                break
            held -= self._bytes(self.entries.pop(ident))

    @staticmethod
    def _bytes(entry: _Entry) -> int:
        held = entry.part.nbytes if entry.part is not None else 0
        s = entry.sampled
        if not isinstance(s, str):
            held += sum(a.nbytes for a in (s.sampled.frames, s.sampled.ours,
                                           s.sampled.blender, s.sampled.positions))
        return held
