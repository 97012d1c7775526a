# SPDX-License-Identifier: GPL-3.0-or-later
"""Writing a bake into the file, and taking it back (step 3 of the flow in bake/engine.py).

One new action per owner (an object, or an armature with its bones: they share
one action), the records of what changed (record.py), the undo of a write
that failed, and revert (whole owners, or some of an armature's bones).
"""
from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field

import bpy

from .. import animdata
from ..record import (
    baked_slot,
    clear_record,
    delta_props,
    derived_paths,
    get_record,
    new_record,
    original_slot,
    paths_of,
    previous_slot,
    record_of,
    restore_delta_props,
    restore_rotation_props,
    rotation_props,
    set_record,
    set_rotation_mode,
)
from ..transform import AnimatedTransform, bone_path_prefix
from .reduce import measure_written
from .settings import BAKED_SUFFIX, BakeIssue


@dataclass
class _TransformState:
    transform: object
    rotation_mode: str
    rotation_props: tuple
    delta_props: tuple
    location: tuple
    record: dict                 # record.get_record: the bone's or object's



@dataclass
class WriteUndo:
    owner: object                # the object whose action the bake replaced
    action: object
    slot: str
    owner_record: dict
    states: list                 # _TransformState of each transform baked
    source_action: object
    source_fake_user: bool
    new_action: object = None
    folded: object = None        # the new original fold_changes made, removed on undo
    folded_changes: list = field(default_factory=list)   # what it kept (fold_note)
    # (bone name, record) of each bone an earlier bake the owner no longer plays rewrote,
    # cleared by this one (write_owner), put back on undo.
    abandoned: list = field(default_factory=list)


def transform_state(t) -> _TransformState:
    """What a bake changes on the bone or object ``t``, for undo_write to put back."""
    return _TransformState(t, t.rotation_mode, rotation_props(t), delta_props(t),
                           tuple(t.location), get_record(t))


def baked_bones(owner) -> list:
    """The pose bones of ``owner`` that its current bake rewrote."""
    if owner.type != 'ARMATURE' or owner.pose is None:
        return []
    return [b for b in owner.pose.bones
            if getattr(b, "quatbake", None) is not None and b.quatbake.baked]


def renamed_bone_issues(owner) -> list[BakeIssue]:
    """A bone baked under one name and renamed since: the original action still keys the old
    name, so neither a re-bake nor a revert could put its keys back."""
    rec = record_of(owner)
    if rec is None or rec.baked_action is None or animdata.get_action(owner) != rec.baked_action:
        return []
    issues = []
    for pbone in baked_bones(owner):
        old = pbone.quatbake.baked_name
        if old and old != pbone.name:
            issues.append(BakeIssue(
                'ERROR', owner.name, "", None,
                f"Armature \"{owner.name}\", bone \"{pbone.name}\" was baked as \"{old}\" and "
                f"renamed since; the original action \"{rec.original_action.name}\" still keys "
                f"\"{old}\". Rename the bone back to \"{old}\", then revert (or bake) again.",
                pbone.name))
    return issues


def compose_action(owner, base, slot: str, drop: set, original=None, restore: set = frozenset(),
                   name: str = "", restore_slot: str | None = None, fill=None):
    """A copy ``name`` of ``base`` (its slot ``slot``, which the copy keeps) without the
    channels in ``drop`` and ``restore``, and with those in ``restore`` copied from
    ``original`` (its slot ``restore_slot``, default ``slot``) where it has them, then
    ``fill(rewrite)`` where given: the bake's writing of its own channels, each curve made
    by ``rewrite.make`` (an animdata.Rewrite). A channel written again keeps its place,
    and every group its place; a channel of another rotation mode comes at the end of its
    group.

    ``base`` is the action the new one grows from: on a first bake the animator's action,
    and once the owner plays a bake, that baked action. Every channel in it but the bake's
    own is the animator's as it is now: keys added or changed after the bake (a bone keyed
    since, the scale, a location the bake kept) go on into the next bake, or back with a
    Revert, where composing from the action before the bake lost them (a walk of the
    animator's loop). ``restore``: the bake's own channels that go back to the keys before
    the bake (a Revert's; a Re-bake's that it no longer writes, such as a location baked
    before and now kept)."""
    new, _samples = animdata.copy_action_for(owner, base, slot, name, set())
    try:
        rewrite = animdata.Rewrite(new, slot, set(drop) | set(restore))
        if restore and original is not None:
            fcurves = animdata.action_fcurves(original, slot if restore_slot is None
                                              else restore_slot)
            animdata.copy_fcurves(new, slot, [fc for fc in fcurves if fc.data_path in restore],
                                  make=rewrite.restore)
        if fill is not None:
            fill(rewrite)
        rewrite.remove_unwritten()
        rewrite.select_as_before()
    except BaseException:
        animdata.remove_action(new)
        raise
    return new


def _own_paths(owner, transforms) -> set:
    """The full data paths of the channels the bake ``owner`` plays derived for
    ``transforms`` (record.derived_paths, each with its prefix)."""
    return {t.path_prefix + p for t in transforms for p in derived_paths(t)}


def _all_own_paths(owner) -> set:
    """``_own_paths`` of the owner itself and of every bone its bake rewrote."""
    return _own_paths(owner, [AnimatedTransform(owner)] + [
        AnimatedTransform(owner, b.name) for b in baked_bones(owner)])


def _measure(plan, fcurves: list) -> None:
    """``plan.key_stats``: Blender's playback of the rotation keys as stored (read back
    from ``fcurves``). Bezier keys promise the tolerance at every quarter frame: beyond
    it, raise (the write is undone)."""
    arrays = [animdata.read_keyframe_arrays(fc, animdata.KEY_FIELDS) for fc in fcurves]
    plan.key_stats = measure_written(plan, arrays)
    tolerance_deg = plan.tolerance_deg
    worst = plan.key_stats["max_deg"]
    if plan.bezier is not None and worst > tolerance_deg:
        raise ValueError(
            f"{animdata.subject(plan.obj)}: Blender's playback of the written Bezier keys is "
            f"{worst:.4g} deg from the bake at frame "
            f"{animdata.frame_label(plan.key_stats['worst_frame'])}, beyond the Key Tolerance "
            f"of {tolerance_deg:g} deg")


def _keep_modifiers(fcurves: list, kept: list) -> None:
    """The source's Stepped and Cycles F-modifiers (``kept``, in their order) put on each
    written curve: the held look and the cycling the animator played stay (the keys
    under them are the bake's)."""
    for fc in fcurves:
        for modifier in kept:
            animdata.add_modifier_copy(fc, modifier)


def write_plan(make, plan) -> list:
    """Write one plan's keys into new F-curves (``make``: animdata.fcurve_maker of the new
    action): its rotation (LINEAR, CONSTANT steps, or Bezier keys with their handles) and
    location, their checksums kept in ``plan.checksums``; the rotation keys of a plan with
    a tolerance measured as Blender stores them (``_measure``: beyond a Bezier tolerance,
    it raises). Returns the curves written with a key on every baked frame (a dense
    bake's)."""
    prefix = plan.obj.path_prefix
    group = plan.obj.bone_name or animdata.TRANSFORM_GROUP
    out_path = plan.target_path or animdata.ROTATION_PATHS[plan.out_mode][0]
    frames, rotation_values, _location, constant = plan.written()
    written = []
    stored = []     # the arrays written, curve by curve (for animdata.checksum)
    # A location bake (no rotation keys) writes no rotation channel.
    for i in range(0 if rotation_values is None else rotation_values.shape[1]):
        fc = make(prefix + out_path, i, group)
        written.append(fc)
        extrapolation = plan.extrapolation[i] if plan.extrapolation else 'CONSTANT'
        if plan.bezier is not None:
            co, left, right, ipo = plan.bezier.fcurve_arrays(i)
            # As the fit played them: its ALIGNED handles are Blender's own
            # re-alignment already, which fc.update() would move again.
            stored += animdata.write_bezier_keys(fc, co, left, right, ipo,
                                                 plan.bezier.handle_type, update=False,
                                                 extrapolation=extrapolation)
        else:
            stored += animdata.write_keys(fc, frames, rotation_values[:, i], constant=constant,
                                          extrapolation=extrapolation)
    plan.checksums = [(out_path, len(written), animdata.checksum(stored))] if written else []
    _keep_modifiers(written, plan.kept_rotation)
    loc_frames, location_values, loc_constant = plan.location_written()
    if location_values is not None:
        stored, located = [], []
        for i in range(3):
            located.append(make(prefix + plan.location_path, i, group))
            extrapolation = (plan.location_extrapolation[i] if plan.location_extrapolation
                             else 'CONSTANT')
            stored += animdata.write_keys(
                located[-1], loc_frames, location_values[:, i],
                constant=None if loc_constant is None else loc_constant[:, i],
                extrapolation=extrapolation)
        plan.checksums.append((plan.location_path, 3, animdata.checksum(stored)))
        _keep_modifiers(located, plan.kept_location)
    if plan.tolerance_deg > 0.0 and written:   # a location bake writes no rotation
        _measure(plan, written)
    # A bake with no Key Tolerance keys every frame it bakes (a review: judged by the
    # curve, a conversion of keys on frames 1, 2 and 3 was taken for one).
    dense = written if plan.tolerance_deg <= 0.0 else []
    if location_values is not None and len(loc_frames) == len(plan.frames):
        dense = dense + located
    return dense


def write_owner(owner, plans: list, fake_users: "FakeUsers") -> WriteUndo:
    """Give ``owner`` one baked action holding every plan's channels (all of an armature's
    bones live in one action). The keys of a plan with a tolerance are measured
    (``plan.key_stats``). On failure put everything back, then raise."""
    src = plans[0].source
    undo = WriteUndo(owner, animdata.get_action(owner), animdata.get_slot_identifier(owner),
                     get_record(owner), [transform_state(p.obj) for p in plans], src.action,
                     src.action.use_fake_user)
    try:
        drop = set()
        for plan in plans:
            drop |= {plan.obj.path_prefix + p for p in plan.drop_paths}
        # Named after the animator's action, also when converting a bake (not
        # "Action.quatbake.quatbake").
        named = (src.original if src.playing else src.action).name
        fresh_signature = True
        if src.rebake:
            fresh_signature = _nothing_left_to_find(owner)
            # Before this bake makes more channels its own (a conversion of a bone the
            # bake left out): what the animator changed goes into the original first.
            undo.folded_changes = fold_changes(owner)
            if undo.folded_changes:
                undo.folded = owner.quatbake.original_action
                fresh_signature = True
            named = owner.quatbake.edited_from or named
        if not src.rebake:
            # A first bake, or one after the animator made another action active by hand:
            # an earlier bake's bone records (the bones it rewrote, their modes before) are
            # no longer what plays. Kept, a Revert after this bake took those bones back
            # too (a walk: Spine, baked in Walk and not keyed in Run, was set back to
            # Quaternion by the Revert of a Run conversion, 80 deg off).
            for bone in baked_bones(owner):
                undo.abandoned.append((bone.name, get_record(bone)))
                clear_record(bone.quatbake)
        slot = src.slot
        if src.rebake and not src.playing:
            # Grown from the bake playing, under the slot the owner plays it with (renamed
            # since, maybe): the bake's own channels of these transforms go (the new bake
            # writes them, or they go back to the keys before it).
            own = _own_paths(owner, [p.obj for p in plans])
            slot = baked_slot(owner)
            base, original, restore = undo.action, owner.quatbake.original_action, own - drop
            restore_slot = original_slot(owner.quatbake)
        else:
            base, original, restore, restore_slot = src.action, None, set(), None

        def fill(rewrite):
            # (On failure compose_action removes the new action.)
            for plan in plans:
                rewrite.keep_written_selection(write_plan(rewrite.make, plan))

        new = compose_action(owner, base, slot, drop, original, restore, named + BAKED_SUFFIX,
                             restore_slot, fill=fill)
        undo.new_action = new
        animdata.assign_action(owner, new, slot)
        rec = owner.quatbake
        if not src.rebake:
            # The action-level record, and the object's static values before this (first)
            # bake, which Blender overwrites with baked values once it evaluates the bake.
            object_state = next((st for st in undo.states if not st.transform.bone_name), None)
            props = object_state.rotation_props if object_state else rotation_props(owner)
            deltas = object_state.delta_props if object_state else delta_props(owner)
            new_record(owner, original_action=src.action, original_slot=src.slot,
                       original_slot_handle=animdata.slot_handle(src.action, src.slot),
                       original_rotation_mode=src.mode if object_state else owner.rotation_mode,
                       original_fake_user=fake_users.original(src.action),
                       original_rotation_quaternion=props[0], original_rotation_euler=props[1],
                       original_rotation_axis_angle=props[2],
                       original_location=tuple(owner.location), static_recorded=True,
                       original_delta_rotation_quaternion=deltas[0],
                       original_delta_rotation_euler=deltas[1],
                       original_delta_location=deltas[2], delta_recorded=True,
                       clip_baked=src.clip, previous_action=undo.action if src.clip else None,
                       previous_slot=undo.slot if src.clip else "",
                       previous_slot_handle=(animdata.slot_handle(undo.action, undo.slot)
                                             if src.clip else -1),
                       bones_only=object_state is None)
        for plan, state in zip(plans, undo.states):
            t = plan.obj
            set_rotation_mode(t, plan.out_mode)
            t_rec = t.quatbake
            if t.bone_name:
                if not t_rec.baked:
                    t_rec.baked = True
                    t_rec.original_rotation_mode = plan.source.mode
                    (t_rec.original_rotation_quaternion, t_rec.original_rotation_euler,
                     t_rec.original_rotation_axis_angle) = state.rotation_props
                t_rec.baked_name = t.bone_name
            elif src.rebake and rec.bones_only:
                # The armature's own channels, baked after some of its bones.
                rec.original_rotation_mode = plan.source.mode
                (rec.original_rotation_quaternion, rec.original_rotation_euler,
                 rec.original_rotation_axis_angle) = state.rotation_props
                rec.bones_only = False
            if (plan.location_values is not None or src.clip) and not t_rec.location_baked:
                # The first bake that writes location: its static value is the original's.
                # A clip bake too: the clip's location keys start to play with it (a glTF
                # root bone's), and revert, putting back the action before, restores it.
                t_rec.original_location = state.location
                t_rec.location_baked = True
            # A conversion of a bake replaces some of that bake's channels: the paths of
            # both stay listed as the bake's own (record.derived_paths), so a later bake
            # or a Revert takes them all back from the original (the bake's location too).
            paths = set(plan.drop_paths) | (set(paths_of(t_rec.baked_paths))
                                             if src.playing else set())
            t_rec.baked_paths = "\n".join(sorted(paths))
        rec.baked_action = new
        if fresh_signature:
            rec.others_signature = others_signature(owner)
        if not src.playing:     # the original, kept for Revert (not a bake converted)
            rec.original_action.use_fake_user = True
    except BaseException:
        undo_write(undo)
        raise
    return undo


def undo_write(undo: WriteUndo) -> None:
    """Put one owner back as it was before ``write_owner`` and delete the half-made action."""
    animdata.assign_action(undo.owner, undo.action, undo.slot)
    for state in reversed(undo.states):
        t = state.transform
        if t.rotation_mode != state.rotation_mode:
            t.rotation_mode = state.rotation_mode
        restore_rotation_props(t, state.rotation_props)
        restore_delta_props(t, state.delta_props)
        set_record(t, state.record)
    set_record(undo.owner, undo.owner_record)
    for name, record in undo.abandoned:
        set_record(undo.owner.pose.bones[name], record)
    undo.source_action.use_fake_user = undo.source_fake_user
    if undo.folded is not None:
        animdata.remove_action(undo.folded)
        undo.folded = None
    if undo.new_action is not None:
        animdata.remove_action(undo.new_action)
        undo.new_action = None


def _restore_bone(owner, pbone) -> None:
    """Put a baked bone's rotation mode and static values back and clear its record."""
    t = AnimatedTransform(owner, pbone.name)
    brec = pbone.quatbake
    saved = (tuple(brec.original_rotation_quaternion), tuple(brec.original_rotation_euler),
             tuple(brec.original_rotation_axis_angle))
    if brec.original_rotation_mode and t.rotation_mode != brec.original_rotation_mode:
        t.rotation_mode = brec.original_rotation_mode
    restore_rotation_props(t, saved)
    if brec.location_baked:
        t.location = tuple(brec.original_location)
    clear_record(brec)


def revert_owner_fully(obj, originals: Counter) -> str:
    """Put back the owner's original action, its static values and every baked bone's.

    Where the animator keyed or changed other channels in the baked action since the bake
    (the scale, a bone the bake left out), those are kept (fold_changes): the owner then
    plays a copy of their action with the changes, which a sentence returned says ("" when
    the original is the animator's own action)."""
    rec = obj.quatbake
    before = rec.original_action
    said = lost_on_revert(obj)
    fold_changes(obj)
    drop_superseded(before, rec)
    if rec.edited_from and not said:
        said = (f"{obj.name}: the keys added or changed since the bake are kept: it now plays "
                f"\"{rec.original_action.name}\" (\"{rec.edited_from}\" with those changes); "
                f"\"{rec.edited_from}\" stays as it was before the bake.")
    original, baked = rec.original_action, rec.baked_action
    slot, mode, fake = original_slot(rec), rec.original_rotation_mode, rec.original_fake_user
    # The static values before the first bake: once Blender has evaluated the
    # bake it has written baked values into them, and the ones the original
    # action does not animate (rotation_quaternion of an Euler object baked
    # to QUATERNION) would keep those. A record from an older QuatBake has
    # none: keep the current values (and stop the mode switch converting them).
    saved = rotation_props(obj)
    if rec.static_recorded:
        saved = (tuple(rec.original_rotation_quaternion), tuple(rec.original_rotation_euler),
                 tuple(rec.original_rotation_axis_angle))
    location = tuple(rec.original_location) if rec.location_baked else None
    deltas = None
    if rec.delta_recorded:
        deltas = (tuple(rec.original_delta_rotation_quaternion),
                  tuple(rec.original_delta_rotation_euler), tuple(rec.original_delta_location))
    bones = baked_bones(obj)
    if rec.clip_baked:
        # A clip bake made the baked clip the active action: put back what was
        # active before (possibly nothing); the clip stays where it was, in the NLA.
        animdata.assign_action(obj, rec.previous_action, previous_slot(rec))
    else:
        animdata.assign_action(obj, original, slot)
    if not rec.bones_only:
        if mode and obj.rotation_mode != mode:
            obj.rotation_mode = mode
        restore_rotation_props(obj, saved)
        if deltas is not None:
            restore_delta_props(obj, deltas)
        if location is not None:
            obj.location = location
    for pbone in bones:
        _restore_bone(obj, pbone)
    clear_record(obj.quatbake)
    originals[original.as_pointer()] -= 1
    if originals[original.as_pointer()] <= 0:   # no other bake keeps it as its original
        original.use_fake_user = fake
    if baked.users == 0:
        animdata.remove_action(baked)
    return said


def lost_on_revert(owner) -> str:
    """A sentence naming what the animator keyed, changed or deleted in the baked action
    since a clip bake or a Transform Cache bake of ``owner`` (which Revert takes away with
    that action: it puts back what played before, not an action of the animator's to
    keep the changes in), or ""."""
    rec = owner.quatbake
    baked = rec.baked_action
    if baked is None or not (rec.clip_baked or rec.cache_constraint) \
            or animdata.get_action(owner) != baked or _untouched_since_bake(owner):
        return ""
    changed = _animator_changes(rec.original_action, baked, original_slot(rec),
                                _all_own_paths(owner), baked_slot(owner))
    if not changed:
        return ""
    kind = "clip" if rec.clip_baked else "Transform Cache"
    return (f"{owner.name}: what was keyed, changed or deleted in the baked action since the "
            f"{kind} bake ({animdata.first_of(changed, 4)}) went with it: Revert puts back "
            "what played before the bake. Ctrl+Z brings it back.")


# The original a bake keeps once the animator keyed or changed channels in the baked
# action: named after their action, so.
EDITED_SUFFIX = ".edited"


def fold_changes(owner) -> list[str]:
    """Keep what the animator keyed or changed since the bake, in the baked action that
    ``owner`` plays, on any channel but the bake's own (a bone the bake left out, the
    scale, a location the bake kept): the record's original becomes a copy of the baked
    action with the bake's own channels as they were before the bake, named after the
    animator's action with EDITED_SUFFIX. A Re-bake then starts from those keys, a
    Revert puts them back, and the animator's action stays as it was (other objects may
    play it). Returns the channels changed ([]: none; fold_note words them once the
    copy has its name)."""
    rec = owner.quatbake
    original, baked = rec.original_action, rec.baked_action
    if original is None or baked is None or rec.clip_baked or rec.cache_constraint \
            or animdata.get_action(owner) != baked:
        return []
    if _untouched_since_bake(owner):
        return []
    own = _all_own_paths(owner)
    slot, playing = original_slot(rec), baked_slot(owner)
    changed = _animator_changes(original, baked, slot, own, playing)
    if not changed:
        return []
    source = rec.edited_from or original.name
    folded = compose_action(owner, baked, playing, set(), original, own,
                            source + EDITED_SUFFIX, slot)
    # Kept like any original. The animator's own action keeps the fake user the bake gave
    # it: the note says it stays (a review: given back its own setting, no fake user, a
    # save dropped it). A fold made before is QuatBake's own: drop_superseded.
    folded.use_fake_user = True
    rec.original_fake_user = False
    rec.original_action, rec.edited_from = folded, source
    # The copy's slot is the one the owner plays the bake with.
    rec.original_slot = playing
    rec.original_slot_handle = animdata.slot_handle(folded, playing)
    return changed


def fold_note(owner, changed: list[str]) -> str:
    """What a bake says after fold_changes kept ``changed`` (once the copy has its name,
    drop_superseded)."""
    rec = owner.quatbake
    return (f"{owner.name}: what was keyed, changed or deleted since the bake "
            f"({animdata.first_of(changed, 4)}) is "
            f"kept: Revert now puts back \"{rec.original_action.name}\" (\"{rec.edited_from}\" "
            f"with those changes), and \"{rec.edited_from}\" stays as it was before the bake "
            "(kept with a fake user).")


def drop_superseded(previous, rec) -> None:
    """Remove ``previous``, a copy fold_changes made that a later fold replaced as the
    record's original, when nothing else uses or records it, and give its name to the new
    one (a review: repeated re-bakes left ObjAction.edited, .edited.001 ...)."""
    if previous is not None and not _exists(previous):
        return    # removed already: an object duplicated after the fold shared it
    if previous is None or previous == rec.original_action or not rec.edited_from \
            or not previous.name.startswith(rec.edited_from + EDITED_SUFFIX):
        return
    if previous.users - int(previous.use_fake_user) > 0 or \
            recorded_originals()[previous.as_pointer()] > 0:
        return
    animdata.remove_action(previous)
    rec.original_action.name = rec.edited_from + EDITED_SUFFIX


def _exists(action) -> bool:
    """Whether ``action`` (a Python reference) still names an action of the file."""
    try:
        action.name
    except ReferenceError:
        return False
    return True


def others_signature(owner) -> str:
    """What the channels of ``owner``'s baked action other than the bake's own are now: the
    data path, index and _channel_signature of each, hashed (record.others_signature)."""
    rec = owner.quatbake
    if rec.baked_action is None:
        return ""
    own = _all_own_paths(owner)
    found = sorted((fc.data_path, fc.array_index, _channel_signature(fc)) for fc in
                   animdata.action_fcurves(rec.baked_action, baked_slot(owner))
                   if fc.data_path not in own)
    return hashlib.sha1(repr(found).encode()).hexdigest()


def _untouched_since_bake(owner) -> bool:
    """Whether the animator's channels in the baked action are as the bake left them. The
    action before the bake may have changed all the same: another object sharing it (a
    walk: B keyed on in the shared action, and Reverting A kept B's edits as A's, in a copy
    A then played instead of the shared action, with a warning naming A)."""
    recorded = owner.quatbake.others_signature
    return bool(recorded) and recorded == others_signature(owner)


def _nothing_left_to_find(owner) -> bool:
    """Whether the signature of the animator's channels may be taken again at a write that
    keeps the baked action's other channels (a Re-bake, a bone's Revert): only where
    nothing of theirs is left to find later. Untouched since the bake; or, for a record
    with no signature yet (an older QuatBake's), no change against the action before the
    bake. A clip or Transform Cache bake compares nothing (fold_changes folds none of
    theirs): its edits stay to be named when a Revert takes them away (a review: a
    signature taken again there hid them, and a bone's Revert lost a key added since)."""
    rec = owner.quatbake
    if _untouched_since_bake(owner):
        return True
    if rec.others_signature or rec.clip_baked or rec.cache_constraint \
            or rec.original_action is None or rec.baked_action is None:
        return False
    return not _animator_changes(rec.original_action, rec.baked_action, original_slot(rec),
                                 _all_own_paths(owner), baked_slot(owner))


def _channel_signature(fc) -> tuple:
    """What makes a channel play otherwise: its keys, extrapolation, mute and modifiers."""
    return (animdata.keys_checksum([fc]), fc.extrapolation, fc.mute, len(fc.modifiers))


def _animator_changes(original, baked, slot: str, own: set, playing: str) -> list[str]:
    """The channels (``scale``, ``bone "arm" rotation_euler``) other than the bake's own
    (``own``) that differ between the action before the bake (its slot ``slot``) and the
    baked one (the slot ``playing``): keyed, changed or deleted by the animator since the bake
    (``original`` None: a Transform Cache bake of an object that had no action)."""
    def channels(action, slot):
        if action is None:
            return {}
        return {(fc.data_path, fc.array_index): fc for fc in animdata.action_fcurves(action, slot)
                if fc.data_path not in own}

    def label(path):
        # A bone's own property ("rotation_euler") or custom one ('["IK_FK"]'), which has
        # no dot after the bone (a walk: 'bone "hand" "IK_FK"]').
        bone = animdata.bone_name_from_path(path)
        return path if bone is None else \
            f"bone \"{bone}\" {path[len(bone_path_prefix(bone)) - 1:].lstrip('.')}"

    before, now = channels(original, slot), channels(baked, playing)
    return sorted({label(key[0]) for key in before.keys() | now.keys()
                   if key not in before or key not in now
                   or _channel_signature(before[key]) != _channel_signature(now[key])})


def revert_bones(obj, names: set) -> None:
    """Revert some baked bones of ``obj`` and keep the rest of its bake: a new copy of the
    baked action with those bones' channels put back as they were before the bake (and
    every channel the animator keyed or changed since kept)."""
    rec = obj.quatbake
    original, current, slot = rec.original_action, rec.baked_action, baked_slot(obj)
    # The animator's edits in the baked action stay to be found by the whole Revert (a
    # review: a signature taken again here hid a key added since, and it was lost).
    fresh_signature = _nothing_left_to_find(obj)
    own = _own_paths(obj, [AnimatedTransform(obj, name) for name in names])
    named = (rec.edited_from or original.name) + BAKED_SUFFIX
    new = compose_action(obj, current, slot, set(), original, own, named, original_slot(rec))
    animdata.assign_action(obj, new, slot)
    for pbone in baked_bones(obj):
        if pbone.name in names:
            _restore_bone(obj, pbone)
    rec.baked_action = new
    if fresh_signature:
        rec.others_signature = others_signature(obj)
    if current.users == 0:
        animdata.remove_action(current)
        new.name = named


class FakeUsers:
    """Whether each original action had a fake user before QuatBake gave it one.

    When another object sharing the action was baked first (in this call or an
    earlier one), the action's fake user is QuatBake's, and that object's record
    holds the user's own setting. The records are scanned at most once per bake,
    and only when an action already has a fake user, so a bake's time does not
    grow with the number of objects in the file.
    """

    def __init__(self):
        self._seen: dict = {}          # this call's answers, by action pointer
        self._recorded: dict | None = None   # from earlier bakes' records, scanned lazily

    def original(self, action) -> bool:
        key = action.as_pointer()
        if key in self._seen:
            return self._seen[key]
        flag = False
        if action.use_fake_user:
            if self._recorded is None:
                self._recorded = {}
                for obj in bpy.data.objects:
                    rec = record_of(obj)
                    if rec is not None and rec.original_action is not None \
                            and rec.baked_action is not None:
                        self._recorded.setdefault(rec.original_action.as_pointer(),
                                                  rec.original_fake_user)
            flag = self._recorded.get(key, True)
        self._seen[key] = flag
        return flag


def recorded_originals() -> "Counter[int]":
    """How many objects' bake records keep each action (by pointer) as their original."""
    counts: Counter = Counter()
    for obj in bpy.data.objects:
        rec = record_of(obj)
        if rec is not None and rec.original_action is not None:
            counts[rec.original_action.as_pointer()] += 1
    return counts
