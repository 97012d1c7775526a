# SPDX-License-Identifier: GPL-3.0-or-later
"""Compare what a glTF player plays with what Blender plays, and say why they differ.

Inputs are two orientation tracks sampled on the same frames (Blender's own
playback and the spec evaluation of the exported file, both in Blender's
space, quaternions (w, x, y, z)), plus the exported rotation keys of the
object. Output: the per-frame deviation and, for every interval between two
exported keys where the two disagree, its cause:

- ``timing``: the exporter wrote the key times on another seconds-per-frame
  than Blender plays (scenes with ``render.fps_base`` != 1, such as 29.97
  fps: Blender's frame f is at f * fps_base / fps seconds, the 5.0 exporter
  writes f / (fps * fps_base), the 3.4 one f / fps); played on the
  exporter's own clock the interval would be right.
- ``before_first_key`` / ``after_last_key``: frames outside the exported
  keys, where the player holds the end key while Blender still moves (an
  exporter sampling whole frames drops a last key on a subframe: seen on the
  UnityGLTF "Animate All The Things" cameras imported at 24 fps).
- ``key_mismatch``: the exported keys themselves are not Blender's pose at
  their own frames (the exporter wrote a wrong value: seen with Blender
  3.4.1's exporter on axis-angle rotations under a parent), so no
  interpolation can fix it.
- ``stepped``: the sampler is STEP, so the player holds each key while
  Blender moves.
- ``sign_flip``: Blender's quaternion channels hold q and then a key with
  its sign flipped (dot < 0), which Blender plays the long way round while
  the player's slerp (spec: short arc) or cubic does not.
- ``turn_lost``: Blender turns more than 180 degrees between the two keys
  (an Euler 0 -> 360 windmill, a wrap 170 -> -170 played the long way); no
  slerp between two orientations turns more than 180 degrees.
- ``cubic_sign_flip``: a CUBICSPLINE sampler whose two keys the exporter
  wrote in opposite hemispheres (dot < 0; io_scene_gltf2 converts each Euler
  key to a quaternion on its own, so a bake's unrolled wrap, 170 -> 190 deg,
  comes out as q then -q'): the spec's cubic runs through 4D as stored, with
  no short-arc fix as slerp has, and turns the other way round.
- ``handle_lengths``: a CUBICSPLINE sampler written from Bezier keys whose
  handles are not a third of the interval long. io_scene_gltf2 (3.4 and 5.0
  alike) writes each key's handle *slopes* as the tangents and drops their
  lengths; the spec's Hermite cubic is the Bezier curve with handles of a
  third of the interval, so a fitted curve (``bake --keys bezier`` fits the
  lengths) plays another shape in the engine.
- ``cubic_vs_bezier``: a CUBICSPLINE sampler, whose Hermite cubic through
  the 4D components is not Blender's per-channel Bezier curves.
- ``linear_vs_blender``: a LINEAR sampler whose slerp between the keys is
  not Blender's per-channel curves in between (easing, per-channel Euler).
- ``between_samples``: the same, for a sampled export (a key every frame) seen
  at quarter frames: on the frames the engine plays Blender's pose, between
  them it slerps where Blender plays its Bezier curve (what an engine running
  faster than the scene's frame rate shows). Named by ``sampled_causes``.
- ``stepped_sampled``: the same inside a stepped (CONSTANT) span of Blender's
  keys: the exporter samples a channel of mixed interpolations (a Bezier bake
  keeps stepped intervals CONSTANT) as LINEAR keys on whole frames, so the
  engine turns over the frame before the jump that Blender makes at once.

Checked in that order; the first that applies is the cause.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import gltf_sampler, keyreduce, quat, rotation
from .words import counted

CAUSES = (
    "not_exported",
    "inherited",
    "timing",
    "before_first_key",
    "after_last_key",
    "key_mismatch",
    "stepped",
    "sign_flip",
    "turn_lost",
    "cubic_sign_flip",
    "handle_lengths",
    "cubic_vs_bezier",
    "linear_vs_blender",
    "between_samples",
    "stepped_sampled",
)

# Intervals whose worst deviation stays below this get no cause: a sampled
# export (a key per frame) plays within ~4e-5 deg of Blender (float32 keys),
# far below what anyone sees; 0.01 deg is the tolerance the bake works to.
CAUSE_MIN_DEG = 0.01

# Blender must turn more than 180 degrees plus this margin within an interval
# for the turn to count as lost (frame-by-frame sums of a 180-degree turn
# come out a hair above 180 in float32).
TURN_MARGIN_DEG = 1.0

# A frame this close (frames) to an exported key's time is that key's frame
# (key times are float32 seconds: k / fps comes back ~1e-6 frames off).
KEY_FRAME_MATCH = 1e-3

# A Bezier handle whose length (frames) is more than this share of its
# interval away from a third of it is not what the exporter's CUBICSPLINE
# plays (the Hermite cubic is the curve with handles of exactly a third).
# Blender's own auto handles are a third to float32; QuatBake's fitted ones
# range from 0.02 to 0.95 of the interval.
HANDLE_THIRD_SLACK = 0.02

# Keys Linear (``bake --keys linear``) are the better choice for an engine when
# a sampled export has at least this many times the keys a Linear tolerance
# bake would need ("as big as a dense bake").
SAMPLED_KEY_RATIO = 2.0

# The Key Tolerance assumed for an object whose bake did not record one (or
# that was keyed by hand): the tolerance the bake works to by default.
DEFAULT_TOLERANCE_DEG = 0.01

# Bytes per exported rotation key: a float32 time and a float32 quaternion
# (CUBICSPLINE: in-tangent, value and out-tangent quaternions).
KEY_BYTES = {"LINEAR": 4 + 16, "STEP": 4 + 16, "CUBICSPLINE": 4 + 48}


@dataclass(frozen=True)
class Interval:
    frames: tuple  # (first, last) exported key frames
    max_deviation_deg: float
    worst_frame: float
    blender_turn_deg: float  # angle Blender turns through, summed frame by frame
    player_turn_deg: float  # the same for the glTF player
    key_angle_deg: float  # shortest rotation between the two exported keys
    cause: str


@dataclass(frozen=True)
class Comparison:
    frames: np.ndarray  # (m,)
    deviation_deg: np.ndarray  # (m,) geodesic angle, degrees
    location_deviation: np.ndarray  # (m,) distance, scene units
    max_deviation_deg: float
    rms_deviation_deg: float
    worst_frame: float
    max_location_deviation: float
    intervals: tuple  # Interval for each interval with a cause


def _outside(f: np.ndarray, dev: np.ndarray, steps_b: np.ndarray, kf: np.ndarray) -> list:
    """Intervals before the first and after the last exported key where Blender differs.

    A player holds the end keys there; Blender keeps playing its curves (an
    exporter that samples whole frames drops a last key on a subframe, and
    frames before or after the action's keys may still move through NLA or
    extrapolation).
    """
    found = []
    for mask, frames, cause in (
        (f < kf[0] - KEY_FRAME_MATCH, (float(f[0]), float(kf[0])), "before_first_key"),
        (f > kf[-1] + KEY_FRAME_MATCH, (float(kf[-1]), float(f[-1])), "after_last_key"),
    ):
        idx = np.flatnonzero(mask)
        if idx.size == 0:
            continue
        j = int(idx[np.argmax(dev[idx])])
        if dev[j] < CAUSE_MIN_DEG:
            continue
        span = np.flatnonzero((f >= frames[0]) & (f <= frames[1]))
        if steps_b[span[1:]].sum() < CAUSE_MIN_DEG:
            # Blender holds still there too: what is off is the end key itself, which
            # its own interval names (a walk: "key the motion inside the exported range"
            # led the advice for keys the exporter wrote wrong).
            continue
        found.append(
            Interval(
                frames=frames,
                max_deviation_deg=float(dev[j]),
                worst_frame=float(f[j]),
                blender_turn_deg=float(steps_b[span[1:]].sum()),
                player_turn_deg=0.0,
                key_angle_deg=0.0,
                cause=cause,
            )
        )
    return found


# A tolerance bake to LINEAR keys, named as the panel shows it and as the command line
# takes it (the panel's tolerance bakes write Bezier keys unless told, the CLI's Linear):
# the same advice reaches the Export Check panel, the JSON and the CLI's table.
_LINEAR_BAKE = ("Re-bake with Key Tolerance 0.01 and Keys: Linear "
                "(quatbake bake --tolerance 0.01 --keys linear)")

# What to do about each cause, in the order causes are checked. Each names the panel's
# control and the command line's option alike.
ADVICE = {
    "not_exported": (
        "bake it to keys before exporting (Re-bake, or quatbake bake, turns a Transform Cache "
        "into keys; a driver or constraint: Bake Action with Visual Keying)"
    ),
    "inherited": "fix the node above it first (its own entry names what is wrong there)",
    "timing": "export at a whole frame rate (render.fps_base 1), or retime in the engine",
    "before_first_key": "key the motion on whole frames inside the exported range",
    "after_last_key": "key the motion on whole frames inside the exported range",
    "key_mismatch": ("bake the object (Re-bake, or quatbake bake) so the exporter writes "
                     "plain keys"),
    "stepped": "key with Linear or Bezier interpolation, or export with sampling",
    "sign_flip": ("Re-bake (quatbake bake), whose keys take the short arc, or export with "
                  "sampling"),
    "turn_lost": f"{_LINEAR_BAKE} to add keys, or export with sampling",
    # (A walk: "quatbake bake --keys linear" alone is refused: --keys chooses the keys of
    # a --tolerance bake.)
    "cubic_sign_flip": (
        f"{_LINEAR_BAKE} for this engine (the spec's slerp takes the short arc), or export "
        "with sampling"
    ),
    "handle_lengths": f"{_LINEAR_BAKE} for this engine, or export with sampling",
    "cubic_vs_bezier": f"{_LINEAR_BAKE}, or export with sampling",
    "linear_vs_blender": f"{_LINEAR_BAKE}, or export with sampling",
    "between_samples": (
        "on the frames themselves it plays Blender's pose; only an engine running faster "
        "than the scene's frame rate shows the in-betweens"
    ),
    "stepped_sampled": (
        "a glTF sampler cannot hold and then jump within a frame: on the frames themselves "
        "the engine plays Blender's pose, in between it turns through the jump"
    ),
}

# How the advice of a cause that sampling cures ends (advice leaves it out for an export
# that was sampled).
SAMPLING_TOO = ", or export with sampling"

# The causes whose advice is a bake to Keys: Linear, each also offering sampling as the
# other way out (tests/core/test_export_compare.py reads ADVICE to hold them to it).
ASKS_LINEAR_BAKE = frozenset({"turn_lost", "cubic_sign_flip", "handle_lengths",
                              "cubic_vs_bezier", "linear_vs_blender"})


# A node the exporter wrote no animation for is "not exported" when Blender moves it
# further than this from the pose the engine holds (scene units; deg: CAUSE_MIN_DEG).
# A still object's exported pose is float32: ~1e-7 of its distance from the origin.
NOT_EXPORTED_MIN_DISTANCE = 1e-4


def not_exported(paths, comparison: "Comparison") -> tuple:
    """The channels, of ("rotation", "translation"), that the file has no animation for
    (``paths``: the node's animated glTF paths) while Blender plays them moving: the
    engine holds them still. A Transform Cache constraint from a USD or Alembic import,
    which the glTF exporter does not write; a driver; a constraint."""
    missing = []
    if "rotation" not in paths and comparison.max_deviation_deg >= CAUSE_MIN_DEG:
        missing.append("rotation")
    if "translation" not in paths and \
            comparison.max_location_deviation >= NOT_EXPORTED_MIN_DISTANCE:
        missing.append("translation")
    return tuple(missing)


def not_exported_advice(missing: tuple, comparison: "Comparison", fix: str = "") -> str:
    """The advice of a node with ``missing`` channels (not_exported), with the figure of
    each: degrees for the rotation, scene units for the translation. ``fix``: what to do,
    where the usual bake would not put it in the file."""
    figures = []
    if "rotation" in missing:
        figures.append(f"up to {comparison.max_deviation_deg:.3g} deg")
    if "translation" in missing:
        figures.append(f"up to {comparison.max_location_deviation:.3g} scene units")
    return (f"Not exported: the file has no {' or '.join(missing)} animation for it, so the "
            f"engine holds it still, {' and '.join(figures)} off Blender's playback: "
            f"{fix or ADVICE['not_exported']}.")


def is_off(deg: float, distance: float) -> bool:
    """Whether a node plays off enough to name a cause: CAUSE_MIN_DEG of rotation, or
    NOT_EXPORTED_MIN_DISTANCE scene units of location."""
    return deg >= CAUSE_MIN_DEG or distance >= NOT_EXPORTED_MIN_DISTANCE


def inherited_advice(parent: str, parent_deg: float, parent_distance: float,
                     max_deviation_deg: float, own_advice: str | None,
                     own_deg: float = 0.0) -> str:
    """The advice of a node that plays up to ``max_deviation_deg`` off and follows the node
    above it (``parent``, up to ``parent_deg`` and ``parent_distance`` scene units off):
    the larger of the two first. Its own motion, ``own_deg`` off its parent, needs
    ``own_advice`` (None: nothing); when that is the larger, it leads and the parent is
    named after it (a bone 180 deg off by its own flipped key under a parent 0.9 deg off
    must not send the animator to the parent first)."""
    off = f"{parent_deg:.3g} deg"
    if parent_distance >= NOT_EXPORTED_MIN_DISTANCE:
        off += f" and {parent_distance:.3g} scene units"
    if own_advice and own_deg >= parent_deg:
        return (f"{own_advice.rstrip('.')}. It also follows \"{parent}\", which plays up "
                f"to {off} off.")
    then = f"; its own keys: {own_advice}" if own_advice else \
        "; its own motion plays as in Blender"
    return (f"Follows \"{parent}\", which plays up to {off} off, so it is up to "
            f"{max_deviation_deg:.3g} deg off: {ADVICE['inherited']}{then}")


# Blender's glTF exporter (3.4.1 and 5.0.1 alike) turns Euler keys of any order but XYZ
# into quaternion keys that are not Blender's pose when it writes the keys as they are
# (export_force_sampling off): up to 4 deg on keys 10, 5, 20 deg in ZYX. Axis-angle keys
# likewise (5.0.1: three LINEAR keys 0, 1, 2 rad about (0.3, 0.5, 0.8) played 113 deg off,
# and a bake that kept the mode 131 deg off, a review). Sampling evaluates Blender's
# matrices, and quaternion keys are written as they are.
MODE_ADVICE = (
    "Blender's glTF exporter writes {keys} keys as quaternions that are not "
    "Blender's pose when it does not sample them (XYZ and quaternion keys are right): export "
    "with sampling (export_force_sampling, its default), or bake to quaternion keys first "
    "(Re-bake with Output: Quaternion, quatbake bake --rotation-mode quaternion; or Convert "
    "Rotation Mode)")


def written_wrong(mode: str) -> bool:
    """Whether the exporter writes keys of rotation mode ``mode`` wrong unsampled."""
    return mode == "AXIS_ANGLE" or (mode in rotation.EULER_ORDERS and mode != "XYZ")


def key_mismatch_advice(mode: str) -> str:
    """What to do about exported keys that are not Blender's pose, for an object whose
    rotation mode is ``mode``."""
    if written_wrong(mode):
        keys = "axis-angle" if mode == "AXIS_ANGLE" else f"{mode} Euler"
        return MODE_ADVICE.format(keys=keys)
    return ADVICE["key_mismatch"]


def advice(causes: dict, max_deviation_deg: float, then: str | None = None,
           sampling_ok: bool = True, mode: str = "") -> str:
    """One line for an object: its worst problem and what to do (causes: {cause: count});
    a node not exported gets not_exported_advice instead. ``mode``: the object's rotation
    mode (the advice for keys the exporter wrote wrong depends on it). ``then``: linear_advice's
    sentence, after the rest; where the worst cause's own advice asks for the same bake
    (ASKS_LINEAR_BAKE), in its place, so that the panel does not say it twice, with
    sampling still offered as that advice offered it, unless ``sampling_ok`` is False
    (the export was sampled, or ``then`` asks to export without sampling)."""
    if not causes:
        plays = f"Plays as in Blender (within {max(max_deviation_deg, 0.0):.2g} deg)."
        return plays if then is None else f"{plays} {then}"
    first = next(c for c in CAUSES if c in causes)
    count = causes[first]
    more = f" (and {counted(len(causes) - 1, 'other cause')})" if len(causes) > 1 else ""
    head = f"{first} in {counted(count, 'interval')}{more}, up to {max_deviation_deg:.3g} deg off"
    what = key_mismatch_advice(mode) if first == "key_mismatch" else ADVICE[first]
    if not sampling_ok:
        # The export was sampled already (a walk: a sampled pan was told "or export with
        # sampling").
        what = what.removesuffix(SAMPLING_TOO)
    if then is None:
        return f"{head}: {what}."
    if first in ASKS_LINEAR_BAKE:
        # Sampling stays the other way out, as the cause's own advice offered it.
        return f"{head}. {then}{' Or export with sampling.' if sampling_ok else ''}"
    return f"{head}: {what}. {then}"


def sampled_causes(comparison: Comparison, constant_spans=()) -> Comparison:
    """``comparison`` of a sampled export at finer samples than its keys (quarter
    frames), with ``linear_vs_blender`` named ``between_samples``, and it or
    ``turn_lost`` named ``stepped_sampled`` inside ``constant_spans`` ((start,
    end) frames of Blender's CONSTANT keys, where Blender holds then jumps)."""

    def cause(iv: Interval) -> str:
        inside = any(iv.frames[0] >= a - KEY_FRAME_MATCH and iv.frames[1] <= b + KEY_FRAME_MATCH
                     for a, b in constant_spans)
        if inside and iv.cause in ("linear_vs_blender", "turn_lost"):
            return "stepped_sampled"
        return "between_samples" if iv.cause == "linear_vs_blender" else iv.cause

    intervals = tuple(Interval(**{**iv.__dict__, "cause": cause(iv)})
                      for iv in comparison.intervals)
    return Comparison(**{**comparison.__dict__, "intervals": intervals})


def classify(
    interpolation: str,
    flipped: bool,
    blender_turn_deg: float,
    key_deviation_deg: float = 0.0,
    handle_share: float = 0.0,
    file_flipped: bool = False,
) -> str:
    """The cause of a disagreeing interval (see the module docstring for the order).

    ``handle_share``: how far (a share of the interval) the Bezier handles of
    the interval's two keys are from a third of it, the largest over channels
    and sides (``handle_shares``); 0 when unknown or not Bezier.
    ``file_flipped``: the two exported keys have a negative dot product.
    """
    if key_deviation_deg >= CAUSE_MIN_DEG:
        return "key_mismatch"
    if interpolation == "STEP":
        return "stepped"
    if flipped:
        return "sign_flip"
    if blender_turn_deg > 180.0 + TURN_MARGIN_DEG:
        return "turn_lost"
    if interpolation == "CUBICSPLINE" and file_flipped:
        return "cubic_sign_flip"
    if interpolation == "CUBICSPLINE" and handle_share > HANDLE_THIRD_SLACK:
        return "handle_lengths"
    if interpolation == "CUBICSPLINE":
        return "cubic_vs_bezier"
    return "linear_vs_blender"


def compare(
    frames,
    blender_quats,
    player_quats,
    blender_locations=None,
    player_locations=None,
    key_frames=None,
    key_values=None,
    interpolation: str = "LINEAR",
    source_key_quats=None,
    retimed_deviation_deg=None,
    key_deviation_deg=None,
    handle_share=None,
) -> Comparison:
    """Per-frame deviation of the player from Blender and the cause per key interval.

    frames (m,) increasing; quaternions (m, 4) w-first (any sign); locations
    (m, 3) or None. ``key_frames`` (n,) are the exported rotation keys' times
    in frames and ``key_values`` (n, 4) their stored quaternions (any
    component order: only angles between them are used).
    ``source_key_quats`` (n, 4): Blender's own quaternion channel values at
    the key frames, raw (for objects in QUATERNION mode; None otherwise): a
    negative dot between two of them is a flipped sign in the user's keys (one
    between two exported keys only is the exporter's, see ``classify``).
    ``retimed_deviation_deg`` (m,): the deviation when the file is played on
    the exporter's own seconds-per-frame instead of Blender's (given when the
    two differ): an interval that plays right that way is ``timing``.
    ``key_deviation_deg`` (n,): the deviation at each key's own time, for keys
    between frames (else it is read from the frames that are key frames).
    ``handle_share`` (n - 1,): per interval between exported keys, how far
    Blender's Bezier handles there are from a third of it (``handle_shares``).
    ``frames`` may be finer than whole frames (quarter frames for Bezier keys).
    """
    f = np.asarray(frames, dtype=np.float64)
    qb = quat.normalize(blender_quats, "Blender's orientation")
    qp = quat.normalize(player_quats, "the glTF player's orientation")
    if qb.shape != qp.shape or qb.shape[0] != f.shape[0]:
        raise ValueError(
            f"compare: {f.shape[0]} frames but tracks of shapes {qb.shape} and {qp.shape}."
        )
    dev = np.degrees(quat.angle_between(qb, qp))
    if blender_locations is not None and player_locations is not None:
        loc_dev = np.linalg.norm(
            np.asarray(blender_locations, float) - np.asarray(player_locations, float), axis=1
        )
    else:
        loc_dev = np.zeros(f.shape[0])
    worst = int(np.argmax(dev)) if dev.size else 0
    intervals = []
    if key_frames is not None and len(key_frames) >= 2:
        kf = np.asarray(key_frames, dtype=np.float64)
        kv = np.asarray(key_values, dtype=np.float64)
        src = None if source_key_quats is None else np.asarray(source_key_quats, dtype=np.float64)
        key_dev = None if key_deviation_deg is None else np.asarray(key_deviation_deg, float)
        shares = None if handle_share is None else np.asarray(handle_share, float)
        retimed = (
            None
            if retimed_deviation_deg is None
            else np.asarray(retimed_deviation_deg, dtype=np.float64)
        )
        steps_b = np.degrees(quat.step_angles(qb))
        steps_p = np.degrees(quat.step_angles(qp))
        lo = np.searchsorted(f, kf[:-1], side="left")
        hi = np.searchsorted(f, kf[1:], side="right")
        for i in range(kf.shape[0] - 1):
            if hi[i] <= lo[i]:
                continue  # no frame falls in this interval
            j = lo[i] + int(np.argmax(dev[lo[i] : hi[i]]))
            if dev[j] < CAUSE_MIN_DEG:
                continue
            retimed_ok = bool(retimed is not None and retimed[lo[i] : hi[i]].max() < CAUSE_MIN_DEG)
            # Turn within the interval: the steps between consecutive frames in it.
            blender_turn = float(steps_b[lo[i] + 1 : hi[i]].sum())
            player_turn = float(steps_p[lo[i] + 1 : hi[i]].sum())
            # The player plays the keys themselves on their frames: any deviation
            # there is in the exported values, not in the interpolation.
            if key_dev is not None:
                on_keys = [key_dev[i], key_dev[i + 1]]
            else:
                on_keys = [
                    dev[p]
                    for p in (lo[i], hi[i] - 1)
                    if abs(f[p] - kf[i]) < KEY_FRAME_MATCH
                    or abs(f[p] - kf[i + 1]) < KEY_FRAME_MATCH
                ]
            # A flip in the user's keys is one in Blender's own channels. The exported
            # keys may change hemisphere where Blender's do not (the exporter writes each
            # sampled or CUBICSPLINE key w >= 0): a slerp takes the short arc anyway, and
            # a cubic's flip is cubic_sign_flip (file_flipped below), which a Linear bake
            # cures where a Re-bake's short-arc keys would be flipped again.
            flipped = bool(src is not None and float(np.dot(src[i], src[i + 1])) < 0.0)
            key_angle = float(
                np.degrees(
                    quat.angle_between(
                        quat.normalize(kv[i], "key"), quat.normalize(kv[i + 1], "key")
                    )
                )
            )
            intervals.append(
                Interval(
                    frames=(float(kf[i]), float(kf[i + 1])),
                    max_deviation_deg=float(dev[j]),
                    worst_frame=float(f[j]),
                    blender_turn_deg=blender_turn,
                    player_turn_deg=player_turn,
                    key_angle_deg=key_angle,
                    cause="timing"
                    if retimed_ok
                    else classify(
                        interpolation,
                        flipped,
                        blender_turn,
                        max(on_keys, default=0.0),
                        0.0 if shares is None or i >= shares.shape[0] else float(shares[i]),
                        float(np.dot(kv[i], kv[i + 1])) < 0.0,
                    ),
                )
            )
    if key_frames is not None and len(key_frames) >= 1:
        outside = _outside(f, dev, np.degrees(quat.step_angles(qb)), np.asarray(key_frames, float))
        intervals = sorted(outside + intervals, key=lambda iv: iv.frames[0])
    return Comparison(
        frames=f,
        deviation_deg=dev,
        location_deviation=loc_dev,
        max_deviation_deg=float(dev.max()) if dev.size else 0.0,
        rms_deviation_deg=float(np.sqrt(np.mean(dev * dev))) if dev.size else 0.0,
        worst_frame=float(f[worst]) if f.size else 0.0,
        max_location_deviation=float(loc_dev.max()) if loc_dev.size else 0.0,
        intervals=tuple(intervals),
    )


# --------------------------------------------------------------------------
# Bezier keys as the exporter writes them, and Linear keys instead


def handle_shares(key_frames, channels) -> np.ndarray:
    """Per interval between ``key_frames`` (n,), how far Blender's Bezier handles are
    from a third of the interval: the largest over channels and both sides of
    |handle length / interval - 1/3| -> (n - 1,).

    ``channels``: per rotation F-curve, (co (k, 2), handle_left (k, 2),
    handle_right (k, 2)) in frames and values. Intervals whose ends are not
    keys of a channel (NLA time offsets, a resampled channel) get 0 from it.
    """
    kf = np.asarray(key_frames, dtype=np.float64)
    out = np.zeros(max(kf.shape[0] - 1, 0))
    if out.size == 0:
        return out
    span = np.diff(kf)
    for co, left, right in channels:
        co = np.asarray(co, dtype=np.float64)
        if co.shape[0] < 2:
            continue
        idx = np.searchsorted(co[:, 0], kf)
        idx = np.clip(idx, 0, co.shape[0] - 1)
        # searchsorted may land one past the matching key when it is a hair below.
        prev = np.clip(idx - 1, 0, co.shape[0] - 1)
        idx = np.where(np.abs(co[prev, 0] - kf) < np.abs(co[idx, 0] - kf), prev, idx)
        found = np.abs(co[idx, 0] - kf) < KEY_FRAME_MATCH
        a, b = idx[:-1], idx[1:]
        ok = found[:-1] & found[1:] & (b == a + 1)
        right_len = (np.asarray(right, float)[a, 0] - co[a, 0]) / span
        left_len = (co[b, 0] - np.asarray(left, float)[b, 0]) / span
        share = np.maximum(np.abs(right_len - 1.0 / 3.0), np.abs(left_len - 1.0 / 3.0))
        out = np.maximum(out, np.where(ok, share, 0.0))
    return out


@dataclass(frozen=True)
class LinearAlternative:
    """Linear keys on whole frames that an engine's slerp plays within a tolerance of
    Blender's playback, and how far off they play at every sample."""

    tolerance_deg: float
    key_frames: np.ndarray  # (k,)
    max_deviation_deg: float  # at whole frames
    max_deviation_quarter_deg: float  # at every sample given (quarter frames)
    animation_bytes: int  # of the rotation keys as the exporter would write them

    @property
    def keys(self) -> int:
        return int(self.key_frames.shape[0])


def linear_alternative(
    frames, blender_quats, tolerance_deg: float, mode: str = "QUATERNION", clock: float = 1.0
) -> LinearAlternative:
    """The Linear keys a ``bake --keys linear --tolerance DEG`` of what Blender plays
    would keep, computed from the data, and the engine's slerp of them measured against
    Blender's playback of them.

    frames (m,) increasing samples (quarter frames, say), ``blender_quats`` (m, 4)
    Blender's orientation there (w-first, any sign). The keys are chosen by
    ``core.keyreduce`` on the whole frames among the samples (a bake keys whole
    frames): Blender's nlerp and the glTF player's slerp both within DEG there,
    under 180 degrees between keys. Then the spec's LINEAR sampler (short-arc
    slerp, ``core.gltf_sampler``) of those keys is compared at every sample with
    Blender's playback of them (each channel linear between its keys), which is what
    the check measures after such a bake.

    ``mode`` is the rotation mode the Linear keys are written in (the object's
    own: a bake keeps it): Blender plays Euler keys channel by channel, which
    the keys must follow too (Euler channels need more Linear keys than
    quaternions for the same turn). The channel values are those of the
    orientation given, continuous (no wraps).

    ``clock``: the frame of the keys an engine plays at Blender's frame f is f * clock (1
    when the exporter writes Blender's own seconds; at 29.97 fps io_scene_gltf2 writes
    f / (fps * fps_base), which an engine plays 0.1% off Blender's clock, and so would
    the Linear keys: a layout walk found them judged on Blender's clock, 7e-15 deg off,
    where the export played them 0.79 deg off).
    """
    f = np.asarray(frames, dtype=np.float64)
    qb = quat.make_continuous(quat.normalize(blender_quats, "Blender's orientation"))
    whole = np.flatnonzero(np.abs(f - np.round(f)) < 1e-9)
    if whole.size < 2:
        raise ValueError("linear_alternative: fewer than two whole frames to key.")
    fw, qw = f[whole], qb[whole]
    values = rotation.quat_to_mode_values_continuous(qw, mode)
    kept = keyreduce.select_keys(fw, qw, values, mode, tolerance_deg)
    played = gltf_sampler.evaluate(fw[kept], qw[kept], "LINEAR", f * clock, rotation=True)
    # Measured as the check will measure them once baked: the engine's slerp of the keys
    # against Blender's playback of the same keys, channel by channel (a walk: measured
    # against Blender's playback before the bake, 3 keys "would play 1.42e-05 deg off";
    # baked, the check found them 0.918 deg off, each within the 1 deg tolerance of the
    # motion from its own side).
    blender = rotation.mode_values_to_quat(
        np.column_stack([np.interp(f, fw[kept], values[kept, c])
                         for c in range(values.shape[1])]), mode)
    dev = np.degrees(quat.angle_between(blender, played))
    return LinearAlternative(
        tolerance_deg=float(tolerance_deg),
        key_frames=fw[kept],
        max_deviation_deg=float(dev[whole].max()),
        max_deviation_quarter_deg=float(dev.max()),
        animation_bytes=int(kept.shape[0]) * KEY_BYTES["LINEAR"],
    )


def exported_as(interpolation: str, exported_keys: int, blender_keys: int) -> str:
    """How the exporter wrote Bezier rotation keys: 'keys' (CUBICSPLINE at Blender's own
    keys), 'sampled' (a key per sampled frame: more keys than Blender has, or as many
    where Blender keys every frame, a capture's, in a LINEAR or STEP sampler), or 'other'
    (a STEP or LINEAR sampler on fewer keys). A pipeline walk: a capture exported with
    sampling read 'other', and its advice offered "or export with sampling"."""
    if exported_keys > blender_keys or (exported_keys == blender_keys
                                        and interpolation != "CUBICSPLINE"):
        return "sampled"
    if interpolation == "CUBICSPLINE":
        return "keys"
    return "other"


def linear_is_better(
    how: str,
    bezier_max_deg: float,
    exported_keys: int,
    exported_bytes: int,
    alternative: LinearAlternative,
) -> bool:
    """Whether an engine plays Linear keys better than the Bezier keys as exported.

    - written as keys (CUBICSPLINE): when the Linear keys' slerp plays closer to
      Blender (at every sample, quarter frames included) and either the
      engine's cubic misses Blender by more than the tolerance or the Linear
      keys are fewer bytes too;
    - sampled: when the file holds at least SAMPLED_KEY_RATIO times the keys
      the Linear keys need (as big as a dense bake), which stay within the
      tolerance at every whole frame.
    """
    if how == "keys":
        closer = alternative.max_deviation_quarter_deg < bezier_max_deg
        return closer and (bezier_max_deg > alternative.tolerance_deg
                           or alternative.animation_bytes < exported_bytes)
    if how == "sampled":
        return (exported_keys >= SAMPLED_KEY_RATIO * alternative.keys
                and alternative.max_deviation_deg <= alternative.tolerance_deg)
    return False


def linear_mode(mode: str) -> str:
    """The rotation mode Linear keys for an engine are baked in: the object's own, except
    one the exporter writes wrong unsampled (written_wrong; a review: the advised Linear
    bake of an axis-angle object exported 178 deg off, its keys baked to quaternions
    2.5e-05 deg): quaternion."""
    return "QUATERNION" if written_wrong(mode) else mode


def linear_advice(how: str, exported_keys: int, exported_bytes: int, bezier_max_deg: float,
                  blender_keys: int, alternative: LinearAlternative, rebake: tuple) -> str:
    """The sentence that says Linear keys are the better choice, with both figures.
    ``rebake``: (the panel's words, the command line) of the Re-bake that writes them."""
    alt = alternative
    linear = (f"{alt.keys} Linear keys within {alt.tolerance_deg:g} deg of what Blender plays "
              f"now ({alt.animation_bytes} bytes) would play {alt.max_deviation_deg:.3g} deg "
              f"off Blender's playback of them at frames ({alt.max_deviation_quarter_deg:.3g} "
              "deg at quarter frames)")
    words, command = rebake
    bake = f"Re-bake with {words} ({command})"
    if how == "keys":
        return (f"{bake} for this engine: "
                f"the exporter wrote the {blender_keys} Bezier keys as CUBICSPLINE "
                f"({exported_bytes} bytes), which "
                f"plays {bezier_max_deg:.3g} deg off Blender; {linear}.")
    return (f"{bake} and export with "
            f"export_force_sampling=False for this engine: the exporter sampled the "
            f"{blender_keys} Bezier keys into {exported_keys} keys ({exported_bytes} bytes, "
            f"{bezier_max_deg:.3g} deg off), as big as a dense bake; {linear}.")
