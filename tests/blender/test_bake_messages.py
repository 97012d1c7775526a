"""What the bake and revert messages count: objects and pose bones, said honestly.

The operators report "Baked 2 objects and 3 bones (...)" in the status bar (printed
as "Info: ..." on stdout when Blender runs without a window), the command line prints
"Baked 3 bones of "Rig" with slerp ...". The counts expected here come from the scene
the test built (keyed bones found through Blender's own ``path_from_id``), the wording
(singular, plural, "of "Rig"") is written out in each case. Runs with bpy 5.0.1 and
inside Blender 3.4.1.
"""
import re

import bpy
import numpy as np
import pytest

from quatbake.addon import animdata, cli, versions

import scenes
from in_chinese import needs_translations

pytestmark = pytest.mark.bpy

FRAMES = [1, 11]
EULERS = np.radians([[0.0, 0.0, 0.0], [0.0, 30.0, 90.0]])
QUATS = [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]


def _rig(name: str, keyed: list[str]):
    """An armature with a root bone left unkeyed and the ``keyed`` bones under it."""
    rig = scenes.make_rig(name, [("root", None, (0, 0, 0), (0, 0, 1))] +
                          [(b, "root", (0, 0, 1), (0, i + 1, 1)) for i, b in enumerate(keyed)])
    for bone in keyed:
        scenes.key_bone(rig, bone, "rotation_quaternion", FRAMES, QUATS)
    return rig


@pytest.fixture
def scene(clean_blender):
    """Two keyed empties, "Rig" with three keyed bones and "Rig2" with two."""
    for name in ("Cube", "Cone"):
        scenes.make_animated_object(name, 'XYZ', FRAMES, EULERS)
    _rig("Rig", ["arm", "leg", 'arm["L"].001'])
    _rig("Rig2", ["tail", "ear"])
    # Nothing returned: a test that opens another file (the command line does) must hold
    # no Blender data from this one, which the file's loading frees.


def keyed_bones(rig) -> list[str]:
    """The rig's bones with rotation keys, read from its F-curves' data paths as Blender
    names each bone's path (``PoseBone.path_from_id``), not from QuatBake's code."""
    paths = [fc.data_path for fc in animdata.object_fcurves(rig) if len(fc.keyframe_points)]
    return [pb.name for pb in rig.pose.bones
            if any(p.startswith(pb.path_from_id() + ".rotation") for p in paths)]


def info_lines(capfd) -> list[str]:
    """The operators' INFO reports since the last call (Blender prints them as "Info: ...")."""
    return [ln[len("Info: "):] for ln in capfd.readouterr().out.splitlines()
            if ln.startswith("Info: ")]


def one_line(capfd, start: str) -> str:
    found = [ln for ln in info_lines(capfd) if ln.startswith(start.split(" ", 1)[0])]
    assert len(found) == 1, found
    assert found[0].startswith(start), (found[0], start)
    return found[0]


def expected_count(selected: list[str], wording: str) -> tuple[list, int, int, str]:
    """(the objects named, how many are not armatures, the keyed bones of the armatures,
    ``wording`` with {objects} and {bones} filled in) for a selection of the fixture's."""
    chosen = [bpy.data.objects[n] for n in selected]
    rigs = [o for o in chosen if o.type == 'ARMATURE']
    bones = sum(len(keyed_bones(r)) for r in rigs)
    objects = len(chosen) - len(rigs)
    return chosen, objects, bones, wording.format(objects=objects, bones=bones)


# (objects selected in Object Mode, the count's wording with {objects} and {bones} filled
# in from the scene)
OBJECT_MODE_CASES = [
    (["Cube"], "1 object"),
    (["Cube", "Cone"], "{objects} objects"),
    (["Rig"], "{bones} bones of \"Rig\""),
    (["Cube", "Rig"], "1 object and {bones} bones"),
    (["Cube", "Cone", "Rig", "Rig2"], "{objects} objects and {bones} bones"),
    (["Rig", "Rig2"], "{bones} bones"),
]


@pytest.mark.parametrize("selected, wording", OBJECT_MODE_CASES)
def test_bake_and_revert_reports_count_objects_and_bones(scene, capfd, selected, wording):
    chosen, objects, bones, count = expected_count(selected, wording)
    assert bones in (0, 3, 5)      # the scene as the fixture built it (3 + 2 keyed bones)
    scenes.select_only(*chosen)
    info_lines(capfd)
    assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
    line = one_line(capfd, f"Baked {count} (")
    # Every baked transform is named (up to four, then "...").
    names = line[len(f"Baked {count} ("):].split("), ", 1)[0].split(", ")
    assert len(names) == min(objects + bones, 4) + (objects + bones > 4)
    # Bones go by their own names where the count names their one armature, and by
    # "Rig: bone" beside objects or another armature's bones.
    if selected == ["Rig"]:
        assert set(names) <= set(keyed_bones(bpy.data.objects["Rig"])), names
    elif bones:
        assert any(n.startswith(("Rig: ", "Rig2: ")) for n in names), names
    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    line = one_line(capfd, f"Reverted {count}: ")
    # Named as the bake names them: up to four, then "..." (the count says how many).
    names = line[len(f"Reverted {count}: "):].split(", ")
    assert len(names) == min(objects + bones, 4) + (objects + bones > 4)
    assert (names[-1] == "...") == (objects + bones > 4)


@pytest.mark.parametrize("bones, wording", [
    (["leg"], "1 bone of \"Rig\""),
    (["arm", "leg", 'arm["L"].001'], "3 bones of \"Rig\""),
])
def test_pose_mode_reports_count_the_selected_bones(scene, capfd, bones, wording):
    rig = bpy.data.objects["Rig"]
    assert set(bones) <= set(keyed_bones(rig))
    scenes.select_only(rig)
    bpy.ops.object.mode_set(mode='POSE')
    try:
        for b in rig.data.bones:
            versions.select_bone(rig, b.name, b.name in bones)
        rig.data.bones.active = rig.data.bones[bones[0]]
        info_lines(capfd)
        assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
        baked = [pb.name for pb in rig.pose.bones if pb.quatbake.baked]
        assert sorted(baked) == sorted(bones)
        one_line(capfd, f"Baked {wording} (")
        assert bpy.ops.quatbake.revert() == {'FINISHED'}
        line = one_line(capfd, f"Reverted {wording}: ")
        # The count names the armature, so the bones go by their own names (a walk read
        # "(Walk: Hips, Walk: LHipJoint, ...)").
        assert sorted(line[len(f"Reverted {wording}: "):].split(", ")) == sorted(bones)
    finally:
        bpy.ops.object.mode_set(mode='OBJECT')


@pytest.mark.parametrize("option, wording", [
    (["--objects", "Cube"], "1 object"),
    (["--objects", "Cube,Cone"], "2 objects"),
    (["--bones", "Rig:leg"], "1 bone of \"Rig\""),
    (["--objects", "Rig"], "{bones} bones of \"Rig\""),
    (["--objects", "Cube,Rig,Rig2"], "1 object and {bones} bones"),
])
def test_command_line_counts_objects_and_bones(scene, tmp_path, capsys, option, wording):
    bones = sum(len(keyed_bones(bpy.data.objects[n])) for n in ("Rig", "Rig2")
                if n in option[1].split(","))
    count = wording.format(bones=bones)
    blend = tmp_path / "scene.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend), copy=True)
    capsys.readouterr()
    assert cli.main(["bake", str(blend), *option, "--output", str(tmp_path / "baked.blend"),
                     "--method", "slerp"]) == cli.EXIT_OK
    out = capsys.readouterr()
    assert f"Baked {count} with slerp: " in out.out
    assert f"bake: {count} ... 100%" in out.err


@needs_translations
def test_counts_are_translated_with_the_report(scene, chinese_reports, capfd):
    # Each piece of the count is looked up on its own: the Chinese report must read as one
    # sentence, with the counts of the scene.
    cube, rig = bpy.data.objects["Cube"], bpy.data.objects["Rig"]
    bones = len(keyed_bones(rig))
    scenes.select_only(cube, rig)
    capfd.readouterr()
    assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    out = capfd.readouterr().out
    assert f"已烘焙 1 个物体和 {bones} 根骨骼（Cube, Rig: " in out, out
    assert f"已还原 1 个物体和 {bones} 根骨骼：Cube, Rig: " in out, out


# The fixture keys every transform on frames 1 and 11: a bake at step 1 writes 11 frames each.
FRAMES_EACH = int(FRAMES[-1] - FRAMES[0]) + 1


@pytest.mark.parametrize("selected, wording", OBJECT_MODE_CASES)
def test_the_panels_total_counts_objects_and_bones(scene, selected, wording):
    # The Re-bake panel draws "Last bake: ...; Total: <count>, <keys> keys per channel in
    # all." (a dense bake writes a key per frame, FRAMES_EACH each) from the
    # scene settings the bake saves (bake.panel.last_bake_total; tests/gui draws it in a window).
    from quatbake.addon.bake import panel as bake_panel

    chosen, objects, bones, count = expected_count(selected, wording)
    rigs = [o.name for o in chosen if o.type == 'ARMATURE']
    scenes.select_only(*chosen)
    assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
    settings = bpy.context.scene.quatbake
    # last_objects_baked keeps its meaning (every transform baked, bones included).
    assert settings.last_objects_baked == objects + bones
    assert settings.last_bones_baked == bones
    assert settings.last_bones_rig == (rigs[0] if len(rigs) == 1 else "")
    assert settings.last_frames_written == FRAMES_EACH * (objects + bones)
    assert bake_panel.last_bake_total(settings) == \
        f"Total: {count}, {FRAMES_EACH * (objects + bones):d} keys per channel"


def test_the_panels_total_after_a_pose_mode_bake_names_the_rig(scene):
    from quatbake.addon.bake import panel as bake_panel

    rig = bpy.data.objects["Rig"]
    scenes.select_only(rig)
    bpy.ops.object.mode_set(mode='POSE')
    try:
        for b in rig.data.bones:
            versions.select_bone(rig, b.name, b.name == "leg")
        rig.data.bones.active = rig.data.bones["leg"]
        assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
    finally:
        bpy.ops.object.mode_set(mode='OBJECT')
    assert bake_panel.last_bake_total(bpy.context.scene.quatbake) == \
        f"Total: 1 bone of \"Rig\", {FRAMES_EACH:d} keys per channel"


@pytest.mark.parametrize("selected, wording", OBJECT_MODE_CASES)
def test_analyze_report_counts_objects_and_bones(scene, capfd, selected, wording):
    chosen, objects, bones, count = expected_count(selected, wording)
    scenes.select_only(*chosen)
    info_lines(capfd)
    assert bpy.ops.quatbake.analyze(method='SLERP') == {'FINISHED'}
    line = one_line(capfd, f"Analyzed {count}: ")
    # The first four results are named, worst first, then "N more".
    parts = line[len(f"Analyzed {count}: "):].rstrip(".").split("; ")
    more = objects + bones - 4
    assert len(parts) == min(objects + bones, 4) + (more > 0)
    if more > 0:
        assert parts[-1] == f"{more} more"


def test_analyze_counts_an_object_analysed_by_two_clips_once(clean_blender, capfd):
    """An object animated only by two stashed NLA clips gets a result per clip ("Clips /
    Spin"), and is still one object."""
    clips = scenes.new_object("Clips", 'XYZ')
    clips.animation_data_create()
    for name, degrees in (("Spin", 90.0), ("Tilt", 40.0)):
        source = scenes.make_animated_object(name, 'XYZ', FRAMES,
                                             np.radians([[0.0, 0.0, 0.0], [degrees, 0.0, 0.0]]))
        action = animdata.get_action(source)
        action.name = name
        track = clips.animation_data.nla_tracks.new()
        strip = track.strips.new(name, 1, action)
        if hasattr(strip, "action_slot") and strip.action_slot is None:
            strip.action_slot = action.slots[0]
        track.mute = True          # a stash, as Blender's glTF importer leaves clips
        action.use_fake_user = True
        bpy.data.objects.remove(source)
    assert animdata.get_action(clips) is None
    scenes.select_only(clips)
    info_lines(capfd)
    assert bpy.ops.quatbake.analyze(method='SLERP') == {'FINISHED'}
    line = one_line(capfd, "Analyzed 1 object: ")
    assert sorted(p.split(" ", 3)[2] for p in line.rstrip(".").split(": ", 1)[1].split("; ")) \
        == ["Spin", "Tilt"], line


def test_analyze_status_line_names_the_worst_frame(clean_blender, capfd):
    """Sweep: the status line named the deviation but not where; the frame is the one
    frame_set shows Blender's playback farthest from the slerp of the two keys at."""
    from quatbake.core import interp, quat

    obj = scenes.make_animated_object("Swing", 'XYZ', [1, 21],
                                      np.radians([[0, 0, 0], [90, 40, 120]]))
    frames = np.arange(1.0, 22.0)
    played = scenes.evaluated_quats(obj, frames)
    keys = scenes.evaluated_quats(obj, [1.0, 21.0])
    off = np.degrees(quat.angle_between(played, interp.interpolate(
        np.array([1.0, 21.0]), keys, frames, "slerp")))
    scenes.select_only(obj)
    info_lines(capfd)
    assert bpy.ops.quatbake.analyze(method='SLERP') == {'FINISHED'}
    line = one_line(capfd, "Analyzed 1 object: ")
    assert off.max() > 0.1
    found = re.search(r"Swing (\d+\.\d\d) deg at frame (\d+) \(", line)
    assert found, line
    # Two decimals, float32 playback against float64: 0.006 deg; the frame is one where
    # the independent figure is (within that) the largest.
    assert abs(float(found.group(1)) - off.max()) < 0.006, (line, off.max())
    assert off[frames == float(found.group(2))][0] > off.max() - 0.006, (line, off)


EDITED = "keys were changed since the bake"


def _edited_warnings(result) -> list:
    return [w for w in result.warnings if EDITED in w.message]


def test_a_re_bake_says_when_it_replaces_keys_edited_since_the_bake(clean_blender):
    """A bake of a baked transform starts again from the keys before the first bake: keys
    the animator changed in the bake since (a value, a handle) are replaced, and the bake
    says so, naming the transform and the channel. Re-baking untouched keys, another bone
    of the rig baked in between (its keys copied into the new action), a dense bake or a
    Bezier one, says nothing; a conversion keeps the edit and says nothing either."""
    from quatbake.addon import bake, transform

    cube = scenes.make_animated_object("Cube", 'XYZ', [1, 11, 21],
                                       np.radians([[0, 0, 0], [0, 30, 90], [40, 0, 170]]))
    rig = _rig("Rig", ["arm", "hand"])
    arm, hand = (transform.AnimatedTransform(rig, n) for n in ("arm", "hand"))
    settings = bake.BakeSettings(method='SLERP')
    bezier = bake.BakeSettings(method='SLERP', tolerance_deg=0.01, key_interpolation='BEZIER')
    assert not _edited_warnings(bake.bake_objects([cube, arm, hand], settings))
    assert not _edited_warnings(bake.bake_objects([arm], bezier))
    assert not _edited_warnings(bake.bake_objects([hand], settings))   # arm's keys copied
    assert not _edited_warnings(bake.bake_objects([cube, arm, hand], bezier))
    # A Bezier key's handle dragged on the bone, a key's value moved on the cube.
    key = animdata.rotation_fcurves(arm)[1].keyframe_points[0]
    key.handle_right_type = 'FREE'
    key.handle_right[1] += 0.2
    animdata.rotation_fcurves(cube)[2].keyframe_points[1].co[1] += 0.3
    assert not _edited_warnings(bake.convert_objects([hand], 'ZXY'))
    # The cube converted too: a conversion keeps what plays, its edit included, and the
    # edit still counts as one for the bake after it (review: the conversion's fresh
    # checksums hid it, and that bake replaced the edit without a word).
    assert not _edited_warnings(bake.convert_objects([cube], 'QUATERNION'))
    # The report's advice: a re-bake replaces the edits (not "already baked").
    from quatbake.addon.analyze import engine as analyze
    advice = analyze.analyze_object(cube, "slerp").advice
    assert "replaces the keys edited since" in advice, advice
    advice = analyze.analyze_object(cube, "slerp").advice
    assert "replaces the keys edited since" in advice, advice
    found = _edited_warnings(bake.bake_objects([cube, arm, hand], settings))
    assert sorted((w.object_name, w.bone, w.channel) for w in found) == [
        ("Cube", "", "rotation_euler"), ("Rig", "arm", "rotation_quaternion")], found
    assert "Ctrl+Z" in found[0].message
    # The keys it wrote are its own again: no warning the next time, nor that advice.
    assert "edited since" not in analyze.analyze_object(cube, "slerp").advice
    assert not _edited_warnings(bake.bake_objects([cube, arm, hand], settings))


def test_a_stepped_modifier_is_named_first_by_analyze_and_by_the_bake(clean_blender):
    """A walk: poses held by a Stepped F-modifier read "15.6 deg ... timing only: re-bake
    with Timing: Keyed", and the bake, which drops the modifier, smoothed the holds away
    with a generic note. The holds are Blender's (frame_set: the same pose for a step),
    and both now name the modifier and say how to keep a stepped look."""
    from quatbake.addon import analyze, bake

    obj = scenes.new_object("Held", 'XYZ')
    scenes.key_channels(obj, "rotation_euler", [1.0, 11.0, 21.0, 31.0, 41.0],
                        np.radians([[0, 0, 0], [30, 10, 60], [10, -20, 120],
                                    [40, 5, 170], [0, 30, 200]]))
    for fc in animdata.object_fcurves(obj):
        fc.modifiers.new('STEPPED').frame_step = 5
    played = []
    for frame in range(1, 11):
        bpy.context.scene.frame_set(frame)
        played.append(tuple(obj.matrix_world.to_quaternion()))
    assert played[4] == played[8] and played[8] != played[9]     # frames 5-9 hold frame 5
    result = analyze.analyze_object(obj)
    assert result.advice.startswith("a Stepped F-modifier holds rotation_euler[0]")
    assert "a pose every 5 frames" in result.advice and "Constant" in result.advice
    warned = bake.bake_objects([obj], bake.BakeSettings()).warnings
    assert any("Stepped modifier's held poses go with it" in w.message for w in warned)


def test_a_muted_stepped_modifier_is_not_said_to_hold_poses(clean_blender):
    """A review: a muted Stepped modifier holds nothing (frame_set plays every frame
    anew), yet the bake said its held poses would go."""
    from quatbake.addon import analyze, bake

    obj = scenes.new_object("Muted", 'XYZ')
    scenes.key_channels(obj, "rotation_euler", [1.0, 21.0], np.radians([[0, 0, 0], [0, 0, 90]]))
    for fc in animdata.object_fcurves(obj):
        fc.modifiers.new('STEPPED').mute = True
    bpy.context.scene.frame_set(2)
    second = obj.rotation_euler.z
    bpy.context.scene.frame_set(3)
    assert obj.rotation_euler.z != second            # nothing held
    assert "Stepped" not in analyze.analyze_object(obj).advice
    warned = bake.bake_objects([obj], bake.BakeSettings()).warnings
    assert warned and not any("held poses" in w.message for w in warned)


def test_a_location_only_bake_says_so_and_claims_no_rotation_figure(clean_blender, capfd,
                                                                    tmp_path):
    """A walk: a dolly keyed on location only, re-baked with Location: Linear and Constant
    Speed, moved up to 2.4 units, and both the operator and the command line said "largest
    difference ... 0.000 deg" (rotation only), the command line "with slerp", a method
    that was not used. Both now say the location was baked and the rotation left."""
    obj = scenes.new_object("Dolly", 'XYZ')
    scenes.key_channels(obj, "location", [1, 11, 31], [[0, 0, 0], [1, 0, 0], [6, 2, 0]])
    scenes.select_only(obj)
    settings = bpy.context.scene.quatbake
    settings.location_method, settings.constant_speed = 'LINEAR', True
    info_lines(capfd)
    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    line = one_line(capfd, "Baked the location of 1 object (Dolly), ")
    assert line.endswith("the rotation is left as it is") and "deg" not in line, line
    blend, out = tmp_path / "dolly.blend", tmp_path / "baked.blend"
    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    bpy.ops.wm.save_as_mainfile(filepath=str(blend), copy=True)
    capfd.readouterr()
    assert cli.main(["bake", str(blend), "--output", str(out), "--location", "linear"]) == \
        cli.EXIT_OK
    said = capfd.readouterr().out
    assert "Baked the location of 1 object (--location linear)" in said, said
    assert "slerp" not in said and "deg" not in said, said


def test_a_rig_whose_name_holds_a_colon_is_counted(clean_blender, tmp_path, capsys):
    """A pipeline walk: a rig named "Rïg: Ünïcode" (mixamo bones "mixamorig:Hips") baked
    and converted fine, but the summaries said "Baked 0 objects" and "Converted 0
    objects": a bone's name "Rïg: Ünïcode: mixamorig:Hips" was split after "Rïg"."""
    rig = scenes.make_rig("Rïg: Ünïcode", [("mixamorig:Hips", None, (0, 0, 0), (0, 0, 1)),
                                            ("mixamorig:Spine", None, (0, 0, 1), (0, 0, 2))])
    for bone in ("mixamorig:Hips", "mixamorig:Spine"):
        scenes.key_bone(rig, bone, "rotation_quaternion", [1, 11, 21],
                        scenes.quats_about_z([0, 40, 80]), mode='QUATERNION')
    blend = tmp_path / "rig.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend), copy=True)
    capsys.readouterr()
    assert cli.main(["bake", str(blend), "--output", str(tmp_path / "baked.blend"),
                     "--method", "slerp"]) == cli.EXIT_OK
    assert 'Baked 2 bones of "Rïg: Ünïcode" with slerp: ' in capsys.readouterr().out
    assert cli.main(["convert", str(blend), "--to", "zxy", "--output",
                     str(tmp_path / "zxy.blend")]) == cli.EXIT_OK
    assert 'Converted 2 bones of "Rïg: Ünïcode" to ZXY' in capsys.readouterr().out
