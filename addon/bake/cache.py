# SPDX-License-Identifier: GPL-3.0-or-later
"""A bake of a Transform Cache (USD and Alembic imports): the cache turned into keys.

A camera from another program arrives as a Transform Cache constraint and no keys,
so a layout artist cannot edit it. The bake reads what the cache plays at its
samples (``animdata.cache``: the file's sample times, Blender's playback with
``frame_set``), takes the object's own rotation and location there (its parent
and delta transforms taken off), interpolates them with the bake's method as any
bake interpolates keys (the bake's frames, step, range, turns and timing;
location linear unless the settings ask for Catmull-Rom or constant speed), and
writes them into a new action. The constraint is muted, not removed; the record
(``obj.quatbake.cache_constraint``, record.py) lets revert enable it again and put
back the action the object had (maybe none). Undo works as for any bake.

The engine hands the transforms a cache moves to :func:`plan_caches` instead of
``read_transform`` / ``plan_reading``; the plans are ``plan.Plan`` values, so the
deviation figure, fewer keys within a tolerance and the all-or-nothing write go
through the same steps as every other plan (:func:`write_cache_owner`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core import path, quat, rotation, turn_interp, turns
from ...core.words import Phrase
from .. import animdata
from ..animdata import cache as anim_cache
from ..record import (
    cache_baked,
    clear_record,
    get_record,
    new_record,
    original_slot,
    record_of,
    restore_rotation_props,
    set_record,
    set_rotation_mode,
)
from .plan import Plan, angle_warnings, beyond_range
from .read import Source, bake_frames
from .reduce import fixed_frames
from .settings import (
    BAKED_SUFFIX,
    LOCATION_FLOAT32_WARN,
    BakeIssue,
    BakeSettings,
    bezier_fit,
    farthest_from_gimbal,
    path_samples,
)
from .turns import too_fast_for_step
from .write import (
    WriteUndo,
    compose_action,
    others_signature,
    transform_state,
    undo_write,
    write_plan,
)

# What turns too fast for the Step (turns.too_fast_for_step's ``what``): a cache's samples.
CACHE_TURNS = "its Transform Cache between samples {} and {} turns"

# The cache's scale may differ from the object's own by this much (relative) at a
# sample: float32 matrices written by other programs (0.99999994 for 1).
SCALE_TOLERANCE = 1e-4


def is_cache_transform(obj) -> bool:
    """Whether the bake of ``obj`` goes through here: an object a Transform Cache moves,
    or one that plays a bake of its cache (refused: revert it first)."""
    if getattr(obj, "bone_name", ""):
        return False
    return anim_cache.plays_cache(obj) or bool(cache_baked(obj))


def split(transforms) -> tuple[list, list]:
    """(transforms a cache moves, the others), each in the order given."""
    cached = [t for t in transforms if is_cache_transform(t)]
    return cached, [t for t in transforms if not is_cache_transform(t)]


def is_cache_plan(plan) -> bool:
    return bool(getattr(plan, "cache_constraint", ""))


@dataclass
class _Checked:
    obj: object
    con: object
    samples: anim_cache.CacheSamples
    src: Source
    frames: np.ndarray       # the bake's frames
    times: np.ndarray        # where Blender's playback is read (samples, frames, quarters)


def _check(obj, settings: BakeSettings) -> tuple[_Checked | None, list[BakeIssue]]:
    """The checks before anything is read (one sentence each, in the order a user would
    fix things); None and the sentence when one refuses."""
    from ..analyze.cache import compared_frames, playback_cap
    from ..keyed import span_too_long

    who = animdata.subject(obj)
    name = obj.name

    def refused(message):
        return None, [BakeIssue('ERROR', name, "", None, message)]

    if record_of(obj) is None:
        return refused("QuatBake is not registered, so it cannot record what it bakes. Enable "
                       "the add-on first.")
    baked = cache_baked(obj)
    if baked:
        return refused(f"{who} already plays a QuatBake bake of its Transform Cache \"{baked}\" "
                       "(muted by that bake). Revert it first, then bake again.")
    con = anim_cache.playing_cache(obj)
    if animdata.linked_sentence(obj):
        return refused(animdata.linked_sentence(obj))
    if settings.clip:
        return refused(f"{who} is moved by its Transform Cache \"{con.name}\", not by a clip; "
                       "bake it without naming a clip.")
    rec = record_of(obj)
    if rec.baked_action is not None and animdata.get_action(obj) == rec.baked_action:
        return refused(f"{who} plays a QuatBake bake of its keys, which its Transform Cache "
                       f"\"{con.name}\" overrides. Revert that bake first, then bake the cache.")
    tweak, _strips = animdata.nla_state(obj)
    if tweak:
        return refused(f"{who} is in NLA tweak mode. Leave tweak mode (Tab in the NLA editor) "
                       "first.")
    if con.influence < 1.0:
        return refused(f"{who}: its Transform Cache \"{con.name}\" has influence "
                       f"{con.influence:g}, so what plays is a blend with the object's own "
                       "transform. Set its influence to 1, then bake.")
    later = anim_cache.constraints_after(obj, con)
    if later:
        names = ", ".join(f"\"{c.name}\"" for c in later)
        which = "constraints" if len(later) > 1 else "constraint"
        acts = "act" if len(later) > 1 else "acts"
        return refused(f"{who}: {which} {names} {acts} after its Transform Cache "
                       f"\"{con.name}\"; QuatBake bakes the cache alone, so "
                       f"{'they' if len(later) > 1 else 'it'} would act twice. Mute or apply "
                       f"{'them' if len(later) > 1 else 'it'} first, then bake.")
    try:
        samples = anim_cache.sample_frames(obj, con)
    except anim_cache.CacheError as exc:
        return refused(str(exc))
    keys = samples.frames
    if keys.size < 2:
        # (A walk read "a single sample (one sample)": the file's own count says no more.)
        reason = f" ({samples.how})" if samples.how != "file" else ""
        return refused(f"{who}: its Transform Cache \"{con.name}\" has a single sample"
                       f"{reason}: there is nothing to interpolate or bake.")
    paths = {animdata.ROTATION_PATHS[obj.rotation_mode][0], "location"}
    if settings.output_mode != 'KEEP':
        paths.add("rotation_quaternion")
    for label in animdata.driver_channels(obj, paths):
        return refused(f"{who}: channel {label} has a driver, which overrides any keys "
                       "QuatBake writes. Remove the driver (or bake it to keys) first.")
    for track, strip, action, channels in animdata.blending_strips(obj, paths):
        return refused(f"{who}: NLA track \"{track}\", strip \"{strip}\" (action \"{action}\") "
                       f"is not muted and animates {', '.join(channels)}, which would blend "
                       "with the baked keys. Mute that track first.")
    action = animdata.get_action(obj)
    slot = animdata.get_slot_identifier(obj)
    if action is not None and animdata.is_read_only(action):
        return refused(f"{who}: its action \"{action.name}\" is linked from a library or "
                       "overridden, so the bake cannot copy it. Make the action local first.")
    if action is not None and animdata.slot_missing(action, slot):
        return refused(f"{who}: its action \"{action.name}\" has no slot assigned to this "
                       "object. Pick the object's slot in the Action editor, then bake.")
    if settings.frame_range is not None:
        start, end = (float(v) for v in settings.frame_range)
    else:
        start, end = float(keys[0]), float(keys[-1])
    message = span_too_long(who, start, end, settings.frame_step)
    if message:
        return refused(message)
    frames = bake_frames(start, end, int(settings.frame_step), keys)
    times = np.union1d(compared_frames(keys), frames)
    message = playback_cap(who, min(start, keys[0]), max(end, keys[-1]), times.size)
    if message:
        return refused(message)
    src = Source(action, slot, obj.rotation_mode, False)
    warnings = []
    if samples.how != "file":
        # A walk: a 40-frame binary USD camera in a 20-frame scene baked 20 keys and said
        # "0.000 deg"; frames 21-40 then played 129 deg off.
        warnings.append(BakeIssue(
            'WARNING', name, "", None,
            f"{who}: {samples.how}. The bake keys those frames only: set the scene's frame "
            "range to the file's first, or what the cache plays beyond it is lost."))
    left = keys[(keys < start) | (keys > end)]
    if left.size:
        # As for keys (read._say_keys_left_out): a walk found a cache's samples dropped
        # by a Custom Range without a word.
        warnings.append(BakeIssue(
            'WARNING', name, "", float(left[0]),
            f"{who}: the Custom Range {animdata.frame_span(start, end)} leaves out "
            f"{left.size} of its Transform Cache's {keys.size} samples; the bake holds frame "
            f"{animdata.frame_label(start)}'s pose before the range and frame "
            f"{animdata.frame_label(end)}'s after it. Widen the range to keep them (Revert "
            "brings the cache back)."))
    return _Checked(obj, con, samples, src, frames, times), warnings


def _local(obj, world: np.ndarray, parent: np.ndarray, times: np.ndarray, mode: str):
    """(rotation-channel quats (n, 4), location channel values (n, 3), scale (n, 3)) that
    make ``obj`` play the world matrices ``world`` (n, 4, 4) under ``parent`` (n, 4, 4):
    Blender composes parent @ (T(location + delta) R(delta @ rotation) S(scale))."""
    basis = np.linalg.inv(parent) @ world
    scale = np.linalg.norm(basis[:, :3, :3], axis=1)
    q = anim_cache.matrices_to_quats(basis, animdata.subject(obj))
    delta = animdata.evaluate_delta_rotation(obj, times, mode)
    q = quat.make_continuous(quat.multiply(quat.conjugate(delta), q))
    dloc = animdata.evaluate_channels_exact(animdata.delta_location_fcurves(obj),
                                            np.array(obj.delta_location, dtype=np.float64), times)
    return q, basis[:, :3, 3] - dloc, scale


def _output_mode(obj, mode: str, played, settings: BakeSettings) -> tuple:
    """The mode the cache's keys are written in, as for keyed transforms
    (settings.output_mode_for): its own, the one asked for, or for AUTO the Euler order
    farthest from gimbal lock over Blender's playback of the cache (``played``, (n, 4))."""
    if settings.output_mode == 'KEEP':
        return mode, None
    if settings.output_mode != 'AUTO':
        return settings.output_mode, None
    return farthest_from_gimbal(obj, played, mode)


def _plan_one(checked: _Checked, world, parent, settings: BakeSettings,
              played) -> tuple[Plan | None, list[BakeIssue]]:
    obj, con, src = checked.obj, checked.con, checked.src
    who, name = animdata.subject(obj), obj.name
    keys, frames, times = checked.samples.frames, checked.frames, checked.times
    mode = src.mode
    issues: list[BakeIssue] = []
    try:
        local_q, local_loc, scale = _local(obj, world, parent, times, mode)
        own_scale = np.array(obj.scale, dtype=np.float64) * np.array(obj.delta_scale)
        off = np.abs(scale - own_scale).max(axis=1) / np.maximum(np.abs(own_scale).max(), 1e-12)
        if (off > SCALE_TOLERANCE).any():
            at = float(times[int(np.argmax(off))])
            return None, [BakeIssue(
                'ERROR', name, "scale", at,
                f"{who}: its Transform Cache \"{con.name}\" scales it (frame "
                f"{animdata.frame_label(at)}: {tuple(round(float(v), 4) for v in scale[np.argmax(off)])}"
                f", the object's scale is {tuple(round(float(v), 4) for v in own_scale)}); "
                "QuatBake bakes rotation and location only. Set the object's scale to the "
                "cache's, or apply the scale in the program that wrote the file.")]
        # Blender's playback sampled more densely wherever it turns far between two times.
        dense_t, dense_q = anim_cache.refined_times(times, local_q, played)
        at_keys = np.searchsorted(times, keys)
        at_frames = np.searchsorted(times, frames)
        key_q = local_q[at_keys]
        dense_raw = rotation.quat_to_mode_values_continuous(dense_q, mode)
        key_raw = dense_raw[np.searchsorted(dense_t, keys)]
        tracking = turns.track(keys, key_q, dense_t, dense_q)
        kinds = turns.classify(mode, key_raw, tracking.differs, None)
        key_loc = local_loc[at_keys]
        loc_method = 'linear' if settings.location_method == 'KEEP' else \
            settings.location_method.lower()
        # A Bezier tolerance bake computes the path at every quarter frame too, where it
        # checks Blender's playback of its keys (settings.path_samples).
        samples = path_samples(frames, settings)
        sample_times = samples
        if settings.constant_speed:
            sample_times = path.constant_speed_times(keys, key_loc, samples, loc_method)
        at = np.searchsorted(samples, frames)
        location_values = path.interpolate_positions(keys, key_loc, sample_times[at],
                                                     loc_method)
        method = settings.method.lower()
        if settings.keep_playback:
            # A conversion keeps what Blender plays between the samples too: a USD camera's
            # Euler angles interpolated one by one (a walk: slerped, its conversion played
            # 24.7 deg off at frame 21.5 while it said 0.01).
            path_q = played(sample_times)
        else:
            path_q = turn_interp.interpolate_keys(keys, key_q, tracking, kinds, settings.turns,
                                                  method, sample_times, settings.timing, None)
        out_mode, note = _output_mode(obj, mode, dense_q, settings)
        if note is not None:
            issues.append(note)
        path_values = rotation.quat_to_mode_values_continuous(path_q, out_mode)
        quats, values = path_q[at], path_values[at]
    except (anim_cache.CacheError, ValueError) as exc:
        return None, [BakeIssue('ERROR', name, "", None,
                                f"{who}: its Transform Cache cannot be baked ({exc}).")]
    rot_path = animdata.ROTATION_PATHS[mode][0]
    out_path = animdata.ROTATION_PATHS[out_mode][0]
    issues += angle_warnings(obj, out_mode, out_path, values)
    big = float(np.abs(location_values).max())
    if big > LOCATION_FLOAT32_WARN:
        issues.append(BakeIssue(
            'WARNING', name, "location", None,
            f"{who}: location reaches {big:.3g} units, where Blender's float32 keys are only "
            f"{float(np.spacing(np.float32(big))):.2g} apart; slow moves there will stutter. "
            "Move the scene closer to the origin."))
    plan = Plan(obj, src, out_mode, frames, values, location_values,
                {rot_path, out_path, "location"}, quats,
                animdata.rotation_defaults(obj, mode), [False] * len(
                    animdata.rotation_fcurves(obj, mode, [])),
                target_path=out_path, location_path="location",
                blender_quats=local_q[at_frames], source_fcurves=[])
    plan.cache_constraint = con.name
    plan.between_played = (dense_t, dense_q)
    outside = beyond_range(keys, frames)
    if outside is not None:
        # The cache's playback beyond a Custom Range, where the baked keys hold.
        found = np.searchsorted(times, outside)
        outside = outside[(found < times.size) & (times[np.minimum(found, times.size - 1)]
                                                  == outside)]
        plan.beyond = (outside, local_q[np.searchsorted(times, outside)])
    if bezier_fit(settings):
        # The cache's samples are its keys: on every frame a recording, thinned like any
        # (reduce.fixed_frames); sparser, the file's poses, kept.
        plan.dense = (samples, path_q, path_values)
        (plan.required_frames, plan.stepped_frames, plan.corner_frames,
         plan.recorded_frames) = fixed_frames(
            keys, np.zeros(max(keys.size - 1, 0), dtype=bool), plan.dense, settings)
    kept = turns.choose(settings.turns, kinds)
    issues += too_fast_for_step(
        who, name, "", keys, tracking, kinds, kept, frames, settings,
        lambda i: Phrase(CACHE_TURNS, animdata.frame_label(keys[i]),
                         animdata.frame_label(keys[i + 1])))
    for i in np.nonzero(np.asarray(kinds) != "short")[0]:
        what = "kept" if kept[i] else "baked the short way"
        issues.append(BakeIssue(
            'INFO', name, out_path, float(keys[i]),
            f"{who}: between cache samples {animdata.frame_label(keys[i])} and "
            f"{animdata.frame_label(keys[i + 1])} Blender's playback turns "
            f"{float(tracking.keyed_deg[i]):.1f} deg, the long way round ({what})."))
    return plan, issues


def plan_caches(transforms, settings: BakeSettings) -> tuple[list[Plan], list[BakeIssue]]:
    """The plans of the transforms a cache moves (``split``), all their playback read in
    one pass over the frames. Changes nothing (the frame is put back)."""
    checked, issues = [], []
    for obj in transforms:
        found, obj_issues = _check(obj, settings)
        issues += obj_issues
        if found is not None:
            checked.append(found)
    # One object's problem never stops the others (a review: a cache at half influence
    # left the camera beside it unbaked, and unnamed).
    errored = {i.object_name for i in issues if i.severity == 'ERROR'}
    checked = [c for c in checked if c.obj.name not in errored]
    if not checked:
        return [], issues
    times = np.unique(np.concatenate([c.times for c in checked]))
    try:
        played = anim_cache.played_matrices([c.obj for c in checked], times, with_parents=True)
    except anim_cache.CacheError:
        # Each alone, so that the error names its object and the others are baked.
        played, alone = [], []
        for c in checked:
            try:
                played += anim_cache.played_matrices([c.obj], times, with_parents=True)
                alone.append(c)
            except anim_cache.CacheError as exc:
                issues.append(BakeIssue('ERROR', c.obj.name, "", None, str(exc)))
        checked = alone
    plans = []
    for c, (world, parent) in zip(checked, played):
        rows = np.searchsorted(times, c.times)

        def more(extra, c=c):
            w, p = anim_cache.played_matrices([c.obj], extra, with_parents=True)[0]
            return _local(c.obj, w, p, extra, c.src.mode)[0]

        plan, obj_issues = _plan_one(c, world[rows], parent[rows], settings, more)
        issues += obj_issues
        if plan is not None:
            plans.append(plan)
    return plans, issues


@dataclass
class CacheWriteUndo(WriteUndo):
    constraint: str = ""


def write_cache_owner(owner, plans: list, fake_users) -> CacheWriteUndo:
    """Write the bake of ``owner``'s cache (``plans``: its one plan) into a new action, mute
    the constraint, record both. On failure put everything back, then raise."""
    if len(plans) != 1:
        raise ValueError(f"object \"{owner.name}\" has a Transform Cache bake and other "
                         "transforms (its bones) in one bake; bake them one at a time")
    plan = plans[0]
    src = plan.source
    con = anim_cache.constraint_named(owner, plan.cache_constraint)
    undo = CacheWriteUndo(owner, animdata.get_action(owner), animdata.get_slot_identifier(owner),
                          get_record(owner), [transform_state(plan.obj)], src.action,
                          src.action.use_fake_user if src.action is not None else False,
                          constraint=con.name)
    try:
        def fill(rewrite):
            # (On failure compose_action removes the new action.)
            rewrite.keep_written_selection(write_plan(rewrite.make, plan))

        if src.action is not None:
            slot = src.slot
            new = compose_action(owner, src.action, src.slot, plan.drop_paths,
                                 name=src.action.name + BAKED_SUFFIX, fill=fill)
            undo.new_action = new
        else:
            new, slot = animdata.new_action_for(owner, owner.name + BAKED_SUFFIX)
            undo.new_action = new
            write_plan(animdata.fcurve_maker(new, slot), plan)
        state = undo.states[0]
        animdata.assign_action(owner, new, slot)
        quaternion, euler, axis_angle = state.rotation_props
        delta_quaternion, delta_euler, delta_location = state.delta_props
        new_record(owner, original_action=src.action, original_slot=slot,
                   original_slot_handle=animdata.slot_handle(src.action, slot),
                   original_rotation_mode=src.mode,
                   original_fake_user=(fake_users.original(src.action)
                                       if src.action is not None else False),
                   baked_action=new, original_rotation_quaternion=quaternion,
                   original_rotation_euler=euler, original_rotation_axis_angle=axis_angle,
                   original_location=state.location, location_baked=True, static_recorded=True,
                   original_delta_rotation_quaternion=delta_quaternion,
                   original_delta_rotation_euler=delta_euler,
                   original_delta_location=delta_location, delta_recorded=True,
                   baked_paths="\n".join(sorted(plan.drop_paths)), cache_constraint=con.name)
        owner.quatbake.others_signature = others_signature(owner)
        set_rotation_mode(owner, plan.out_mode)
        if src.action is not None:
            src.action.use_fake_user = True
        con.mute = True
    except BaseException:
        undo_cache_write(undo)
        raise
    return undo


def undo_cache_write(undo: CacheWriteUndo) -> None:
    """Put the owner back as it was before ``write_cache_owner``: its action (maybe none),
    its record and values, the constraint playing, the half-made action deleted."""
    con = anim_cache.constraint_named(undo.owner, undo.constraint)
    if con is not None:
        con.mute = False
    if undo.source_action is None:
        # undo_write gives the original action its fake user back: there is none.
        animdata.assign_action(undo.owner, undo.action, undo.slot)
        for state in undo.states:
            set_rotation_mode(state.transform, state.rotation_mode)
            restore_rotation_props(state.transform, state.rotation_props)
            state.transform.location = state.location
        set_record(undo.owner, undo.owner_record)
        if undo.new_action is not None:
            animdata.remove_action(undo.new_action)
            undo.new_action = None
        _drop_empty_animation_data(undo.owner)
        return
    undo_write(undo)


def _drop_empty_animation_data(obj) -> None:
    """Remove animation data that holds nothing (the cache bake made it for its action)."""
    ad = obj.animation_data
    if ad is not None and ad.action is None and not len(ad.drivers) and not len(ad.nla_tracks):
        obj.animation_data_clear()


def baked_constraint(obj):
    """The Transform Cache constraint a cache bake of ``obj`` muted, by the name it had;
    None when none has it. Never another one taken for it renamed: two reviews found the
    user's own muted alternate take enabled and the bake deleted, whether it was muted
    before the bake or after, so a renamed one is asked back under its name."""
    return anim_cache.constraint_named(obj, obj.quatbake.cache_constraint)


def constraint_gone_issues(obj) -> list[BakeIssue]:
    """Why a cache bake of ``obj`` cannot be reverted: its constraint was deleted since (a
    walk: the Revert then deleted the bake, the camera's only animation, and said it was
    done)."""
    if not obj.quatbake.cache_constraint or baked_constraint(obj) is not None:
        return []
    return [BakeIssue(
        'ERROR', obj.name, "", None,
        f"{animdata.subject(obj)}: the Transform Cache constraint "
        f"\"{obj.quatbake.cache_constraint}\" that its bake muted is gone (deleted or "
        "renamed), so a Revert would leave it with no animation; it was left as it is. Name "
        f"it \"{obj.quatbake.cache_constraint}\" again, or bring it back (Ctrl+Z), to "
        "revert, or keep the bake.")]


def revert_cache(obj, originals) -> None:
    """Revert a cache bake: the constraint enabled again, the action from before (maybe
    none), the rotation mode, static rotation and location from before, the baked action
    deleted unless something else uses it. ``originals``: write.recorded_originals()."""
    rec = obj.quatbake
    original, baked = rec.original_action, rec.baked_action
    con = baked_constraint(obj)
    saved = (tuple(rec.original_rotation_quaternion), tuple(rec.original_rotation_euler),
             tuple(rec.original_rotation_axis_angle))
    mode, location, fake = rec.original_rotation_mode, tuple(rec.original_location), \
        rec.original_fake_user
    animdata.assign_action(obj, original, original_slot(rec))
    if mode and obj.rotation_mode != mode:
        obj.rotation_mode = mode
    restore_rotation_props(obj, saved)
    obj.location = location
    if con is not None:
        con.mute = False
    clear_record(obj.quatbake)
    if original is not None:
        originals[original.as_pointer()] -= 1
        if originals[original.as_pointer()] <= 0:
            original.use_fake_user = fake
    else:
        _drop_empty_animation_data(obj)
    if baked is not None and baked.users == 0:
        animdata.remove_action(baked)

