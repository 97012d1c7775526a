"""A bake of an NLA clip keys the clip's action as keyed, at its own frames. When the
strip that plays the clip changes it (animated influence, blending, scale, repeat,
reversed, moved), what plays after the bake differs, and the bake says so, naming the
strip and what it does (a walk: a strip at influence 0.5 played 90 deg away after the
bake, with nothing said). Each claim is checked on Blender's playback (frame_set +
matrix_world) before and after the bake.
"""
import json

import bpy
import numpy as np
import pytest

from quatbake.addon import bake
from quatbake.core import quat

import scenes

pytestmark = pytest.mark.bpy

FRAMES = np.arange(1.0, 82.0)
KEYS = ([1.0, 21.0, 41.0], [[1, 0, 0, 0], [0.5, 0.5, 0.5, 0.5], [0, 0, 0.6, 0.8]])


def _clip_only(change):
    obj = scenes.new_object("Clipped", 'QUATERNION')
    scenes.key_channels(obj, "rotation_quaternion", *KEYS)
    action = obj.animation_data.action
    obj.animation_data.action = None
    obj.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
    strip = obj.animation_data.nla_tracks.new().strips.new("Walk", 1, action)
    change(strip)
    return obj, action, strip.name     # Blender 3.4 names a new strip after its action


def _played(obj) -> np.ndarray:
    out = []
    for frame in FRAMES:
        bpy.context.scene.frame_set(int(frame))
        out.append(tuple(obj.matrix_world.to_quaternion()))
    return np.array(out)


def _influence(strip):
    strip.use_animated_influence = True
    strip.influence = 0.5
    for fc in strip.fcurves:
        fc.keyframe_points.insert(1, 0.5)


CHANGES = {
    "animated influence": _influence,
    "blending Add": lambda strip: setattr(strip, "blend_type", 'ADD'),
    "scale 2": lambda strip: setattr(strip, "scale", 2.0),
    "repeat 2": lambda strip: setattr(strip, "repeat", 2.0),
    "reversed": lambda strip: setattr(strip, "use_reverse", True),
    "moved +10 frames": lambda strip: setattr(strip, "frame_start", 11.0),
    "blend in 20 / out 0 frames": lambda strip: setattr(strip, "blend_in", 20.0),
}


@pytest.mark.parametrize("said", list(CHANGES))
def test_a_clip_whose_strip_changes_it_is_baked_with_a_warning_naming_the_change(
        clean_blender, said):
    obj, action, strip = _clip_only(CHANGES[said])
    before = _played(obj)
    result = bake.bake_objects([obj], bake.BakeSettings(clip=action.name))
    warned = [w.message for w in result.warnings if "NLA strip" in w.message]
    assert len(warned) == 1 and f'"{strip}"' in warned[0] and said in warned[0], warned
    # The claim: what plays after the bake differs from the strip's playback.
    assert np.degrees(quat.angle_between(before, _played(obj))).max() > 1.0


def test_a_plain_strip_is_baked_without_a_warning_and_plays_the_same_on_its_keys(
        clean_blender):
    obj, action, _strip = _clip_only(lambda strip: None)
    before = _played(obj)
    result = bake.bake_objects([obj], bake.BakeSettings(clip=action.name))
    assert not [w for w in result.warnings if "NLA strip" in w.message]
    at_keys = np.isin(FRAMES, KEYS[0] + [81.0])
    # float32 keys composed by Blender: 1e-4 deg
    assert np.degrees(quat.angle_between(before, _played(obj)))[at_keys].max() < 1e-4


def test_a_lone_combine_strip_is_baked_without_a_warning_and_plays_the_same(clean_blender):
    """A review: a lone strip blending Combine was said to change its keys. Blender combines
    it onto each channel's default (the identity quaternion): the same poses, measured on
    its playback before and after the bake."""
    obj, action, _strip = _clip_only(lambda strip: setattr(strip, "blend_type", 'COMBINE'))
    before = _played(obj)
    result = bake.bake_objects([obj], bake.BakeSettings(clip=action.name))
    assert not [w for w in result.warnings if "NLA strip" in w.message]
    at_keys = np.isin(FRAMES, KEYS[0] + [81.0])
    # float32 keys composed by Blender, Combine's quaternion product: 1e-3 deg
    assert np.degrees(quat.angle_between(before, _played(obj)))[at_keys].max() < 1e-3


def test_a_revert_of_a_clip_bake_names_what_was_keyed_since_it(clean_blender):
    """A review: Revert of a clip bake takes the baked action, and the scale keyed on it
    since, away without a word (it puts back what played before: the clip in its strip)."""
    obj, action, _strip = _clip_only(lambda strip: None)
    bake.bake_objects([obj], bake.BakeSettings(clip=action.name))
    obj.scale = (1.0, 1.0, 0.5)
    obj.keyframe_insert("scale", frame=30)
    notes = []
    bake.revert_objects([obj], notes)
    assert len(notes) == 1 and "(scale) went with it" in notes[0] and "Ctrl+Z" in notes[0]


def _layered(location_in_base: bool):
    """An object whose walk is pushed down to an NLA strip, with a new active action
    (Replace, influence 1: Blender's defaults) keying the same rotation: a layer."""
    obj = scenes.new_object("Layered", 'QUATERNION')
    base = scenes.key_channels(obj, "rotation_quaternion", [1, 25],
                               [[1, 0, 0, 0], [0.7071068, 0, 0, 0.7071068]])
    if location_in_base:
        scenes.key_channels(obj, "location", [1, 25], [[0, 0, 0], [2, 0, 0]])
    ad = obj.animation_data
    walk = ad.action
    ad.nla_tracks.new().strips.new("Walk", 1, walk).name = "Walk"   # 3.4 names it after walk
    ad.action = None
    scenes.key_channels(obj, "rotation_quaternion", [1, 25],
                        [[0.9961947, 0, 0, 0.0871557], [0.8660254, 0, 0, 0.5]])
    assert base and ad.action is not None and ad.action != walk
    return obj


def test_a_layer_that_replaces_a_pushed_down_action_is_baked(clean_blender):
    """A walk: a new action keyed over a pushed-down walk (Replace, influence 1) was
    refused, "what plays is a blend of it and the action", where Blender plays the layer
    alone (measured: the strip muted or not, the same poses). It bakes, and plays the
    slerp of the layer's keys (mathutils), the strip still below it."""
    import mathutils

    obj = _layered(location_in_base=False)
    frames = np.arange(1, 26)
    played = scenes.evaluated_quats(obj, frames)
    obj.animation_data.nla_tracks[0].mute = True
    assert quat.angle_between(played, scenes.evaluated_quats(obj, frames)).max() < 1e-6
    obj.animation_data.nla_tracks[0].mute = False
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    a = mathutils.Quaternion((0.9961947, 0, 0, 0.0871557))
    b = mathutils.Quaternion((0.8660254, 0, 0, 0.5))
    want = np.array([tuple(a.slerp(b, (f - 1) / 24.0)) for f in frames])
    assert quat.angle_between(scenes.evaluated_quats(obj, frames), want).max() < 1e-5


def test_a_strip_channel_the_layer_does_not_key_still_refuses_a_location_bake(clean_blender):
    """The strip's location plays under the layer, which keys no location: a Location
    bake would blend with it, and is refused as before."""
    obj = _layered(location_in_base=True)
    with pytest.raises(bake.BakeError) as err:
        bake.bake_objects([obj], bake.BakeSettings(location_method='LINEAR'))
    assert 'strip "Walk"' in str(err.value) and "location" in str(err.value)


@pytest.mark.parametrize("how", ["one channel keyed", "a curve muted", "a track soloed"])
def test_a_layer_that_does_not_replace_every_channel_is_still_refused(clean_blender, how):
    """A review: the replace rule went by data path, so a layer keying only Z over a walk
    keying X, Y and Z baked (90 deg off what played), as did one with X's curve muted, and
    one under a soloed track, which does not play at all. Channel by channel, as Blender
    replaces them: measured, the strip changes what plays, and the bake is refused."""
    obj = scenes.new_object("Mixed", 'XYZ')
    scenes.key_channels(obj, "rotation_euler", [1, 25], np.radians([[40, 30, 0], [10, 60, 90]]))
    ad = obj.animation_data
    walk = ad.action
    track = ad.nla_tracks.new()
    track.strips.new("Walk", 1, walk).name = "Walk"      # 3.4 names it after its action
    ad.action = None
    if how == "one channel keyed":
        scenes.key_channels(obj, "rotation_euler", [1, 25], np.radians([[0], [45]]), indices=[2])
    else:
        scenes.key_channels(obj, "rotation_euler", [1, 25], np.radians([[0, 0, 0], [0, 0, 45]]))
    if how == "a curve muted":
        from quatbake.addon import animdata

        next(fc for fc in animdata.object_fcurves(obj) if fc.array_index == 0).mute = True
    if how == "a track soloed":
        track.is_solo = True
    frames = np.arange(1, 26)
    played = scenes.evaluated_quats(obj, frames)
    track.mute = True
    track.is_solo = False
    assert quat.angle_between(played, scenes.evaluated_quats(obj, frames)).max() > 0.1
    track.mute = False
    track.is_solo = how == "a track soloed"
    with pytest.raises(bake.BakeError) as err:
        bake.bake_objects([obj], bake.BakeSettings())
    assert 'strip "Walk"' in str(err.value)
    # What lets the strip through, said (a walk: always "animates rotation_euler").
    said = {"one channel keyed": "animates rotation_euler[0], rotation_euler[1], so",
            "a curve muted": "animates rotation_euler[0], so",
            "a track soloed": 'plays alone, since track "NlaTrack" is soloed: the action '
                              "does not play at all"}[how]
    assert said in str(err.value), str(err.value)


def test_an_action_that_blends_says_how(clean_blender):
    obj = _layered(location_in_base=False)
    obj.animation_data.action_blend_type = 'COMBINE'
    with pytest.raises(bake.BakeError) as err:
        bake.bake_objects([obj], bake.BakeSettings())
    assert "a blend of it and the action (its blend is Combine)" in str(err.value)


def test_a_clip_that_blends_with_another_strip_is_refused_naming_the_clip(clean_blender):
    """A review: a clip's bake refused for a strip playing beside it said "a blend of it
    and the action (no active action)" and advised keying the action: there is none."""
    obj = scenes.new_object("Clips", 'XYZ')
    scenes.key_channels(obj, "rotation_euler", [1, 25], np.radians([[40, 30, 0], [10, 60, 90]]))
    ad = obj.animation_data
    walk = ad.action
    walk.name = "Walk"
    ad.action = None
    scenes.key_channels(obj, "rotation_euler", [1, 25], np.radians([[0, 0, 0], [0, 0, 45]]))
    run = ad.action
    run.name = "Run"
    ad.action = None
    ad.nla_tracks.new().strips.new("Walk", 1, walk).name = "Walk"
    ad.nla_tracks.new().strips.new("Run", 1, run).name = "Run"
    with pytest.raises(bake.BakeError) as err:
        bake.bake_objects([obj], bake.BakeSettings(clip="Walk"))
    said = str(err.value)
    assert 'strip "Run"' in said and 'a blend of it and the clip "Walk"' in said, said
    assert "the action" not in said, said
    # Run's track soloed: only it plays, muted or not (a walk: "Mute that track", then
    # the same refusal once muted). Blender's playback shows the Walk clip does not play.
    run_track = ad.nla_tracks[1]
    run_track.is_solo, run_track.mute = True, True
    bpy.context.scene.frame_set(25)
    assert abs(obj.matrix_world.to_euler().z - np.radians(45.0)) < 1e-5      # Run's pose
    with pytest.raises(bake.BakeError) as err:
        bake.bake_objects([obj], bake.BakeSettings(clip="Walk"))
    said = str(err.value)
    assert 'plays alone, since track "' in said and 'the clip "Walk" does not play' in said
    assert "Turn Solo off" in said and "Mute that track" not in said, said


def _in_a_clip_only(name: str, mode: str, path: str, values, clip: str):
    """An object whose ``path`` is keyed at frames 1 and 11 in an action named ``clip``
    that only an NLA strip plays (no active action)."""
    obj = scenes.new_object(name, mode)
    scenes.key_channels(obj, path, [1.0, 11.0], values)
    action = obj.animation_data.action
    action.name = clip
    obj.animation_data.action = None
    obj.animation_data.nla_tracks.new().strips.new(clip, 1, action)
    return obj


def test_a_clip_with_no_rotation_keys_is_named_and_the_active_action_is_called_so(
        clean_blender):
    """A real-file walk (glTF-Blender-IO's 26_nla_export_mode.blend): baking clip "Up",
    which keys location only, of a cube whose active action keys its rotation, was refused
    as 'Object "Cube" has no keys on rotation_euler ... Its NLA clips CubeRotation have
    rotation keys', CubeRotation being the active action. And an object whose only clip
    keys its scale read "no other keys"."""
    from quatbake.addon.analyze import engine as analyze

    cube = scenes.new_object("Cube", 'XYZ')
    scenes.key_channels(cube, "location", [1.0, 11.0], [[0, 0, 0], [0, 0, 2]])
    up = cube.animation_data.action
    up.name = "Up"
    cube.animation_data.action = None
    cube.animation_data.nla_tracks.new().strips.new("Up", 1, up)
    scenes.key_channels(cube, "rotation_euler", [1.0, 11.0], [[0, 0, 0], [0, 0, 1.5]])
    cube.animation_data.action.name = "CubeRotation"
    scenes.select_only(cube)
    with pytest.raises(RuntimeError) as refused:
        bpy.ops.quatbake.bake(clip="Up")
    said = str(refused.value)
    assert 'Clip "Up" of object "Cube" has no keys on rotation_euler' in said, said
    assert "keyed on location only" in said
    assert "Its active action CubeRotation has rotation keys" in said
    assert "NLA clips CubeRotation" not in said

    cone = _in_a_clip_only("Cone", 'QUATERNION', "scale", [[1, 1, 1], [2, 2, 2]], "ConeAction")
    sentence = analyze.no_keys_sentence(cone, 'QUATERNION')
    assert "no other keys" not in sentence, sentence
    assert "its NLA clip ConeAction keys scale only" in sentence, sentence
    # Its rotation in a clip (a review: "keys rotation_euler only: nothing to do").
    spin = _in_a_clip_only("Spin", 'XYZ', "rotation_euler", [[0, 0, 0], [0, 0, 3.0]], "SpinClip")
    sentence = analyze.no_keys_sentence(spin, 'XYZ')
    assert "its NLA clip SpinClip holds its rotation keys: name the clip" in sentence, sentence
    assert "nothing to do" not in sentence


def test_a_bone_the_bake_left_out_is_not_said_to_show_it(clean_blender):
    """A game-rig walk: after the rig's Walk was baked (Hips, Spine), a bake of its clip
    Run was refused for Hips, Spine and Head alike, each said to "show a QuatBake bake
    of Walk", though Head was never baked: the rig plays it. Head's sentence says so."""
    from quatbake.addon import animdata
    from quatbake.addon.transform import AnimatedTransform

    rig = scenes.make_rig("Rig", [("Hips", None, (0, 0, 0), (0, 0, 1)),
                                  ("Spine", "Hips", (0, 0, 1), (0, 0, 2)),
                                  ("Head", "Spine", (0, 0, 2), (0, 0, 3))])
    for bone in ("Hips", "Head"):
        scenes.key_bone(rig, bone, "rotation_quaternion", *KEYS, mode='QUATERNION')
    run = animdata.get_action(rig)
    rig.animation_data.action = None
    for bone in ("Hips", "Spine"):
        scenes.key_bone(rig, bone, "rotation_quaternion", *KEYS, mode='QUATERNION')
    rig.animation_data.nla_tracks.new().strips.new("Run", 1, run).mute = False
    rig.animation_data.nla_tracks[0].mute = True
    bake.bake_objects([rig], bake.BakeSettings(method='SLERP'))
    with pytest.raises(bake.BakeError) as info:
        bake.bake_objects([AnimatedTransform(rig, b) for b in ("Hips", "Head")],
                          bake.BakeSettings(method='SLERP', clip=run.name))
    # Every transform named, in a count that leads with the first one's sentence.
    first, *rest = info.value.issues
    assert first.message.startswith("Nothing to bake: none of the 2 transforms (Rig: Hips, "
                                    "Rig: Head)"), first.message
    said = {i.bone: i.message for i in rest}
    assert "it shows a QuatBake bake of" in first.message.split(". ", 1)[1], first.message
    assert "its armature plays a QuatBake bake of" in said["Head"], said


def test_the_clip_field_suggests_a_bakes_source_not_the_bake(clean_blender):
    """A game-rig walk: after a bake, the Clip field offered "Walk.quatbake", QuatBake's own
    bake, as a clip to bake. It offers the clip the bake was made from, which a Re-bake of
    that clip bakes again from its keys; the stashed clips are offered as before."""
    from quatbake.addon.ui import props

    obj, action, strip = _clip_only(lambda strip: None)
    obj.animation_data.action = action
    obj.animation_data.nla_tracks[0].mute = True
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    scenes.select_only(obj)
    offered = props._clip_suggestions(None, bpy.context, "")
    assert offered == [action.name], offered
    assert bake.bake_objects([obj], bake.BakeSettings(method='SLERP', clip=offered[0])).objects \
        == ["Clipped"]


def test_a_clip_that_keys_no_rotation_is_not_offered_to_bake(clean_blender):
    """A game-rig walk: an object whose only clip keys scale was told "Name the clip to
    bake it", which would bake nothing. It is told its clips key no rotation."""
    obj = scenes.new_object("Tetrahedron", 'XYZ')
    scenes.key_channels(obj, "scale", [1.0, 11.0], [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]])
    action = obj.animation_data.action
    obj.animation_data.action = None
    obj.animation_data.nla_tracks.new().strips.new("Grow", 1, action)
    with pytest.raises(bake.BakeError) as info:
        bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    said = str(info.value)
    assert f"its NLA clips ({action.name}) key no rotation, so there is nothing to bake" \
        in said and "Name the clip" not in said, said


def _off_slerp_deg(played, key_quats, frames) -> float:
    """Degrees: the largest angle between ``played`` (n, 4) and the glTF spec's slerp
    (tests/oracles) of two keys at frames 1 and 21. Not scipy: Blender 3.4.1's Python has
    none (its CI run failed on these tests)."""
    from test_bones import angle_rad, slerp_reference

    return float(np.degrees(angle_rad(played, slerp_reference([1.0, 21.0], key_quats,
                                                                 frames))).max())


def test_analyze_reads_the_clip_the_rebake_panel_names(clean_blender, tmp_path):
    """The Clip field chose what Re-bake bakes, but Analyze kept reporting the active
    action (an earlier walk): an animator read the Idle's "fine" and baked the Run. With
    the field set, an object holding that clip is analysed on it; the largest difference
    is checked against Blender's playback of the clip's keys (made active on a copy
    before the NLA is set up) and the glTF spec's slerp of them."""
    from quatbake.addon.analyze.entries import largest, results

    # Run: a 40 deg turn about Z keyed with its sign flipped, so Blender's channels
    # take the long way; Idle: a 10 deg turn keyed plainly.
    run_keys = ([1.0, 21.0], scenes.quats_about_z([0.0, 40.0]) * [[1.0], [-1.0]])
    cube = scenes.new_object("Cube", 'QUATERNION')
    scenes.key_channels(cube, "rotation_quaternion", *run_keys, interpolation='LINEAR')
    frames = np.arange(1.0, 22.0)
    played = scenes.evaluated_quats(cube, frames)
    expected = _off_slerp_deg(played, run_keys[1], frames)
    assert expected > 100.0       # the long way: the case the entry must show
    run = cube.animation_data.action
    run.name = "Run"
    run.use_fake_user = True
    cube.animation_data.action = None
    scenes.key_channels(cube, "rotation_quaternion", [1.0, 21.0],
                        scenes.quats_about_z([0.0, 10.0]))
    cube.animation_data.action.name = "Idle"
    track = cube.animation_data.nla_tracks.new()
    track.strips.new("Run", 1, run)
    track.mute = True              # a stash: the Run does not play beside the Idle
    scenes.select_only(cube)
    settings = bpy.context.scene.quatbake

    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    assert list(results(bpy.context.scene)) == ["Cube"]          # the Idle, as before
    settings.clip = "Run"
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    found = results(bpy.context.scene)
    assert list(found) == ["Cube / Run"]
    assert largest(found["Cube / Run"]) == pytest.approx(expected, abs=0.05)
    # Export Report writes what the panel shows (a walk: it reported the active action).
    page = tmp_path / "run.html"
    assert bpy.ops.quatbake.export_report(filepath=str(page), open_in_browser=False) \
        == {'FINISHED'}
    written = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))["objects"]
    assert [o["max_deviation_deg"] for o in written] == [pytest.approx(expected, abs=0.05)]

    # The bake of the clip replaces its entry: one row, the bake's, before -> after; a
    # Revert puts the clip's back (the Clip field still names it). Before, the clip's row
    # stayed listed "out of date" beside the bake's, and the bake's beside the clip's.
    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    found = results(bpy.context.scene)
    assert list(found) == ["Cube"]
    assert largest(found["Cube"]["before"]) == pytest.approx(expected, abs=0.05)
    assert largest(found["Cube"]) < 0.01
    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    assert list(results(bpy.context.scene)) == ["Cube / Run"]
    assert [row.name for row in settings.report_rows] == ["Cube / Run"]


def test_an_armatures_why_row_goes_once_a_clip_bake_compares_its_bones(clean_blender):
    """A triage: an armature whose bones are keyed only in an NLA clip has one row saying
    so; after a Re-bake of that clip (the Clip field) its bones' rows came and the
    armature's stayed beside them, current. Each baked bone is checked on Blender's
    playback (frame_set, the pose bone's matrix) against the glTF spec's slerp of its keys."""
    from quatbake.addon.analyze.entries import results

    rig = scenes.make_rig("Rig", [("a", None, (0, 0, 0), (0, 0, 1)),
                                  ("b", "a", (0, 0, 1), (0, 0, 2))])
    keys = scenes.quats_about_z([0.0, 40.0]) * [[1.0], [-1.0]]
    for bone in ("a", "b"):
        scenes.key_bone(rig, bone, "rotation_quaternion", [1.0, 21.0], keys, mode='QUATERNION')
    walk = rig.animation_data.action
    walk.name = "Walk"
    rig.animation_data.action = None
    rig.animation_data.nla_tracks.new().strips.new("Walk", 1, walk)
    scenes.select_only(rig)
    scene = bpy.context.scene
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    assert list(results(scene)) == ["Rig"] and results(scene)["Rig"].get("skipped")
    scene.quatbake.clip = "Walk"
    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    assert sorted(results(scene)) == ["Rig: a", "Rig: b"]
    frames = np.arange(1.0, 22.0)
    for bone in ("a", "b"):
        played = []
        for frame in frames:
            scene.frame_set(int(frame))
            played.append(np.array(rig.pose.bones[bone].matrix_basis.to_quaternion()))
        assert _off_slerp_deg(np.array(played), keys, frames) < 1e-3


def test_a_bone_the_clip_does_not_key_is_analysed_on_its_active_action(clean_blender):
    """A review: with the Clip field naming a clip that keys bone A only, Analyze of bone B
    selected in Pose Mode read "no keys: nothing to do" (B is keyed in the active Idle)
    and dropped B's row. B is analysed on its active action, as Object Mode's selection
    does; the figure checked against Blender's playback of B and the glTF spec's slerp."""
    from quatbake.addon.analyze.entries import largest, results

    rig = scenes.make_rig("Rig", [("A", None, (0, 0, 0), (0, 0, 1)),
                                  ("B", "A", (0, 0, 1), (0, 0, 2))])
    flipped = scenes.quats_about_z([0.0, 40.0]) * [[1.0], [-1.0]]
    scenes.key_bone(rig, "A", "rotation_quaternion", [1.0, 21.0], flipped, mode='QUATERNION')
    run = rig.animation_data.action
    run.name, run.use_fake_user = "Run", True
    rig.animation_data.action = None
    scenes.key_bone(rig, "B", "rotation_quaternion", [1.0, 21.0], flipped, mode='QUATERNION')
    rig.animation_data.action.name = "Idle"
    track = rig.animation_data.nla_tracks.new()
    track.strips.new("Run", 1, run)
    track.mute = True
    scene = bpy.context.scene
    frames = np.arange(1.0, 22.0)
    played = []
    for frame in frames:
        scene.frame_set(int(frame))
        played.append(np.array(rig.pose.bones["B"].matrix_basis.to_quaternion()))
    expected = _off_slerp_deg(np.array(played), flipped, frames)
    from quatbake.addon import versions

    scenes.select_only(rig)
    bpy.ops.object.mode_set(mode='POSE')
    try:
        for bone in rig.data.bones:
            versions.select_bone(rig, bone.name, bone.name == "B")
        scene.quatbake.clip = "Run"
        assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    finally:
        bpy.ops.object.mode_set(mode='OBJECT')
    found = results(scene)
    assert list(found) == ["Rig: B"], list(found)
    assert largest(found["Rig: B"]) == pytest.approx(expected, abs=0.05)
