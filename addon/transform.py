# SPDX-License-Identifier: GPL-3.0-or-later
"""An animated transform: an object, or one pose bone of an armature.

Bake, analysis, overlay and command line all work on ``AnimatedTransform``
values instead of branching on "object or bone" themselves. A transform knows:

- ``owner``: the ID whose animation data holds the channels (the object, or
  the armature object for a bone);
- ``path_prefix``: the channels' data-path prefix ("" for an object,
  ``pose.bones["spine"].`` for a bone, from ``PoseBone.path_from_id()``);
- the action and slot (the owner's, through ``animdata``);
- the rotation mode and static values (``rotation_quaternion``, ``location``
  ...: the object's or the pose bone's own properties);
- its world matrix (``world_matrix``).

It offers the attributes ``animdata`` reads from an object (``name``,
``rotation_mode``, ``animation_data``, ``library`` ...), so one set of
readers serves both. Pose bones have no delta transforms: their
``delta_*`` values are the identity and no F-curve animates them.
"""
from __future__ import annotations

import bpy
import numpy as np

from ..core import rotation as core_rotation
from ..core.words import Phrase
from . import animdata

_IDENTITY_DELTA = {
    "delta_rotation_quaternion": (1.0, 0.0, 0.0, 0.0),
    "delta_rotation_euler": (0.0, 0.0, 0.0),
    "delta_location": (0.0, 0.0, 0.0),
}
# Kept here for callers of transform (animdata owns data-path parsing).
BONE_PATH_START = animdata.BONE_PATH_START
bone_name_from_path = animdata.bone_name_from_path


def bone_path_prefix(bone_name: str) -> str:
    """``pose.bones["name"].`` with the name escaped as Blender writes it in data paths."""
    return f'pose.bones["{bpy.utils.escape_identifier(bone_name)}"].'


class AnimatedTransform:
    """One animated transform (see the module doc). Cheap to make; holds no RNA copies."""

    __slots__ = ("owner", "bone_name", "_prefix", "_pbone")

    def __init__(self, owner, bone_name: str = ""):
        self.owner = owner
        self.bone_name = bone_name
        self._prefix = bone_path_prefix(bone_name) if bone_name else ""
        # Looked up once: a transform lives for one operation (no undo step inside it).
        self._pbone = None

    # -- identity ---------------------------------------------------------
    @property
    def is_bone(self) -> bool:
        return bool(self.bone_name)

    @property
    def target(self):
        """The struct with the rotation/location properties: the object or its pose bone."""
        if not self.bone_name:
            return self.owner
        if self._pbone is not None:
            return self._pbone
        pose = self.owner.pose
        bone = pose.bones.get(self.bone_name) if pose is not None else None
        self._pbone = bone
        if bone is None:
            raise KeyError(f"Armature \"{self.owner.name}\" has no bone \"{self.bone_name}\".")
        return bone

    @property
    def exists(self) -> bool:
        if not self.bone_name:
            return True
        pose = self.owner.pose
        return pose is not None and pose.bones.get(self.bone_name) is not None

    @property
    def path_prefix(self) -> str:
        return self._prefix

    @property
    def name(self) -> str:
        """The owner's name (what reports call the object); ``bone_name`` names the bone."""
        return self.owner.name

    @property
    def key(self) -> tuple:
        return (self.owner.name, self.bone_name)

    @property
    def label(self) -> str:
        """How sentences name this transform: a Phrase (ARMATURE_BONE or OBJECT), which
        the turn notes say in the interface's language."""
        if self.bone_name:
            return Phrase(animdata.ARMATURE_BONE, self.owner.name, self.bone_name)
        return Phrase(animdata.OBJECT, self.owner.name)

    @property
    def display_name(self) -> str:
        """"Cube", or "Rig: spine" for a bone (panel rows, progress lines)."""
        return f"{self.owner.name}: {self.bone_name}" if self.bone_name else self.owner.name

    def __repr__(self) -> str:
        return f"AnimatedTransform({self.display_name!r})"

    # -- what animdata reads from an object --------------------------------
    @property
    def type(self) -> str:
        return 'BONE' if self.bone_name else self.owner.type

    @property
    def animation_data(self):
        return self.owner.animation_data

    def animation_data_create(self):
        return self.owner.animation_data_create()

    @property
    def library(self):
        return self.owner.library

    @property
    def override_library(self):
        return self.owner.override_library

    @property
    def constraints(self):
        return self.target.constraints

    def acting_constraints(self, cache: dict | None = None,
                           moving: str = "rotation") -> list[str]:
        """Names of the constraints that move this transform's ``moving`` ("rotation" or
        "location") on top of its keys: its own that act (acts) and can move it
        (moves_of), and for a bone's rotation the IK constraints of the bones below it
        whose chain reaches it ("Name (on bone)"; ik_reach, built once per rig in
        ``cache``). A walk: 37 warnings of a Rigify rig's face bones said their Copy
        Location acted "on top of the baked rotation", which it never changes."""
        # One whose influence or mute is keyed or driven acts somewhere in the shot, whatever
        # it reads at the current frame (a review: keyed 1 -> 0, read at its last frame);
        # a muted one with a keyed influence does not (a second review).
        animated = self._animated_constraint_paths(cache)
        names = [c.name for c in self.constraints if moving in moves_of(c) and (
            acts(c) or (c.is_valid and (_animated(c, animated, ("mute",)) or (
                not c.mute and _animated(c, animated, ("influence",))))))]
        if moving == "rotation" and self.is_bone and self.owner.pose is not None:
            names += ik_reach(self.owner, cache).get(self.bone_name, [])
        return names

    def overriding_constraints(self, cache: dict | None = None) -> list[str]:
        """Names of its acting constraints that set its rotation whatever its keys: a Track
        To, a Copy Rotation of every axis replacing it, a Copy Transforms replacing it, at
        full influence that no key or driver changes over the shot. Its rotation keys never
        play, so neither a comparison of them nor a bake of them changes what is seen (a
        triage: a Track To camera's report advised a re-bake for 177 deg its image never
        showed). An object's in World space, or in Local space under a parent: without one
        its Local space starts from its own channels, so the keys still play there (a
        review; a second review: under a parent they never do); a bone's Local space starts
        from its rest pose."""
        animated = self._animated_constraint_paths(cache)
        parented = getattr(self.owner, "parent", None) is not None
        return [c.name for c in self.constraints
                if acts(c) and c.influence >= 1.0
                and (self.is_bone or c.owner_space == 'WORLD'
                     or (c.owner_space == 'LOCAL' and parented))
                and not _animated(c, animated)
                and (c.type == 'TRACK_TO'
                     or (c.type == 'COPY_ROTATION' and c.mix_mode == 'REPLACE'
                         and c.use_x and c.use_y and c.use_z)
                     or (c.type == 'COPY_TRANSFORMS' and c.mix_mode == 'REPLACE'))]

    def _animated_constraint_paths(self, cache: dict | None = None) -> set:
        """The data paths, without this transform's prefix, of its constraint settings a
        key or a driver changes (``constraints["Track To"].influence`` ...). The owner's
        curves and drivers are scanned once per ``cache`` (a rig's bones share them)."""
        ad = self.owner.animation_data
        if ad is None or not len(self.constraints):
            return set()
        key = ("constraint_paths", self.owner.as_pointer())
        paths = cache.get(key) if cache is not None else None
        if paths is None:
            paths = [p for p in [fc.data_path for fc in animdata.object_fcurves(self.owner)]
                     + [d.data_path for d in ad.drivers] if "constraints[" in p]
            if cache is not None:
                cache[key] = paths
        prefix = self.path_prefix + "constraints["
        return {p[len(self.path_prefix):] for p in paths if p.startswith(prefix)}

    def mode_following_constraints(self, mode: str) -> list[str]:
        """Names of its acting constraints that work on Euler angles in the order of its
        rotation mode (Euler Order: Default) and would work on others in ``mode``: a Limit
        Rotation limiting an axis, a Copy Rotation copying some axes, mixing or inverting,
        a Transformation onto rotation or from a target's rotation. A quaternion or axis-angle mode counts as XYZ, as
        Blender takes it. A convert walk: a bone's Limit Rotation on X limited other angles
        in ZXY, 45 deg off in the world; a review: XYZ -> Quaternion changes nothing."""
        if euler_order_of(mode) == euler_order_of(self.rotation_mode):
            return []
        found = []
        for con in self.constraints:
            if not acts(con):
                continue
            if con.type == 'LIMIT_ROTATION' and con.euler_order == 'AUTO':
                follows = con.use_limit_x or con.use_limit_y or con.use_limit_z
            elif con.type == 'COPY_ROTATION' and con.euler_order == 'AUTO':
                # Every axis, none inverted, the rotations combined whole: no angles.
                follows = not (con.use_x and con.use_y and con.use_z and con.mix_mode in
                               ('REPLACE', 'BEFORE', 'AFTER') and not (
                                   con.invert_x or con.invert_y or con.invert_z))
            else:
                # Onto rotation, or from a target's rotation read in the owner's order (a
                # review: mapped onto location, it moved the owner 1.7 units).
                follows = con.type == 'TRANSFORM' and (
                    (con.map_to == 'ROTATION' and con.to_euler_order == 'AUTO')
                    or (con.map_from == 'ROTATION' and con.from_rotation_mode == 'AUTO'))
            if follows:
                found.append(con.name)
        return found

    @property
    def quatbake(self):
        """The bake record: the object's (``Object.quatbake``) or the bone's (``PoseBone``)."""
        return getattr(self.target, "quatbake", None)

    @property
    def owner_record(self):
        return getattr(self.owner, "quatbake", None)

    def __getattr__(self, attr):
        # rotation_mode, rotation_*, location, scale ...: the target's own values.
        if attr.startswith("_"):
            raise AttributeError(attr)
        if self.bone_name and attr in _IDENTITY_DELTA:
            return _IDENTITY_DELTA[attr]
        return getattr(self.target, attr)

    def __setattr__(self, attr, value):
        if attr in AnimatedTransform.__slots__:
            object.__setattr__(self, attr, value)
        elif self.bone_name and attr in _IDENTITY_DELTA:
            return   # pose bones have no delta transform: nothing to restore
        else:
            setattr(self.target, attr, value)

    # -- world matrix --------------------------------------------------------
    def world_matrix(self) -> np.ndarray:
        """(4, 4) world matrix at the current evaluated frame (Blender's own, for checks)."""
        if self.bone_name:
            return np.array(self.owner.matrix_world @ self.target.matrix, dtype=np.float64)
        return np.array(self.owner.matrix_world, dtype=np.float64)

    def bone_world_matrices(self, frames, own_quats=None, own_fcurves=None,
                            own_mode: str | None = None, cache: dict | None = None) -> np.ndarray:
        """(n, 4, 4): this bone's world matrix at ``frames`` from the channels alone.

        The armature's current ``matrix_world`` times the pose matrix Blender builds
        down the parent chain (BKE_pose_where_is for bones that inherit rotation and
        scale, the default): parent pose @ parent rest^-1 @ rest @ basis, the basis
        being location, rotation and scale channels. ``own_quats`` (n, 4) replaces this
        bone's rotation (a preview of a bake), ``own_fcurves``/``own_mode`` its channels
        (the original action after a bake). Inherit Rotation off is composed as Blender
        does (``_hinge_pose``); the other inherit-scale modes and Local Location off go
        through Blender's own ``Bone.convert_local_to_pose``, a frame at a time
        (``_pose_by_blender``). Constraints and drivers are not included. ``cache``
        shares the parents' matrices between the bones of one rig.
        """
        from . import animdata

        frames = np.asarray(frames, dtype=np.float64).ravel()
        cache = {} if cache is None else cache
        chain = []
        pbone = self.target
        while pbone is not None:
            chain.append(pbone)
            pbone = pbone.parent
        parent_pose = None
        for depth, pbone in enumerate(reversed(chain)):
            bone = pbone.bone
            own = depth == len(chain) - 1
            key = (self.owner.name, pbone.name, frames.tobytes())   # rigs share bone names
            if not own and key in cache:
                parent_pose = cache[key]
                continue
            t = AnimatedTransform(self.owner, pbone.name)
            fcurves = own_fcurves if own and own_fcurves is not None else \
                rig_bone_fcurves(self.owner, cache).get(pbone.name, [])
            if own and own_quats is not None:
                quats = np.asarray(own_quats, dtype=np.float64)
            else:
                quats = animdata.evaluate_orientation(t, frames, own_mode if own else None,
                                                      fcurves)
            location = animdata.evaluate_full_location(t, frames, fcurves)
            scale = animdata.evaluate_channels(animdata.find_fcurves(t, "scale", 3, fcurves),
                                               np.array(pbone.scale, dtype=np.float64), frames)
            basis = np.zeros((frames.shape[0], 4, 4))
            basis[:, :3, :3] = core_rotation.quat_to_matrix(quats) * scale[:, None, :]
            basis[:, :3, 3] = location
            basis[:, 3, 3] = 1.0
            rest = np.array(bone.matrix_local, dtype=np.float64)
            if bone.inherit_scale != 'FULL' or not bone.use_local_location:
                pose = _pose_by_blender(bone, basis, parent_pose)
            elif parent_pose is None:
                pose = rest @ basis
            elif bone.use_inherit_rotation:
                # mathutils' inverse of the 4x4: numpy's LAPACK call costs more per matrix.
                offset = np.array(bone.parent.matrix_local.inverted(), dtype=np.float64) @ rest
                pose = parent_pose @ (offset @ basis)
            else:
                pose = _hinge_pose(parent_pose, np.array(bone.parent.matrix_local,
                                                         dtype=np.float64),
                                   np.array(bone.parent.matrix_local.inverted(),
                                            dtype=np.float64), rest, basis)
            if not own:
                cache[key] = pose
            parent_pose = pose
        return np.array(self.owner.matrix_world, dtype=np.float64) @ parent_pose


def rig_bone_fcurves(owner, cache: dict) -> dict:
    """{bone name: its F-curves in ``owner``'s current action}, found in one pass over the
    action and kept in ``cache`` (a rig's action holds every bone's curves: looking each
    bone up in all of them costs more than the rest of the overlay's sampling)."""
    from . import animdata

    key = ("bone fcurves", owner.name)
    if key not in cache:
        cache[key] = animdata.fcurves_by_bone(animdata.object_fcurves(owner))
    return cache[key]


def _hinge_pose(parent_pose, parent_rest, parent_rest_inverse, rest, basis) -> np.ndarray:
    """(n, 4, 4) pose of a bone with Inherit Rotation off (inherit scale Full), as
    Blender's BKE_bone_parent_transform_calc_from_matrices builds it: rotation and scale
    from the parent's rest orientation scaled by the parent pose's axis lengths, the
    location through the parent's full pose."""
    offset = parent_rest_inverse @ rest
    axis_lengths = np.linalg.norm(parent_pose[:, :3, :3], axis=1)        # (n, 3) columns
    hinge = np.repeat(parent_rest[None], parent_pose.shape[0], axis=0)
    hinge[:, :3, :3] *= axis_lengths[:, None, :]
    pose = (hinge @ offset) @ basis
    pose[:, :, 3] = ((parent_pose @ offset) @ basis[:, :, 3:4])[:, :, 0]
    return pose


def _pose_by_blender(bone, basis, parent_pose) -> np.ndarray:
    """(n, 4, 4) pose of ``bone`` from its basis matrices (n, 4, 4) and its parent's pose
    (None: a root bone), composed by Blender itself (``Bone.convert_local_to_pose``: every
    inherit-scale mode, Local Location off). One call per frame: kept for the bones whose
    flags the numpy path (``bone_world_matrices``) does not follow."""
    from mathutils import Matrix

    rest = bone.matrix_local
    out = np.empty_like(basis)
    for i in range(basis.shape[0]):
        if parent_pose is None:
            matrix = bone.convert_local_to_pose(Matrix(basis[i].tolist()), rest)
        else:
            matrix = bone.convert_local_to_pose(
                Matrix(basis[i].tolist()), rest, parent_matrix=Matrix(parent_pose[i].tolist()),
                parent_matrix_local=bone.parent.matrix_local)
        out[i] = np.array(matrix, dtype=np.float64)
    return out


def euler_order_of(mode: str) -> str:
    """The Euler order Blender's constraints take for rotation mode ``mode`` (Euler Order:
    Default): the mode's own, XYZ for quaternion and axis-angle."""
    return mode if mode in core_rotation.EULER_ORDERS else 'XYZ'


def _animated(constraint, paths: set, settings=("influence", "mute")) -> bool:
    """Whether any of ``constraint``'s ``settings`` is among ``paths``
    (``AnimatedTransform._animated_constraint_paths``), its name escaped as Blender writes
    it in a data path (a review: a quote in the name hid a keyed influence)."""
    name = bpy.utils.escape_identifier(constraint.name)
    return any(f'constraints["{name}"].{p}' in paths for p in settings)


def acts(constraint) -> bool:
    """Whether Blender applies ``constraint``: not muted, valid (its targets set) and with
    some influence (a review found a target-less one reported as moving the bone)."""
    return not constraint.mute and constraint.is_valid and constraint.influence > 0.0


# What each kind of constraint can move of its owner; any other (Child Of, Copy
# Transforms, Armature, Transformation, Action, Follow Path ...) moves all three.
_MOVES = {
    **dict.fromkeys(('COPY_LOCATION', 'LIMIT_LOCATION', 'LIMIT_DISTANCE', 'FLOOR',
                     'CLAMP_TO'), frozenset({"location"})),
    **dict.fromkeys(('COPY_SCALE', 'LIMIT_SCALE', 'MAINTAIN_VOLUME'), frozenset({"scale"})),
    **dict.fromkeys(('COPY_ROTATION', 'LIMIT_ROTATION', 'TRACK_TO', 'DAMPED_TRACK',
                     'LOCKED_TRACK', 'IK'), frozenset({"rotation"})),
    'STRETCH_TO': frozenset({"rotation", "scale"}),
}
_ALL = frozenset({"rotation", "location", "scale"})


def moves_of(constraint) -> frozenset:
    """What ``constraint`` can move of its owner: "rotation", "location", "scale"
    (Shrinkwrap turns it too only when it aligns to the surface's normal)."""
    if constraint.type == 'SHRINKWRAP':
        return frozenset({"location", "rotation"}) \
            if constraint.use_track_normal else frozenset({"location"})
    return _MOVES.get(constraint.type, _ALL)


def ik_reach(rig, cache: dict | None = None) -> dict:
    """{bone name: ["IK (on lower)", ...]}: the IK constraints of ``rig`` that act, named
    on each bone up their chain (chain_count bones from the owner, the owner included; 0:
    to the root). Built in one pass over the rig and kept in ``cache`` by the rig, where a
    walk per bone cost 0.8 s on an 800-bone rig."""
    key = rig.as_pointer()
    if cache is not None and ("ik_reach", key) in cache:
        return cache[("ik_reach", key)]
    out: dict = {}
    for pbone in rig.pose.bones:
        for con in pbone.constraints:
            if con.type != 'IK' or not acts(con):
                continue
            chain, bone, depth = con.chain_count, pbone.parent, 1
            while bone is not None and (chain == 0 or depth < chain):
                out.setdefault(bone.name, []).append(f"{con.name} (on {pbone.name})")
                bone, depth = bone.parent, depth + 1
    if cache is not None:
        cache[("ik_reach", key)] = out
    return out


def pose_bone_transform(pbone) -> AnimatedTransform:
    return AnimatedTransform(pbone.id_data, pbone.name)


def keyed_bone_names(obj, fcurves=None) -> list[str]:
    """Names of ``obj``'s pose bones whose channels hold keys in its active action (or
    ``fcurves``), in the armature's bone order; bones no longer in the armature are left out."""
    from . import animdata

    if obj.type != 'ARMATURE' or obj.pose is None:
        return []
    if fcurves is None:
        fcurves = animdata.object_fcurves(obj)
    names = set()
    for fc in fcurves:
        name = bone_name_from_path(fc.data_path)
        if name is not None and len(fc.keyframe_points):
            names.add(name)
    return [b.name for b in obj.pose.bones if b.name in names]


def object_is_keyed(obj, fcurves=None) -> bool:
    """True when ``obj``'s own transform channels (not its bones') hold keys."""
    from . import animdata

    if fcurves is None:
        fcurves = animdata.object_fcurves(obj)
    wanted = animdata.TRANSFORM_DATA_PATHS
    return any(fc.data_path in wanted and len(fc.keyframe_points) for fc in fcurves)


def _clip_fcurves(obj, clip: str):
    """The F-curves of ``obj``'s clip named ``clip`` (its active action or an NLA
    strip's), or None: no clip named, or the object has none of that name."""
    from . import animdata

    if not clip:
        return None
    return next((c.fcurves() for c in animdata.object_clips(obj) if c.name == clip), None)


def transforms_of_objects(objects, clip: str = "") -> list[AnimatedTransform]:
    """What a selection of objects means: each object, and for an armature with keyed bones
    every keyed bone (after its own channels, when those are keyed too). Keyed in its
    active action, or in the clip named ``clip`` where the object has one: an armature
    whose clip plays only in the NLA means the bones the clip keys (a walk: in Object Mode
    a Clip bake of such a rig looked at the armature's own channels and refused)."""
    found = []
    for obj in objects:
        fcurves = _clip_fcurves(obj, clip)
        bones = keyed_bone_names(obj, fcurves)
        if not bones:
            found.append(AnimatedTransform(obj))
            continue
        if object_is_keyed(obj, fcurves):
            found.append(AnimatedTransform(obj))
        found.extend(AnimatedTransform(obj, name) for name in bones)
    return found


def transforms_of_pose_bones(pbones) -> list[AnimatedTransform]:
    return [pose_bone_transform(b) for b in pbones]


def selected_transforms(context) -> list[AnimatedTransform]:
    """Pose Mode: the selected pose bones; otherwise the selected objects (armatures: their
    keyed bones, see ``transforms_of_objects``). Sorted by name for stable reports."""
    if getattr(context, "mode", "") == 'POSE':
        bones = getattr(context, "selected_pose_bones", None) or []
        return sorted(transforms_of_pose_bones(bones), key=lambda t: t.key)
    objects = sorted(getattr(context, "selected_objects", None) or [], key=lambda o: o.name)
    return transforms_of_objects(objects)


def as_transforms(items, clip: str = "") -> list[AnimatedTransform]:
    """Objects (expanded as ``transforms_of_objects``, keyed in ``clip`` where named) and
    transforms, in order."""
    out = []
    for item in items:
        if isinstance(item, AnimatedTransform):
            out.append(item)
        else:
            out.extend(transforms_of_objects([item], clip))
    return out


def transforms_named(names) -> list[AnimatedTransform]:
    """The objects and pose bones a bake or revert names ("Cube", "Rig: spine", as
    ``display_name`` writes them), in order. An object of that exact name wins over a bone;
    names that no longer match anything are left out."""
    out = []
    for name in names:
        obj = bpy.data.objects.get(name)
        if obj is not None:
            out.append(AnimatedTransform(obj))
            continue
        # The armature's name may hold ": " too (a pipeline walk: "Rïg: Ünïcode: mixamorig:Hips"
        # was split after "Rïg", and "Baked 0 objects" printed): each place is tried.
        at = name.find(": ")
        while at >= 0:
            rig, bone = bpy.data.objects.get(name[:at]), name[at + 2:]
            if rig is not None and rig.pose is not None and rig.pose.bones.get(bone):
                out.append(AnimatedTransform(rig, bone))
                break
            at = name.find(": ", at + 1)
    return out


def selected_objects(context) -> list:
    """The selected objects, sorted by name so reports come in a stable order."""
    objects = getattr(context, "selected_objects", None) or []
    return sorted(objects, key=lambda obj: obj.name)


def selected_items(context) -> list:
    """What the operators act on: in Pose Mode the selected pose bones (as
    ``transform.AnimatedTransform``), otherwise the selected objects (an armature
    then stands for all its keyed bones, see ``transform.transforms_of_objects``)."""
    if getattr(context, "mode", "") == 'POSE':
        return selected_transforms(context)
    return selected_objects(context)
