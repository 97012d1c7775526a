# SPDX-License-Identifier: GPL-3.0-or-later
"""The bake engine: re-bake objects' rotation (and location) keys with QuatBake's
interpolation, non-destructively; one transform's problem never stops the others.

Flow (data goes one way, see CONTRIBUTING.md):

1. Validate the settings (an error -> BakeError, nothing changed) and every transform
   (read.read_transform). A transform with nothing to bake (no rotation keys, keys only
   in NLA clips, no animation) is skipped and named in ``BakeResult.skipped``; one with
   broken input (a NaN key, a driver ...: an error naming it, also for an unexpected
   exception while reading or planning it, never a traceback) is left exactly as it is
   and named in ``BakeResult.failed``, and the others are baked. Only when nothing can
   be baked is the bake refused (BakeError, every reason named).
2. Track the keyed turns of every transform together (turns), then read each
   object's key orientations (what Blender evaluates at the key
   frames) from its ORIGINAL action, interpolate them with ``core`` and convert
   them to the output rotation mode (plan). Pure numpy; still nothing changed.
3. Write: per object a NEW action (a copy of the object's own channels of the
   original, minus the channels being replaced, plus the baked ones as LINEAR
   keys), assigned to the object. The original keeps a fake user and is never
   edited. If any object fails, every object written so far in this call is
   put back and the half-made actions are deleted (write).

What a bake changed is recorded on the object (``obj.quatbake``, see ui/props.py
and record.py), so a second bake starts again from the original keys and ``revert_objects``
restores them. Blender-version differences stay in ``animdata``.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np

from ...core.words import either
from .. import animdata, overrides, record
from ..record import can_revert
from ..transform import AnimatedTransform, as_transforms, euler_order_of
from . import cache as cache_bake
from .deviation import set_deviations
from .plan import interpolate_group, pending_groups, plan_reading, settle_extrapolation
from .read import read_transform
from .reduce import applied_tolerances, key_notes, reduce_keys, unmet_tolerances
from .settings import (
    ANGLE_FLOAT32_WARN,
    BAKED_SUFFIX,
    LOCATION_FLOAT32_WARN,
    LOCATION_METHODS,
    MAX_TURN_NOTES,
    METHODS,
    OUTPUT_MODES,
    TIMINGS,
    TURNS,
    BakeError,
    BakeIssue,
    BakeSettings,
    bezier_fit,
    has_tolerance,
    merge_bone_issues,
    path_of,
    settings_issues,
    tolerance_words,
    unexpected_issue,
    verb,
)
from .turns import track_all
from .write import (
    FakeUsers,
    WriteUndo,
    baked_bones,
    drop_superseded,
    fold_note,
    lost_on_revert,
    recorded_originals,
    renamed_bone_issues,
    revert_bones,
    revert_owner_fully,
    undo_write,
    write_owner,
)

# The public names of the bake (docs/api.md), forwarded by bake/__init__.py.
__all__ = ["ANGLE_FLOAT32_WARN", "BAKED_SUFFIX", "LOCATION_FLOAT32_WARN", "LOCATION_METHODS",
           "MAX_TURN_NOTES", "METHODS", "OUTPUT_MODES", "TIMINGS", "TURNS",
           "BakeError", "BakeIssue", "BakeResult", "BakeSettings", "bake_objects", "can_revert",
           "revert_objects", "within_words"]



@dataclass
class BakeResult:
    objects: list[str]           # names of the baked objects, in the order given
    frames_written: int          # keyed frames written, summed over objects (range / step;
    #                              fewer with a tolerance)
    max_deviation_deg: float     # largest difference from Blender's own interpolation, all objects
    warnings: list[BakeIssue] = field(default_factory=list)
    # 'INFO' notes: every interval baked with another turn than Blender plays,
    # every kept spin, and the stepped intervals kept stepped.
    notes: list[BakeIssue] = field(default_factory=list)
    frames_per_object: dict[str, int] = field(default_factory=dict)   # name: baked frames
    deviation_per_object: dict[str, float] = field(default_factory=dict)   # name: degrees
    keys_dense: int = 0          # keys a dense bake writes per channel, summed over objects
    keys_written: int = 0        # keys written per channel, summed (< keys_dense with a tolerance)
    # With a tolerance: name: rotation keys written per channel, and name: the statistics
    # of Blender's playback of them (reduce.measure_written: max_deg, p99_deg, within ...).
    keys_per_object: dict[str, int] = field(default_factory=dict)
    key_statistics: dict[str, dict] = field(default_factory=dict)
    # 'SKIPPED' issues: the transforms left as they are (no rotation keys, keys only in NLA
    # clips, no animation, not the named clip), one sentence each.
    skipped: list[BakeIssue] = field(default_factory=list)
    # 'ERROR' issues: the transforms whose input is broken (a NaN key, a driver ...), left
    # exactly as they were while the others were baked; one sentence or more each.
    failed: list[BakeIssue] = field(default_factory=list)
    # The names of those transforms ("Cube", "Rig: spine"): an armature refused for a bone
    # renamed since its bake leaves all its bones, though one is named in ``failed``.
    failed_transforms: list[str] = field(default_factory=list)
    # (degrees, pixels, tip distance) the keys were kept within, each 0 when it applied to
    # no transform (reduce.applied_tolerances; all 0: no tolerance bake).
    tolerances: tuple = (0.0, 0.0, 0.0)
    tolerances_met: bool = True  # False: some LINEAR keys play beyond (reduce.unmet_tolerances)
    # Transforms whose rotation was written: none when every one baked is location only (a
    # rig's IK controls), whose "largest difference" (rotation only) then says nothing.
    rotations_written: int = 0

    @property
    def thinned(self) -> bool:
        """Some tolerance applied, so keys were thinned; False where the only one given
        applies to no transform baked (a Bone Tip tolerance on objects: a Linear key on
        every frame)."""
        return any(self.tolerances)


def within_words(result: BakeResult, translate=lambda text: text) -> str:
    """What the summary says the keys of a tolerance bake are within ("within 0.5 deg"),
    from what applied and what was measured: a tolerance that applied to no transform, or
    LINEAR keys that float32 could not hold within it, are not claimed (a walk: "within
    1 px on cameras" for an empty, "within 1e-09 deg" for keys measured 4.6e-06 off)."""
    words = tolerance_words(result.tolerances, translate)
    if not words:
        return translate("(the tolerance applied to none of them; see the notes)")
    if not result.tolerances_met:
        return translate("(not all within {}; see the warnings)").format(words)
    return translate("within {}").format(words)


def location_words(result: BakeResult, translate=lambda text: text) -> str:
    """What the summary of a tolerance bake adds when the location kept other keys than
    the rotation (Bezier rotation keys beside LINEAR location ones): "; location 480
    LINEAR keys per channel", summed as the rotation's are; "" otherwise."""
    stats = [s for s in result.key_statistics.values()
             if s.get("location_keys", s["keys_written"]) != s["keys_written"]]
    if not stats:
        return ""
    return translate("; location {:d} LINEAR keys per channel").format(
        sum(s["location_keys"] for s in stats))


def _interpolate_pending(plans: list) -> tuple[list[BakeIssue], list[BakeIssue]]:
    """(warnings, errors) of interpolating the plans left pending, a group per call; a
    group that fails is done again plan by plan, so that an error names its transform."""
    warnings: list[BakeIssue] = []
    errors: list[BakeIssue] = []
    for group in pending_groups(plans):
        try:
            warnings += interpolate_group(group)
            continue
        except Exception:   # each then on its own, below
            group_failure = sys.exc_info()
        failed = len(errors)
        for plan in group:
            obj = plan.obj
            try:
                warnings += interpolate_group([plan])
            except ValueError as exc:
                errors.append(BakeIssue('ERROR', obj.name, plan.target_path, None,
                                        f"{animdata.subject(obj)}: its keys cannot be baked "
                                        f"({exc}).", obj.bone_name))
            except Exception as exc:   # not foreseen: one sentence, never a traceback
                errors.append(unexpected_issue(obj, "interpolating its rotation", exc))
        if len(errors) == failed and len(group) > 1:
            # Every one baked alone: the batching itself failed, a QuatBake bug the
            # user's bake survives. On the console with its traceback, to be reported.
            import logging
            logging.getLogger(__name__).warning(
                "QuatBake: interpolating %d transforms together failed, each alone did "
                "not; please report this with the file.", len(group), exc_info=group_failure)
    return warnings, errors


def _nothing_baked(skipped: list[BakeIssue], doing: str = "bake",
                   broken: list[BakeIssue] = ()) -> list[BakeIssue]:
    """The refusal when nothing can be baked: each transform's sentence (those ``broken``
    first, then those ``skipped``), as errors, the first in one that counts them when
    there are several (a walk: the first bone's sentence was said twice, in the count and
    after it; a docs walk: of three broken objects the command line named the first)."""
    said = list(broken) + list(skipped)
    errors = [BakeIssue('ERROR', i.object_name, i.channel, i.frame, i.message, i.bone)
              for i in said]
    names = list(dict.fromkeys(i.transform_name for i in said if i.object_name))
    if len(names) <= 1:
        return errors
    shown = ", ".join(names[:3]) + (" ..." if len(names) > 3 else "")
    why = f"can be {'baked' if doing == 'bake' else doing + 'ed'}" if broken else \
        f"has keys QuatBake can {'re-bake' if doing == 'bake' else doing}"
    return [BakeIssue('ERROR', "", "", None,
                      f"Nothing to {doing}: none of the {len(names)} transforms ({shown}) "
                      f"{why}. {said[0].message}")] + errors[1:]


def _without(plans: list, errors: list[BakeIssue], owners: set = frozenset()) -> list:
    """``plans`` but those of the transforms ``errors`` name, and of the owners named in
    ``owners``: one transform's problem never stops the others."""
    named = {(i.object_name, i.bone) for i in errors if i.object_name}
    return [p for p in plans if p.obj.key not in named and p.obj.owner.name not in owners]


def _about_baked(issues: list[BakeIssue], attempted: set, baked: set) -> list[BakeIssue]:
    """``issues`` but those about a transform in ``attempted`` that was not ``baked`` (both
    sets of transform keys): a review found "baked the 20 deg short way" said of a bone
    left as it was, its armature refused after the notes were made."""
    return [i for i in issues
            if (i.object_name, i.bone) not in attempted or (i.object_name, i.bone) in baked]


def _each_refusal_apart(step: Callable[[list], list], plans: list,
                        errors: list[BakeIssue]) -> list:
    """``step(plans)``'s result; when it refuses a transform by name (BakeError), that
    transform's sentences go to ``errors`` and the step runs again without it. A refusal
    that names none of the plans refuses the bake."""
    while plans:
        try:
            return step(plans)
        except BakeError as exc:
            rest = _without(plans, exc.issues)
            if len(rest) == len(plans):
                raise
            errors += exc.issues
            plans = rest
    return []


def _key(item) -> tuple:
    if isinstance(item, AnimatedTransform):
        return item.key
    return (item.name, "")


def _unique(objects: Iterable) -> list:
    seen, out = set(), []
    for obj in objects:
        if obj is not None and _key(obj) not in seen:
            seen.add(_key(obj))
            out.append(obj)
    return out


def _by_owner(items) -> dict:
    groups: dict = {}
    for item in items:
        owner = item.owner if isinstance(item, AnimatedTransform) else item
        groups.setdefault(owner.name, (owner, []))[1].append(item)
    return groups


def _order(mode: str) -> str:
    """The Euler order constraints take in rotation mode ``mode``, in words: "ZXY", or
    "XYZ (as in QUATERNION)"."""
    order = euler_order_of(mode)
    return order if order == mode else f"{order} (as in {mode})"


def bake_objects(objects, settings: BakeSettings,
                 progress: Callable[[int, int], None] | None = None) -> BakeResult:
    """Re-bake the rotation (and location) keys of ``objects`` with ``settings``.

    ``objects``: objects, and/or ``transform.AnimatedTransform`` values (pose
    bones). An armature object stands for every keyed bone, plus its own
    channels when those are keyed (``transform.transforms_of_objects``).
    Validates every transform first: one with broken input (a NaN key, a driver ...) is
    left exactly as it is and listed in ``BakeResult.failed`` (its sentences), the
    others baked; BakeError (nothing changed) when the settings are wrong or nothing can
    be baked. Then writes every owner's new action or, if one fails (a QuatBake bug, not
    the input), none (BakeError again, the owners already written put back). The bones of one
    armature share one new action. Transforms with nothing to bake (no rotation
    keys, keys only in NLA clips, no animation, without the named ``clip``) are
    left as they are and listed in ``BakeResult.skipped``; one keyed on location
    only gets a location bake when ``settings.location_method`` is not 'KEEP'.
    When every transform is skipped, BakeError names each one. ``progress(done, total)``
    is called as transforms are computed and written (total = 2 * number of transforms
    baked).
    Returns a BakeResult (``objects``: "Cube", "Rig: spine" ...); warnings
    (e.g. constraints not baked) are in it.
    """
    transforms = _unique(as_transforms(_unique(objects), getattr(settings, "clip", "")))
    issues = settings_issues(settings)
    if not transforms:
        issues.insert(0, BakeIssue('ERROR', "", "", None,
                                   f"No objects to {verb(settings)}: select the animated "
                                   "objects or cameras first."))
    if any(i.severity == 'ERROR' for i in issues):
        raise BakeError([i for i in issues if i.severity == 'ERROR'])

    plans, warnings, errors, notes, skipped = [], [], [], [], []
    fcurve_cache: dict = {}
    readings = []
    # Transforms a Transform Cache moves (USD, Alembic imports) are read and planned apart.
    cached, keyed_transforms = cache_bake.split(transforms)
    for obj in keyed_transforms:
        try:
            reading, obj_issues = read_transform(obj, settings, fcurve_cache)
        except Exception as exc:   # not foreseen: one sentence naming it, never a traceback
            reading, obj_issues = None, [unexpected_issue(obj, "reading its keys", exc)]
        skipped += [i for i in obj_issues if i.severity == 'SKIPPED']
        if reading is None:
            errors += [i for i in obj_issues if i.severity == 'ERROR']
            warnings += [i for i in obj_issues if i.severity == 'WARNING']
        else:
            readings.append(reading)
    if not readings and not errors and not cached:
        if all(i.done for i in skipped) and any(i.done == "mode" for i in skipped):
            # Some transform is already as asked and the others have no rotation keys (a
            # review: a conversion run again on a show's shots failed, exit 2; a second
            # review: on any rig with IK controls keyed on location only): nothing changed.
            # Keys the run could not reach (in NLA clips ...) still refuse it (a third).
            return BakeResult(objects=[], frames_written=0, max_deviation_deg=0.0,
                              skipped=skipped)
        raise BakeError(_nothing_baked(skipped, verb(settings)))
    # Skipped transforms are neither planned nor written: the progress counts the others.
    total = 2 * (len(readings) + len(cached))
    keyed_all = [None] * len(readings)
    rotating = [k for k, r in enumerate(readings)
                if not r.location_only and r.rot_frames.size > 1]
    try:
        found = track_all([readings[k] for k in rotating], settings, fcurve_cache.get("keys"))
    except Exception:   # each is then tracked on its own, so an error names its transform
        found = [None] * len(rotating)
    for k, keyed in zip(rotating, found):
        keyed_all[k] = keyed
    ik_cache: dict = {}     # each rig's IK chains, found once (transform.ik_reach)
    for k, (reading, keyed) in enumerate(zip(readings, keyed_all)):
        obj = reading.obj
        try:
            plan, obj_issues = plan_reading(reading, keyed, settings, fcurve_cache)
        except BakeError as exc:
            plan, obj_issues = None, exc.issues
        except Exception as exc:   # not foreseen: one sentence naming it, never a traceback
            plan, obj_issues = None, [unexpected_issue(obj, "computing its bake", exc)]
        errors += [i for i in obj_issues if i.severity == 'ERROR']
        warnings += [i for i in obj_issues if i.severity == 'WARNING']
        notes += [i for i in obj_issues if i.severity == 'INFO']
        if plan is not None:
            plans.append(plan)
            # Its own, and the IK of a bone below whose chain reaches it (a workflow
            # walk: an IK on the shoulder turned the spine, and only the shoulder was
            # named); each on what the bake wrote (a walk: a Copy Location was said to
            # act on top of the baked rotation, which it never changes).
            acting = {"rotation": [] if plan.location_only else
                      obj.acting_constraints(ik_cache),
                      "location": obj.acting_constraints(ik_cache, moving="location")
                      if plan.location_values is not None else []}
            names = list(dict.fromkeys(acting["rotation"] + acting["location"]))
            overriding = [] if plan.location_only else obj.overriding_constraints(ik_cache)
            if overriding:
                kinds = ", ".join(f"\"{name}\"" for name in overriding)
                warnings.append(BakeIssue(
                    'WARNING', obj.name, "", None,
                    f"{animdata.subject(obj)}: constraints ({kinds}) set its rotation at "
                    "full influence, whatever its keys, so neither the keys before this bake "
                    "nor the baked ones play: the bake changes nothing seen (mute the "
                    "constraint, or lower its influence, to see the keys).", obj.bone_name))
            elif names:
                kinds = ", ".join(f"\"{name}\"" for name in names)
                what = " and ".join(k for k, found in acting.items() if found)
                warnings.append(BakeIssue(
                    'WARNING', obj.name, "", None,
                    f"{animdata.subject(obj)} is moved by constraints ({kinds}); QuatBake "
                    "baked its keys only, so the constraints still act on top of the baked "
                    f"{what}.", obj.bone_name))
            following = [] if plan.location_only else \
                obj.mode_following_constraints(plan.out_mode)
            if following:
                kinds = ", ".join(f"\"{name}\"" for name in following)
                n = len(following)
                it, its = either(n, "it", "they"), either(n, "its", "their")
                warnings.append(BakeIssue(
                    'WARNING', obj.name, "", None,
                    f"{animdata.subject(obj)}: {either(n, 'constraint', 'constraints')} {kinds} "
                    f"{either(n, 'takes', 'take')} {its} Euler order from the rotation mode "
                    f"(Euler Order: Default), which goes from {_order(obj.rotation_mode)} "
                    f"to {_order(plan.out_mode)}: {it} now {either(n, 'acts', 'act')} on other "
                    f"angles and {either(n, 'moves', 'move')} it otherwise. Set {its} Euler "
                    f"Order to {euler_order_of(obj.rotation_mode)} to keep what {it} did.",
                    obj.bone_name))
        if progress is not None:
            progress(k + 1, total)
    if cached:
        try:
            cache_plans, cache_issues = cache_bake.plan_caches(cached, settings)
        except Exception as exc:   # not foreseen: one sentence, never a traceback
            cache_plans = []
            cache_issues = [unexpected_issue(t, "reading its Transform Cache", exc)
                            for t in cached]
        errors += [i for i in cache_issues if i.severity == 'ERROR']
        warnings += [i for i in cache_issues if i.severity == 'WARNING']
        notes += [i for i in cache_issues if i.severity == 'INFO']
        order = {t.key: i for i, t in enumerate(transforms)}
        plans = sorted(plans + cache_plans, key=lambda p: order.get(p.obj.key, 0))
    found, failed = _interpolate_pending(plans)
    warnings += found
    errors += failed
    # A bone renamed since its bake: its armature's record would break, so none of the
    # armature's transforms is written.
    refused_owners = set()
    for owner, _items in _by_owner(p.obj for p in plans).values():
        said = renamed_bone_issues(owner)
        if said:
            errors += said
            refused_owners.add(owner.name)
    plans = _without(plans, errors, refused_owners)
    if has_tolerance(settings):
        warnings += _each_refusal_apart(lambda ps: reduce_keys(ps, settings), plans, errors)
        plans = _without(plans, errors)
    # The largest difference from Blender's own playback, at the baked frames: every plan
    # in one evaluation (a rig's bones keyed on the same frames share one solve). After
    # the keys are thinned: those plans' keys are measured once written (written_change).
    _each_refusal_apart(lambda ps: set_deviations(ps, fcurve_cache.get("keys")) or [],
                        plans, errors)
    plans = _without(plans, errors)
    if not plans:
        raise BakeError(_nothing_baked(skipped, verb(settings), errors))
    # What was read but is not baked (broken input; a refused armature's every bone): no
    # note or warning speaks of it, and the count of what was left names each.
    attempted = [r.obj for r in readings] + list(cached)
    baked = {p.obj.key for p in plans}
    broken = [t for t in attempted if t.key not in baked]
    left = {t.key for t in broken}
    warnings = _about_baked(warnings, left, baked)
    notes = _about_baked(notes, left, baked)
    # Those, and those refused as they were read (no reading).
    read_keys = {t.key for t in attempted}
    failed_transforms = list(dict.fromkeys(
        [t.display_name for t in broken]
        + [i.transform_name for i in errors
           if i.object_name and (i.object_name, i.bone) not in read_keys]))
    groups = _by_owner(p.obj for p in plans)
    for plan in plans:
        if not cache_bake.is_cache_plan(plan):
            warnings += settle_extrapolation(plan)

    owner_plans = [(owner, [p for p in plans if p.obj.owner == owner])
                   for owner, _items in groups.values()]
    done: list[WriteUndo] = []
    fake_users = FakeUsers()
    plans_written = 0
    try:
        for owner, group in owner_plans:
            if cache_bake.is_cache_plan(group[0]):
                done.append(cache_bake.write_cache_owner(owner, group, fake_users))
            else:
                done.append(write_owner(owner, group, fake_users))
            plans_written += len(group)
            if progress is not None:
                progress(len(readings) + len(cached) + plans_written, total)
    except Exception as exc:
        for undo in reversed(done):
            if isinstance(undo, cache_bake.CacheWriteUndo):
                cache_bake.undo_cache_write(undo)
            else:
                undo_write(undo)
        failed = owner_plans[len(done)][0].name
        raise BakeError([BakeIssue(
            'ERROR', failed, "", None,
            f"Writing the bake of object \"{failed}\" failed ({exc}); every object was put "
            "back as it was before the bake.")]) from exc

    # A re-bake replaced an earlier bake: drop that action unless someone else uses it, and
    # an earlier copy of the animator's changes that a new one replaced (fold_changes).
    for undo in done:
        previous = undo.owner_record["baked_action"]
        baked = undo.owner.quatbake.baked_action
        if previous is not None and previous != baked and previous.users == 0:
            animdata.remove_action(previous)
            # The record's original: a converted bake's source was ``previous`` itself.
            # None: a cache bake of an unkeyed object.
            rec = undo.owner.quatbake
            if rec.original_action is not None:   # free again: drop ".001"
                baked.name = (rec.edited_from or rec.original_action.name) + BAKED_SUFFIX
        # After the earlier bake is gone: an override's record kept on it names that copy.
        drop_superseded(undo.owner_record["original_action"], undo.owner.quatbake)
        if undo.folded_changes:
            notes.append(BakeIssue('INFO', undo.owner.name, "", None,
                                   fold_note(undo.owner, undo.folded_changes)))

    written = int(sum(p.written()[0].shape[0] for p in plans))
    # A conversion follows Blender's playback, no method: recorded as a slerp bake, its
    # report read "already baked with SLERP; lower the Key Tolerance" (a walk).
    method = PLAYBACK if settings.keep_playback else settings.method
    for p in plans:
        # How this bake was made, for the Difference Report's verdict and advice.
        record.note_bake(p.obj, method, getattr(p, "tolerance_deg", 0.0),
                         int(p.written()[0].shape[0]), p.checksums, path_of(settings),
                         p.source.edited)
    # A library override's record, kept on its baked action at once (addon/overrides.py).
    overrides.keep_all({p.obj.owner.name: p.obj.owner for p in plans}.values())
    notes += key_notes(plans)
    if bezier_fit(settings) and settings.frame_step > 1 and not settings.keep_playback:
        # A walk: Step 4 with Keys: Bezier wrote the keys Step 1 does, and the count line
        # read "132 dense -> 268": the fit follows the path at every quarter frame and
        # puts its keys where the path needs them, so Step does not thin them.
        notes.append(BakeIssue(
            'INFO', "", "", None,
            f"Step {settings.frame_step} does not thin Bezier keys: a Bezier tolerance bake "
            "follows the path at every quarter frame and keys it where it needs to (the "
            "dense count beside it is Step's); Keys: Linear keeps to the step frames."))
    unmet = unmet_tolerances(plans)
    warnings += unmet
    return BakeResult(
        objects=[p.obj.display_name for p in plans],
        frames_written=written,
        keys_dense=int(sum(p.frames.shape[0] for p in plans)),
        keys_written=written,
        max_deviation_deg=float(np.degrees(max((p.deviation_rad for p in plans),
                                               default=0.0))),
        warnings=merge_bone_issues(warnings),
        notes=notes,
        # Keyed by display name: a rig's bones each get their own line ("Rig: spine").
        frames_per_object={p.obj.display_name: int(p.frames.shape[0]) for p in plans},
        deviation_per_object={p.obj.display_name: float(np.degrees(p.deviation_rad))
                              for p in plans},
        keys_per_object={p.obj.display_name: int(p.written()[0].shape[0]) for p in plans},
        key_statistics={p.obj.display_name: p.key_stats for p in plans
                        if p.key_stats is not None},
        skipped=skipped,
        failed=errors,
        failed_transforms=failed_transforms,
        tolerances=applied_tolerances(plans),
        tolerances_met=not unmet,
        rotations_written=sum(not p.location_only for p in plans),
    )


# Bones named one by one in a Revert's notes; more are one sentence for their armature.
MAX_BONES_NAMED = 3


# The method a conversion's record names (Convert Rotation Mode keeps what Blender played).
PLAYBACK = "playback"


def _edits_reverted(owner, whole: bool, names: set) -> list[str]:
    """A sentence for each transform of ``owner`` a Revert puts back (the owner itself when
    ``whole``, and its baked bones ``names``) whose baked keys were changed since the bake:
    the keys before the bake come back without those changes, as a Re-bake says of its
    own (a walk: a baked key moved 10 deg, then Revert said only "Reverted 1 object")."""
    transforms = [AnimatedTransform(owner, n) for n in sorted(names)]
    if whole and not owner.quatbake.bones_only:
        transforms.insert(0, AnimatedTransform(owner))
    edited = [(t, path) for t in transforms
              if (path := record.edited_since_bake(t)) is not None]
    rec = owner.quatbake
    back = ("the Transform Cache's playback" if rec.cache_constraint else
            "the clip as its strip plays it" if rec.clip_baked else
            "the keys from before the bake")
    then = f"Revert put back {back}, without those changes (Ctrl+Z brings them back)."
    bones = [t for t, _path in edited if t.bone_name]
    if len(bones) > MAX_BONES_NAMED:
        # A rig's many bones in one sentence, not one each.
        names = animdata.first_of([f"\"{t.bone_name}\"" for t in bones], MAX_BONES_NAMED)
        edited = [(t, p) for t, p in edited if not t.bone_name]
        return [f"{animdata.subject(t)}: its baked {p} keys were changed since the bake. {then}"
                for t, p in edited] + [
            f"Armature \"{owner.name}\": the baked keys of {len(bones)} bones ({names}) were "
            f"changed since the bake. {then}"]
    return [f"{animdata.subject(t)}: its baked {path} keys were changed since the bake. {then}"
            for t, path in edited]


def _why_not_revertable(items) -> str:
    """Why a bake of ``items`` cannot be reverted, where one shows: the animator made
    another action active by hand (a game-rig walk: Revert said only that it could not,
    and the bake's action, which nothing used any more, was not named), the original
    action was deleted since (a review: "never baked, or reverted already" for an object
    playing its bake). "" when none shows a bake."""
    for item in items:
        owner = getattr(item, "owner", item)
        rec = getattr(owner, "quatbake", None)
        baked = getattr(rec, "baked_action", None)
        playing = animdata.get_action(owner)
        if baked is not None and playing != baked:
            now = f"\"{playing.name}\"" if playing is not None else "no action"
            return (f"\"{owner.name}\" plays {now}, not its bake \"{baked.name}\". Make "
                    f"\"{baked.name}\" its active action again (Action editor) to revert it.")
        if baked is not None and rec.original_action is None and not rec.cache_constraint:
            return (f"\"{owner.name}\" plays its bake \"{baked.name}\", but the action from "
                    "before it was deleted since, so there is nothing to put back; the bake "
                    "stays.")
    return ""


def revert_objects(objects, notes: list | None = None,
                   left_baked: list | None = None) -> list[str]:
    """Undo QuatBake's bake of ``objects``: objects (the whole bake: an armature's bones
    too) and/or pose-bone transforms (only those bones; the armature's other baked bones
    stay baked).

    A whole revert puts back the original action (and slot, rotation mode) and
    the static rotation values (and location, if baked) from before the first
    bake. Items without a bake are skipped. An owner whose bake cannot be reverted (a
    baked bone renamed since, a cache bake's constraint gone) is left as it is, its
    sentences appended to ``notes`` (first) and the names it leaves baked to
    ``left_baked`` ("Rig: spine", as the names returned), and the others are reverted;
    raises BakeError (nothing changed) when none can be. The
    baked action is deleted unless something else uses it. Keys the animator added or
    changed on other channels since the bake are kept (write.revert_owner_fully says
    how, in a sentence appended to ``notes``); changes to the baked keys themselves go
    with the bake, also said in ``notes``. Returns the names reverted ("Cube",
    "Rig: spine").
    """
    items = _unique(objects)
    candidates = []
    for owner, group in _by_owner(items).values():
        if not can_revert(owner):
            continue
        whole = any(not getattr(i, "bone_name", "") for i in group)
        baked = {b.name for b in baked_bones(owner)}
        names = baked if whole else {i.bone_name for i in group} & baked
        if whole or names:
            candidates.append((owner, whole, names))
    if not candidates:
        shown = [getattr(o, "display_name", None) or o.name for o in items]
        names = ", ".join(f"\"{n}\"" for n in shown[:3])
        kind = "bone" if items and all(getattr(i, "bone_name", "") for i in items) \
            else "object"
        subject = f"{kind} {names} shows" if len(items) == 1 else \
            (f"{kind}s {names}" + (" ..." if len(items) > 3 else "") + " show" if items
             else "selection shows")
        raise BakeError([BakeIssue(
            'ERROR', items[0].name if len(items) == 1 else "", "", None,
            "Nothing to revert: " + (_why_not_revertable(items) or (
                f"the {subject} no QuatBake bake (never baked, or reverted already). Select "
                "what QuatBake baked.")))])
    # An owner that cannot be reverted (a bone renamed since, its cache constraint gone)
    # is left as it is; the others are reverted (one's problem never stops the others).
    refused = {owner.name: said for owner, _w, _n in candidates
               if (said := renamed_bone_issues(owner) + cache_bake.constraint_gone_issues(owner))}
    if len(refused) == len(candidates):
        raise BakeError([i for said in refused.values() for i in said])
    if notes is not None:
        notes += [i.message for said in refused.values() for i in said]
    if left_baked is not None:
        left_baked += [name for owner, whole, names in candidates if owner.name in refused
                       for name in _revert_names(owner, whole, names)]
    candidates = [c for c in candidates if c[0].name not in refused]
    reverted = []
    originals = recorded_originals()
    for obj, whole, names in candidates:
        if notes is not None:
            notes += _edits_reverted(obj, whole, names)
        rec = obj.quatbake
        remaining = (set(b.name for b in baked_bones(obj)) - names) or \
            (not whole and not rec.bones_only)
        if whole or not remaining:
            if not rec.bones_only:
                reverted.append(obj.name)
            if rec.cache_constraint:
                said = lost_on_revert(obj)
                if said and notes is not None:
                    notes.append(said)
                cache_bake.revert_cache(obj, originals)
            else:
                said = revert_owner_fully(obj, originals)
                if said and notes is not None:
                    notes.append(said)
        else:
            revert_bones(obj, names)
        reverted += [f"{obj.name}: {n}" for n in sorted(names)]
    return reverted


def _revert_names(owner, whole: bool, bones: set) -> list[str]:
    """What was asked of ``owner``, named as revert_objects names what it reverts: the
    object itself when asked whole (unless its bake is of bones only), then each of
    ``bones``."""
    itself = [owner.name] if whole and not owner.quatbake.bones_only else []
    return itself + [f"{owner.name}: {n}" for n in sorted(bones)]
