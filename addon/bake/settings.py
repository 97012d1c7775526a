# SPDX-License-Identifier: GPL-3.0-or-later
"""What a bake is asked to do (BakeSettings), what it finds wrong (BakeIssue,
BakeError), the limits it keeps, and the check of the settings themselves.

The lowest floor of the bake package (engine -> write -> plan -> deviation, reduce ->
read -> turns -> settings): it imports none of them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ...core import interp, rotation, turns
from ...core.words import AND_MORE, Phrase, listed
from .. import animdata

METHODS = tuple(method.upper() for method in interp.METHODS)   # 'LERP' ... 'SQUAD'


LOCATION_METHODS = ('KEEP', 'LINEAR', 'CATMULL_ROM')


OUTPUT_MODES = ('KEEP', 'QUATERNION')


# A rotation-mode conversion (issue 22, convert): any of Blender's modes, or AUTO (the
# Euler order that stays farthest from gimbal lock over the clip).
CONVERT_MODES = tuple(rotation.ROTATION_MODES) + ('AUTO',)


TURNS = turns.TURN_SETTINGS          # 'AUTO' | 'SHORTEST' | 'KEYED' (core/turns.py)


TIMINGS = turns.TIMING_SETTINGS      # 'EVEN' | 'KEYED'


# What a tolerance bake writes (issue 22): BEZIER keys with handles (few, and an
# animator can keep editing them), or LINEAR keys (what glTF engines play).
KEY_INTERPOLATIONS = ('BEZIER', 'LINEAR')


# A Bezier tolerance bake checks Blender's playback of its keys at every quarter
# frame (motion blur's sub-frame samples), not only on whole frames.
BEZIER_SAMPLES_PER_FRAME = 4


# Euler output within float32 of gimbal lock (Blender stores angles as float32, so a
# pitch keyed at 90 deg comes back as 90 deg + 4e-8 rad) takes the split of the locked
# angles nearest the previous frame, as Blender's own to_euler(order, compat) does:
# otherwise a baked curve crossing the lock can jump by a turn. It costs at most
# ~4e-6 rad of orientation on those frames (core.rotation.BLENDER_GIMBAL_TOLERANCE).
GIMBAL_BAND = rotation.BLENDER_GIMBAL_TOLERANCE


BAKED_SUFFIX = ".quatbake"


# Beyond this |location| (units) float32 keys are spaced ~1e-3 apart: a slow
# move visibly stutters whatever the interpolation does (BLENDER_API.md).
LOCATION_FLOAT32_WARN = 1.0e4


# Beyond this |angle| (radians, ~20 turns) float32 Euler/axis-angle keys are
# spaced more than 1e-5 rad apart, so the baked rotation is that coarse.
ANGLE_FLOAT32_WARN = 128.0




# Turn notes named per object; more are counted in one line (a mocap clip can
# wrap on hundreds of key intervals).
MAX_TURN_NOTES = 10



@dataclass
class BakeSettings:
    """What to bake. Frames are whole scene frames."""

    method: str = 'SLERP'            # 'LERP' | 'NLERP' | 'SLERP' | 'SQUAD'
    location_method: str = 'KEEP'    # 'KEEP' | 'LINEAR' | 'CATMULL_ROM'
    constant_speed: bool = False     # retime by arc length (needs a location method)
    frame_step: int = 1              # a key every this many frames (>= 1)
    frame_range: tuple[int, int] | None = None   # None = the keyed range
    output_mode: str = 'KEEP'        # 'KEEP' (object's own rotation mode) | 'QUATERNION'
    union_keys: bool = False         # channels keyed on different frames: refuse unless True
    turns: str = 'AUTO'              # 'AUTO' | 'SHORTEST' | 'KEYED': whole turns (core/turns.py)
    timing: str = 'EVEN'             # 'EVEN' | 'KEYED': constant speed, or the keys' ease
    tolerance_deg: float = 0.0       # > 0: keep only the keys both Blender (LINEAR) and a glTF
    #                                  player (slerp) need to stay this close (core.keyreduce)
    location_tolerance: float = 1e-4  # with tolerance_deg > 0: location error allowed, units
    key_interpolation: str = 'LINEAR'   # with tolerance_deg > 0: 'LINEAR' (core.keyreduce) or
    #                                     'BEZIER': few Bezier keys with handles, Blender's playback
    #                                     within tolerance_deg at every quarter frame
    #                                     (core.bezier_keys). The panel's default is 'BEZIER'.
    keep_key_frames: bool = True     # Bezier: the animator's own key frames stay keys
    keep_playback: bool = False      # True: the path is Blender's own playback of the keys
    #                                  (a rotation-mode conversion), not the method's
    playback_range: tuple[float, float] | None = None   # with frame_range None: a
    #                                  transform whose pose moves beyond its keys inside
    #                                  these frames (Linear extrapolation, a Cycles or
    #                                  Noise modifier) is baked over them too; a conversion
    #                                  gives the scene's range (a turntable went still)
    tolerance_px: float = 0.0        # > 0: perspective cameras keep only the keys within this
    #                                  many pixels of the rendered image (from the lens, sensor
    #                                  fit and render size; the smaller with tolerance_deg)
    tolerance_tip: float = 0.0       # > 0: pose bones keep only the keys that move the bone's
    #                                  tip (tail) no more than this, in scene units: the angle
    #                                  DIST / (bone length x the armature's largest axis scale);
    #                                  with tolerance_deg too, the smaller of the two
    clip: str = ""                   # bake this NLA clip (an action's name) instead of the active



@dataclass
class BakeIssue:
    """One problem found by a bake: an ERROR leaves its transform as it was (and refuses
    the bake when it names none, or nothing else can be baked), a WARNING does not."""

    severity: str        # 'ERROR' | 'WARNING' | 'INFO' (a note: how turns were baked) |
    #                      'SKIPPED' (nothing to bake: left as it is, the others baked)
    object_name: str     # "" when not about one object
    channel: str         # e.g. "rotation_quaternion[2]"; "" when not about a channel
    frame: float | None  # the frame concerned, if any
    message: str         # a full sentence: what is wrong, where, and what to do
    bone: str = ""       # the pose bone concerned ("" for an object's own channels)
    # SKIPPED with nothing to do, which is no failure: "mode", already as asked (a
    # conversion to its own mode); "idle", no rotation keys in any clip (a rig's IK
    # control keyed on location). "" for any other skip.
    done: str = ""

    @property
    def transform_name(self) -> str:
        """The transform's name as a bake's result names it: "Cube", "Rig: spine"."""
        return f"{self.object_name}: {self.bone}" if self.bone else self.object_name


# merge_bone_issues' subject of a sentence said of several bones of one armature: its
# name, how many, and the bones (core.words LIST, AND_MORE).
BONES = "Armature \"{}\", {:d} bones ({})"


def merge_bone_issues(issues: Sequence[BakeIssue], shown: int = 5) -> list[BakeIssue]:
    """``issues`` with those that say the same of several bones of one armature merged
    into one, naming the bones (``shown`` of them, then a count): a Custom Range on a
    31-bone mocap rig said the same sentence 31 times. Order kept (each group where its
    first was)."""
    def head(issue):
        return animdata.ARMATURE_BONE.format(issue.object_name, issue.bone)

    def said(issue):
        """(severity, armature, what it says of the bone) of a bone's issue, or None:
        'Armature "Rig", bone "b": leaves out ...' says "leaves out ...", and 'Armature
        "Rig", bone "b" has no animation ...' says "each has no animation ..." (a walk:
        an unanimated metarig left selected printed a hundred of those)."""
        if not issue.bone or not issue.message.startswith(head(issue)):
            return None
        rest = issue.message[len(head(issue)):]
        return issue.severity, issue.object_name, \
            rest[2:] if rest.startswith(": ") else "each" + rest

    groups: dict = {}
    for issue in issues:
        if said(issue) is not None:
            groups.setdefault(said(issue), []).append(issue)
    merged = []
    for issue in issues:
        group = groups.get(said(issue), [issue])
        if len(group) == 1:
            merged.append(issue)
        elif issue is group[0]:
            names = animdata.first_of([f"\"{i.bone}\"" for i in group], shown)
            message = f"{BONES.format(issue.object_name, len(group), names)}: {said(issue)[2]}"
            said_of = issue.message
            if isinstance(said_of, Phrase) and said_of.pattern.startswith("{}: ") \
                    and said_of.args and said_of.args[0] == head(issue):
                # A Phrase ("{}: ..." of the bone, a turn warning): the same English, said
                # of the bones, which the operator can still translate.
                quoted = [f"\"{i.bone}\"" for i in group]
                names = listed(quoted[:shown])
                if len(quoted) > shown:
                    names = Phrase(AND_MORE, names, len(quoted) - shown)
                message = Phrase(said_of.pattern, Phrase(BONES, issue.object_name, len(group),
                                                         names), *said_of.args[1:])
            # About the armature's bones together: no one bone, channel or frame of its own.
            merged.append(BakeIssue(issue.severity, issue.object_name, "", None, message))
    return merged


class BakeError(Exception):
    """The bake was refused or undone; ``issues`` lists why (their severity is 'ERROR';
    when nothing could be baked at all, every transform's reason). Nothing in the file
    changed."""

    def __init__(self, issues: Sequence[BakeIssue]):
        self.issues = list(issues)
        super().__init__(self.issues[0].message if self.issues else "The bake failed.")


def unexpected_issue(obj, doing: str, exc: BaseException) -> BakeIssue:
    """An exception QuatBake did not foresee, as the one sentence naming the transform that
    the user sees instead of a traceback."""
    name = getattr(obj, "name", "")
    who = animdata.subject(obj) if obj is not None else "The selection"
    return BakeIssue('ERROR', name, "", None,
                     f"{who} could not be baked: QuatBake failed while {doing} "
                     f"({type(exc).__name__}: {exc}), so it was left as it was; please report "
                     "this with the file.", getattr(obj, "bone_name", ""))


def _is_whole(value) -> bool:
    if isinstance(value, bool):
        return False
    try:
        return float(value).is_integer()
    except (TypeError, ValueError, OverflowError):
        return False


def settings_issues(settings: BakeSettings) -> list[BakeIssue]:
    issues = []

    def err(message):
        issues.append(BakeIssue('ERROR', "", "", None, message))

    if settings.method not in METHODS:
        err(f"Unknown method {settings.method!r}: use one of {', '.join(METHODS)}.")
    if settings.location_method not in LOCATION_METHODS:
        err(f"Unknown location method {settings.location_method!r}: use one of "
            f"{', '.join(LOCATION_METHODS)}.")
    if settings.output_mode not in OUTPUT_MODES + CONVERT_MODES:
        err(f"Unknown output mode {settings.output_mode!r}: use 'KEEP' or one of "
            f"{', '.join(CONVERT_MODES)}.")
    if not _is_whole(settings.frame_step) or settings.frame_step < 1:
        err(f"Step must be a whole number of frames, 1 or more (got {settings.frame_step!r}).")
    if settings.turns not in TURNS:
        err(f"Unknown turns setting {settings.turns!r}: use one of {', '.join(TURNS)}.")
    if settings.key_interpolation not in KEY_INTERPOLATIONS:
        err(f"Unknown key interpolation {settings.key_interpolation!r}: use 'BEZIER' or "
            "'LINEAR'.")
    if settings.timing not in TIMINGS:
        err(f"Unknown timing {settings.timing!r}: use one of {', '.join(TIMINGS)}.")
    if settings.constant_speed and settings.timing == 'KEYED':
        err("Timing: Keyed keeps the ease of the keys, Constant Speed retimes the move by "
            "arc length: they contradict each other. Turn one of them off.")
    for label, value in (("Key tolerance", settings.tolerance_deg),
                         ("Location tolerance", settings.location_tolerance),
                         ("Camera tolerance (pixels)", settings.tolerance_px),
                         ("Bone tip tolerance (scene units)", settings.tolerance_tip)):
        if not isinstance(value, (int, float)) or not 0.0 <= value < float("inf"):
            err(f"{label} must be a finite number, 0 or more (got {value!r}); 0 keeps a key on "
                "every step frame.")
    if settings.constant_speed and settings.location_method == 'KEEP':
        err("Constant speed retimes the move along the location path, so it needs Location "
            "set to Linear or Catmull-Rom (or turn Constant Speed off).")
    if settings.frame_range is not None:
        rng = tuple(settings.frame_range)
        if len(rng) != 2 or not all(_is_whole(v) for v in rng):
            err(f"Frame range must be two whole frames (start, end); got {settings.frame_range!r}.")
        elif rng[1] < rng[0]:
            err(f"Frame range {int(rng[0])}..{int(rng[1])} is empty: the end frame must not be "
                "before the start frame.")
    return issues


def has_tolerance(settings: BakeSettings) -> bool:
    """True when the bake keeps only the keys within a tolerance (degrees, pixels or a
    distance at a bone's tip)."""
    return (settings.tolerance_deg > 0.0 or settings.tolerance_px > 0.0
            or settings.tolerance_tip > 0.0)


# The parts of "within ...", each a pattern the interface translates.
TOLERANCE_PARTS = ("{:g} deg", "{:g} px on cameras", "{:g} scene units at bone tips")
TOLERANCE_JOIN = " and "


def tolerance_words(values: tuple, translate=lambda text: text) -> str:
    """What a tolerance bake kept its keys within, every tolerance in ``values`` (degrees,
    pixels, tip distance; 0: none) ("0.5 deg and 0.02 scene units at bone tips": they
    combine, the smaller deciding); ``translate`` each pattern (the operator's report).
    One wording for the panel's report and the command line's (a review: the operator
    named only the first one set). The bake's result says which applied
    (BakeResult.tolerances: a Camera Tolerance with no camera baked applied to none)."""
    return translate(TOLERANCE_JOIN).join(
        translate(part).format(value) for part, value in zip(TOLERANCE_PARTS, values)
        if value > 0.0)


def bezier_fit(settings: BakeSettings) -> bool:
    """True when the bake writes few Bezier keys within a tolerance."""
    return has_tolerance(settings) and settings.key_interpolation == 'BEZIER'


def path_samples(frames, settings: BakeSettings):
    """The frames at which the bake computes the method's path: the baked ``frames``
    (n,), and for a Bezier tolerance bake every quarter frame between the first and
    the last as well (where Blender's playback of the keys is checked)."""
    frames = np.asarray(frames, dtype=np.float64)
    if not bezier_fit(settings) or frames.size < 2:
        return frames
    per = BEZIER_SAMPLES_PER_FRAME
    grid = np.arange(np.ceil(frames[0] * per), np.floor(frames[-1] * per) + 1) / per
    if (np.rint(frames * per) == frames * per).all():
        return grid     # every baked frame is on the grid already (k / 4 is exact)
    return np.union1d(frames, grid)


def path_of(settings: BakeSettings) -> str:
    """The path a bake's keys follow, as core.analysis.bake_path_of words it (the record's
    bake_path): its Turns, Timing and whether Constant Speed retimed it."""
    from ...core.analysis import bake_path_of

    return bake_path_of(settings.turns, settings.timing, settings.constant_speed)


def verb(settings: BakeSettings) -> str:
    """What the user asked for, in the sentences: a conversion (keep_playback) or a bake."""
    return "convert" if settings.keep_playback else "bake"


def output_mode_for(obj, src_mode: str, fcurves, key_fcurves, settings: BakeSettings
                    ) -> tuple[str, BakeIssue | None]:
    """The rotation mode a transform is baked into, and for 'AUTO' a note saying which
    Euler order was chosen: the one whose middle angle (the one at +-90 deg in gimbal
    lock) stays smallest over Blender's playback of the keys, every quarter frame of the
    keyed range (ties: the source's own order, then Blender's order of the list)."""
    if settings.output_mode == 'KEEP':
        return src_mode, None
    if settings.output_mode != 'AUTO':
        return settings.output_mode, None
    frames = animdata.key_frames(key_fcurves)
    if not frames.size:
        return (src_mode if src_mode in rotation.EULER_ORDERS else 'XYZ'), None
    # One key (a conversion's single pose): that pose alone (a review: a quaternion keyed
    # once went to XYZ at 89 deg, in silence, where YXZ is 0.3 deg from the lock's middle).
    samples = frames if frames.size == 1 else path_samples(
        frames[[0, -1]], BakeSettings(tolerance_deg=1.0, key_interpolation='BEZIER'))
    try:
        quats = animdata.evaluate_orientation(obj, samples, src_mode, fcurves)
    except (animdata.ChannelError, ValueError):
        return (src_mode if src_mode in rotation.EULER_ORDERS else 'XYZ'), None   # refused later
    return farthest_from_gimbal(obj, quats, src_mode)


# Auto keeps a transform in its own Euler order unless another order's middle angle stays
# at least this much (deg) farther from +-90 deg: the note's precision. A walk converted 10
# of a CMU capture's ZYX bones (re-keying 524 keys into 2) to orders 0.00006 deg "better",
# float noise, where the docs promise that a transform already in the order Auto would
# pick is left as it is.
AUTO_TIE_DEG = 0.1


def farthest_from_gimbal(obj, quats, src_mode: str) -> tuple[str, BakeIssue]:
    """The Euler order whose middle angle stays smallest over ``quats`` (Blender's
    playback, (n, 4)), and the note naming it and the others' figures. The source's own
    order wins within AUTO_TIE_DEG of the smallest; other ties go by Blender's order of
    the list."""
    orders = sorted(rotation.EULER_ORDERS, key=lambda o: o != src_mode)
    worst = {}
    for order in orders:
        angles = rotation.quat_to_euler(quats, order)
        # |sin| of the middle angle: 1 in gimbal lock, for either of the two solutions.
        middle = np.abs(np.sin(angles[:, "XYZ".index(order[1])])).max()
        worst[order] = float(np.arcsin(min(middle, 1.0)))
    best = min(orders, key=lambda o: worst[o])
    if src_mode in worst and worst[src_mode] <= worst[best] + np.radians(AUTO_TIE_DEG):
        best = src_mode
    note = BakeIssue(
        'INFO', obj.name, "", None,
        f"{animdata.subject(obj)}: converted to {best}, the Euler order farthest from gimbal "
        f"lock over the clip (its middle angle reaches {np.degrees(worst[best]):.1f} deg; "
        + ", ".join(f"{o} {np.degrees(worst[o]):.1f}" for o in rotation.EULER_ORDERS
                    if o != best) + ").", getattr(obj, "bone_name", ""))
    return best, note

