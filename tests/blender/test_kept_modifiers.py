"""F-curve modifiers a bake keeps: a blocking pass held by a Stepped modifier stays held,
a walk cycle with a Cycles modifier goes on cycling.

Animators block "on twos" (or fives) with a Stepped F-modifier on every channel, and loop
a walk with a Cycles modifier (Make Cyclic). A bake that drops them turns the holds into
smooth motion, and freezes the limbs past the last key. When every keyed channel has the
same modifier (the keys on a Stepped one's steps; a Cycles one on keys that start and end
together, the bake covering them), the bake puts it on the channels it writes. Checked on
Blender's playback (``frame_set``) against mathutils' slerp of the keyed orientations
(Blender 3.4.1's Python has no scipy) and a straight line between the location keys. Runs
with bpy 5.0.1 and inside Blender 3.4.1.
"""
import math

import bpy
import mathutils
import numpy as np
import pytest

from quatbake.addon import animdata

import scenes

pytestmark = pytest.mark.bpy

KEYS = [1.0, 11.0, 21.0, 31.0, 41.0]
EULER_DEG = [[0, 0, 0], [30, 10, 60], [10, -20, 120], [40, 5, 170], [0, 30, 200]]
LOCATIONS = [[0, 0, 0], [1, 0, 0], [1, 2, 0], [0, 2, 1], [0, 0, 1]]


def _blocked(name: str, offset: float):
    """An object keyed on rotation and location at KEYS, every channel held by a Stepped
    modifier every 5 frames from ``offset`` (1: the keys are on its steps)."""
    obj = scenes.new_object(name, 'XYZ')
    scenes.key_channels(obj, "rotation_euler", KEYS, np.radians(EULER_DEG))
    scenes.key_channels(obj, "location", KEYS, LOCATIONS)
    for fc in animdata.object_fcurves(obj):
        held = fc.modifiers.new('STEPPED')
        held.frame_step, held.frame_offset = 5.0, offset
    return obj


def _played(obj, frames):
    """Blender's playback: world orientation (w, x, y, z) and location per frame."""
    quats, places = [], []
    for frame in frames:
        bpy.context.scene.frame_set(int(frame))
        quats.append(list(obj.matrix_world.to_quaternion()))
        places.append(list(obj.matrix_world.translation))
    return np.array(quats), np.array(places)


def _slerp(frames):
    """The even slerp of the keyed orientations at ``frames``, by mathutils (w, x, y, z)."""
    keyed = [mathutils.Euler([math.radians(d) for d in e], 'XYZ').to_quaternion()
             for e in EULER_DEG]
    out = []
    for frame in frames:
        i = min(int(np.searchsorted(KEYS, frame, side="right")) - 1, len(KEYS) - 2)
        t = (frame - KEYS[i]) / (KEYS[i + 1] - KEYS[i])
        out.append(list(keyed[i].slerp(keyed[i + 1], t)))
    return np.array(out)


def _angle_deg(a, b):
    """Angles between unit quaternions (n, 4), by their chord (exact near 0, float64)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    sign = np.where(np.einsum("ij,ij->i", a, b) < 0.0, -1.0, 1.0)[:, None]
    chord = np.linalg.norm(a - sign * b, axis=1)
    return np.degrees(4.0 * np.arcsin(np.minimum(chord / 2.0, 1.0)))


def test_a_bake_keeps_the_stepped_modifier_that_holds_every_channel_alike(clean_blender):
    from quatbake.addon import analyze, bake

    obj = _blocked("Blocked", offset=1.0)
    assert "a bake keeps the modifier" in analyze.analyze_object(obj).advice
    frames = np.arange(1, 42)
    before, _ = _played(obj, frames)
    result = bake.bake_objects([obj], bake.BakeSettings(location_method='LINEAR'))
    assert not any("Stepped" in w.message for w in result.warnings), result.warnings
    curves = [fc for fc in animdata.object_fcurves(obj)
              if fc.data_path in ("rotation_euler", "location")]
    assert len(curves) == 6
    for fc in curves:
        assert [(m.type, m.frame_step, m.frame_offset, m.mute) for m in fc.modifiers] == [
            ('STEPPED', 5.0, 1.0, False)], fc.data_path
        assert len(fc.keyframe_points) == 41          # the bake's keys, under the modifier

    quats, places = _played(obj, frames)
    # The largest change it reports is what plays differently, both held (a review: the
    # held source against the bake's unheld keys read far more).
    assert result.max_deviation_deg == pytest.approx(_angle_deg(before, quats).max(), abs=1e-3)
    steps = 1 + 5 * ((frames - 1) // 5)              # the step each frame holds
    # The method's path (the slerp of the keys; a straight line for Location: Linear) at
    # the steps, held in between (float32 keys and mathutils: well under 1e-3 deg).
    assert _angle_deg(quats, _slerp(steps)).max() < 1e-3
    line = np.column_stack([np.interp(steps, KEYS, np.array(LOCATIONS)[:, i]) for i in range(3)])
    assert np.abs(places - line).max() < 1e-5
    # Held: frames 11-15 play one pose, and frame 16 the next.
    assert _angle_deg(quats[10:15], np.repeat(quats[10:11], 5, axis=0)).max() == 0.0
    assert _angle_deg(quats[15:16], quats[10:11])[0] > 1.0


def test_keys_off_the_steps_keep_the_warning_and_the_modifier_goes(clean_blender):
    """Keys at 1, 11, ... held from frame 0 every 5: frame 11 plays frame 10's value. The
    bake reads those played poses, and held again they would move: not carried."""
    from quatbake.addon import bake

    obj = _blocked("OffSteps", offset=0.0)
    bpy.context.scene.frame_set(11)
    held_at_11 = tuple(obj.rotation_euler)
    bpy.context.scene.frame_set(10)
    assert tuple(obj.rotation_euler) == held_at_11    # frame 11 holds frame 10
    result = bake.bake_objects([obj], bake.BakeSettings())
    said = [w.message for w in result.warnings if "held poses go with it" in w.message]
    assert len(said) == 1 and "since some keys lie off its steps" in said[0], said
    assert ".." not in said[0]
    assert not any(len(fc.modifiers) for fc in animdata.object_fcurves(obj)
                   if fc.data_path == "rotation_euler")


def test_channels_held_differently_keep_the_warning(clean_blender):
    from quatbake.addon import bake

    obj = _blocked("Mixed", offset=1.0)
    euler = [fc for fc in animdata.object_fcurves(obj) if fc.data_path == "rotation_euler"]
    euler[2].modifiers[0].frame_step = 10.0        # Z on tens: which step would the bake keep?
    result = bake.bake_objects([obj], bake.BakeSettings())
    assert any("not all held alike" in w.message for w in result.warnings), result.warnings
    assert not any(len(fc.modifiers) for fc in animdata.object_fcurves(obj)
                   if fc.data_path == "rotation_euler")


def _walk(name: str, mode_after: str = 'REPEAT'):
    """An object keyed over one cycle (frame 25's pose is frame 1's), a Cycles modifier on
    every rotation and location channel, as Make Cyclic adds it."""
    obj = scenes.new_object(name, 'XYZ')
    frames = [1.0, 7.0, 13.0, 19.0, 25.0]
    degrees = [[0, 0, 0], [20, 5, 40], [0, 10, 80], [-20, 5, 40], [0, 0, 0]]
    scenes.key_channels(obj, "rotation_euler", frames, np.radians(degrees))
    scenes.key_channels(obj, "location", frames, [[0, 0, 0], [0, 0, 0.2], [0, 0, 0],
                                                  [0, 0, 0.2], [0, 0, 0]])
    for fc in animdata.object_fcurves(obj):
        fc.modifiers.new('CYCLES').mode_after = mode_after
    return obj, frames, degrees


def test_a_walk_cycle_goes_on_cycling_after_the_bake(clean_blender):
    """A walk: a cycled walk's limbs froze past the last key after a bake (124 deg off),
    while the location, kept, cycled on."""
    from quatbake.addon import bake

    obj, frames, degrees = _walk("Walk")
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    assert not any("Cycles" in w.message for w in result.warnings), result.warnings
    for fc in animdata.object_fcurves(obj):
        assert [m.type for m in fc.modifiers] == ['CYCLES'], fc.data_path
    first_cycle, _ = _played(obj, np.arange(1, 26))
    later, _ = _played(obj, np.arange(25, 74))
    # The keys' slerp (mathutils), and the same again each cycle.
    keyed = [mathutils.Euler([math.radians(v) for v in d], 'XYZ').to_quaternion()
             for d in degrees]
    want = []
    for f in range(1, 26):
        i = min((f - 1) // 6, 3)
        want.append(list(keyed[i].slerp(keyed[i + 1], (f - frames[i]) / 6.0)))
    assert _angle_deg(first_cycle, want).max() < 1e-3
    assert _angle_deg(later, np.concatenate([first_cycle, first_cycle[1:]])).max() < 1e-3


def test_a_cycle_with_an_offset_is_dropped_with_its_reason(clean_blender):
    """Dropped, said why, and the figure counts what no longer cycles (a walk: it stopped
    at the keys, 16 deg, where 116 deg played otherwise a cycle later): the largest angle
    between the playback before and after, a cycle before the keys to a cycle after."""
    from quatbake.addon import bake

    obj, _frames, _degrees = _walk("Offset", mode_after='REPEAT_OFFSET')
    whole = np.arange(-23, 50)
    before, _ = _played(obj, whole)
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    said = [w.message for w in result.warnings if "no longer cycles" in w.message]
    assert len(said) == 1 and "repeats with an offset" in said[0], said
    changed = _angle_deg(before, _played(obj, whole)[0])
    assert changed[whole > 25].max() > 10.0
    assert result.max_deviation_deg == pytest.approx(changed.max(), abs=1e-3)


def test_a_custom_range_that_is_not_the_cycle_drops_it_and_says_so(clean_blender):
    from quatbake.addon import bake

    obj, _frames, _degrees = _walk("Part")
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP', frame_range=(1, 13)))
    # Once, and true (a review: "their Cycles modifier stays" beside "it is dropped").
    said = [w.message for w in result.warnings if "Cycles" in w.message]
    assert len(said) == 1 and "no longer cycles, since the bake covers frames 1-13 and " \
        "the keys it repeats span 1-25" in said[0] and "stays" not in said[0], said
    assert not any(len(fc.modifiers) for fc in animdata.object_fcurves(obj)
                   if fc.data_path == "rotation_euler")


def test_a_step_that_misses_the_held_frames_bakes_them_and_keeps_the_modifier(
        clean_blender):
    """A review: keys on every other frame held by steps of 2, baked with a Step of 4: the
    frames the steps hold between the baked keys played the Linear keys' in-betweens,
    and the bake read 7.8e-15 deg changed where 25 deg played otherwise. The step starts
    are baked too and the modifier stays, so the held poses are the method's: each a
    slerp of the keys (mathutils), and the figure is what plays differently (frame_set).
    Steps offset by half a frame likewise (a later review: dropped, blaming the Step)."""
    from quatbake.addon import bake

    for offset in (1.0, 0.5):
        obj = scenes.new_object(f"Twos{offset:g}", 'XYZ')
        keys = [offset + 2 * i for i in range(11)]
        degrees = [[3 * i, 2 * i, 17 * i] for i in range(11)]
        scenes.key_channels(obj, "rotation_euler", keys, np.radians(degrees))
        for fc in animdata.object_fcurves(obj):
            held = fc.modifiers.new('STEPPED')
            held.frame_step, held.frame_offset = 2.0, offset
        whole = np.arange(2, 22)
        before, _ = _played(obj, whole)
        result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP', frame_step=4))
        assert not any("Stepped" in w.message for w in result.warnings), result.warnings
        for fc in animdata.object_fcurves(obj):
            assert [m.type for m in fc.modifiers] == ['STEPPED']
            baked = {kp.co[0] for kp in fc.keyframe_points}
            assert set(keys) <= baked, sorted(baked)        # every step start baked
        after, _ = _played(obj, whole)
        changed = _angle_deg(before, after)
        assert result.max_deviation_deg == pytest.approx(changed.max(), abs=1e-3)
        # Each frame plays its step start's pose: the slerp of the keys there (on the
        # keys themselves, the keys' own poses).
        starts = offset + 2 * np.floor((whole - offset) / 2)
        keyed = [mathutils.Euler([math.radians(v) for v in d], 'XYZ').to_quaternion()
                 for d in degrees]
        want = [list(keyed[int(round((t - offset) / 2))]) for t in starts]
        assert _angle_deg(after, want).max() < 1e-3


def _played_quarters(obj, quarters):
    """Blender's playback (w, x, y, z) at quarter frames (frame_set with a subframe)."""
    out = []
    for t in quarters:
        whole = int(np.floor(t))
        bpy.context.scene.frame_set(whole, subframe=float(t - whole))
        out.append(list(obj.matrix_world.to_quaternion()))
    return np.array(out)


STEP_STARTS = [1.0, 6.0, 11.0, 16.0, 21.0, 26.0, 31.0, 36.0, 41.0]   # _blocked, offset 1


@pytest.mark.parametrize("keys", ['BEZIER', 'LINEAR'])
def test_a_tolerance_bake_under_a_kept_stepped_modifier_keys_what_plays(clean_blender, keys):
    """Under the kept modifier Blender plays the curve only at its step starts. The fit had
    been held to every quarter frame between them: 41 of 41 LINEAR keys at 0.01 deg, Bezier
    keys on quarter frames. Now at most one key per step start (the animator's five
    included), and every quarter frame plays its step's slerp pose within the tolerance."""
    from quatbake.addon import bake

    obj = _blocked("Blocked", offset=1.0)
    result = bake.bake_objects([obj], bake.BakeSettings(
        method='SLERP', location_method='LINEAR', tolerance_deg=0.01, key_interpolation=keys))
    quarters = np.arange(1.0, 41.01, 0.25)
    steps = 1 + 5 * np.floor((quarters - 1) / 5)
    assert _angle_deg(_played_quarters(obj, quarters), _slerp(steps)).max() < 0.01
    for fc in animdata.object_fcurves(obj):
        if fc.data_path != "rotation_euler":
            continue
        assert [m.type for m in fc.modifiers] == ['STEPPED']
        frames = [kp.co[0] for kp in fc.keyframe_points]
        assert set(KEYS) <= set(frames) <= set(STEP_STARTS), frames
        if keys == 'LINEAR':
            # Linear Euler keys between the step starts would miss the slerp (3 axes).
            assert frames == STEP_STARTS
    note = next(n.message for n in result.notes if "keys per channel" in n.message)
    assert "at 9 frames its Stepped modifier plays (its step starts)" in note, note


def test_a_conversion_of_a_blocking_pass_keys_only_its_steps(clean_blender):
    """Convert to quaternions keeps what plays, every quarter frame, with keys at step
    starts only (it wrote 51 Bezier keys per channel, 12 on quarter frames)."""
    from quatbake.addon import bake

    obj = _blocked("Blocked", offset=1.0)
    quarters = np.arange(1.0, 41.01, 0.25)
    before = _played_quarters(obj, quarters)
    bake.convert_objects([obj], 'QUATERNION')
    assert obj.rotation_mode == 'QUATERNION'
    assert _angle_deg(before, _played_quarters(obj, quarters)).max() < 0.01
    for fc in animdata.object_fcurves(obj):
        if fc.data_path == "rotation_quaternion":
            assert [m.type for m in fc.modifiers] == ['STEPPED']
            frames = [kp.co[0] for kp in fc.keyframe_points]
            assert set(KEYS) <= set(frames) <= set(STEP_STARTS), frames


@pytest.mark.parametrize("keys", ['BEZIER', 'LINEAR', None])
def test_steps_from_an_offset_float32_cannot_hold_exactly_keep_every_pose(clean_blender, keys):
    """A review: held every 5 frames from 1.3 (a float32 offset, 1.2999999523), the last key
    (41.29999924) was taken for no step start, so a tolerance bake dropped its pose (30.7
    deg off from 41.3 on) and its note said 100% within. Blender computes the step in
    float32 (fcm_stepped_time), where 16.3 itself plays 11.3's pose and 17 plays 16.3's.
    Each quarter frame must play the slerp of the keys at its step's start, computed here
    as Blender's C does, in float32; the figure is what plays differently (frame_set)."""
    from quatbake.addon import bake

    offset, keyed = 1.3, [1.3 + 10 * i for i in range(5)]
    obj = _held("Offset", keyed, 5.0, offset)
    quarters = np.arange(1.5, 46.0, 0.25)
    before = _played_quarters(obj, quarters)
    tolerance = dict(tolerance_deg=0.01, key_interpolation=keys) if keys else {}
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP', **tolerance))
    after = _played_quarters(obj, quarters)
    off, step = np.float32(offset), np.float32(5.0)
    starts = (np.trunc((quarters.astype(np.float32) - off) / step) * step + off).astype(float)
    keyed_q = [mathutils.Euler([math.radians(d) for d in e], 'XYZ').to_quaternion()
               for e in EULER_DEG]
    want = []
    for s in starts:
        i = min(int(np.searchsorted(np.float32(keyed), np.float32(s), side="right")) - 1, 3)
        f = (s - float(np.float32(keyed[i]))) / (float(np.float32(keyed[i + 1]))
                                                 - float(np.float32(keyed[i])))
        want.append(list(keyed_q[i].slerp(keyed_q[i + 1], min(max(f, 0.0), 1.0))))
    assert _angle_deg(after, np.array(want)).max() < 0.01
    assert result.max_deviation_deg == pytest.approx(_angle_deg(before, after).max(), abs=1e-3)
    frames = [kp.co[0] for kp in animdata.object_fcurves(obj)[0].keyframe_points]
    assert frames[-1] == pytest.approx(41.3, abs=1e-5), frames      # the last pose kept


def _held(name: str, keyed, step: float, offset: float):
    """An XYZ object keyed EULER_DEG at ``keyed``, every rotation channel held by a Stepped
    modifier of ``step`` frames from ``offset``."""
    obj = scenes.new_object(name, 'XYZ')
    scenes.key_channels(obj, "rotation_euler", keyed, np.radians(EULER_DEG))
    for fc in animdata.object_fcurves(obj):
        held = fc.modifiers.new('STEPPED')
        held.frame_step, held.frame_offset = step, offset
    return obj


def _blender_step_starts(quarters, step: float, offset: float) -> np.ndarray:
    """Where Blender's Stepped modifier evaluates the curve at ``quarters``: its C code
    (fcm_stepped_time) in float32."""
    off, size = np.float32(offset), np.float32(step)
    return (np.trunc((quarters.astype(np.float32) - off) / size) * size + off).astype(float)


def _slerp_keyed(times, keyed):
    """mathutils' slerp of EULER_DEG keyed at ``keyed`` (float32 frames), held before the
    first key and after the last."""
    quats = [mathutils.Euler([math.radians(d) for d in e], 'XYZ').to_quaternion()
             for e in EULER_DEG]
    k = np.float32(keyed).astype(float)
    out = []
    for t in times:
        i = min(max(int(np.searchsorted(k, t, side="right")) - 1, 0), len(k) - 2)
        f = min(max((t - k[i]) / (k[i + 1] - k[i]), 0.0), 1.0)
        out.append(list(quats[i].slerp(quats[i + 1], f)))
    return np.array(out)


def test_a_conversion_under_steps_from_1_3_keeps_the_pose_each_step_plays(clean_blender):
    """A review: in float32 the step start 16.3 itself plays 11.3's pose while 16.5 to
    21.25 play 16.3's; the conversion read the playback at 16.3 and wrote 11.3's pose
    there, 38 deg off for five frames, its note 100% within. Each quarter frame must play
    after the conversion what it played before (frame_set)."""
    from quatbake.addon import bake

    obj = _held("Offset", [1.3 + 10 * i for i in range(5)], 5.0, 1.3)
    quarters = np.arange(1.5, 46.0, 0.25)
    before = _played_quarters(obj, quarters)
    result = bake.convert_objects([obj], 'QUATERNION')
    after = _played_quarters(obj, quarters)
    assert _angle_deg(before, after).max() < 0.01
    assert result.max_deviation_deg < 0.01


@pytest.mark.parametrize("keys", ['BEZIER', 'LINEAR', None])
def test_a_custom_range_under_steps_holds_the_range_ends(clean_blender, keys):
    """A review: a Custom Range 8-33 under steps every 5 frames from 1, with a Key
    Tolerance, kept keys 11 to 31 only, so frames before 11 played 11's pose (19 deg from
    8's) and the figure understated the change by 15.6 deg. Each quarter frame must play
    the slerp at its step start, held at the range's ends, and the figure is the change."""
    from quatbake.addon import bake

    obj = _blocked("Range", offset=1.0)
    quarters = np.arange(-1.0, 45.0, 0.25)
    before = _played_quarters(obj, quarters)
    tolerance = dict(tolerance_deg=0.01, key_interpolation=keys) if keys else {}
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP', frame_range=(8, 33),
                                                        **tolerance))
    after = _played_quarters(obj, quarters)
    starts = np.clip(_blender_step_starts(quarters, 5.0, 1.0), 8.0, 33.0)
    assert _angle_deg(after, _slerp_keyed(starts, KEYS)).max() < 0.01
    assert result.max_deviation_deg == pytest.approx(_angle_deg(before, after).max(), abs=0.01)


def test_half_frame_steps_bake_and_play_their_starts_between_frames(clean_blender):
    """A review: steps of half a frame crashed the bake (no frame past the last key to
    compare), and starts like 9.5, which only subframes play, were neither baked nor
    measured (0.23 deg off at 9.75)."""
    from quatbake.addon import bake

    keyed = [0.5 + 10 * i for i in range(5)]
    obj = _held("Half", keyed, 0.5, 0.0)
    quarters = np.arange(0.5, 45.0, 0.25)
    before = _played_quarters(obj, quarters)
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    after = _played_quarters(obj, quarters)
    starts = _blender_step_starts(quarters, 0.5, 0.0)
    assert _angle_deg(after, _slerp_keyed(starts, keyed)).max() < 1e-3
    assert result.max_deviation_deg == pytest.approx(_angle_deg(before, after).max(), abs=1e-3)
