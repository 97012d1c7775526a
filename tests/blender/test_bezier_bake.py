"""Bezier tolerance bakes (issue 22), played by Blender itself.

The issue's three scenes are rebuilt here with bpy alone (keyframe_insert, as an
animator keys): an Euler camera with a wrap, a quaternion camera with a flipped
key, and a three-axis Euler swing, 4 Bezier keys each over 121 frames. After
the bake, Blender's own playback (``scene.frame_set`` at every quarter frame,
then ``matrix_world``) is compared with the slerp of the key orientations
(the method's path), computed independently of QuatBake: scipy's ``Slerp``
where scipy is installed (the bpy module's venv), ``mathutils.Quaternion.slerp``
inside Blender 3.4.1 (whose Python has no scipy).
"""

import math

import bpy
import mathutils
import numpy as np
import pytest

from quatbake.addon import animdata, bake
from quatbake.addon.bake import panel as bake_panel

import scenes

try:
    from scipy.spatial.transform import Rotation, Slerp
except ImportError:            # Blender 3.4.1's own Python
    Rotation = Slerp = None

KEY_FRAMES = np.array([1.0, 41.0, 81.0, 121.0])
QUARTERS = np.arange(1.0, 121.0 + 0.125, 0.25)
SIXTY_FOURTHS = np.arange(64.0, 121.0 * 64.0 + 1.0) / 64.0

# The issue's scenes (key values in degrees; the quaternion camera's in pan degrees).
EULER_CAMERA = [[80, 0, 150], [85, 0, 170], [85, 0, -170], [80, 0, -150]]   # the wrap
QUATERNION_PAN = [0.0, 50.0, 100.0, 140.0]                                  # key 3 as -q
SWING = [[0, 0, 0], [70, 40, 100], [-40, 75, 210], [30, -35, 320]]

# Blender's Graph Editor Decimate on QuatBake's dense slerp bake of these scenes, from
# the issue (keys, largest error in degrees at whole frames): its smallest error
# setting, 0.0002, and the next, 0.002.
DECIMATE_FINE = {"EulerCam": (18, 0.017), "QuatCam": (67, 0.025), "Swing": (56, 0.011)}
DECIMATE_COARSE = {"EulerCam": (5, 0.127), "QuatCam": (8, 0.21), "Swing": (36, 0.14)}

# Slack of the comparison itself, degrees: matrix_world and mathutils are float32
# (~1e-7 relative, so ~1e-5 deg on these rotations), and the keys were fitted at least
# 1e-4 deg under the tolerance (core.bezier_keys.margin_deg), so nothing is added to
# the tolerance in the assertions below; this bounds only the agreement of the
# bake's own statistics with the measurement here.
FLOAT32_DEG = 1e-4


# ---------------------------------------------------------------- scenes, with bpy only

def _keyed_object(name, mode, values, frames=KEY_FRAMES, camera=True, interpolation=None):
    data = bpy.data.cameras.new(name) if camera else None
    obj = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(obj)
    obj.rotation_mode = mode
    path = "rotation_quaternion" if mode == 'QUATERNION' else "rotation_euler"
    for frame, value in zip(frames, values):
        setattr(obj, path, value)
        obj.keyframe_insert(path, frame=float(frame))
    if interpolation:
        for fc in animdata.object_fcurves(obj):
            for kp in fc.keyframe_points:
                kp.interpolation = interpolation.get(kp.co[0], kp.interpolation)
    return obj


def _pan_quats(degrees):
    out = []
    for d in degrees:
        q = mathutils.Euler((math.radians(90.0), 0.0, math.radians(d)), 'XYZ').to_quaternion()
        out.append([q.w, q.x, q.y, q.z])
    return np.array(out)


def _issue_scenes():
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 121
    quats = _pan_quats(QUATERNION_PAN)
    quats[2] *= -1.0                      # the flipped key: the same pose, stored as -q
    return {
        "EulerCam": _keyed_object("EulerCam", 'XYZ', np.radians(EULER_CAMERA)),
        "QuatCam": _keyed_object("QuatCam", 'QUATERNION', quats),
        "Swing": _keyed_object("Swing", 'XYZ', np.radians(SWING), camera=False),
    }


# ---------------------------------------------------------------- the independent path

def _key_quats(obj, frames):
    """The orientation Blender composes at each key frame (w, x, y, z)."""
    out = []
    for f in frames:
        bpy.context.scene.frame_set(int(f))
        q = obj.matrix_world.to_quaternion()
        out.append([q.w, q.x, q.y, q.z])
    return np.array(out)


def _slerp(key_frames, key_quats, times):
    """The short-arc slerp through the key orientations at ``times`` (w, x, y, z)."""
    key_frames = np.asarray(key_frames, dtype=np.float64)
    if Slerp is not None:
        rot = Rotation.from_quat(np.asarray(key_quats)[:, [1, 2, 3, 0]])
        return Slerp(key_frames, rot)(times).as_quat()[:, [3, 0, 1, 2]]
    out = []
    for t in times:
        i = min(int(np.searchsorted(key_frames, t, side="right")) - 1, key_frames.size - 2)
        u = (t - key_frames[i]) / (key_frames[i + 1] - key_frames[i])
        q = mathutils.Quaternion(key_quats[i]).slerp(mathutils.Quaternion(key_quats[i + 1]), u)
        out.append([q.w, q.x, q.y, q.z])
    return np.array(out)


def _played(obj, times):
    """Blender's playback: frame_set (whole frame + subframe), then matrix_world."""
    scene = bpy.context.scene
    out = []
    for t in times:
        whole = math.floor(t)
        scene.frame_set(int(whole), subframe=float(t - whole))
        q = obj.matrix_world.to_quaternion()
        out.append([q.w, q.x, q.y, q.z])
    return np.array(out)


def _angle_deg(a, b):
    """Geodesic angle between rotations (either sign), degrees, as 2 atan2(|v|, |w|)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    w = np.abs(np.einsum("...i,...i->...", a, b))
    # |a x b| part of a^-1 b: the vector of the relative rotation.
    aw, av = a[..., 0], a[..., 1:]
    bw, bv = b[..., 0], b[..., 1:]
    v = aw[..., None] * bv - bw[..., None] * av - np.cross(av, bv)
    return np.degrees(2.0 * np.arctan2(np.linalg.norm(v, axis=-1), w))


def _rotation_fcurves(obj):
    return [fc for fc in animdata.object_fcurves(obj) if fc.data_path.startswith("rotation")]


def _keys(fc, name):
    return animdata.read_keyframe_arrays(fc, (name,))[name]


# ---------------------------------------------------------------- the issue's scenes

@pytest.fixture(params=[0.01, 0.1], ids=["0.01deg", "0.1deg"])
def baked(request, clean_blender):
    objects = _issue_scenes()
    originals = {name: _key_quats(obj, KEY_FRAMES) for name, obj in objects.items()}
    result = bake.bake_objects(list(objects.values()), bake.BakeSettings(
        method='SLERP', tolerance_deg=request.param, key_interpolation='BEZIER'))
    return request.param, objects, originals, result


def test_blender_plays_the_bezier_keys_within_the_tolerance_of_slerp(baked):
    """At every quarter frame, and at every 64th frame, where the bake samples the path
    between quarter frames too where Euler angles bend fast (the swing at 0.01 deg)."""
    tol, objects, originals, result = baked
    for name, obj in objects.items():
        path = _slerp(KEY_FRAMES, originals[name], SIXTY_FOURTHS)
        err = _angle_deg(_played(obj, SIXTY_FOURTHS), path)
        assert err.max() <= tol, (name, float(err.max()), SIXTY_FOURTHS[np.argmax(err)])
        # The bake's own statistics say what was measured: its samples are the quarter
        # frames and those between them, all of them 64ths of a frame.
        stats = result.key_statistics[name]
        quarter = err[::16]
        assert quarter.max() - FLOAT32_DEG <= stats["max_deg"] <= err.max() + FLOAT32_DEG, \
            (name, stats, quarter.max(), err.max())
        assert stats["samples"] == QUARTERS.size + stats["samples_between"]
        assert stats["within"] == 1.0 and stats["p99_deg"] <= stats["max_deg"]


def test_every_channel_is_keyed_on_the_same_frames_including_the_animators(baked):
    tol, objects, _originals, result = baked
    for name, obj in objects.items():
        fcs = _rotation_fcurves(obj)
        assert len(fcs) == (4 if obj.rotation_mode == 'QUATERNION' else 3)
        frames = [tuple(_keys(fc, "co")[:, 0]) for fc in fcs]
        assert len(set(frames)) == 1, (name, frames)
        assert set(KEY_FRAMES) <= set(frames[0]), (name, frames[0])
        assert result.keys_per_object[name] == len(frames[0])
        bezier = animdata.enum_value("interpolation", 'BEZIER')
        for fc in fcs:
            assert fc.extrapolation == 'CONSTANT'
            assert (_keys(fc, "interpolation") == bezier).all()
            # Written explicitly: no AUTO handle for Blender to recompute on an edit.
            kinds = {kp.handle_left_type for kp in fc.keyframe_points} | \
                {kp.handle_right_type for kp in fc.keyframe_points}
            assert kinds <= {'FREE', 'ALIGNED'}, (name, kinds)


def test_no_more_keys_than_blenders_decimate_at_a_larger_error(baked):
    # The issue's goal: at the same measured error, no more keys than Decimate. Ours are
    # within `tol`, below Decimate's own error at each of its settings.
    tol, objects, _originals, result = baked
    table = DECIMATE_FINE if tol == 0.01 else DECIMATE_COARSE
    for name in objects:
        keys, error = table[name]
        assert tol < error
        assert result.keys_per_object[name] <= keys, (name, result.keys_per_object[name], keys)


# Decimate (error mode, margin 0.002) on QuatBake's dense bake of the quaternion camera:
# 3 keys at 0.0162 deg, measured by benchmarks/bench_bezier_bake.py (part 1). It drops
# the key at frame 41, where the pan goes on at the same speed.
DECIMATE_QUATCAM = (3, 0.0162)


@pytest.mark.parametrize("tol", [0.01, 0.1, 1.0])
def test_with_the_animators_keys_let_go_no_more_keys_than_decimate_or_than_kept(
        clean_blender, tol):
    """keep_key_frames=False lets the fit drop the animator's keys, as Decimate does.
    Their frames stay corners (a key there gets a handle on each side of the slerp's
    turn), so the quaternion camera needs Decimate's 3 keys at 0.01 deg, where it kept
    4 (1, 80, 86, 121: no key could sit on the turn at 81). Never more keys than with
    the keys kept, and Blender plays it within the tolerance of scipy's slerp."""
    kept, loose = {}, {}
    for keep, out in ((True, kept), (False, loose)):
        objects = _issue_scenes()
        originals = {name: _key_quats(obj, KEY_FRAMES) for name, obj in objects.items()}
        result = bake.bake_objects(list(objects.values()), bake.BakeSettings(
            method='SLERP', tolerance_deg=tol, key_interpolation='BEZIER',
            keep_key_frames=keep))
        out.update(result.keys_per_object)
        if keep:
            for obj in objects.values():
                bpy.data.objects.remove(obj)     # the second round's get the same names
        else:
            for name, obj in objects.items():
                off = _angle_deg(_played(obj, QUARTERS),
                                 _slerp(KEY_FRAMES, originals[name], QUARTERS))
                assert off.max() <= tol, (name, off.max())
    for name in kept:
        assert loose[name] <= kept[name], (name, loose[name], kept[name])
    if tol == 0.01:
        keys, error = DECIMATE_QUATCAM
        assert tol < error and loose["QuatCam"] <= keys, loose


def test_the_moonshot_the_keys_plus_one_per_90_deg_of_turn(baked):
    """The issue's moonshot, on its three scenes: at most the animator's keys plus one
    key per 90 deg the method's path turns (a slerp turns the short angle between
    neighbouring key orientations, 2 acos |q1.q2|: 61, 140 and 380 deg here), with
    Blender's playback within the tolerance of scipy's slerp at every quarter frame."""
    tol, objects, originals, result = baked
    for name, obj in objects.items():
        q = np.asarray(originals[name])
        turn = _angle_deg(q[:-1], q[1:]).sum()
        allowed = len(KEY_FRAMES) + int(turn // 90.0)
        assert result.keys_per_object[name] <= allowed, (name, turn, result.keys_per_object)
        off = _angle_deg(_played(obj, QUARTERS), _slerp(KEY_FRAMES, originals[name], QUARTERS))
        assert off.max() <= tol, (name, off.max())


def test_the_notes_give_the_statistics_per_object_and_overall(baked):
    tol, objects, _originals, result = baked
    texts = [n.message for n in result.notes]
    for name in objects:
        line = next(t for t in texts if t.startswith(f"Object \"{name}\": ") and "Bezier keys" in t)
        assert f"{result.keys_per_object[name]} Bezier keys per channel" in line
        assert "dense bake 121, keyed before 4" in line
        assert "99th percentile" in line and f"100.0% within {tol:g} deg" in line
    assert any(t.startswith("All 3 transforms: ") for t in texts)


def test_bezier_keys_on_quaternion_output(clean_blender):
    obj = _keyed_object("Swing", 'XYZ', np.radians(SWING), camera=False)
    originals = _key_quats(obj, KEY_FRAMES)
    result = bake.bake_objects([obj], bake.BakeSettings(
        method='SLERP', tolerance_deg=0.01, key_interpolation='BEZIER', output_mode='QUATERNION'))
    assert obj.rotation_mode == 'QUATERNION'
    err = _angle_deg(_played(obj, QUARTERS), _slerp(KEY_FRAMES, originals, QUARTERS))
    assert err.max() <= 0.01
    frames = {tuple(_keys(fc, "co")[:, 0]) for fc in _rotation_fcurves(obj)}
    assert len(frames) == 1 and set(KEY_FRAMES) <= set(frames.pop())
    assert result.keys_per_object["Swing"] < 121


def test_step_does_not_thin_bezier_keys_and_a_note_says_so(clean_blender):
    """A walk: Step 4 with Keys: Bezier wrote the keys Step 1 does, while the count line
    read "132 dense -> 268" and nothing said why. The Bezier fit follows the path at every
    quarter frame whatever the Step (checked here: the same keys as Step 1, read from
    Blender, within the tolerance of scipy's slerp at quarter frames), and a note says so;
    a Step 1 bake has no such note."""
    written = {}
    for step in (1, 4):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        obj = _keyed_object("Swing", 'XYZ', np.radians(SWING), camera=False)
        originals = _key_quats(obj, KEY_FRAMES)
        result = bake.bake_objects([obj], bake.BakeSettings(
            method='SLERP', tolerance_deg=0.01, key_interpolation='BEZIER', frame_step=step))
        said = [n.message for n in result.notes if "does not thin Bezier keys" in n.message]
        assert len(said) == (step > 1), said
        err = _angle_deg(_played(obj, QUARTERS), _slerp(KEY_FRAMES, originals, QUARTERS))
        assert err.max() <= 0.01
        written[step] = [_keys(fc, "co") for fc in _rotation_fcurves(obj)]
    assert said[0].startswith("Step 4 does not thin Bezier keys"), said
    for one, four in zip(written[1], written[4]):
        np.testing.assert_array_equal(one, four)


# ---------------------------------------------------------------- steps, spins, location

def test_a_stepped_interval_stays_stepped(clean_blender):
    """Key 21 CONSTANT on every channel: held until 41, then the jump on frame 41; the
    other intervals slerp."""
    frames = np.array([1.0, 21.0, 41.0, 61.0])
    values = np.radians([[0, 0, 0], [30, 20, 60], [-20, 50, 120], [10, 0, 170]])
    obj = _keyed_object("Stepper", 'XYZ', values, frames, camera=False,
                        interpolation={21.0: 'CONSTANT'})
    key_q = _key_quats(obj, frames)
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', tolerance_deg=0.01,
                                               key_interpolation='BEZIER'))
    constant = animdata.enum_value("interpolation", 'CONSTANT')
    for fc in _rotation_fcurves(obj):
        co, ipo = _keys(fc, "co"), _keys(fc, "interpolation")
        at = {float(f): int(i) for f, i in zip(co[:, 0], ipo)}
        assert at[21.0] == constant and 41.0 in at, at
        assert not ((co[:, 0] > 21.0) & (co[:, 0] < 41.0)).any(), co[:, 0]
        assert sum(v == constant for v in at.values()) == 1
    times = np.arange(1.0, 61.125, 0.25)
    played = _played(obj, times)
    held = (times >= 21.0) & (times < 41.0)
    # Held: exactly key 21's pose (float32 matrices: ~1e-5 deg).
    assert _angle_deg(played[held], key_q[1]).max() <= 1e-4
    moving = ~held
    expected = np.concatenate([_slerp(frames[:2], key_q[:2], times[times < 21.0]),
                               _slerp(frames[2:], key_q[2:], times[times >= 41.0])])
    assert _angle_deg(played[moving], expected).max() <= 0.01


def test_a_jump_of_some_channels_only_stays_on_its_keys_frame(clean_blender):
    """A walk: key 21 CONSTANT on X only (held until 41, then a 40 deg jump on frame 41;
    Y and Z move on). The Bezier keys ramped from 40.75 to 41, 37 deg off at 40.99, where
    no quarter frame looks. The last sample before the jump now holds until it, as
    Blender does: off by no more than the tolerance plus what Y and Z move in that
    quarter frame. Measured on Blender's playback before and after (frame_set)."""
    frames = np.array([1.0, 21.0, 41.0, 61.0])
    values = np.radians([[0, 0, 0], [40, 10, -30], [80, -20, 60], [60, 0, 90]])
    obj = _keyed_object("Partly", 'XYZ', values, frames, camera=False)
    x = animdata.find_fcurves(obj, "rotation_euler", 3)[0]
    next(k for k in x.keyframe_points if k.co[0] == 21.0).interpolation = 'CONSTANT'
    fine = np.array([40.75, 40.8, 40.85, 40.9, 40.95, 40.99, 41.0])
    before = _played(obj, fine)
    assert _angle_deg(before[-2], before[-1]) > 30.0              # the jump is Blender's
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', tolerance_deg=0.05,
                                               key_interpolation='BEZIER'))
    after = _played(obj, fine)
    drift = _angle_deg(before[:-1], before[:1])                   # Y, Z over the quarter
    assert (_angle_deg(after[:-1], before[:-1]) <= 0.05 + drift + 1e-4).all()
    assert _angle_deg(after[-2], after[-1]) > 30.0                # still a jump on 41


def test_kept_spins_stay_kept(clean_blender):
    """Z keyed 0 -> 360 -> 720 deg (Turns: Auto keeps keyed spins): two whole turns at
    one speed, as Blender plays them, now in few Bezier keys."""
    frames = np.array([1.0, 41.0, 81.0])
    values = np.radians([[0, 0, 0], [0, 0, 360], [0, 0, 720]])
    obj = _keyed_object("Turntable", 'XYZ', values, frames, camera=False)
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP', tolerance_deg=0.01,
                                                        key_interpolation='BEZIER'))
    times = np.arange(1.0, 81.125, 0.25)
    angle = 4.0 * np.pi * (times - 1.0) / 80.0          # 720 deg at one speed
    expected = np.column_stack([np.cos(angle / 2), 0 * angle, 0 * angle, np.sin(angle / 2)])
    assert _angle_deg(_played(obj, times), expected).max() <= 0.01
    z = _rotation_fcurves(obj)[2]
    assert abs(_keys(z, "co")[-1, 1] - 4.0 * np.pi) < 1e-5        # unrolled: two turns
    assert any("spin" in n.message for n in result.notes)
    assert result.keys_per_object["Turntable"] < 81


def test_location_is_baked_as_few_linear_keys_beside_bezier_rotation(clean_blender):
    frames = np.array([1.0, 21.0, 41.0])
    obj = _keyed_object("Mover", 'XYZ', np.radians([[0, 0, 0], [40, 10, 80], [0, 60, 150]]),
                        frames, camera=False)
    for f, loc in zip(frames, ([0, 0, 0], [2, 1, 0], [3, 3, 1])):
        obj.location = loc
        obj.keyframe_insert("location", frame=float(f))
    result = bake.bake_objects([obj], bake.BakeSettings(
        method='SLERP', location_method='LINEAR', tolerance_deg=0.01,
        key_interpolation='BEZIER'))
    loc_fcs = [fc for fc in animdata.object_fcurves(obj) if fc.data_path == "location"]
    linear = animdata.enum_value("interpolation", 'LINEAR')
    for fc in loc_fcs:
        assert (_keys(fc, "interpolation") == linear).all()
        assert len(fc.keyframe_points) < 41          # straight segments: few keys
    # Linear location between the keys, replayed by Blender at whole frames.
    scene = bpy.context.scene
    for f in range(1, 42):
        scene.frame_set(f)
        u = (f - 1) / 20.0 if f <= 21 else (f - 21) / 20.0
        a, b = (np.array([0, 0, 0]), np.array([2, 1, 0])) if f <= 21 else \
            (np.array([2, 1, 0]), np.array([3, 3, 1]))
        assert np.abs(np.array(obj.matrix_world.translation) - (a + u * (b - a))).max() < 2e-4
    assert result.key_statistics["Mover"]["key_interpolation"] == 'BEZIER'
    # A USD walk: 2 rotation keys beside 480 location ones read "2 keys per channel". The
    # location's own count, as its curves hold it, is said beside the rotation's.
    rotation_keys = len(_rotation_fcurves(obj)[0].keyframe_points)
    location_keys = len(loc_fcs[0].keyframe_points)
    assert rotation_keys != location_keys
    note = next(n.message for n in result.notes if "keys per channel" in n.message)
    assert f"{rotation_keys} Bezier keys per channel, location {location_keys} LINEAR" \
        in note, note
    assert bake.location_words(result) == \
        f"; location {location_keys} LINEAR keys per channel"


def test_the_clicks_summary_says_the_count_is_the_rotations(clean_blender, capfd):
    """A triage: a USD camera's tolerance bake said "2 keys per channel in all" beside 480
    location keys. With a location baked to other keys, the count is called the
    rotation's; the numbers are the F-curves' own."""
    obj = scenes.new_object("Mover", 'XYZ')
    frames = np.array([1.0, 21.0, 41.0])
    scenes.key_channels(obj, "rotation_euler", frames, np.radians(SWING[:3]))
    scenes.key_channels(obj, "location", frames, [[0, 0, 0], [2, 1, 0], [3, 3, 1]])
    scenes.select_only(obj)
    settings = bpy.context.scene.quatbake
    settings.location_method, settings.tolerance = 'CATMULL_ROM', 0.01
    settings.key_interpolation = 'BEZIER'
    capfd.readouterr()
    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    said = capfd.readouterr().out
    rotation_keys = len(_rotation_fcurves(obj)[0].keyframe_points)
    location_keys = len([fc for fc in animdata.object_fcurves(obj)
                         if fc.data_path == "location"][0].keyframe_points)
    assert rotation_keys != location_keys
    assert f"Baked 1 object (Mover), {rotation_keys} rotation keys per channel in all" in said, \
        said
    assert f"location {location_keys} LINEAR keys per channel" in said, said


# ---------------------------------------------------------------- bad input, revert, undo

def test_a_tolerance_under_float32_is_refused_by_name_and_nothing_changes(clean_blender):
    obj = _keyed_object("Swing", 'XYZ', np.radians(SWING), camera=False)
    before = scenes.scene_snapshot()
    with pytest.raises(bake.BakeError) as info:
        bake.bake_objects([obj], bake.BakeSettings(method='SLERP', tolerance_deg=1e-6,
                                                   key_interpolation='BEZIER'))
    message = str(info.value)
    assert "\"Swing\"" in message and "Key Tolerance" in message and "Linear" in message
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def test_revert_puts_the_original_keys_back(clean_blender):
    objects = _issue_scenes()
    before = scenes.scene_snapshot()
    bake.bake_objects(list(objects.values()), bake.BakeSettings(
        method='SLERP', tolerance_deg=0.01, key_interpolation='BEZIER'))
    assert scenes.scene_snapshot() != before
    bake.revert_objects(list(objects.values()))
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def _refresh():
    """Evaluate the animation on one fixed frame, so snapshots of the objects' rotation
    values compare like with like."""
    bpy.context.scene.frame_set(1)


def test_operator_bakes_bezier_by_default_and_undo_takes_it_back(clean_blender):
    objects = _issue_scenes()
    scenes.select_only(*objects.values())
    settings = bpy.context.scene.quatbake
    assert settings.key_interpolation == 'BEZIER'          # the default inside Blender
    settings.tolerance = 0.01
    _refresh()
    before = scenes.scene_snapshot()
    bpy.ops.ed.undo_push(message="before bake")
    assert bpy.ops.quatbake.bake('EXEC_DEFAULT', True, method='SLERP') == {'FINISHED'}
    bezier = animdata.enum_value("interpolation", 'BEZIER')
    for obj in objects.values():
        for fc in _rotation_fcurves(obj):
            assert (_keys(fc, "interpolation") == bezier).all()
    settings = bpy.context.scene.quatbake
    assert settings.last_keys_kind == 'BEZIER'
    assert bake_panel.last_bake(bpy.context.scene)["EulerCam"] == \
        len(_rotation_fcurves(objects["EulerCam"])[0].keyframe_points)
    assert bake_panel.last_bake_total(settings, str).endswith(
        f"{settings.last_frames_written:d} keys per channel")
    _refresh()
    baked = scenes.scene_snapshot()
    assert bpy.ops.ed.undo() == {'FINISHED'}
    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())
    assert bpy.ops.ed.redo() == {'FINISHED'}
    _refresh()
    scenes.assert_same_snapshot(baked, scenes.scene_snapshot())


def test_operator_writes_linear_keys_when_asked(clean_blender):
    objects = _issue_scenes()
    scenes.select_only(*objects.values())
    assert bpy.ops.quatbake.bake(method='SLERP', tolerance=0.01,
                                 key_interpolation='LINEAR') == {'FINISHED'}
    linear = animdata.enum_value("interpolation", 'LINEAR')
    for obj in objects.values():
        for fc in _rotation_fcurves(obj):
            assert (_keys(fc, "interpolation") == linear).all()
    assert bpy.context.scene.quatbake.last_keys_kind == 'LINEAR'


def test_a_bone_baked_later_carries_the_earlier_bones_bezier_keys(clean_blender):
    rig = scenes.make_rig("Rig", [("upper", None, (0, 0, 0), (0, 0, 1)),
                                  ("lower", "upper", (0, 0, 1), (0, 0, 2))])
    for bone, z in (("upper", [0, 80, 150]), ("lower", [0, -60, 40])):
        scenes.key_bone(rig, bone, "rotation_euler", [1, 21, 41],
                        np.radians([[0, 10, a] for a in z]), mode='XYZ')
    from quatbake.addon import transform

    upper, lower = transform.AnimatedTransform(rig, "upper"), transform.AnimatedTransform(
        rig, "lower")
    settings = bake.BakeSettings(method='SLERP', tolerance_deg=0.01, key_interpolation='BEZIER')
    bake.bake_objects([upper], settings)
    path = rig.pose.bones["upper"].path_from_id("rotation_euler")

    def upper_curves():
        return [fc for fc in animdata.object_fcurves(rig) if fc.data_path == path]

    first = [animdata.read_keyframe_arrays(fc) for fc in upper_curves()]
    bake.bake_objects([lower], settings)
    second = [animdata.read_keyframe_arrays(fc) for fc in upper_curves()]
    assert len(first) == len(second) == 3
    for a, b in zip(first, second):
        for field in ("co", "handle_left", "handle_right", "interpolation",
                      "handle_left_type", "handle_right_type"):
            np.testing.assert_array_equal(a[field], b[field], err_msg=field)


def test_presets_save_the_keys_setting_and_shipped_ones_leave_it(clean_blender):
    from quatbake.addon.bake import presets

    settings = bpy.context.scene.quatbake
    settings.key_interpolation = 'LINEAR'
    text = presets.preset_text(settings)
    assert "op.key_interpolation = 'LINEAR'" in text
    # A shipped preset predates the setting: applying it keeps the user's choice.
    shipped = presets.preset_files()["Camera move, even speed"]
    assert presets.apply_values(settings, presets.read_preset_values(shipped)) == []
    assert settings.key_interpolation == 'LINEAR'
    settings.key_interpolation = 'BEZIER'
    assert presets.apply_values(settings, {"key_interpolation": 'LINEAR'}) == []
    assert settings.key_interpolation == 'LINEAR'


# ---------------------------------------------------------------- pixels of a camera

def _frame_points(scene, cam_obj, grid=5, distance=10.0):
    """World points spread over the camera's rendered frame, ``distance`` in front."""
    corners = [np.array(c) for c in cam_obj.data.view_frame(scene=scene)]
    # view_frame: top-right, bottom-right, bottom-left, top-left, on the plane z = c.z.
    tr, br, bl, tl = corners
    scale = distance / -tr[2]
    out = []
    for a in np.linspace(0.0, 1.0, grid):
        for b in np.linspace(0.0, 1.0, grid):
            p = (1 - a) * ((1 - b) * bl + b * br) + a * ((1 - b) * tl + b * tr)
            out.append(cam_obj.matrix_world @ mathutils.Vector(p * scale))
    return out


def _image_px(scene, cam_obj, points):
    from bpy_extras.object_utils import world_to_camera_view

    render = scene.render
    size = np.array([render.resolution_x, render.resolution_y]) * \
        render.resolution_percentage / 100.0
    return np.array([[*world_to_camera_view(scene, cam_obj, p)][:2] for p in points]) * size


def test_a_pixel_tolerance_keeps_every_pixel_of_the_render_within_it(clean_blender):
    """1 px at 1920 x 1080 with a 50 mm lens: Blender's own projection
    (world_to_camera_view) of points over the frame, baked camera against a camera
    posed on the slerp path, moves no point more than a pixel at any quarter frame."""
    scene = bpy.context.scene
    scene.render.resolution_x, scene.render.resolution_y = 1920, 1080
    scene.render.resolution_percentage = 100
    objects = _issue_scenes()
    swing = objects["Swing"]                  # not a camera: no pixel tolerance
    # A camera swinging on three axes: its keys have to work to stay within a pixel.
    cam = _keyed_object("SwingCam", 'XYZ', np.radians(SWING))
    cam.data.lens, cam.data.sensor_fit = 50.0, 'AUTO'
    key_q = _key_quats(cam, KEY_FRAMES)
    result = bake.bake_objects([cam, swing], bake.BakeSettings(
        method='SLERP', tolerance_px=1.0, key_interpolation='BEZIER'))
    stats = result.key_statistics["SwingCam"]
    assert stats["tolerance_px"] == 1.0 and stats["max_px"] <= 1.0
    # One pixel spans 0.0215 deg at the centre; the corners move more, so a little less.
    assert 0.017 < stats["tolerance_deg"] < 0.0215
    assert result.keys_per_object["Swing"] == 121          # every frame: no tolerance for it
    worst = _worst_px(scene, cam, key_q)
    assert worst <= 1.0
    # The reported pixels bound what Blender's projection shows, up to its float32
    # arithmetic: ~1e-6 of the image's 1920 px.
    assert worst <= stats["max_px"] + 3e-3
    assert worst >= 0.5                        # the keys do use the pixel they were given
    assert any("px" in n.message and "SwingCam" in n.message for n in result.notes)


def _worst_px(scene, cam, key_q, parent=None, bone=""):
    """The most any point of the frame moves, in pixels of ``scene``'s render, at any
    quarter frame: ``cam`` against a camera posed on the slerp of ``key_q`` under the same
    parent (its ``bone``, if given) (Blender's own projection, world_to_camera_view)."""
    reference = bpy.data.objects.new("Reference", cam.data)
    scene.collection.objects.link(reference)
    if parent is not None:
        reference.parent = parent
        if bone:
            reference.parent_type, reference.parent_bone = 'BONE', bone
        reference.matrix_parent_inverse = cam.matrix_parent_inverse.copy()
    reference.rotation_mode = 'QUATERNION'
    worst = 0.0
    for t, q in zip(QUARTERS, _slerp(KEY_FRAMES, key_q, QUARTERS)):
        scene.frame_set(int(math.floor(t)), subframe=float(t - math.floor(t)))
        reference.rotation_quaternion = q
        bpy.context.view_layer.update()
        points = _frame_points(scene, reference)
        moved = np.linalg.norm(_image_px(scene, cam, points) - _image_px(scene, reference, points),
                               axis=1)
        worst = max(worst, float(moved.max()))
    return worst


def test_a_pixel_tolerance_holds_under_an_unevenly_scaled_parent(clean_blender):
    """A layout walk: under an empty scaled (1, 1, 4) a 1 px bake moved the image 2.2 px,
    the camera's own turn widened by the parent's stretch. Measured as above, with the
    reference camera under the same parent."""
    scene = bpy.context.scene
    scene.render.resolution_x, scene.render.resolution_y = 1920, 1080
    scene.render.resolution_percentage = 100
    rig = bpy.data.objects.new("Stretch", None)
    scene.collection.objects.link(rig)
    rig.scale = (1.0, 1.0, 4.0)
    cam = _keyed_object("StretchedCam", 'XYZ', np.radians(SWING))
    cam.parent = rig
    cam.data.lens, cam.data.sensor_fit = 50.0, 'AUTO'
    key_q = []                                 # its own channels: the slerp the bake follows
    for frame in KEY_FRAMES:
        scene.frame_set(int(frame))
        key_q.append(list(cam.matrix_basis.to_quaternion()))
    key_q = np.array(key_q)
    result = bake.bake_objects([cam], bake.BakeSettings(method='SLERP', tolerance_px=1.0,
                                                        key_interpolation='BEZIER'))
    assert result.key_statistics["StretchedCam"]["max_px"] <= 1.0
    assert _worst_px(scene, cam, key_q, parent=rig) <= 1.0


def test_a_pixel_tolerance_takes_the_cameras_own_scene_and_its_zoom_between_frames(
        clean_blender):
    """A layout walk: the render size came from the scene the file opened on (960 px),
    not the shot's that holds the camera (3840 px), and a snap zoom keyed between frames
    (300 mm at 60.5) was read at the frames alone (35 mm). The angle of one pixel at the
    centre, atan(sensor / width / lens), bounds the tolerance from above."""
    edit = bpy.context.scene
    edit.render.resolution_x, edit.render.resolution_y = 960, 540
    cam = _keyed_object("ShotCam", 'XYZ', np.radians(SWING))
    cam.data.lens, cam.data.sensor_width, cam.data.sensor_fit = 35.0, 36.0, 'HORIZONTAL'
    for frame, lens in ((1.0, 35.0), (60.0, 35.0), (60.5, 300.0), (61.0, 35.0)):
        cam.data.lens = lens
        cam.data.keyframe_insert("lens", frame=frame)
    shot = bpy.data.scenes.new("Shot")
    shot.render.resolution_x, shot.render.resolution_y = 3840, 2160
    shot.render.resolution_percentage = 100
    shot.collection.objects.link(cam)
    edit.collection.objects.unlink(cam)
    result = bake.bake_objects([cam], bake.BakeSettings(method='SLERP', tolerance_px=1.0,
                                                        key_interpolation='BEZIER'))
    one_px = math.degrees(math.atan(36.0 / 3840.0 / 300.0))
    assert result.key_statistics["ShotCam"]["tolerance_deg"] <= one_px


def test_a_degree_tolerance_finer_than_the_pixel_one_is_not_called_a_pixel(clean_blender):
    """A layout walk: --tolerance-px 1 with --tolerance 0.005 read "within 0.005 deg (1 px)"
    where 0.005 deg was 0.64 px, and the bake's line "within 1 px on cameras": the finer
    one decides, the note puts no pixels beside its degrees, and the line names both."""
    from quatbake.addon.bake.engine import within_words

    scene = bpy.context.scene
    scene.render.resolution_x, scene.render.resolution_y = 1920, 1080
    cam = _keyed_object("BothCam", 'XYZ', np.radians(SWING))
    cam.data.lens, cam.data.sensor_fit = 50.0, 'AUTO'
    result = bake.bake_objects([cam], bake.BakeSettings(
        method='SLERP', tolerance_px=1.0, tolerance_deg=0.005, key_interpolation='BEZIER'))
    stats = result.key_statistics["BothCam"]
    assert stats["tolerance_deg"] == pytest.approx(0.005)
    note = next(n.message for n in result.notes if "keys per channel" in n.message)
    assert "within 0.005 deg." in note, note
    said = within_words(result)
    assert "0.005 deg" in said and "1 px" in said, said


def test_an_orthographic_camera_gets_a_warning_not_a_pixel_tolerance(clean_blender):
    objects = _issue_scenes()
    cam = objects["QuatCam"]
    cam.data.type = 'ORTHO'
    result = bake.bake_objects([cam], bake.BakeSettings(method='SLERP', tolerance_px=1.0,
                                                        key_interpolation='BEZIER'))
    assert any("perspective" in w.message and "QuatCam" in w.message for w in result.warnings)
    assert result.keys_per_object["QuatCam"] == 121


def test_a_zoom_takes_the_pixel_tolerance_of_its_longest_lens(clean_blender):
    scene = bpy.context.scene
    scene.render.resolution_x, scene.render.resolution_y = 1920, 1080
    scene.render.resolution_percentage = 100
    cam = _keyed_object("Zoom", 'XYZ', np.radians(SWING))
    cam.data.sensor_width, cam.data.sensor_fit = 36.0, 'AUTO'
    for frame, lens in ((1, 30.0), (61, 80.0), (121, 40.0)):
        cam.data.lens = lens
        cam.data.keyframe_insert("lens", frame=frame)
    result = bake.bake_objects([cam], bake.BakeSettings(method='SLERP', tolerance_px=1.0,
                                                        key_interpolation='BEZIER'))
    tol = result.key_statistics["Zoom"]["tolerance_deg"]
    # One pixel at the centre of the 80 mm frame: atan(36 / 1920 / 80); over the frame less.
    centre_80 = math.degrees(math.atan(36.0 / 1920.0 / 80.0))
    assert 0.9 * centre_80 < tol < centre_80


@pytest.mark.parametrize("how", ["driver", "nla", "sensor"])
def test_a_lens_played_by_a_driver_nla_or_sensor_takes_its_longest(clean_blender, how):
    """A camera walk: the lens was read from the active action only, so a driven lens (a
    dolly zoom), a lens keyed in an NLA strip, or a keyed sensor width (36 -> 4 mm) kept
    the tolerance of the lens at rest: "0.86 px" where Blender's playback moved 10 px.
    The longest focal length over the sensor Blender plays bounds the tolerance: one pixel
    at the frame's centre, atan(sensor / width / lens), from the values frame_set shows."""
    scene = bpy.context.scene
    scene.render.resolution_x, scene.render.resolution_y = 1920, 1080
    scene.render.resolution_percentage = 100
    cam = _keyed_object("Zoom", 'XYZ', np.radians(SWING))
    data = cam.data
    data.lens, data.sensor_width, data.sensor_fit = 40.0, 36.0, 'HORIZONTAL'
    if how == "driver":
        driver = data.driver_add("lens").driver
        driver.expression = "40 + 2 * frame"
    elif how == "nla":
        for frame, lens in ((1, 40.0), (61, 250.0), (121, 40.0)):
            data.lens = lens
            data.keyframe_insert("lens", frame=frame)
        action = data.animation_data.action
        data.animation_data.action = None
        data.animation_data.nla_tracks.new().strips.new("Zoom", 1, action)
        data.lens = 40.0
    else:
        for frame, width in ((1, 36.0), (61, 4.0), (121, 36.0)):
            data.sensor_width = width
            data.keyframe_insert("sensor_width", frame=frame)
    played = []
    for frame in range(1, 122):
        scene.frame_set(frame)
        played.append(data.sensor_width / data.lens)
    scene.frame_set(1)
    finest = math.degrees(math.atan(min(played) / 1920.0))
    assert finest < 0.5 * math.degrees(math.atan(36.0 / 1920.0 / 40.0))   # it does zoom
    result = bake.bake_objects([cam], bake.BakeSettings(method='SLERP', tolerance_px=1.0,
                                                        key_interpolation='BEZIER'))
    assert result.key_statistics["Zoom"]["tolerance_deg"] <= finest * 1.0001


@pytest.mark.parametrize("how", ["bone", "keyed scale", "keyed scale, other scene"])
def test_a_pixel_tolerance_holds_under_a_stretched_bone_or_a_parent_scaled_later(
        clean_blender, how):
    """A camera walk: a camera on a crane's bone stretched (1, 4, 1) moved 2.3 px in a 1 px
    bake (the parent's stretch was read from the armature object, not its bone), and under
    an empty whose scale is keyed to (1, 1, 4) after the current frame, 1.5 px (read at the
    current frame). A review: with the file open on another scene than the shot's, the
    stretch was read as none again (2.4 px). Blender's projection of the frame
    (world_to_camera_view) against a camera on the slerp path under the same parent, at
    every quarter frame (measured in the scene shown, where the shot's objects are linked
    after the bake)."""
    scene = bpy.context.scene
    scene.render.resolution_x, scene.render.resolution_y = 1920, 1080
    scene.render.resolution_percentage = 100
    cam = _keyed_object("CraneCam", 'XYZ', np.radians(SWING))
    cam.data.lens, cam.data.sensor_fit = 50.0, 'AUTO'
    if how == "bone":
        parent = scenes.make_rig("Crane", [("arm", None, (0, 0, 0), (0, 1, 0))])
        parent.pose.bones["arm"].scale = (1.0, 4.0, 1.0)
        cam.parent, cam.parent_type, cam.parent_bone = parent, 'BONE', "arm"
    else:
        parent = bpy.data.objects.new("Grow", None)
        scene.collection.objects.link(parent)
        parent.keyframe_insert("scale", frame=60)
        parent.scale = (1.0, 1.0, 4.0)
        parent.keyframe_insert("scale", frame=61)
        cam.parent = parent
    scene.frame_set(1)
    key_q = []                                 # its own channels: the slerp the bake follows
    for frame in KEY_FRAMES:
        scene.frame_set(int(frame))
        key_q.append(list(cam.matrix_basis.to_quaternion()))
    key_q = np.array(key_q)
    scene.frame_set(1)
    shown = []
    if how.endswith("other scene"):
        shot = bpy.data.scenes.new("Shot")
        shot.render.resolution_x, shot.render.resolution_y = 1920, 1080
        shot.render.resolution_percentage = 100
        for obj in (cam, parent):
            shot.collection.objects.link(obj)
            scene.collection.objects.unlink(obj)
        shown = [cam, parent]
    result = bake.bake_objects([cam], bake.BakeSettings(method='SLERP', tolerance_px=1.0,
                                                        key_interpolation='BEZIER'))
    assert result.key_statistics["CraneCam"]["max_px"] <= 1.0
    for obj in shown:
        scene.collection.objects.link(obj)
    reference_parent = parent
    worst = _worst_px(scene, cam, key_q, parent=reference_parent,
                      bone="arm" if how == "bone" else "")
    assert worst <= 1.0, worst


# ---------------------------------------------------------------- the measurement after the write

def _bisection_play(co, hl, hr, frames):
    """One Bezier F-curve (handles inside their spans) at ``frames``: t by 60
    bisections of x(t), de Casteljau for both coordinates; CONSTANT beyond the ends."""
    seg = np.clip(np.searchsorted(co[:, 0], frames, side="right") - 1, 0, len(co) - 2)
    p = (co[seg], hr[seg], hl[seg + 1], co[seg + 1])

    def curve(t, axis):
        a, b, c, d = (q[:, axis] for q in p)
        ab, bc, cd = a + (b - a) * t, b + (c - b) * t, c + (d - c) * t
        abc, bcd = ab + (bc - ab) * t, bc + (cd - bc) * t
        return abc + (bcd - abc) * t

    lo, hi = np.zeros(frames.size), np.ones(frames.size)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        below = curve(mid, 0) < frames
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    y = curve(0.5 * (lo + hi), 1)
    return np.where(frames >= co[-1, 0], co[-1, 1], np.where(frames <= co[0, 0], co[0, 1], y))


def test_the_measurement_plays_again_only_what_blender_changed_and_sees_it():
    """measure_written takes the fit's own playback where the stored keys are the
    fitted numbers; a handle moved (as fc.update() moves ALIGNED ones) is played
    again. Both against an independent player and mathutils' Euler composition."""
    from types import SimpleNamespace

    from quatbake.addon.bake import reduce as bake_reduce
    from quatbake.core import bezier_keys, rotation

    times = QUARTERS
    keys = [mathutils.Euler(e, 'XYZ').to_quaternion() for e in np.radians(SWING)]
    target = np.array([tuple(keys[i].slerp(keys[i + 1], (t - KEY_FRAMES[i]) / 40.0))
                       for t in times for i in [min(int((t - 1.0) // 40.0), 2)]])
    values = rotation.quat_to_mode_values_continuous(target, 'XYZ', np.radians(SWING[0]))
    fit = bezier_keys.fit(times, target, values, 'XYZ', 0.01, required=KEY_FRAMES)
    assert fit.played is not None
    plan = SimpleNamespace(dense=(times, target, values), bezier=fit, tolerance_deg=0.01,
                           played_before=None, quats=None, keep=None,
                           out_mode='XYZ', frames=np.arange(1.0, 122.0), key_count_before=4,
                           pixels_per_radian=None, tolerance_px=0.0, rotation_values=None,
                           held_rotation=None, refined=0, reached=0,
                           location_written=lambda: (np.arange(1.0, 122.0), None, None))

    def arrays_of(moved_handle=0.0):
        out = []
        for c in range(3):
            co, hl, hr, ipo = fit.fcurve_arrays(c)
            if c == 1:
                hr[2, 1] += moved_handle     # the third key's right handle, channel Y
            out.append({"co": co, "handle_left": hl, "handle_right": hr, "interpolation": ipo})
        return out

    def independent_max_deg(arrays):
        played = np.column_stack([_bisection_play(a["co"], a["handle_left"], a["handle_right"],
                                                  times) for a in arrays])
        # Blender's XYZ: X first, q = qz qy qx, composed here in float64 (mathutils
        # works in float32, whose angles bottom out near 0.01 deg).
        half = 0.5 * played
        c, s = np.cos(half), np.sin(half)
        qx = np.column_stack((c[:, 0], s[:, 0], 0 * c[:, 0], 0 * c[:, 0]))
        qy = np.column_stack((c[:, 1], 0 * c[:, 1], s[:, 1], 0 * c[:, 1]))
        qz = np.column_stack((c[:, 2], 0 * c[:, 2], 0 * c[:, 2], s[:, 2]))

        def mul(p, q):
            pw, pv, qw, qv = p[:, 0], p[:, 1:], q[:, 0], q[:, 1:]
            return np.column_stack((pw * qw - (pv * qv).sum(1),
                                    pw[:, None] * qv + qw[:, None] * pv + np.cross(pv, qv)))

        got = mul(mul(qz, qy), qx)
        rel = mul(got, target * np.array([1.0, -1.0, -1.0, -1.0]))
        return np.degrees(2.0 * np.arctan2(np.linalg.norm(rel[:, 1:], axis=1),
                                           np.abs(rel[:, 0]))).max()

    for moved in (0.0, 0.05):
        arrays = arrays_of(moved)
        stats = bake_reduce.measure_written(plan, arrays)
        # Both float64: 60 bisections put t within 1e-18, the fit's solve within 1e-13.
        assert abs(stats["max_deg"] - independent_max_deg(arrays)) < 1e-7, moved
    # The moved handle shows: far more than the tolerance.
    assert bake_reduce.measure_written(plan, arrays_of(0.05))["max_deg"] > 0.05


def test_a_recording_keyed_on_every_frame_is_thinned(clean_blender):
    """Issue 24's walk: a BVH at Key Tolerance 1 deg with Keys: Bezier kept every one of
    its keys, since the animator's key frames stay keys. A key on every frame is a
    recording, not poses: it is thinned, and Blender still plays within the tolerance of
    the slerp through the recorded keys (scipy) at every quarter frame."""
    frames = np.arange(1.0, 61.0)
    t = (frames - 1.0) / 59.0
    angles = np.radians(np.stack([30.0 * np.sin(2 * np.pi * t), 20.0 * t,
                                  60.0 * np.cos(np.pi * t)], axis=1))
    obj = _keyed_object("Mocap", 'XYZ', angles, frames=frames, camera=False)
    recorded = _key_quats(obj, frames)
    tolerance = 0.5
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', tolerance_deg=tolerance,
                                               key_interpolation='BEZIER'))
    kept = {float(f) for fc in _rotation_fcurves(obj) for f in _keys(fc, "co")[:, 0]}
    assert len(kept) <= 15, sorted(kept)      # it kept all 60 before
    quarters = np.arange(1.0, 60.0 + 1e-9, 0.25)
    off = _angle_deg(_played(obj, quarters), _slerp(frames, recorded, quarters))
    assert off.max() <= tolerance, (off.max(), quarters[int(np.argmax(off))])


def _near_lock_keys():
    """The Euler keys of the 100 x 2,000-frame benchmark's 36th object (benchmarks/
    bench_bake.build_scene, numpy's default_rng(0), keys every 50 frames in +-3 rad):
    its slerp passes close to gimbal lock after frame 1051, where X and Z cancel."""
    rng = np.random.default_rng(0)
    frames = np.append(np.arange(1.0, 2001.0, 50.0), 2000.0)
    for _ in range(36):
        values = rng.uniform(-3.0, 3.0, (frames.size, 3))
        rng.uniform(-10.0, 10.0, (frames.size, 3))
    # The stream is numpy's: if it ever changed, this is another scene (say so).
    assert np.allclose(values[frames == 1051.0], [[2.03961777, -1.51202549, -2.62529238]])
    return frames, values


def test_near_gimbal_lock_blender_plays_the_keys_as_written_within_the_tolerance(clean_blender):
    """Blender's re-alignment of ALIGNED handles (fc.update(), in float32) moves a handle
    by a float32 step. Near gimbal lock, in a one-frame span the fit put at 1054-1055,
    that step played 0.0158 deg off at frame 1054.75, and the 0.01 deg bake failed as a
    whole. Blender's own playback (frame_set + matrix_world) is now within the
    tolerance of scipy's slerp of the keys at every quarter frame there."""
    frames, values = _near_lock_keys()
    obj = _keyed_object("NearLock", 'XYZ', values, frames=frames, camera=False)
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 2000
    recorded = _key_quats(obj, frames)
    tolerance = 0.01
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', tolerance_deg=tolerance,
                                               key_interpolation='BEZIER'))
    quarters = np.arange(1041.0, 1071.0 + 1e-9, 0.25)
    off = _angle_deg(_played(obj, quarters), _slerp(frames, recorded, quarters))
    assert off.max() <= tolerance, (off.max(), quarters[int(np.argmax(off))])


@pytest.mark.parametrize("method", ['SLERP', 'SQUAD', 'NLERP'])
def test_keys_through_gimbal_lock_play_within_the_tolerance_between_quarter_frames(
        clean_blender, method):
    """An animator's Euler keys every 10 frames, the middle one at 89.9 deg of pitch: the
    method's path swings X and Z fast past the lock around frame 21, faster than quarter
    frames show. Blender's playback (frame_set with subframes, matrix_world) at every
    1/64 frame is within the 0.01 deg tolerance of the method's path through the keys'
    orientations (tests/oracles/method_paths.py). It was within it at every quarter frame
    and 0.0165 (slerp), 0.131 (Squad), 0.178 (nlerp) deg off between them, at frames
    20.94 to 21.08: the bake now samples the path more finely where Euler angles bend
    fast (core.bezier_keys.bending_gaps)."""
    if method == 'SQUAD':
        pytest.importorskip("quaternion")
    if method == 'SLERP':
        pytest.importorskip("scipy")
    from oracles import method_paths

    frames = np.array([1.0, 11.0, 21.0, 31.0, 41.0])
    degrees = [[0, 0, 0], [30, 69.9, 10], [60, 89.9, 40], [20, 79.9, 120], [0, 10, 150]]
    obj = _keyed_object("Lock", 'XYZ', np.radians(degrees), frames=frames, camera=False)
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 41
    keyed = _key_quats(obj, frames)
    tolerance = 0.01
    bake.bake_objects([obj], bake.BakeSettings(method=method, tolerance_deg=tolerance,
                                               key_interpolation='BEZIER'))
    times = np.arange(64.0, 41.0 * 64.0 + 1.0) / 64.0
    off = _angle_deg(_played(obj, times), method_paths.path(method, frames, keyed, times))
    assert off.max() <= tolerance, (off.max(), times[int(np.argmax(off))])


def test_keys_through_gimbal_lock_with_keyed_timing_play_within_the_tolerance_between_quarter_frames(
        clean_blender):
    """Timing: Keyed through the lock: the keys' ease on the slerp arc (the share of each
    interval Blender's playback has twisted about the arc's axis). Blender's playback of
    the bake at every 1/64 frame is within the 0.01 deg tolerance of that path, computed
    from Blender's playback of the keys before the bake and scipy's Slerp
    (tests/oracles/method_paths.slerp_keyed_timing). It was 0.133 deg off at frame 21.08,
    within it at every quarter frame: Timing: Keyed added no samples between quarter
    frames, its progress known at its tracked samples only (it raised where one was
    added). The playback is now tracked again with the added samples among its own."""
    pytest.importorskip("scipy")
    from oracles import method_paths

    frames = np.array([1.0, 11.0, 21.0, 31.0, 41.0])
    degrees = [[0, 0, 0], [30, 69.9, 10], [60, 89.9, 40], [20, 79.9, 120], [0, 10, 150]]
    obj = _keyed_object("Lock", 'XYZ', np.radians(degrees), frames=frames, camera=False)
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 41
    keyed = _key_quats(obj, frames)
    times = np.arange(64.0, 41.0 * 64.0 + 1.0) / 64.0
    eased = method_paths.slerp_keyed_timing(frames, keyed, _played(obj, times), times)
    tolerance = 0.01
    result = bake.bake_objects([obj], bake.BakeSettings(
        method='SLERP', tolerance_deg=tolerance, key_interpolation='BEZIER', timing='KEYED'))
    assert result.key_statistics["Lock"]["samples_between"] > 0
    off = _angle_deg(_played(obj, times), eased)
    assert off.max() <= tolerance, (off.max(), times[int(np.argmax(off))])


def _moving_through_the_lock(name, pitch, interpolation=None):
    """XYZ keys at frames 1, 11, 21, 31, 41 through ``pitch`` deg of pitch, located at
    x = 0, 1.3, 5, 6.7, 20: (the object, the keys' orientations, the frames Constant
    Speed with Linear locations reaches them at, 1 + 40 x / 20, from the path's
    length)."""
    frames = np.array([1.0, 11.0, 21.0, 31.0, 41.0])
    degrees = [[0, 0, 0], [30, pitch - 20, 10], [60, pitch, 40], [20, pitch - 10, 120],
               [0, 10, 150]]
    obj = _keyed_object(name, 'XYZ', np.radians(degrees), frames=frames, camera=False,
                        interpolation={f: interpolation for f in frames}
                        if interpolation else None)
    x = np.array([0.0, 1.3, 5.0, 6.7, 20.0])
    for frame, at in zip(frames, x):
        obj.location = (at, 0.0, 0.0)
        obj.keyframe_insert("location", frame=float(frame))
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 41
    return obj, _key_quats(obj, frames), 1.0 + 40.0 * x / 20.0


@pytest.mark.parametrize("pitch", [60.0, 89.9])
def test_constant_speed_keys_its_poses_where_it_reaches_them_and_plays_within_the_tolerance(
        clean_blender, pitch):
    """Constant Speed with Linear locations reaches each key's pose where the object has
    travelled that share of the whole path's length: keys at frames 1, 11, 21, 31, 41 at
    x = 0, 1.3, 5, 6.7, 20 are reached at frames 1 + 40 * (0, 1.3, 5, 6.7, 20) / 20 =
    1, 3.6, 11, 14.4, 41, the slerp between them timed evenly there. Blender's playback
    of the bake at every 1/64 frame is within the 0.01 deg tolerance of scipy's Slerp of
    the keys' orientations at those frames, and the poses are keys there (the animator's
    frames 21 and 31, which the poses left, need not be). The fit kept keys on the
    animator's frames and left those corners unkeyed: 1.20 deg off at frame 14.41 (15
    keys, pitch 60), within it at every quarter frame."""
    pytest.importorskip("scipy")
    from scipy.spatial.transform import Rotation, Slerp

    obj, keyed, reached = _moving_through_the_lock("Lock", pitch)
    tolerance = 0.01
    bake.bake_objects([obj], bake.BakeSettings(
        method='SLERP', tolerance_deg=tolerance, key_interpolation='BEZIER',
        constant_speed=True, location_method='LINEAR'))
    times = np.arange(64.0, 41.0 * 64.0 + 1.0) / 64.0
    path = Slerp(reached, Rotation.from_quat(np.asarray(keyed)[:, [1, 2, 3, 0]]))(times)
    off = _angle_deg(_played(obj, times), path.as_quat()[:, [3, 0, 1, 2]])
    assert off.max() <= tolerance, (off.max(), times[int(np.argmax(off))])
    written = [fc for fc in animdata.object_fcurves(obj) if fc.data_path == "rotation_euler"]
    key_frames = animdata.read_keyframe_arrays(written[0], ("co",))["co"][:, 0]
    # float32 frames: 3.6 is stored as 3.5999999.
    assert np.abs(key_frames[:, None] - reached[None, :]).min(axis=0).max() <= 1e-5, key_frames


def test_constant_speed_holds_stepped_poses_from_the_frames_it_reaches_them(clean_blender):
    """The same keys as above, CONSTANT (each pose held until the next key): with
    Constant Speed each pose is reached, and held, from 1, 3.6, 11, 14.4 (and 41), and a
    Bezier tolerance bake plays exactly that at every 64th frame: the key orientation of
    the last frame reached. The held intervals were taken on the animator's frames,
    where the poses no longer change, and the bake played 84 to 115 deg off near the
    steps (a review)."""
    obj, keyed, reached = _moving_through_the_lock("Steps", 89.9, 'CONSTANT')
    bake.bake_objects([obj], bake.BakeSettings(
        method='SLERP', tolerance_deg=0.01, key_interpolation='BEZIER',
        constant_speed=True, location_method='LINEAR'))
    times = np.arange(64.0, 41.0 * 64.0 + 1.0) / 64.0
    # float32 frames: a pose reached at 3.6 is keyed at 3.5999999; the 64ths next to it
    # are 1/64 frame away.
    held = np.asarray(keyed)[np.searchsorted(reached, times + 1e-5, side="right") - 1]
    off = _angle_deg(_played(obj, times), held)
    assert off.max() <= 0.01, (off.max(), times[int(np.argmax(off))])


def test_a_recording_baked_with_constant_speed_is_thinned_not_kept_key_for_key(clean_blender):
    """Rotation and location keyed on every frame 1-61 (a recording), moving at a fifth
    of its later speed for the first 15 frames. Retimed to one speed, its keys are
    reached 1.23 frames apart on average: they are still a recording, thinned within
    the tolerance, not the animator's poses (a review: every one of the 61 was kept, at
    frames 1.246, 1.492 ...). Blender's playback at every 64th frame is within 0.5 deg
    of scipy's Slerp of the keys' orientations at the frames they are reached, computed
    here from the path's length: 1 + 60 x_i / x_61."""
    pytest.importorskip("scipy")
    from scipy.spatial.transform import Rotation, Slerp

    frames = np.arange(1.0, 62.0)
    u = (frames - 1.0) / 60.0
    degrees = np.column_stack((40.0 * np.sin(3.0 * u), 50.0 * u, 90.0 * u * u))
    obj = _keyed_object("Take", 'XYZ', np.radians(degrees), frames=frames, camera=False)
    x = np.concatenate(([0.0], np.cumsum(np.where(frames[:-1] < 15.0, 0.2, 1.0))))
    for frame, at in zip(frames, x):
        obj.location = (at, 0.0, 0.0)
        obj.keyframe_insert("location", frame=float(frame))
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 61
    keyed = _key_quats(obj, frames)
    reached = 1.0 + 60.0 * x / x[-1]
    tolerance = 0.5
    result = bake.bake_objects([obj], bake.BakeSettings(
        method='SLERP', tolerance_deg=tolerance, key_interpolation='BEZIER',
        constant_speed=True, location_method='LINEAR'))
    assert result.keys_per_object["Take"] <= 61 // 4, result.keys_per_object
    times = np.arange(64.0, 61.0 * 64.0 + 1.0) / 64.0
    path = Slerp(reached, Rotation.from_quat(np.asarray(keyed)[:, [1, 2, 3, 0]]))(times)
    off = _angle_deg(_played(obj, times), path.as_quat()[:, [3, 0, 1, 2]])
    assert off.max() <= tolerance, (off.max(), times[int(np.argmax(off))])


def _good_and_bad():
    """Two objects keyed alike near gimbal lock over frames 1-41, whose Euler angles swing
    enough for the bake to sample between quarter frames: "Good" and "Bad"."""
    frames = np.array([1.0, 11.0, 21.0, 31.0, 41.0])
    degrees = [[0, 0, 0], [30, 69.9, 10], [60, 89.9, 40], [20, 79.9, 120], [0, 10, 150]]
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 41
    return tuple(_keyed_object(name, 'XYZ', np.radians(degrees), frames=frames, camera=False)
                 for name in ("Good", "Bad"))


def _bad_left_alone(result, bad, action, before) -> None:
    """"Bad" refused for a failure made to happen while its samples between quarter
    frames were added, named, its action and keys (``before``) as they were; "Good"
    baked with its samples between."""
    assert result.objects == ["Good"] and result.failed_transforms == ["Bad"]
    assert bad.animation_data.action == action
    assert [tuple(kp.co) for fc in animdata.object_fcurves(bad)
            for kp in fc.keyframe_points] == before
    said = [i.message for i in result.failed]
    assert any('Object "Bad"' in m and "sampling its path between quarter frames" in m
               and "made to fail" in m for m in said), said
    assert result.key_statistics["Good"]["samples_between"] > 0


def test_a_transform_whose_path_fails_to_be_sampled_between_quarter_frames_is_left_alone(
        clean_blender, monkeypatch):
    """Sampling the path between quarter frames (reduce.samples_to_add) raised for one
    transform with Timing: Keyed, and the whole bake was refused with it. A failure
    there (made here for one object, so that the path can be followed) refuses that
    transform alone, named, its keys as they were; the other is baked."""
    from quatbake.addon.bake import reduce as bake_reduce

    good, bad = _good_and_bad()
    before = [tuple(kp.co) for fc in animdata.object_fcurves(bad) for kp in fc.keyframe_points]
    action = bad.animation_data.action
    sample = bake_reduce.samples_to_add

    def failing(plan):
        if plan.obj.name == "Bad":
            raise ValueError("made to fail")
        return sample(plan)

    monkeypatch.setattr(bake_reduce, "samples_to_add", failing)
    result = bake.bake_objects([good, bad], bake.BakeSettings(
        method='SLERP', tolerance_deg=0.01, key_interpolation='BEZIER'))
    _bad_left_alone(result, bad, action, before)


def test_a_transform_whose_added_samples_fail_to_merge_is_left_alone(clean_blender,
                                                                      monkeypatch):
    """The samples between quarter frames of every transform are converted to channel
    values together (reduce.add_between). A failure there for one of them (made here)
    fails the batch: each is then merged alone, so the one that fails is refused, named,
    its keys as they were, and the other is baked with its samples between."""
    from quatbake.addon.bake import reduce as bake_reduce

    good, bad = _good_and_bad()
    before = [tuple(kp.co) for fc in animdata.object_fcurves(bad) for kp in fc.keyframe_points]
    action = bad.animation_data.action
    merge = bake_reduce.add_between
    batches = []

    def failing(added):
        batches.append(sorted(plan.obj.name for plan, _more, _target in added))
        if any(plan.obj.name == "Bad" for plan, _more, _target in added):
            raise ValueError("made to fail")
        merge(added)

    monkeypatch.setattr(bake_reduce, "add_between", failing)
    result = bake.bake_objects([good, bad], bake.BakeSettings(
        method='SLERP', tolerance_deg=0.01, key_interpolation='BEZIER'))
    assert batches[0] == ["Bad", "Good"], batches     # both had samples to add
    _bad_left_alone(result, bad, action, before)


def test_a_merge_failing_late_adds_no_transforms_samples_twice(clean_blender, monkeypatch):
    """A failure in the merge of the added samples after another transform's were merged
    (a review: its baked frames read from the merged samples raised, for a frame made to
    lie past them here) left that one's samples merged without letting them go, and the
    retry, transform by transform, merged them again: every added sample twice. Each
    transform's samples measured are its quarter frames and its samples between, once."""
    from quatbake.addon.bake import reduce as bake_reduce

    good, bad = _good_and_bad()
    sample = bake_reduce.samples_to_add

    def late(plan):
        more = sample(plan)
        if plan.obj.name == "Bad":
            plan.frames = np.append(plan.frames, 1.0e6)   # past every sample
        return more

    monkeypatch.setattr(bake_reduce, "samples_to_add", late)
    result = bake.bake_objects([good, bad], bake.BakeSettings(
        method='SLERP', tolerance_deg=0.01, key_interpolation='BEZIER'))
    assert result.objects == ["Good"] and result.failed_transforms == ["Bad"]
    stats = result.key_statistics["Good"]
    assert stats["samples_between"] > 0
    assert stats["samples"] == 4 * 40 + 1 + stats["samples_between"], stats


# Channel values computed in two ways that are the same numbers (radians).
SAME_RAD = 1e-12


def _euler_track(seed: int, n: int = 41):
    """(times, target (n, 4) w-first, XYZ values (n, 3) continuous): scipy's slerp of a few
    random keys every quarter frame, its XYZ angles (Blender's XYZ is scipy's extrinsic
    "xyz") unwrapped per channel."""
    from scipy.spatial.transform import Rotation, Slerp

    rng = np.random.default_rng(seed)
    times = np.arange(n) * 0.25
    keys = Rotation.from_quat(rng.normal(size=(4, 4)))
    path = Slerp(np.linspace(0.0, times[-1], 4), keys)(times)
    values = np.unwrap(path.as_euler("xyz"), axis=0)
    return times, path.as_quat()[:, [3, 0, 1, 2]], values


def test_samples_added_between_are_the_targets_continuous_from_the_sample_before():
    """reduce._values_between, the channel values of the samples a Bezier bake adds
    between quarter frames, every plan's runs in one conversion per run length: each
    value is its target's rotation (scipy), continuous from the sample before it (no
    jump of a turn, no flip to the other Euler solution); each plan's values are what it
    gets alone; and a plan whose run does not lead on to the sample after it as its track
    does (that sample's X a turn further: the same rotation, another winding) gets None,
    alone of the plans."""
    pytest.importorskip("scipy")
    from scipy.spatial.transform import Rotation, Slerp

    from quatbake.addon.bake import reduce as bake_reduce

    denses, mores, targets = [], [], []
    for seed, per_gap in enumerate((1, 2, 3, 5)):
        times, target, values = _euler_track(seed)
        rng = np.random.default_rng(10 + seed)
        gaps = np.sort(rng.choice(times.size - 1, 12, replace=False))
        # per_gap samples in each chosen gap, a different run length per plan, and one
        # gap with a single sample in every plan.
        counts = np.full(gaps.size, per_gap)
        counts[0] = 1
        more = np.concatenate([times[g] + 0.25 * np.sort(rng.uniform(0.05, 0.95, c))
                               for g, c in zip(gaps, counts)])
        slerp = Slerp(times, Rotation.from_quat(target[:, [1, 2, 3, 0]]))
        denses.append((times, target, values))
        mores.append(more)
        targets.append(slerp(more).as_quat()[:, [3, 0, 1, 2]])
    together = bake_reduce._values_between(denses, mores, targets, 'XYZ')
    for dense, more, target, values in zip(denses, mores, targets, together):
        alone = bake_reduce._values_between([dense], [more], [target], 'XYZ')[0]
        # To 1e-12 rad, not to the bit: the conversion's arrays are shaped otherwise in a
        # batch, and a numpy build may round a vectorised loop's tail as its scalar loop
        # does not (a run given to another run's samples is off by radians).
        np.testing.assert_allclose(values, alone, rtol=0.0, atol=SAME_RAD)
        # The target's rotation, to 1e-9 rad.
        off = (Rotation.from_euler("xyz", values)
               * Rotation.from_quat(target[:, [1, 2, 3, 0]]).inv()).magnitude()
        assert off.max() < 1e-9, off.max()
        # Continuous: within a tenth of a turn of the sample before it and of the one after
        # (a quarter frame of this slerp turns each angle by far less).
        times, _target, dense_values = dense
        left = np.searchsorted(times, more, side="right") - 1
        assert np.abs(values - dense_values[left]).max() < 0.2 * np.pi
        assert np.abs(values - dense_values[left + 1]).max() < 0.2 * np.pi
    # The third plan's sample after its first run, a turn further about X.
    times, target, values = denses[2]
    wound = values.copy()
    after = np.searchsorted(times, mores[2][0])
    wound[after:, 0] += 2.0 * np.pi
    found = bake_reduce._values_between(
        [denses[0], (times, target, wound), denses[3]], [mores[0], mores[2], mores[3]],
        [targets[0], targets[2], targets[3]], 'XYZ')
    assert found[1] is None
    np.testing.assert_allclose(found[0], together[0], rtol=0.0, atol=SAME_RAD)
    np.testing.assert_allclose(found[2], together[3], rtol=0.0, atol=SAME_RAD)


def test_aligned_handles_are_given_as_blenders_own_realignment_leaves_them(clean_blender):
    """core.bezier_keys.aligned_as_blender against Blender itself: float32 handles, close
    to aligned as a fit makes them, written ALIGNED (and some FREE) and then
    fc.update(). What Blender stores is what the function gives, to a float32 step (a
    build whose compiler fuses multiply-adds may round once less); FREE ones unmoved."""
    from quatbake.core import bezier_keys

    rng = np.random.default_rng(7)
    n = 400
    x = np.cumsum(rng.uniform(0.25, 60.0, n)) + 1000.0
    y = rng.normal(0.0, 3.0, (n, 1))
    slope = rng.normal(0.0, 4.0, (n, 1))
    gap = np.diff(x, prepend=x[0] - 1.0, append=x[-1] + 1.0)
    left = rng.uniform(0.02, 0.95, (n, 1)) * gap[:-1, None]
    right = rng.uniform(0.02, 0.95, (n, 1)) * gap[1:, None]
    f32 = bezier_keys._f32
    raw = [f32(a) for a in (x[:, None] - left, y - slope * left,
                            x[:, None] + right, y + slope * right)]
    aligned = rng.uniform(size=n) < 0.8
    obj = bpy.data.objects.new("Handles", None)
    bpy.context.scene.collection.objects.link(obj)
    action, slot = animdata.new_action_for(obj, "HandlesAction")
    animdata.assign_action(obj, action, slot)
    fc = animdata.new_fcurve(action, slot, "rotation_euler", 0)
    animdata.write_bezier_keys(fc, np.column_stack((f32(x), f32(y[:, 0]))),
                               np.column_stack((raw[0][:, 0], raw[1][:, 0])),
                               np.column_stack((raw[2][:, 0], raw[3][:, 0])),
                               np.full(n, 'BEZIER'),
                               np.where(aligned, 'ALIGNED', 'FREE'), update=True)
    stored = animdata.read_keyframe_arrays(fc, ("handle_left", "handle_right"))
    hlx, hly, hrx, hry = bezier_keys.aligned_as_blender(x, y, *raw, aligned)
    expected_left = np.column_stack((hlx[:, 0], hly[:, 0]))
    expected_right = np.column_stack((hrx[:, 0], hry[:, 0]))
    step = np.spacing(np.abs(np.concatenate((expected_left, expected_right))).astype(np.float32))
    off = np.abs(np.concatenate((stored["handle_left"] - expected_left,
                                 stored["handle_right"] - expected_right)))
    assert (off <= step.astype(np.float64)).all(), off.max()
    moved = ((stored["handle_left"] != np.column_stack((raw[0][:, 0], raw[1][:, 0])))
             .any(axis=1) | (stored["handle_right"] != np.column_stack((raw[2][:, 0],
                                                                          raw[3][:, 0])))
             .any(axis=1))
    # Blender does move most aligned handles (else this test would show nothing) and
    # never a FREE one.
    assert moved[aligned].mean() > 0.5 and not moved[~aligned].any()


def test_a_long_parented_shot_is_played_a_bounded_number_of_frames(clean_blender):
    """A review: any tolerance bake of a parented camera played every frame of the shot
    (frame_set), 100 s for 3,000 frames of a heavy scene where it took 1 s before. A
    tolerance in degrees plays none; one in pixels at most MAX_PLAYED_FRAMES, and the four
    frames from each key of the parent's (and puts the frame back). Counted by Blender's
    own frame-change handler."""
    from quatbake.addon.bake import camera as bake_camera

    scene = bpy.context.scene
    scene.frame_end = 3000
    rig = bpy.data.objects.new("Crane", None)
    scene.collection.objects.link(rig)
    rig.keyframe_insert("scale", frame=1)
    rig.scale = (1.0, 1.0, 3.0)
    rig.keyframe_insert("scale", frame=3000)
    cam = _keyed_object("LongCam", 'XYZ', np.radians(SWING), frames=[1.0, 1000.0, 2000.0, 3000.0])
    cam.parent = rig
    scene.frame_set(17)
    played = []

    def count(scene_, *_args):
        played.append(scene_.frame_current)

    bpy.app.handlers.frame_change_post.append(count)
    try:
        bake.bake_objects([cam], bake.BakeSettings(method='SLERP', tolerance_deg=0.1))
        assert played == []
        bake.revert_objects([cam])
        bake.bake_objects([cam], bake.BakeSettings(method='SLERP', tolerance_px=1.0))
    finally:
        bpy.app.handlers.frame_change_post.remove(count)
    assert 0 < len(played) <= bake_camera.MAX_PLAYED_FRAMES + 4 * 2 + 1
    assert scene.frame_current == 17


def test_a_parents_stretch_keyed_between_the_spread_frames_is_read(clean_blender):
    """A review: a 3,000-frame shot plays at most MAX_PLAYED_FRAMES spread frames, and a
    parent's scale keyed up to (1, 1, 20) and back over frames 1508-1518, between two of
    them, went unread: 2.4 px in a 1 px bake. The keys of what is above the camera are
    played too: the tolerance is the unparented camera's over the stretch (20), within a
    hundredth."""
    scene = bpy.context.scene
    scene.render.resolution_x, scene.render.resolution_y = 1920, 1080
    scene.render.resolution_percentage = 100
    scene.frame_end = 3000
    frames = [1.0, 1000.0, 2000.0, 3000.0]
    cam = _keyed_object("SpikeCam", 'XYZ', np.radians(SWING), frames=frames)
    cam.data.lens, cam.data.sensor_fit = 50.0, 'AUTO'
    alone = bake.bake_objects([cam], bake.BakeSettings(
        method='SLERP', tolerance_px=1.0, key_interpolation='BEZIER'))
    bake.revert_objects([cam])
    parent = bpy.data.objects.new("Spike", None)
    scene.collection.objects.link(parent)
    for frame, z in ((1508, 1.0), (1513, 20.0), (1518, 1.0)):
        parent.scale = (1.0, 1.0, z)
        parent.keyframe_insert("scale", frame=frame)
    cam.parent = parent
    scene.frame_set(1)
    spiked = bake.bake_objects([cam], bake.BakeSettings(
        method='SLERP', tolerance_px=1.0, key_interpolation='BEZIER'))
    ratio = alone.key_statistics["SpikeCam"]["tolerance_deg"] / \
        spiked.key_statistics["SpikeCam"]["tolerance_deg"]
    assert ratio == pytest.approx(20.0, rel=0.01), ratio


def _four_turn_spin():
    """An object tilted 0.3 rad about X, Euler Z keyed 0 -> 1440 deg over frames 1-41."""
    obj = bpy.data.objects.new("Spin", None)
    bpy.context.scene.collection.objects.link(obj)
    for frame, z in ((1, 0.0), (41, 1440.0)):
        obj.rotation_euler = (0.3, 0.0, math.radians(z))
        obj.keyframe_insert("rotation_euler", frame=frame)
    return obj


@pytest.mark.parametrize("output", ['QUATERNION', 'AXIS_ANGLE', 'KEEP'])
def test_no_span_of_quaternion_keys_turns_past_half_a_turn(clean_blender, output):
    """A four-turn spin over 40 frames (Euler Z keyed 0 -> 1440 deg, kept: Turns: Auto)
    baked at 1 deg to Output: Quaternion kept a key per turn. Blender played it within the
    tolerance, and the report after it read 180 deg off, "the long way", since a span of
    quaternion keys turning past half a turn is a flipped sign to any reader. Every such
    span turns less than 180 deg now (Blender's playback, frame_set at quarter frames);
    Euler and axis-angle keys keep the spin in one span (channels past 180 deg are a spin
    to any reader). Each within 1 deg of the constant-speed spin, and the report after the
    bake finds no long way round. Measured with mathutils alone (Blender 3.4.1's Python has no scipy)."""
    from quatbake.addon.analyze import engine as analyze
    from quatbake.core import findings

    obj = _four_turn_spin()
    bake.bake_objects([obj], bake.BakeSettings(
        method='SLERP', output_mode=output, tolerance_deg=1.0, key_interpolation='BEZIER'))
    times = np.arange(1.0, 41.0 + 1e-9, 0.25)
    scene = bpy.context.scene
    played = []
    for t in times:
        scene.frame_set(int(t), subframe=float(t - int(t)))
        played.append(obj.matrix_world.to_quaternion())
    spin = [mathutils.Euler((0.3, 0.0, math.radians(1440.0 * (t - 1) / 40))).to_quaternion()
            for t in times]
    def apart(a, b):        # deg between two rotations, either sign
        return math.degrees(2.0 * math.acos(min(1.0, abs(a.dot(b)))))

    assert max(apart(a, b) for a, b in zip(spin, played)) < 1.0 + FLOAT32_DEG
    steps = np.array([apart(a, b) for a, b in zip(played[:-1], played[1:])])
    keys = animdata.key_frames([fc for fc in animdata.object_fcurves(obj)
                                if fc.data_path.startswith("rotation")])
    turned = [steps[(times[:-1] >= a) & (times[1:] <= b)].sum()
              for a, b in zip(keys[:-1], keys[1:])]
    assert sum(turned) == pytest.approx(1440.0, abs=5.0)
    if output == 'QUATERNION':
        assert max(turned) < 180.0, turned
    elif output == 'KEEP':     # Z keyed past 180 deg: a spin, one span as the animator keyed it
        assert len(turned) == 1, turned
    after = analyze.analyze_object(obj, "slerp")
    assert findings.defect_arcs(after) == [] and after.max_deviation_deg < 1.0, after.findings


def test_a_looser_tolerance_keeps_no_more_quaternion_keys(clean_blender):
    """A review: the half-turn cap on a span was lowered by twice the tolerance, so the
    four-turn spin kept 11 keys at 1 deg, 15 at 30 deg and one on every frame at 60 deg.
    The cap holds whatever the tolerance (the keys are the poses; a playback a whole turn
    off between them would be 180 deg from the path somewhere): no more keys for a looser
    tolerance, and no span of quaternion keys turning past half a turn (frame_set)."""
    counts = []
    for tolerance in (1.0, 30.0, 60.0):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        obj = _four_turn_spin()
        bake.bake_objects([obj], bake.BakeSettings(
            method='SLERP', output_mode='QUATERNION', tolerance_deg=tolerance,
            key_interpolation='BEZIER'))
        keys = animdata.key_frames([fc for fc in animdata.object_fcurves(obj)
                                    if fc.data_path == "rotation_quaternion"])
        counts.append(keys.size)
        scene = bpy.context.scene
        played = []
        for t in np.arange(1.0, 41.0 + 1e-9, 0.25):
            scene.frame_set(int(t), subframe=float(t - int(t)))
            played.append(obj.matrix_world.to_quaternion())
        times = np.arange(1.0, 41.0 + 1e-9, 0.25)
        steps = np.array([math.degrees(2.0 * math.acos(min(1.0, abs(a.dot(b)))))
                          for a, b in zip(played[:-1], played[1:])])
        turned = [steps[(times[:-1] >= a) & (times[1:] <= b)].sum()
                  for a, b in zip(keys[:-1], keys[1:])]
        assert max(turned) < 180.0, (tolerance, turned)
    assert counts == sorted(counts, reverse=True) and counts[-1] < 41, counts


def test_a_recording_thinned_to_more_keys_keeps_its_own(clean_blender):
    """A tolerance walk: glTF-Blender-IO's 06_parent-inverse-anim.gltf, ChildAxisAngle, 10
    quaternion keys a frame apart, baked at 0.02 deg with Keys: Bezier, came out with 18
    keys, 8 of them between frames, where its own 10 with a handle either side of each
    slerp corner play within 0.0001 deg. A recording thinned to more keys than it had
    keeps its own; Blender's playback (frame_set at quarter frames) against mathutils'
    slerp of its poses at the keys."""
    from test_realdata_import import import_gltf

    import_gltf("06_parent-inverse-anim.gltf", 24)
    obj = bpy.data.objects["ChildAxisAngle"]
    keys = animdata.key_frames([fc for fc in animdata.object_fcurves(obj)
                                if fc.data_path.startswith("rotation")])
    assert keys.size == 10 and np.allclose(np.diff(keys), 1.0), keys
    scene = bpy.context.scene

    def pose(t):            # the object's own rotation (its parent moves too), float64
        scene.frame_set(int(math.floor(t)), subframe=float(t - math.floor(t)))
        q = np.array(obj.rotation_quaternion, dtype=np.float64)
        return q / np.linalg.norm(q)

    poses = [pose(frame) for frame in keys]     # the glTF's times: not quite whole frames
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', tolerance_deg=0.02,
                                               key_interpolation='BEZIER'))
    written = animdata.key_frames([fc for fc in animdata.object_fcurves(obj)
                                   if fc.data_path.startswith("rotation")])
    assert written.tolist() == keys.tolist(), written
    worst = 0.0
    for i in range(keys.size - 1):
        for u in (0.0, 0.25, 0.5, 0.75):
            # Slerp written out in float64 (mathutils' float32 dot products are 0.04 deg
            # coarse here): the short arc from one pose towards the next.
            a, b = poses[i], poses[i + 1] * np.sign(np.dot(poses[i], poses[i + 1]))
            omega = math.acos(min(1.0, float(np.dot(a, b))))
            wanted = (math.sin((1 - u) * omega) * a + math.sin(u * omega) * b) / math.sin(omega)
            got = pose(keys[i] + u * (keys[i + 1] - keys[i]))
            rel = np.linalg.norm(np.cross(wanted[1:], got[1:]) + wanted[0] * got[1:]
                                 - got[0] * wanted[1:])
            worst = max(worst, math.degrees(2.0 * math.atan2(rel, abs(np.dot(wanted, got)))))
    assert worst < 0.02, worst
