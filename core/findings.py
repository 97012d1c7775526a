# SPDX-License-Identifier: GPL-3.0-or-later
"""What the report says about one analysed transform: its findings (sentences, most
important first, the first the one-line advice), the notes among them that ask for
nothing, and its verdict.

The measuring is ``core.analysis``'s; every function here takes one of its
``ObjectAnalysis`` results (``a``) and reads it, or words its findings again
(``set_advice``). Sentences name frames as the user sees them (``frame_text``).
"""
from __future__ import annotations

import numpy as np

from . import turns
from .frames import label as frame_text
from .frames import span as frame_span
from .pitfalls import GIMBAL_MARGIN_DEG, JITTER_MAX_DEG, NORM_DRIFT_NOTE
from .words import counted, either

# A key interval whose angular speed varies more than this (coefficient of
# variation, std/mean) is called uneven. Slerp is ~0; nlerp (LINEAR quaternion
# channels) over 90 deg is ~0.047, over 45 deg ~0.012.
UNEVEN_CV = 0.02


# A deviation below this is reported as "nothing to do" (degrees). Float32
# key storage alone gives ~1e-5 deg.
NEGLIGIBLE_DEG = 0.1


# Location segments whose speeds (length / frames) differ by more than this
# factor were timed by frame count, not by arc length.
SPEED_RATIO_NOTE = 2.0


# Blender stores keys in float32 (~1e-5 deg on an orientation): a bake's playback measured
# again by the analysis may exceed its Key Tolerance by that much and still be within it.
TOLERANCE_SLACK_DEG = 1e-4


# The location advice says how: Constant Speed is greyed out while Location is Keep.
CONSTANT_SPEED_FIX = ("re-bake with Location set to Linear or Catmull-Rom and Constant Speed "
                      "on (Re-bake settings)")


# Verdicts (the panel's, the JSON's ``verdict``, the HTML's colours). A largest difference
# under NEGLIGIBLE_DEG nobody sees (float32 keys alone give ~1e-5 deg). Issue 24: a ✓ only
# when nothing needs doing, so findings that ask for something ("to check": location
# speeds, a lerp filter's creep, jitter, gimbal lock ...) are not "fine".
VERDICT_LONG_WAY = "long way round"   # a key interval turned the long way by a defect
VERDICT_VISIBLE = "visible"           # NEGLIGIBLE_DEG or more
VERDICT_CHECK = "to check"            # under it, but a finding asks for something
VERDICT_WITHIN = "within tolerance"   # a Key Tolerance bake, played within its tolerance
VERDICT_FINE = "fine"                 # nothing to do
VERDICTS = (VERDICT_LONG_WAY, VERDICT_VISIBLE, VERDICT_CHECK, VERDICT_WITHIN, VERDICT_FINE)


def _count(n: int, noun: str) -> str:
    """"1 frame", "2 frames"."""
    return counted(int(n), noun)




def _method_label(method: str) -> str:
    return method.upper() if method in ("nlerp", "slerp", "squad") else "SLERP"


def largest_deviation_deg(a) -> float:
    """The larger of the deviation at the frames and between them (a wrap between two
    neighbouring frames is 0 deg off at both): what a verdict and a gate judge."""
    return max(a.max_deviation_deg, a.max_between_deviation_deg)


def within_bake_tolerance(a) -> bool:
    """Whether ``a`` describes the keys of a Key Tolerance bake made with the method it is
    compared with, played back within that tolerance (TOLERANCE_SLACK_DEG). Not once
    those keys were edited: they are the animator's then, and a key set to Constant or
    deleted plays far from the bake while the method through what is left agrees with
    Blender (a walk: 86 deg off the bake read "within the 0.05 deg Key Tolerance")."""
    return (a.bake_role == "after" and a.bake_tolerance_deg > 0.0
            and a.bake_method == a.method and not a.bake_edited
            and largest_deviation_deg(a) <= a.bake_tolerance_deg + TOLERANCE_SLACK_DEG)


# The method a conversion's record names (addon/bake/engine.PLAYBACK): it kept Blender's
# playback in another rotation mode.
CONVERTED = "playback"


def _fix(a) -> str:
    """What to do about a rotation defect: re-bake with the method, unless a bake with that
    method already made (or replaced) these keys."""
    label = _method_label(a.method)
    if a.bake_method == CONVERTED and not a.bake_edited:
        # A walk: a bone converted away from gimbal lock was told to re-bake, which went
        # back to the keys' own mode and its gimbal lock, whose advice was to convert.
        return (f"re-bake with {label}, which starts again from the keys before the "
                "conversion, in their own rotation mode (Output: Quaternion keeps clear of "
                "gimbal lock)")
    if a.bake_edited:
        # Whatever made the bake: a Re-bake starts again from the keys before it.
        return (f"re-bake with {label}, which starts again from the keys before the bake and "
                "replaces the keys edited since, or undo those edits")
    if a.bake_method != a.method:
        return f"re-bake with {label}"
    if a.bake_role == "before":
        return f"the {label} bake replaced these keys (see after the bake)"
    return f"already baked with {label}; lower the Key Tolerance or use another method"


def _gimbal_fix(a, fix: str) -> str:
    """What to do about frames near gimbal lock. On the keys of a bake with the method it
    is compared with, another bake in the same mode passes as near (the lock is in the
    motion, not the interpolation), and a smaller Key Tolerance does not move it (a
    real-file walk: a USD camera's bake was told to lower it): another rotation mode
    does."""
    if a.bake_role == "after" and not a.bake_edited and a.bake_method == a.method:
        return (f"already baked with {_method_label(a.method)}; bake it again with Output: "
                "Quaternion (the same path, no gimbal lock), or convert it to another rotation "
                "mode (Convert Rotation Mode, Auto: the Euler order farthest from gimbal "
                "lock) or key in Quaternion mode")
    return f"{fix} or key in Quaternion mode"


def _within_sentence(a) -> str:
    # "tolerance", not "Key Tolerance": a Camera (px) or Bone Tip Tolerance gives the angle
    # too (a walk read "the 0.0128933 deg Key Tolerance" after a pixel bake).
    keys = f"its {a.bake_keys:d} keys" if a.bake_keys else "its keys"
    return (f"Blender plays {keys} within the {a.bake_tolerance_deg:.3g} deg tolerance of "
            f"the {_method_label(a.method)} bake (up to {a.max_deviation_deg:.2f} deg at frame "
            f"{frame_text(a.worst_frame)}): nothing to do; a smaller tolerance keeps more keys")


def _length(norm: dict) -> str:
    """How the raw quaternion channels leave length 1, for a sentence: "shrink to length
    0.389" or "grow to length 1.286", whichever is farther from 1 (``norm["frame"]`` is
    that one's; a walk: keys scaled up by hand read "shrink to length 1.000")."""
    if norm["max_norm"] - 1.0 > 1.0 - norm["min_norm"]:
        return f"grow to length {norm['max_norm']:.3f}"
    return f"shrink to length {norm['min_norm']:.3f}"


def sentences(a) -> list:
    """Sentences, most important first; the first is the one-line advice. Those that ask
    for nothing are also listed in ``a.notes``."""
    fix = _fix(a)
    within = within_bake_tolerance(a)
    out = []
    notes = a.notes
    notes.clear()
    spins = _spin_segments(a)
    kept = _kept_long_ways(a)
    for seg in a.long_arc_segments:
        if (seg[0], seg[1]) in spins:
            continue      # a keyed spin, not a defect: named by _turn_findings
        if (seg[0], seg[1]) in kept:
            # The method's path keeps it too: re-baking with the method does not help (a
            # report walk: "re-bake with SLERP", and the bake kept the 340 deg turn).
            out.append(f"keys {frame_span(seg[0], seg[1])} take the long way "
                       f"({turns.CAUSES[kept[seg[0], seg[1]]]}), and Turns: Keyed keeps it: "
                       "re-bake with Turns: Auto for the short arc")
            continue
        out.append(f"keys {frame_span(seg[0], seg[1])} take the long way: {fix}")
    turn_first, turn_later = _turn_findings(a, spins)
    if within:
        # The difference is what the tolerance allowed: that, not a re-bake, is the finding.
        turn_first = [f for f in turn_first if " is timing only " not in f]
        out.append(_within_sentence(a))
        notes.append(out[-1])
    out += turn_first
    out += [creep_sentence(run) for run in a.exponential_approach]
    for w in a.euler_wraps:
        if (w["frames"][0], w["frames"][1]) in spins or (w["frames"][0], w["frames"][1]) in kept:
            continue
        out.append(
            f"{w['channel']} wraps {w['from_deg']:.0f} -> {w['to_deg']:.0f} deg between keys "
            f"{frame_span(w['frames'][0], w['frames'][1])} and turns "
            f"{abs(w['turn_deg']):.0f} deg instead of {abs(w['short_turn_deg']):.0f}: {fix}")
    # Shrinking channels are a path defect only when the path leaves the arc;
    # otherwise Blender's normalising hides them (noted last, below).
    on_path = a.max_path_deviation_deg <= NEGLIGIBLE_DEG
    if a.norm is not None and a.norm["max_drift"] > NORM_DRIFT_NOTE and not on_path:
        out.append(
            f"the quaternion channels {_length(a.norm)} near frame "
            f"{frame_text(a.norm['frame'])} (per-component interpolation, not a rotation): {fix}")
    if a.gimbal_frames:
        # Counted in whole frames: a cache's samples are quarter frames too (a walk: "103
        # frames" for 103 samples over 26 frames).
        near = np.unique(np.floor(np.asarray(a.gimbal_frames, dtype=np.float64))).size
        out.append(
            f"{_count(near, 'frame')} {either(near, 'passes', 'pass')} within "
            f"{GIMBAL_MARGIN_DEG:g} deg "
            "of gimbal lock "
            f"(middle angle of {a.rotation_mode} near +-90, from frame "
            f"{frame_text(a.gimbal_frames[0])}): {_gimbal_fix(a, fix)}")
    if a.max_deviation_deg > NEGLIGIBLE_DEG and not a.long_arc_segments and not turn_first \
            and not within:
        cause = ""
        if not on_path:
            cause = (f", {a.max_path_deviation_deg:.2f} deg of it off the {a.method} path "
                     f"({_path_cause(a)})")
        out.append(
            f"Blender's curves differ from {a.method} by up to {a.max_deviation_deg:.2f} deg at "
            f"frame {frame_text(a.worst_frame)}{cause}: {fix}")
    between = a.max_between_deviation_deg
    if between > NEGLIGIBLE_DEG and between > a.max_deviation_deg and a.worst_between_frame \
            is not None and not a.long_arc_segments and not within:
        # Off between the frames only (keys on every frame, a delta rotation keyed beside
        # the rotation that turns far): the verdict counts it, so the advice must say it (a
        # walk read "visible" over "nothing to do").
        # After a Key Tolerance bake of this method, its keys are what strays (a tolerance
        # walk: advised the very bake just made, on a capture whose Bezier keys overshoot
        # between the quarter frames that bake holds).
        # Bezier keys of a Key Tolerance bake are held at quarter frames and stray only
        # between them, which no bake of QuatBake's holds (a dense bake's Linear keys stray
        # more); Linear keys are held at whole frames, and Keys: Bezier holds more.
        bezier_bake = (a.bake_role == "after" and a.bake_tolerance_deg > 0.0
                       and a.bake_method == a.method and not a.bake_edited
                       and a.bake_interpolation == "BEZIER")
        fix_between = ("the Bezier keys of its Key Tolerance bake, held at every quarter "
                       "frame, stray between them" if bezier_bake else
                       "bake with a Key Tolerance and Keys: Bezier, which holds it at every "
                       "quarter frame")
        out.append(
            f"between frames Blender plays up to {between:.2f} deg off {a.method} (frame "
            f"{frame_text(a.worst_between_frame)}, where motion blur samples), on the frames "
            f"{a.max_deviation_deg:.2f} deg: {fix_between}")
    uneven = [] if a.dense_keys else [
        iv for iv in a.intervals
        if iv["blender_speed_cv"] is not None and iv["blender_speed_cv"] > UNEVEN_CV
        and iv["shortest_deg"] > 1.0 and iv.get("kind") != "step"]
    if uneven and not within:
        iv = max(uneven, key=lambda d: d["blender_speed_cv"])
        out.append(
            f"angular speed is uneven between keys "
            f"{frame_span(iv['frames'][0], iv['frames'][1])} (varies {100 * iv['blender_speed_cv']:.0f}% "
            f"around its mean): " + ("Timing: Keyed keeps that ease; Timing: Even gives "
                                     "constant speed" if a.timing == "KEYED"
                                     else f"{fix} for constant speed"))
        if a.timing == "KEYED":
            notes.append(out[-1])   # the ease the animator chose, kept
    if (a.location_speed_ratio is not None and a.location_speed_ratio > SPEED_RATIO_NOTE
            and not a.dense_location_keys):
        out.append(
            f"location segments move at speeds {a.location_speed_ratio:.1f}x apart (timed by "
            f"frame count, not distance): {CONSTANT_SPEED_FIX}")
    if a.float32_risk is not None and a.float32_risk["frames"]:
        out.append(
            f"{_count(len(a.float32_risk['frames']), 'frame')} "
            f"{either(len(a.float32_risk['frames']), 'moves', 'move')} less than float32 can "
            "resolve at "
            f"{a.float32_risk['max_coordinate']:.0f} units (step {a.float32_risk['float32_step']:.2g}): "
            "move the animation closer to the origin")
    if a.custom_norm_min < 1.0 - NORM_DRIFT_NOTE:
        out.append(
            f"{a.method} is not normalised: the orientation shrinks to length "
            f"{a.custom_norm_min:.3f} (use NLERP or SLERP)")
    if a.jitter_frames:
        out.append(
            f"{_count(len(a.jitter_frames), 'frame')} "
            f"{either(len(a.jitter_frames), 'jitters', 'jitter')} back and forth by under "
            f"{JITTER_MAX_DEG:g} deg "
            f"(from frame {frame_text(a.jitter_frames[0])}): thin out near-identical keys")
    jumps = a.velocity_jumps
    # A step's jump is the keys' intent, not a kink for Squad to smooth.
    step_keys = [f for iv in intervals_of_kind(a, "step") for f in iv["frames"]]
    # One isin, not a set lookup per jump: a dense bake has a jump entry on every frame.
    smooth = ~np.isin(np.asarray(jumps["frames"], dtype=np.float64), step_keys)
    # What Squad would take away: Blender's jump beyond its own. Squad is smooth in its
    # parameter, not in frames: between unevenly spaced keys its path jumps too, and a
    # Squad bake played as baked jumps with it (nothing for a Squad bake to fix).
    excess = np.asarray(jumps["blender_deg"]) - np.asarray(jumps["custom_deg"])
    jump_deg = np.where(smooth, excess, 0.0) if smooth.size else excess
    if len(jump_deg) and np.max(jump_deg) > 1.0 and a.method == "squad" and not a.dense_keys:
        k = int(np.argmax(jump_deg))
        own = float(jumps["custom_deg"][k])
        then = "SQUAD keeps it smooth" if own < 0.1 else f"SQUAD's path jumps by {own:.1f} there"
        out.append(
            f"angular velocity jumps by {jumps['blender_deg'][k]:.1f} deg/frame at key "
            f"{frame_text(jumps['frames'][k])}: {then}")
    if a.norm is not None and a.norm["max_drift"] > NORM_DRIFT_NOTE and on_path:
        out.append(
            f"the quaternion channels {_length(a.norm)} near frame "
            f"{frame_text(a.norm['frame'])}, which Blender's normalising hides: the path "
            "stays on the arc")
        notes.append(out[-1])
    notes.extend(turn_later)
    if a.bake_role == "after" and a.bake_edited:
        # Nothing to fix in them, but a Re-bake would not keep them (a walk: "fine ...
        # nothing to do" said nothing of it; the Re-bake's warning came after the fact).
        turn_later.append("its keys were edited since the bake: a Re-bake starts again from "
                          "the keys before the bake and replaces those edits (Ctrl+Z brings "
                          "them back)")
        notes.append(turn_later[-1])
    return out + turn_later


def creep_sentence(run: dict) -> str:
    return (f"keys {frame_span(run['frames'][0], run['frames'][1])} creep "
            f"towards a target and stop {run['remaining_deg']:.1f} deg short (by "
            f"{100 * (1 - run['ratio']):.0f}% of what is left per step: lerp(current, target, "
            "dt) used as a filter): key the start and the end and interpolate once")


def _timing_cause(a) -> str:
    """Why Blender's speed along the method's path varies, as far as the data tells."""
    if a.rotation_mode == "QUATERNION" and a.norm is not None \
            and a.norm["max_drift"] > NORM_DRIFT_NOTE:
        where = "slow down where they grow" if _length(a.norm).startswith("grow") else \
            "speed up where they shrink"
        return (f"the quaternion channels, interpolated one by one, {where}, and any ease "
                "of the keys adds to it")
    return "the keys' ease in and out"


def intervals_of_kind(a, kind: str) -> list:
    """The intervals of ``kind``; none looked at one by one when no interval is of it (a
    baked rig has a thousand one-frame intervals per bone, rarely a spin or a step)."""
    kinds = a.kinds or [iv.get("kind") for iv in a.intervals]
    if kind not in kinds:
        return []
    return [iv for iv in a.intervals if iv.get("kind") == kind]


def _spin_segments(a) -> set:
    """(frame_a, frame_b) of the intervals whose long way is a keyed spin."""
    return {(iv["frames"][0], iv["frames"][1]) for iv in intervals_of_kind(a, "spin")}


def _kept_long_ways(a) -> dict:
    """{(frame_a, frame_b): kind} of the intervals that take the long way by a defect (a
    flipped sign, an Euler wrap, Euler channels) and that the Turns setting keeps as keyed
    (Turns: Keyed): the method's path takes the long way with Blender, so they are no
    difference from it, and a bake of this setting keeps them."""
    if a.turns != "KEYED" or not a.kinds:
        return {}
    keep = turns.choose(a.turns, a.kinds)
    return {(iv["frames"][0], iv["frames"][1]): iv["kind"]
            for i, iv in enumerate(a.intervals)
            if keep[i] and iv.get("kind") in ("flip", "wrap", "euler")}


def _turn_findings(a, spins: set) -> tuple[list, list]:
    """(findings that lead, findings that follow) about keyed turns and timing.

    Leads: a spin the Turns setting drops; a difference that is timing only
    (Blender stays on the method's path: ease in / ease out, e.g. Bezier keys
    or a glTF CUBICSPLINE import). Follows: spins kept as keyed.
    """
    first, later = [], []
    keep = turns.choose(a.turns, a.kinds) if a.kinds else []
    for i, iv in enumerate(a.intervals if spins else ()):
        if (iv["frames"][0], iv["frames"][1]) not in spins:
            continue
        where = f"keys {frame_span(iv['frames'][0], iv['frames'][1])}"
        if keep[i]:
            later.append(f"{where} spin {iv['keyed_turn_deg']:.0f} deg as keyed (a keyed spin): "
                         f"Turns: {a.turns.title()} keeps it")
        else:
            first.append(f"{where} spin {iv['keyed_turn_deg']:.0f} deg as keyed but Turns: "
                         f"{a.turns.title()} takes the {iv['shortest_deg']:.0f} deg short arc: "
                         "re-bake with Turns: Auto or Keyed")
    # Not beside a long way round: Bezier handles that wind a channel past its keys (a
    # report walk: keyed 0 -> 20 deg, Blender turns 450) are off the path, whatever the
    # progress along it says. Beside a kept spin it is (a report walk: a 720 deg spin
    # keyed with Bezier ease, 69 deg of timing, was told nothing to change).
    if (a.max_deviation_deg > NEGLIGIBLE_DEG and a.max_path_deviation_deg <= NEGLIGIBLE_DEG
            and not any(k in ("flip", "wrap", "euler") for k in a.kinds)
            and not defect_arcs(a)):
        first.append(
            f"Blender stays within {a.max_path_deviation_deg:.2f} deg of the {a.method} path; the "
            f"{a.max_deviation_deg:.2f} deg difference at frame {frame_text(a.worst_frame)} is "
            f"timing only ({_timing_cause(a)}): re-bake with Timing: Keyed to keep that "
            "timing" + ("" if a.dense_keys else ", or Timing: Even for constant speed"))
    return first, later


def _path_cause(a) -> str:
    """Why Blender's orientation leaves the method's path (no long way round involved)."""
    # Only the interval the worst frame is in (a review: a small reversal elsewhere was
    # named as the cause).
    here = [r for r in a.axis_reversals if r["frames"][0] <= a.worst_frame <= r["frames"][1]]
    if here:
        first, last = here[0]["frames"]
        # Whether it passes no rotation on the way depends on the angles too (a review: axes
        # 179.5 deg apart at 30 deg never came within 30 deg of it): not said.
        return (f"the axis turns {here[0]['apart_deg']:.0f} deg between keys "
                f"{frame_span(first, last)}, and the axis and angle, interpolated one by one, "
                "swing off the arc")
    return {"QUATERNION": "the quaternion channels, interpolated one by one, bend off the arc",
            "AXIS_ANGLE": "the axis and angle, interpolated one by one, bend off the arc"}.get(
        a.rotation_mode, "the Euler channels, interpolated one by one, wobble off the arc")


def set_advice(a) -> None:
    a.findings = sentences(a)
    # The one-line advice is the first finding that asks for something, else the first note.
    asks = to_do(a)
    a.advice = asks[0] if asks else a.findings[0] if a.findings else (
        f"Blender's interpolation stays within {NEGLIGIBLE_DEG:g} deg of {a.method}: nothing "
        "to do")


def defect_arcs(a) -> list:
    """The long arcs that are probable defects (a flipped sign, an Euler wrap) the method's
    path does not take too: not spins kept on purpose, nor what Turns: Keyed keeps."""
    spins = _spin_segments(a) | set(_kept_long_ways(a))
    return [list(s) for s in a.long_arc_segments if (s[0], s[1]) not in spins]


def to_do(a) -> list:
    """The findings that ask for something (every finding but ``a.notes``)."""
    return [f for f in a.findings if f not in a.notes]


def verdict(a) -> str:
    """One of VERDICTS for ``a``, worst first."""
    if defect_arcs(a):
        return VERDICT_LONG_WAY
    if within_bake_tolerance(a):
        # Its own findings may still ask for something (the location's speeds ...).
        return VERDICT_CHECK if to_do(a) else VERDICT_WITHIN
    if largest_deviation_deg(a) >= NEGLIGIBLE_DEG:
        return VERDICT_VISIBLE
    return VERDICT_CHECK if to_do(a) else VERDICT_FINE


def brief(sentence: str) -> str:
    """``sentence`` (a finding) cut to what the panel's box shows in a few lines at the
    sidebar's default width (issue 24: advice boxes ran to 13 lines): without its
    parenthesised details, the clause before a "; " that leads up to the finding, and the
    alternatives after ", or " / "; " in what to do. The report keeps the whole sentence."""
    out, depth = [], 0
    for c in sentence:
        if c == "(":
            depth += 1
        elif c == ")" and depth:
            depth -= 1
        elif not depth:
            out.append(c)
    text = " ".join("".join(out).split()).replace(" :", ":").replace(" ,", ",")
    head, sep, fix = text.partition(": ")
    if "; " in head:
        head = head.rsplit("; ", 1)[1]
    fix = fix.split(", or ")[0].split("; ")[0]
    return head + sep + fix
