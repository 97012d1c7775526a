"""One transform's problem never stops the others (issue 21): selections that mix
transforms with and without rotation keys, location-only transforms, objects animated
only by NLA clips, and exceptions QuatBake did not foresee.

What is left as it is must be exactly as it was (``scenes.scene_snapshot``), and named
in one sentence; what is baked is checked against Blender's own playback (``frame_set``)
and independent interpolations (numpy's ``interp`` of the key values, the glTF spec's
slerp of tests/oracles). Runs with bpy 5.0.1 and inside Blender 3.4.1.
"""
import pathlib

import bpy
import numpy as np
import pytest
from test_imports import _import_gltf  # Blender's importer, with 3.4.1's workarounds

from quatbake.addon import animdata, bake, cli, transform
from quatbake.addon.analyze import engine as analyze_engine
from quatbake.addon.analyze import entries
from quatbake.core import quat, rotation

import scenes
from oracles import gltf_reference
from report_schema import load_report

pytestmark = pytest.mark.bpy

REALDATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "realdata"
KEYS = np.array([1.0, 11.0, 31.0])
# Uneven location keys: 1 unit in 10 frames, then 9 units in 20 (speeds 0.1 and 0.45).
LOCATIONS = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [10.0, 0.0, 0.0]])
# Float32 keys of values up to 10 units: 1e-5 units.
LOC_TOL = 1e-5
# Float32 channels and matrices: a few 1e-7 rad per rotation (the bake tests' bound).
TOL_RAD = 2e-6


def _played_locations(t, frames) -> np.ndarray:
    """(n, 3): frame_set each frame, then the object's (or pose bone's) location."""
    scene = bpy.context.scene
    out = []
    for f in frames:
        scene.frame_set(int(f))
        out.append(np.array(t.location))
    scene.frame_set(1)
    return np.array(out)


def _played_quats(obj, frames) -> np.ndarray:
    scene = bpy.context.scene
    out = []
    for f in frames:
        scene.frame_set(int(f))
        out.append(rotation.matrix_to_quat(np.array(obj.matrix_basis)[:3, :3]))
    scene.frame_set(1)
    return np.array(out)


def _two_bone_repro():
    """Issue 21's repro: a bone with two location keys, beside a cube with rotation keys."""
    rig = scenes.make_rig("Rig", [("loc", None, (0, 0, 0), (0, 0, 1))])
    scenes.key_bone(rig, "loc", "location", [1, 21], [[0, 0, 0], [1, 0, 0]])
    cube = scenes.make_animated_object("Cube", 'XYZ', [1, 21], np.radians([[0, 0, 0],
                                                                           [0, 0, 170]]))
    return rig, cube


def test_two_bone_repro_reports_and_bakes_the_cube_and_skips_the_bone(clean_blender, tmp_path,
                                                                     capsys):
    _two_bone_repro()
    scene = tmp_path / "repro.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(scene), copy=True)
    out = tmp_path / "r.json"
    assert cli.main(["report", str(scene), "--json", str(out)]) == cli.EXIT_OK
    printed = capsys.readouterr()
    report = load_report(out)
    assert [o["name"] for o in report["objects"]] == ["Cube"]
    (skipped,) = report["skipped"]
    assert (skipped["object"], skipped["bone"]) == ("Rig", "loc")
    assert skipped["message"].startswith('Armature "Rig", bone "loc" has no keys on '
                                         'rotation_quaternion (its rotation mode is QUATERNION)')
    assert "keyed on location only" in skipped["message"]
    assert "NLA" not in skipped["message"]
    assert skipped["location_keys"] == [1, 21]
    assert "Cube" in printed.out and "skipped: " in printed.err and "Traceback" not in printed.err

    baked = tmp_path / "baked.blend"
    assert cli.main(["bake", str(scene), "--output", str(baked)]) == cli.EXIT_OK
    assert 'skipped: Armature "Rig", bone "loc"' in capsys.readouterr().err
    bpy.ops.wm.open_mainfile(filepath=str(baked))
    assert bake.can_revert(bpy.data.objects["Cube"])
    assert not bpy.data.objects["Rig"].pose.bones["loc"].quatbake.baked
    # With --location linear the bone is baked too: its location plays the straight line.
    assert cli.main(["bake", str(scene), "--output", str(baked), "--location", "linear",
                     "--quiet"]) == cli.EXIT_OK
    bpy.ops.wm.open_mainfile(filepath=str(baked))
    rig = bpy.data.objects["Rig"]
    assert rig.pose.bones["loc"].quatbake.baked
    frames = np.arange(1.0, 22.0)
    expected = np.stack([np.interp(frames, [1, 21], [0, 1]), 0 * frames, 0 * frames], axis=1)
    np.testing.assert_allclose(_played_locations(rig.pose.bones["loc"], frames), expected,
                               atol=LOC_TOL)


def test_armature_keyed_on_its_own_location_is_not_said_to_be_keyed_in_nla_clips(clean_blender):
    """The armature object's own channels keyed on location only, its bones on rotation:
    the bones are baked, the armature's own transform is skipped as keyed on location
    (issue 21: it was said to be "keyed only in NLA clips")."""
    rig = scenes.make_rig("Rig", [("spin", None, (0, 0, 0), (0, 0, 1))])
    scenes.key_bone(rig, "spin", "rotation_quaternion", [1, 21], [[1, 0, 0, 0], [0, 0, 0, 1]])
    scenes.key_channels(rig, "location", [1, 21], [[0, 0, 0], [0, 2, 0]])
    result = bake.bake_objects([rig], bake.BakeSettings())
    assert result.objects == ["Rig: spin"]
    (skipped,) = result.skipped
    assert skipped.message.startswith('Object "Rig" has no keys on rotation_euler')
    assert "keyed on location only" in skipped.message and "NLA" not in skipped.message
    bake.revert_objects([rig])
    scenes.select_only(rig)
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    found = entries.results(bpy.context.scene)
    assert "NLA" not in " ".join(e.get("skipped", "") for e in found.values())


@pytest.mark.parametrize("method", ['LINEAR', 'CATMULL_ROM', 'CONSTANT_SPEED'])
def test_location_only_object_gets_a_location_bake(clean_blender, method):
    dolly = scenes.new_object("Dolly", 'XYZ')
    scenes.key_channels(dolly, "location", KEYS, LOCATIONS)
    cube = scenes.make_animated_object("Cube", 'XYZ', KEYS, np.radians(
        [[0, 0, 0], [0, 0, 90], [0, 0, 170]]), location=LOCATIONS)
    before = scenes.scene_snapshot()
    rotation_before = _played_quats(dolly, np.arange(1.0, 32.0))
    settings = bake.BakeSettings(location_method='LINEAR' if method == 'CONSTANT_SPEED'
                                 else method, constant_speed=method == 'CONSTANT_SPEED')
    result = bake.bake_objects([dolly, cube], settings)
    assert result.objects == ["Dolly", "Cube"] and result.skipped == []
    assert result.deviation_per_object["Dolly"] == 0.0
    frames = np.arange(1.0, 32.0)
    played = _played_locations(dolly, frames)
    if method == 'LINEAR':
        expected = np.stack([np.interp(frames, KEYS, LOCATIONS[:, i]) for i in range(3)], 1)
        np.testing.assert_allclose(played, expected, atol=LOC_TOL)
    elif method == 'CONSTANT_SPEED':
        # 10 units over 30 frames, at one speed: 1/3 unit a frame along the x axis.
        np.testing.assert_allclose(played[:, 0], (frames - 1.0) / 3.0, atol=LOC_TOL)
    else:
        # Through every key; x only, increasing (centripetal Catmull-Rom: no overshoot).
        np.testing.assert_allclose(played[KEYS.astype(int) - 1], LOCATIONS, atol=LOC_TOL)
        assert (np.diff(played[:, 0]) > 0).all()
    # Its rotation is not written: it plays exactly what it played.
    assert quat.angle_between(_played_quats(dolly, frames), rotation_before).max() < TOL_RAD
    assert all(fc is None for fc in animdata.rotation_fcurves(dolly))
    bake.revert_objects([dolly, cube])
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def test_location_only_transform_gets_the_location_findings_of_an_object(clean_blender):
    """The analysis of a location-only transform says what an object's says of its
    location: here the segment speeds (0.1 and 0.45 units a frame, 4.5x apart)."""
    dolly = scenes.new_object("Dolly", 'XYZ')
    scenes.key_channels(dolly, "location", KEYS, LOCATIONS)
    cube = scenes.make_animated_object("Cube", 'XYZ', KEYS, np.radians(
        [[0, 0, 0], [0, 0, 90], [0, 0, 170]]), location=LOCATIONS)
    speeds = np.linalg.norm(np.diff(LOCATIONS, axis=0), axis=1) / np.diff(KEYS)
    ratio = f"{speeds.max() / speeds.min():.1f}x apart"
    scenes.select_only(dolly, cube)
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    found = entries.results(bpy.context.scene)
    assert found["Dolly"]["verdict"] == entries.VERDICT_SKIPPED
    (location_finding,) = found["Dolly"]["findings"]
    assert ratio in location_finding, location_finding
    # The very sentence the cube's analysis gives for the same location keys.
    cube_findings = analyze_engine.analyze_object(cube).findings
    assert location_finding in cube_findings, (location_finding, cube_findings)


def _nla_only_parent():
    """A parent animated only by an NLA clip (as glTF imports leave a node), a child with
    its own active action."""
    parent = scenes.make_animated_object("Parent", 'QUATERNION', [1, 21],
                                         [[1, 0, 0, 0], [0, 0, 0, 1]], 'LINEAR')
    clip = animdata.get_action(parent)
    clip.name = "ParentClip"
    track = parent.animation_data.nla_tracks.new()
    track.strips.new("ParentClip", 1, clip)
    track.mute = True
    animdata.assign_action(parent, None)
    child = scenes.make_animated_object("Child", 'XYZ', [1, 21], np.radians([[0, 0, 0],
                                                                             [0, 0, 170]]))
    child.parent = parent
    return parent, child


def test_nla_only_object_in_a_selection_is_named_then_baked_by_the_panels_clip(clean_blender):
    parent, child = _nla_only_parent()
    scenes.select_only(parent, child)
    before = scenes.scene_snapshot()
    assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
    settings = bpy.context.scene.quatbake
    assert 'Object "Parent" has no active action' in settings.last_turn_notes
    assert "ParentClip" in settings.last_turn_notes and "Clip" in settings.last_turn_notes
    assert bake.can_revert(child) and not bake.can_revert(parent)
    assert scenes.scene_snapshot()["objects"]["Parent"] == before["objects"]["Parent"]
    baked_child = scenes.scene_snapshot()["objects"]["Child"]

    # The Re-bake panel's Clip: the parent's clip is baked, the child (no such clip) left.
    settings.clip = "ParentClip"
    assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
    assert bake.can_revert(parent)
    assert 'Object "Child" has no clip "ParentClip"' in settings.last_turn_notes
    assert scenes.scene_snapshot()["objects"]["Child"] == baked_child
    frames = np.arange(1.0, 22.0)
    keys = [np.array([1.0, 0, 0, 0]), np.array([0.0, 0, 0, 1])]
    expected = np.array([gltf_reference.slerp_short_arc(keys[0], keys[1], (f - 1) / 20)
                         for f in frames])
    assert quat.angle_between(_played_quats(parent, frames), expected).max() < TOL_RAD
    settings.clip = ""
    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def test_nla_only_object_in_a_conversion_is_told_what_convert_can_take(clean_blender):
    """Convert has no clip option (it reads the active action): its sentence says so, not
    the bake's "--clips NAME"; the child is converted and the parent left as it was."""
    parent, child = _nla_only_parent()
    before = scenes.scene_snapshot()
    result = bake.convert_objects([parent, child], 'QUATERNION', 0.01)
    said = [s.message for s in result.skipped if '"Parent"' in s.message]
    assert len(said) == 1 and "Convert reads the active action only" in said[0], said
    assert "--clips" not in said[0] and "Re-bake panel" not in said[0]
    assert child.rotation_mode == 'QUATERNION'
    assert scenes.scene_snapshot()["objects"]["Parent"] == before["objects"]["Parent"]


def test_bones_keyed_only_in_a_clip_are_told_what_convert_can_take(clean_blender):
    """An armature whose active action keys only its location, its bones keyed in an NLA
    clip: the bake's sentence names --clips; convert's says it reads the active action."""
    rig = scenes.make_rig("Rig", [("spine", None, (0, 0, 0), (0, 0, 1))])
    pb = rig.pose.bones["spine"]
    pb.rotation_mode = 'XYZ'
    for frame, z in ((1, 0.0), (21, 1.0)):
        pb.rotation_euler = (0.0, 0.0, z)
        pb.keyframe_insert("rotation_euler", frame=frame)
    walk = animdata.get_action(rig)
    walk.name = "Walk"
    rig.animation_data.nla_tracks.new().strips.new("Walk", 1, walk)
    animdata.assign_action(rig, None)
    scenes.key_channels(rig, "location", [1, 21], [[0, 0, 0], [1, 0, 0]])
    before = scenes.scene_snapshot()
    for run, words, not_words in (
            (lambda: bake.convert_objects([rig], 'QUATERNION', 0.01),
             "Convert reads the active action only", "--clips"),
            (lambda: bake.bake_objects([rig], bake.BakeSettings()), "--clips Walk", "Convert")):
        with pytest.raises(bake.BakeError) as info:
            run()
        said = " ".join(issue.message for issue in info.value.issues)
        assert words in said and not_words not in said, said
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def test_a_selection_with_nothing_to_bake_is_refused_naming_each(clean_blender):
    parent, _child = _nla_only_parent()
    dolly = scenes.new_object("Dolly", 'XYZ')
    scenes.key_channels(dolly, "location", KEYS, LOCATIONS)
    before = scenes.scene_snapshot()
    with pytest.raises(bake.BakeError) as info:
        bake.bake_objects([parent, dolly], bake.BakeSettings())
    messages = [i.message for i in info.value.issues]
    assert messages[0].startswith("Nothing to bake: none of the 2 transforms (Parent, Dolly)")
    # Each named once (a walk: the first one's sentence came in the count and after it).
    said = "\n".join(messages)
    assert said.count('Object "Parent" has no active action') == 1, said
    assert said.count('Object "Dolly" has no keys on rotation_euler') == 1, said
    assert all(i.severity == 'ERROR' for i in info.value.issues)
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def test_box_animated_selected_whole_bakes_what_it_can_then_the_parent_by_its_clip(
        clean_blender):
    """BoxAnimated.gltf as Blender imports it: its parent node plays only an NLA clip.
    Selected whole, Re-bake bakes the box and names the parent (it refused all before);
    the parent's clip (it moves the box: location keys only) is then baked through the
    Clip choice with a location bake."""
    _import_gltf(REALDATA / "gltf" / "BoxAnimated.gltf")
    objects = sorted(bpy.data.objects, key=lambda o: o.name)
    nla_only = [o for o in objects if o.animation_data and o.animation_data.action is None
                and animdata.object_clips(o)]
    assert nla_only, "the importer left no object animated only by its NLA"
    scenes.select_only(*objects)
    before = scenes.scene_snapshot()
    assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
    notes = bpy.context.scene.quatbake.last_turn_notes
    for obj in nla_only:
        assert f'Object "{obj.name}" has no active action' in notes, notes
        assert scenes.scene_snapshot()["objects"][obj.name] == before["objects"][obj.name]
    bpy.ops.quatbake.revert()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())
    clip = animdata.object_clips(nla_only[0])[0].name
    scenes.select_only(*objects)
    bpy.context.scene.quatbake.clip = clip
    with pytest.raises(RuntimeError, match="keyed on location only"):
        bpy.ops.quatbake.bake(method='SLERP')     # nothing else to bake: refused, named
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())
    assert bpy.ops.quatbake.bake(method='SLERP', location_method='LINEAR') == {'FINISHED'}
    assert bake.can_revert(nla_only[0])
    bpy.context.scene.quatbake.clip = ""
    bpy.ops.quatbake.revert()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def test_an_unforeseen_exception_is_one_sentence_naming_the_transform(clean_blender,
                                                                     monkeypatch, capfd):
    """A bug of QuatBake's own (here: reading one bone raises KeyError) leaves that bone
    as it was, with one sentence naming the armature and the bone, no traceback; the cube
    beside it is baked (one transform's problem never stops the others). Alone, the bone
    refuses the bake, nothing changed."""
    from quatbake.addon.bake import engine

    rig, cube = _two_bone_repro()
    scenes.key_bone(rig, "loc", "rotation_quaternion", [1, 21], [[1, 0, 0, 0], [0, 0, 0, 1]])
    real = engine.read_transform

    def failing(obj, settings, cache=None):
        if getattr(obj, "bone_name", "") == "loc":
            raise KeyError("max_deviation_deg")
        return real(obj, settings, cache)

    monkeypatch.setattr(engine, "read_transform", failing)
    before = scenes.scene_snapshot()
    result = bake.bake_objects([rig, cube], bake.BakeSettings())
    (issue,) = result.failed
    said = ('Armature "Rig", bone "loc" could not be baked: QuatBake failed while reading '
            "its keys (KeyError: 'max_deviation_deg'), so it was left as it was")
    assert issue.message.startswith(said)
    assert issue.bone == "loc" and result.objects == ["Cube"]
    scenes.assert_same_snapshot(scenes.part_of(before, ["Rig"]),
                                scenes.part_of(scenes.scene_snapshot(), ["Rig"]))
    with pytest.raises(bake.BakeError) as info:
        bake.bake_objects([transform.AnimatedTransform(rig, "loc")], bake.BakeSettings())
    assert str(info.value).startswith(said)
    scenes.select_only(rig)
    capfd.readouterr()
    with pytest.raises(RuntimeError) as raised:
        bpy.ops.quatbake.bake()
    assert 'bone "loc" could not be baked' in str(raised.value)
    printed = capfd.readouterr()
    assert "Traceback" not in str(raised.value) + printed.out + printed.err


@pytest.mark.parametrize("step", ["_locate", "_read"])
def test_an_unforeseen_exception_in_the_analysis_names_the_transform(clean_blender,
                                                                    monkeypatch, step):
    from quatbake.addon.analyze import engine as engine_module

    _rig, cube = _two_bone_repro()
    other = scenes.make_animated_object("Other", 'XYZ', [1, 21], np.radians([[0, 0, 0],
                                                                             [0, 90, 0]]))
    # Reading one transform fails, in either step: the batched analysis locates each
    # one's channels, evaluates them all together, then reads each one's arrays.
    real = getattr(engine_module, step)

    def failing(first, *args, **kwargs):
        if getattr(first, "obj", first).name == "Cube":
            raise RuntimeError("an unforeseen state")
        return real(first, *args, **kwargs)

    monkeypatch.setattr(engine_module, step, failing)
    scenes.select_only(cube, other)
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    found = entries.results(bpy.context.scene)
    assert found["Cube"]["error"].startswith('Object "Cube" could not be analysed: QuatBake '
                                             "failed while analysing it (RuntimeError: an "
                                             "unforeseen state)")
    assert found["Other"]["verdict"] in (entries.VERDICT_FINE, entries.VERDICT_VISIBLE)


def test_an_exception_escaping_an_operator_becomes_one_error_report(clean_blender,
                                                                   monkeypatch, capfd):
    """The last net (ui.guard): whatever escapes an engine is one sentence, not a
    traceback, and the operator is cancelled."""
    from quatbake.addon import bake as bake_package
    from quatbake.addon.bake import engine

    def broken(*_args, **_kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(engine, "bake_objects", broken)
    assert bake_package.bake_objects is broken
    cube = scenes.make_animated_object("Cube", 'XYZ', [1, 21], np.radians([[0, 0, 0],
                                                                           [0, 0, 90]]))
    scenes.select_only(cube)
    before = scenes.scene_snapshot()
    capfd.readouterr()
    with pytest.raises(RuntimeError) as raised:
        bpy.ops.quatbake.bake()
    message = str(raised.value)
    assert message.startswith("Error: Re-bake failed: QuatBake did not expect "
                              "ZeroDivisionError (division by zero); nothing was changed.")
    printed = capfd.readouterr()
    assert "Traceback" not in message + printed.out + printed.err
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def test_convert_says_convert_not_bake(clean_blender):
    """A conversion's refusals speak of converting, and offer no Location option (convert
    has none); a revert of objects never baked says "show"."""
    dolly = scenes.new_object("Dolly", 'XYZ')
    scenes.key_channels(dolly, "location", KEYS, LOCATIONS)
    still = scenes.new_object("Still", 'XYZ')
    with pytest.raises(bake.BakeError) as info:
        bake.convert_objects([dolly, still], 'QUATERNION', 0.01)
    said = " ".join(i.message for i in info.value.issues)
    assert said.startswith("Nothing to convert: none of the 2 transforms"), said
    assert "nothing to convert" in said and "Rotation Mode menu" in said
    assert "--location" not in said and "bake" not in said.replace("QuatBake", ""), said
    with pytest.raises(bake.BakeError) as info:
        bake.bake_objects([dolly, still], bake.BakeSettings())
    assert "--location linear" in str(info.value)         # the bake's own hint stays
    with pytest.raises(bake.BakeError) as info:
        bake.revert_objects([dolly, still])
    assert 'the objects "Dolly", "Still" show no QuatBake bake' in str(info.value)
