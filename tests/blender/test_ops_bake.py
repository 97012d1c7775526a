"""quatbake.bake / quatbake.revert through bpy.ops, on scenes built in code.

Runs with the bpy module and inside Blender 3.4.1 (pytest-blender). What the
engine computes is tested in test_bake.py; here: the operators act on the
selection, take the scene settings as defaults, let explicit arguments win,
report errors as text and leave the data alone, and revert restores.
"""
import math
import re

import bpy
import numpy as np
import pytest

from quatbake.addon import animdata, bake, versions
from quatbake.core import interp, quat

import scenes

pytestmark = pytest.mark.bpy

# Keys chosen so the four methods and Blender's own Euler interpolation all
# disagree by degrees mid-way: big turns on several axes and an Euler wrap
# (170 -> -170 degrees on Z) which Blender takes the long way round.
KEY_FRAMES = np.array([1.0, 21.0, 41.0])
KEY_EULERS = np.radians([[0.0, 0.0, 170.0], [80.0, 30.0, -170.0], [10.0, -60.0, 60.0]])
KEY_LOCATIONS = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [10.0, 5.0, 0.0]])

# float32 F-curve storage of quaternion/Euler values is ~6e-8 relative; the
# evaluated rotation then goes through float32 mathutils matrices: a few 1e-7
# rad. 2e-6 rad is the acceptance tolerance for "Blender replays it".
REPLAY_TOL_RAD = 2e-6


def _keyed(name: str, data=None):
    obj = scenes.make_animated_object(name, 'XYZ', KEY_FRAMES, KEY_EULERS,
                                      location=KEY_LOCATIONS, data=data)
    return obj


def _key_quats(obj) -> np.ndarray:
    """Blender's own orientation at the key frames (what the bake interpolates)."""
    return animdata.evaluate_rotation(obj, KEY_FRAMES)


def _baked_rotation_error(obj, key_quats, method: str) -> float:
    """Largest angle (rad) between what Blender now evaluates for ``obj`` on every
    frame of the keyed range and core's ``method`` interpolation of ``key_quats``."""
    frames = np.arange(KEY_FRAMES[0], KEY_FRAMES[-1] + 1.0)
    expected = interp.interpolate(KEY_FRAMES, key_quats, frames, method=method)
    actual = scenes.evaluated_quats(obj, frames)
    return float(np.max(quat.angle_between(actual, expected)))


def _refresh() -> None:
    """Evaluate the animation on one fixed frame, so snapshots of the objects'
    rotation values compare like with like."""
    bpy.context.scene.frame_set(int(KEY_FRAMES[0]))


def test_operators_are_registered_with_undo_and_presets(clean_blender):
    # The redo panel's preset list only where Blender can list the shipped
    # presets in it (register_preset_path, 4.2+); on 3.4 it showed "* Missing
    # Paths *" only, so it is not offered there.
    redo_presets = {'PRESET'} if hasattr(bpy.utils, "register_preset_path") else set()
    assert bpy.types.QUATBAKE_OT_bake.bl_options == {'REGISTER', 'UNDO'} | redo_presets
    assert {'REGISTER', 'UNDO'} <= bpy.types.QUATBAKE_OT_revert.bl_options
    props = bpy.ops.quatbake.bake.get_rna_type().properties
    for name in ("method", "location_method", "constant_speed", "frame_step", "use_frame_range",
                 "frame_start", "frame_end", "output_mode", "union_keys"):
        assert name in props, name
        # Same choices as the scene setting, so the redo panel and presets
        # offer exactly what the panel does.
        scene_prop = bpy.types.Scene.bl_rna.properties["quatbake"].fixed_type.properties[name]
        if props[name].type == 'ENUM' and name != "method":
            assert props[name].enum_items.keys() == scene_prop.enum_items.keys()
    # The scene keeps Lerp for comparisons (CONTRACT); the bake does not offer it.
    scene_methods = bpy.types.Scene.bl_rna.properties["quatbake"].fixed_type.properties["method"]
    assert scene_methods.enum_items.keys() == ['LERP', 'NLERP', 'SLERP', 'SQUAD']
    assert props["method"].enum_items.keys() == ['NLERP', 'SLERP', 'SQUAD']
    assert props["frame_step"].hard_min == 1


@pytest.mark.parametrize("op_name", ["bake", "revert"])
def test_poll_says_why_without_a_selection(clean_blender, op_name):
    _keyed("Cube")
    scenes.select_only()
    operator = getattr(bpy.ops.quatbake, op_name)
    assert not operator.poll()
    with pytest.raises(RuntimeError, match="Select at least one object"):
        operator()


def test_bake_writes_new_action_and_revert_restores_it(clean_blender):
    obj = _keyed("Cube")
    camera = _keyed("Camera", data=bpy.data.cameras.new("CameraData"))
    scenes.select_only(obj, camera)
    _refresh()
    before = scenes.scene_snapshot()
    originals = {o.name: animdata.get_action(o).name for o in (obj, camera)}
    key_quats = {o.name: _key_quats(o) for o in (obj, camera)}

    assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}

    for o in (obj, camera):
        action = animdata.get_action(o)
        assert action is not None and action.name != originals[o.name]
        assert bake.can_revert(o)
        assert _baked_rotation_error(o, key_quats[o.name], "slerp") < REPLAY_TOL_RAD
    # The original actions are kept untouched while the bake is in place.
    for name in originals.values():
        scenes.assert_same_snapshot(
            {"objects": {}, "fake_users": {}, "actions": {name: before["actions"][name]}},
            {"objects": {}, "fake_users": {},
             "actions": {name: scenes.action_snapshot(bpy.data.actions[name])}},
        )

    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    for o in (obj, camera):
        assert animdata.get_action(o).name == originals[o.name]
        assert not bake.can_revert(o)
    _refresh()
    assert scenes.scene_snapshot()["objects"] == before["objects"]
    for name in originals.values():
        np.testing.assert_equal(
            scenes.action_snapshot(bpy.data.actions[name]), before["actions"][name]
        )


def test_bake_summary_is_stored_on_the_scene(clean_blender):
    obj = _keyed("Cube")
    camera = _keyed("Camera", data=bpy.data.cameras.new("CameraData"))
    scenes.select_only(obj, camera)
    settings = bpy.context.scene.quatbake
    assert not settings.has_last_bake

    bpy.ops.quatbake.bake(method='SLERP')

    assert settings.has_last_bake
    assert settings.last_objects_baked == 2
    assert settings.last_frames_written >= len(np.arange(KEY_FRAMES[0], KEY_FRAMES[-1] + 1))
    # The wrap makes Blender's Euler interpolation take the long way round:
    # it differs from slerp by tens of degrees mid-way.
    assert settings.last_max_deviation_deg > 10.0
    assert math.isfinite(settings.last_max_deviation_deg)

    bpy.ops.quatbake.revert()
    assert not settings.has_last_bake


def test_scene_settings_are_the_defaults(clean_blender):
    obj = _keyed("Cube")
    scenes.select_only(obj)
    key_quats = _key_quats(obj)
    settings = bpy.context.scene.quatbake
    settings.method = 'NLERP'
    settings.frame_step = 2

    bpy.ops.quatbake.bake()

    rot = animdata.rotation_fcurves(obj)
    np.testing.assert_array_equal(animdata.key_frames(rot), np.arange(1.0, 42.0, 2.0))
    baked_frames = np.arange(1.0, 42.0, 2.0)
    expected = interp.interpolate(KEY_FRAMES, key_quats, baked_frames, method="nlerp")
    assert np.max(quat.angle_between(scenes.evaluated_quats(obj, baked_frames), expected)) \
        < REPLAY_TOL_RAD
    # Not slerp: the two differ by far more than the tolerance on these turns.
    slerped = interp.interpolate(KEY_FRAMES, key_quats, baked_frames, method="slerp")
    assert np.max(quat.angle_between(expected, slerped)) > 100 * REPLAY_TOL_RAD


def test_explicit_arguments_override_the_scene(clean_blender):
    obj = _keyed("Cube")
    scenes.select_only(obj)
    key_quats = _key_quats(obj)
    settings = bpy.context.scene.quatbake
    settings.method = 'NLERP'
    settings.frame_step = 3

    bpy.ops.quatbake.bake(method='SQUAD', frame_step=1)

    frames = np.arange(1.0, 42.0)
    np.testing.assert_array_equal(animdata.key_frames(animdata.rotation_fcurves(obj)), frames)
    assert _baked_rotation_error(obj, key_quats, "squad") < REPLAY_TOL_RAD
    # The scene settings themselves are not changed by an explicit call.
    assert settings.method == 'NLERP' and settings.frame_step == 3


def test_custom_frame_range_is_passed_on(clean_blender):
    obj = _keyed("Cube")
    scenes.select_only(obj)

    bpy.ops.quatbake.bake(use_frame_range=True, frame_start=5, frame_end=15)

    np.testing.assert_array_equal(
        animdata.key_frames(animdata.rotation_fcurves(obj)), np.arange(5.0, 16.0)
    )


def test_a_custom_range_does_not_name_a_held_key_whose_pose_still_plays(clean_blender):
    """A Rigify walk: a blocking key at frame 1 (Constant) holds through frame 20, the
    start of Custom Range 20-50; the warning said its pose "no longer plays", while frame
    20 played it before and after the bake. Blender's playback decides: the key at 1 is
    not named, the one at 60 (a new pose after the range) is."""
    obj = scenes.make_animated_object("Block", 'XYZ', [1.0, 30.0, 60.0],
                                      np.radians([[0, 0, 0], [0, 0, 40], [0, 0, 80]]),
                                      'CONSTANT')
    played = scenes.evaluated_quats(obj, [1.0, 20.0, 50.0, 60.0])
    assert quat.angle_between(played[0], played[1]) < 1e-6            # 1's pose at 20
    assert quat.angle_between(played[2], played[3]) > 0.1             # 60's is new
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP', frame_range=(20, 50)))
    said = [w.message for w in result.warnings if "Custom Range" in w.message]
    assert len(said) == 1 and "leaves out the keys at 60 after it" in said[0], said
    assert quat.angle_between(scenes.evaluated_quats(obj, [1.0])[0], played[0]) < 1e-6


@pytest.mark.parametrize("mode", ['QUATERNION', 'XYZ'])
def test_a_custom_range_names_a_key_of_the_same_pose_only_for_the_turn_to_it(clean_blender,
                                                                            mode):
    """A review: a key at frame 1 stored as the negative of the quaternion at frame 10, the
    start of Custom Range 10-20: the same pose, and Blender plays it all the way (its
    channels scale one orientation), yet it was said to be lost. Not named. A second
    review: an Euler angle a whole turn more is the same pose too, but Blender turns a whole
    turn from it to frame 10, which the bake's hold takes away; it is named again, as a
    turntable's key a turn past the range's end is. Blender's playback (mathutils) shows
    both."""
    if mode == 'QUATERNION':
        q0 = scenes.quats_about_z([30])[0]
        values = np.array([-q0, q0, scenes.quats_about_z([70])[0]])
    else:
        values = np.radians([[0, 0, 390], [0, 0, 30], [0, 0, 70]])
    obj = scenes.make_animated_object("Same", mode, [1.0, 10.0, 20.0], values, 'LINEAR')
    played = scenes.evaluated_quats(obj, [1.0, 10.0, 4.0])
    assert quat.angle_between(played[0], played[1]) < 1e-6
    turns = quat.angle_between(played[2], played[1]) > 1.0      # 120 deg away at frame 4
    assert turns == (mode == 'XYZ')
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP', frame_range=(10, 20)))
    said = [w.message for w in result.warnings if "Custom Range" in w.message]
    if mode == 'QUATERNION':
        assert not said
    else:
        assert len(said) == 1 and "leaves out the keys at 1 before it" in said[0], said


def test_a_custom_range_names_a_turntables_key_a_whole_turn_past_its_end(clean_blender):
    """A review: a turntable keyed 0 -> 360 -> 720 deg at 1, 25, 49 (Linear), baked over
    Custom Range 1-25: the key at 49 is frame 25's pose, so nothing was said, while the
    bake held still where Blender turned (180 deg off at frame 37, mathutils)."""
    obj = scenes.make_animated_object("Turntable", 'XYZ', [1.0, 25.0, 49.0],
                                      np.radians([[0, 0, 0], [0, 0, 360], [0, 0, 720]]),
                                      'LINEAR')
    before = scenes.evaluated_quats(obj, [37.0])
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP', frame_range=(1, 25)))
    said = [w.message for w in result.warnings if "Custom Range" in w.message]
    assert len(said) == 1 and "leaves out the keys at 49 after it" in said[0], said
    assert quat.angle_between(scenes.evaluated_quats(obj, [37.0])[0], before[0]) > 3.0


def test_a_custom_range_says_which_keys_it_leaves_out(clean_blender):
    """A walk: Custom Range 5-25 dropped the poses keyed at 1, 31 and 41 without a word.
    The warning's claim is checked on Blender's playback: before the range the pose is
    frame 5's, after it frame 15's."""
    obj = _keyed("Cube")
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP', frame_range=(5, 15)))
    said = [w.message for w in result.warnings if "Custom Range" in w.message]
    assert len(said) == 1 and \
        "Custom Range 5-15 leaves out the keys at 1 before it and 21, 41 after it" in said[0]
    played = scenes.evaluated_quats(obj, [1.0, 5.0, 15.0, 21.0, 41.0])
    assert quat.angle_between(played[0], played[1]) < 1e-6
    assert quat.angle_between(played[3], played[2]) < 1e-6
    assert quat.angle_between(played[4], played[2]) < 1e-6
    # A mocap-like bone, a key on every frame: the keys left out as spans and counts, not
    # five of hundreds ("and 418 more").
    bake.revert_objects([obj])
    frames = np.arange(1.0, 61.0)
    dense = scenes.make_animated_object("Dense", 'XYZ', frames,
                                        np.radians(np.outer(frames, [1.0, 2.0, 3.0])))
    result = bake.bake_objects([dense], bake.BakeSettings(method='SLERP', frame_range=(10, 50)))
    said = [w.message for w in result.warnings if "Custom Range" in w.message]
    assert "leaves out the keys at 1-9 (9 keys) before it and 51-60 (10 keys) after it" \
        in said[0], said
    bake.revert_objects([dense])
    # Keys before frame 0 (an FBX clip's pre-roll, at -4999999 to -9 in a walk's file): the
    # span in words, not "-30--21".
    early = scenes.make_animated_object("Early", 'XYZ', np.arange(-30.0, 11.0),
                                        np.radians(np.outer(np.arange(41.0), [1.0, 0.0, 0.0])))
    result = bake.bake_objects([early], bake.BakeSettings(method='SLERP', frame_range=(-20, 5)))
    said = [w.message for w in result.warnings if "Custom Range" in w.message]
    assert "Custom Range -20 to 5 leaves out the keys at -30 to -21 (10 keys) before it and " \
        "6-10 (5 keys) after it" in said[0], said
    bake.revert_objects([early])
    # A range that holds every key says nothing.
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP', frame_range=(1, 41)))
    assert not [w for w in result.warnings if "Custom Range" in w.message]


def test_reversed_frame_range_is_refused_and_nothing_changes(clean_blender):
    obj = _keyed("Cube")
    scenes.select_only(obj)
    _refresh()
    before = scenes.scene_snapshot()

    with pytest.raises(RuntimeError, match="ends on frame 10, before it starts on frame 30"):
        bpy.ops.quatbake.bake(use_frame_range=True, frame_start=30, frame_end=10)

    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())
    assert not bpy.context.scene.quatbake.has_last_bake


def test_frame_step_zero_is_impossible_and_refused_by_the_engine(clean_blender):
    obj = _keyed("Cube")
    scenes.select_only(obj)
    _refresh()
    before = scenes.scene_snapshot()
    # Through the operator, 0 is clamped to the property's minimum ...
    settings = bpy.context.scene.quatbake
    settings.frame_step = 0
    assert settings.frame_step == 1
    # ... and if a script hands 0 to the engine anyway, it refuses, naming the
    # step, and writes nothing.
    with pytest.raises(bake.BakeError, match="(?i)step"):
        bake.bake_objects([obj], bake.BakeSettings(frame_step=0))
    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def test_object_without_animation_is_refused_by_name_and_nothing_changes(clean_blender):
    """Selected alone, an object with nothing to bake is refused, by name."""
    still = scenes.new_object("Still")
    scenes.select_only(still)
    _refresh()
    before = scenes.scene_snapshot()

    with pytest.raises(RuntimeError, match="Still") as info:
        bpy.ops.quatbake.bake()
    assert str(info.value).startswith("Error:")

    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())
    assert not bake.can_revert(still)


def test_object_without_animation_beside_a_keyed_one_is_left_and_named(clean_blender):
    """Issue 21: a mixed selection bakes what can be baked; the object with nothing to bake
    is left exactly as it was and named in the bake's notes (the panel's last-bake notes)."""
    keyed = _keyed("Keyed")
    still = scenes.new_object("Still")
    scenes.select_only(keyed, still)
    _refresh()
    before = scenes.scene_snapshot()

    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    _refresh()
    after = scenes.scene_snapshot()
    assert after["objects"]["Still"] == before["objects"]["Still"]
    assert bake.can_revert(keyed) and not bake.can_revert(still)
    notes = bpy.context.scene.quatbake.last_turn_notes
    assert 'Object "Still" has no animation' in notes, notes
    bpy.ops.quatbake.revert()
    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def test_revert_with_nothing_to_revert_says_so(clean_blender):
    obj = _keyed("Cube")
    scenes.select_only(obj)
    _refresh()
    before = scenes.scene_snapshot()

    with pytest.raises(RuntimeError, match="Cube|revert") as info:
        bpy.ops.quatbake.revert()
    assert str(info.value).startswith("Error:")

    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def test_undo_restores_the_scene_and_redo_bakes_again(clean_blender):
    """Ctrl+Z after a bake. bpy.ops pushes undo steps for operators with the
    UNDO option only when asked to (its second positional argument), which is
    what a button press does; the step before the bake is pushed by hand, as
    every earlier edit in a real session would have."""
    _keyed("Cube")
    scenes.select_only(bpy.data.objects["Cube"])
    _refresh()
    before = scenes.scene_snapshot()
    bpy.ops.ed.undo_push(message="before bake")

    assert bpy.ops.quatbake.bake('EXEC_DEFAULT', True, method='SQUAD') == {'FINISHED'}
    _refresh()
    baked = scenes.scene_snapshot()
    assert baked["objects"]["Cube"][0] != before["objects"]["Cube"][0]

    assert bpy.ops.ed.undo() == {'FINISHED'}
    # Undo reloads the data: every Python reference is stale, look up by name.
    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())
    assert not bake.can_revert(bpy.data.objects["Cube"])
    assert not bpy.context.scene.quatbake.has_last_bake

    assert bpy.ops.ed.redo() == {'FINISHED'}
    _refresh()
    scenes.assert_same_snapshot(baked, scenes.scene_snapshot())
    assert bake.can_revert(bpy.data.objects["Cube"])


def test_union_keys_argument_reaches_the_engine(clean_blender):
    """Channels keyed on different frames: refused (naming the setting that
    allows it), then baked once union_keys is passed."""
    obj = scenes.new_object("Arm", 'XYZ')
    scenes.key_channels(obj, "rotation_euler", KEY_FRAMES, KEY_EULERS[:, :1], indices=[0])
    scenes.key_channels(obj, "rotation_euler", KEY_FRAMES[[0, 2]], KEY_EULERS[[0, 2], 1:],
                        indices=[1, 2])
    scenes.select_only(obj)
    _refresh()
    before = scenes.scene_snapshot()

    with pytest.raises(RuntimeError, match="Arm.*Merge Key Frames"):
        bpy.ops.quatbake.bake()
    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())

    assert bpy.ops.quatbake.bake(union_keys=True) == {'FINISHED'}
    assert bake.can_revert(obj)


def test_output_mode_quaternion_switches_the_object_and_revert_switches_back(clean_blender):
    obj = _keyed("Camera", data=bpy.data.cameras.new("CameraData"))
    scenes.select_only(obj)
    key_quats = _key_quats(obj)

    bpy.ops.quatbake.bake(output_mode='QUATERNION', method='SLERP')

    assert obj.rotation_mode == 'QUATERNION'
    assert _baked_rotation_error(obj, key_quats, "slerp") < REPLAY_TOL_RAD
    bpy.ops.quatbake.revert()
    assert obj.rotation_mode == 'XYZ'


def test_engine_setting_errors_come_back_as_reports(clean_blender):
    """Constant speed needs a location path: the engine's sentence reaches the
    caller through the operator's report, and nothing is written."""
    obj = _keyed("Cube")
    scenes.select_only(obj)
    _refresh()
    before = scenes.scene_snapshot()

    with pytest.raises(RuntimeError, match="Constant speed .* needs Location"):
        bpy.ops.quatbake.bake(constant_speed=True, location_method='KEEP')

    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def _graph_view_all(keyed) -> tuple[float, float]:
    """The frames the Graph Editor shows after View All (Home) on every key of ``keyed``:
    the factory screen's largest area turned into a Graph Editor."""
    window = bpy.context.window_manager.windows[0]
    area = max(window.screen.areas, key=lambda a: a.width * a.height)
    area.type = 'GRAPH_EDITOR'
    region = next(r for r in area.regions if r.type == 'WINDOW')
    scenes.select_only(keyed)
    with bpy.context.temp_override(window=window, area=area, region=region):
        assert bpy.ops.graph.select_all(action='SELECT') == {'FINISHED'}
        assert bpy.ops.graph.view_all() == {'FINISHED'}
    return region.view2d.region_to_view(0, 0)[0], \
        region.view2d.region_to_view(region.width, 0)[0]


@pytest.mark.parametrize("kwargs", [dict(), dict(tolerance=0.1, key_interpolation='LINEAR')],
                         ids=["dense", "tolerance-linear"])
def test_a_baked_shot_is_framed_where_its_keys_are_and_its_keys_turn_bezier(clean_blender,
                                                                            kwargs):
    """A shot at frames 1001-1041 (a film pipeline's numbering), baked to Linear keys:
    each handle sits on its key, so the Graph Editor's View All frames the shot. With
    the handles at (0, 0), where keyframe_points.add leaves them, it framed 0-1041,
    the curves squeezed into the right 4%. Set to Bezier, the keys get Blender's own
    handles, and the curve still passes through them."""
    frames = KEY_FRAMES + 1000.0
    obj = scenes.make_animated_object("Shot", 'XYZ', frames, KEY_EULERS,
                                      location=KEY_LOCATIONS)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = int(frames[0]), int(frames[-1])
    scenes.select_only(obj)
    assert bpy.ops.quatbake.bake(**kwargs) == {'FINISHED'}
    curves = animdata.rotation_fcurves(obj)      # location: kept as keyed (Bezier)
    assert len(curves) == 3 and all(k.interpolation == 'LINEAR'
                                    for fc in curves for k in fc.keyframe_points)
    for fc in curves:
        keys = animdata.read_keyframe_arrays(fc, ("co", "handle_left", "handle_right"))
        np.testing.assert_array_equal(keys["handle_left"], keys["co"], err_msg=fc.data_path)
        np.testing.assert_array_equal(keys["handle_right"], keys["co"], err_msg=fc.data_path)
    left, right = _graph_view_all(obj)
    span = frames[-1] - frames[0]
    assert frames[0] - span < left < frames[0] and frames[-1] < right < frames[-1] + span, \
        (left, right)
    fc = curves[2]
    values = [k.co[1] for k in fc.keyframe_points]
    window = bpy.context.window_manager.windows[0]
    area = next(a for a in window.screen.areas if a.type == 'GRAPH_EDITOR')
    region = next(r for r in area.regions if r.type == 'WINDOW')
    with bpy.context.temp_override(window=window, area=area, region=region):
        assert bpy.ops.graph.interpolation_type(type='BEZIER') == {'FINISHED'}
    points = fc.keyframe_points
    assert all(k.interpolation == 'BEZIER' for k in points)
    for i in range(1, len(points) - 1):
        key, before, after = points[i], points[i - 1], points[i + 1]
        # Blender placed them: between the neighbouring keys, off the key itself.
        assert before.co[0] < key.handle_left[0] < key.co[0] < key.handle_right[0] < \
            after.co[0], i
        assert fc.evaluate(key.co[0]) == pytest.approx(values[i], abs=1e-6)


def test_the_keys_line_names_every_tolerance_that_applied(clean_blender, capfd):
    """A review: with a Key Tolerance and a Bone Tip Tolerance both set (the smaller of the
    two decides), the status line named only the first; the command line named both. A
    walk: it also named a tolerance that applied to none of the transforms baked (a tip
    tolerance on an object, which a note names instead)."""
    obj = _keyed("Cube")
    rig = scenes.make_rig("Rig", [("arm", None, (0, 0, 0), (0, 0, 1))])
    scenes.key_bone(rig, "arm", "rotation_quaternion", [1.0, 21.0],
                    [[1, 0, 0, 0], [0.6, 0, 0.8, 0]])
    for selected, named in (([obj, rig], r"within 0\.5 deg and 0\.02 scene units at bone tips"),
                            ([obj], r"within 0\.5 deg \(|within 0\.5 deg$")):
        scenes.select_only(*selected)
        capfd.readouterr()
        assert bpy.ops.quatbake.bake(method='SLERP', tolerance=0.5, tolerance_tip=0.02) == \
            {'FINISHED'}
        said = capfd.readouterr().out
        line = next(line for line in said.splitlines() if "Keys per channel" in line)
        assert re.search(r"Keys per channel: \d+ dense -> \d+ " + named, line), line
        assert bpy.ops.quatbake.revert() == {'FINISHED'}
    assert "Bone Tip Tolerance applies to pose bones of some length only" in said


def test_a_rigs_unanimated_bones_are_one_note_not_one_each(clean_blender):
    """A walk: an unanimated metarig left selected beside the keyed rig in Pose Mode
    printed a line per bone (108 for 100 bones), and as many errors when nothing could be
    baked. Said once for the rig, naming a few bones and counting the rest."""
    meta = scenes.make_rig("metarig", [(f"b{i}", None, (i, 0, 0), (i, 0, 1)) for i in range(6)])
    rig = scenes.make_rig("rig", [("arm", None, (0, 2, 0), (0, 2, 1))])
    scenes.key_bone(rig, "arm", "rotation_quaternion", np.array([1.0, 21.0]),
                    [[1, 0, 0, 0], [0, 0, 0.6, 0.8]])
    scenes.select_only(meta, rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode='POSE')
    for obj in (meta, rig):
        for bone in obj.data.bones:
            versions.select_bone(obj, bone.name, True)
    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    notes = bpy.context.scene.quatbake.last_turn_notes.splitlines()
    about_meta = [n for n in notes if "metarig" in n]
    assert about_meta == ['Armature "metarig", 6 bones ("b0", "b1", "b2", "b3", "b4", "b5"): '
                          'each has no animation, so there is nothing to bake. Key its '
                          'rotation on two frames or more, then bake.'], notes
    bpy.ops.object.mode_set(mode='OBJECT')
