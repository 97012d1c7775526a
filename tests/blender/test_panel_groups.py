"""The panels' rows grouped by armature (issue 24): a bone's row leads with the bone's
name and its armature is one header above its bones (addon/ui/groups.py, the
Difference Report's report_groups, the Re-bake panel's last-bake lines). Drawn for real
in a window by tests/gui/test_panel_layout_gui.py; here what decides the rows, on a rig
and an object analysed and baked through the operators (bpy module and Blender 3.4.1).
"""
import bpy
import numpy as np
import pytest

from quatbake.addon.analyze import entries
from quatbake.addon.analyze import panel as analyze_panel
from quatbake.addon.bake import panel as bake_panel
from quatbake.addon.ui import groups

import scenes

pytestmark = pytest.mark.bpy

# A rig whose name holds ": " (a bone of "Rig: A" is "Rig: A: spine"), with a bone
# whose name holds one too, and an object named as a rig's bone would be.
RIG = "Rig: A"
BONES = ("spine", "arm: L")


def _scene():
    rig = scenes.make_rig(RIG, [(BONES[0], None, (0, 0, 0), (0, 0, 1)),
                                (BONES[1], BONES[0], (0, 0, 1), (0, 1, 1))])
    for k, bone in enumerate(BONES):
        # a flipped quaternion key: "long way round" before the bake
        scenes.key_bone(rig, bone, "rotation_quaternion", [1, 11, 21],
                        [[1, 0, 0, 0], [-0.7071, 0, 0, -0.7071 * (k + 1) / 2], [0, 0, 0, 1]],
                        mode='QUATERNION')
    cube = scenes.make_animated_object("Cube", 'XYZ', [1, 21],
                                       np.radians([[0, 0, 0], [0, 0, 90]]))
    twin = scenes.make_animated_object(f"{RIG}: {BONES[0]}x", 'XYZ', [1, 21],
                                       np.radians([[0, 0, 0], [0, 0, 30]]))
    scenes.select_only(rig, cube, twin)
    bpy.context.view_layer.objects.active = cube
    return rig, cube, twin


def test_split_name_finds_the_armature_and_the_bone(clean_blender):
    rig, cube, twin = _scene()
    scene = bpy.context.scene
    assert groups.split_name(scene, f"{RIG}: spine") == (RIG, "spine")
    assert groups.split_name(scene, f"{RIG}: arm: L") == (RIG, "arm: L")
    # an object's name is an object's, even where it reads as a rig's bone
    assert groups.split_name(scene, twin.name) == (groups.OBJECTS, twin.name)
    assert groups.split_name(scene, "Cube") == (groups.OBJECTS, "Cube")
    assert groups.split_name(scene, f"{RIG}: no such bone") == \
        (groups.OBJECTS, f"{RIG}: no such bone")


def test_the_report_groups_bones_under_their_armature_worst_first(clean_blender):
    _scene()
    with bpy.context.temp_override(selected_objects=list(bpy.context.selected_objects)):
        assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    found = entries.results(bpy.context.scene)
    assert len(found) == 4
    grouped = analyze_panel.report_groups(found)
    # the rig's bones (long way round) are worse than the objects: their group first
    assert [g for g, _ in grouped] == [RIG, groups.OBJECTS]
    rig_rows = grouped[0][1]
    assert sorted(short for short, _ in rig_rows) == sorted(BONES)
    for short, name in rig_rows:                    # each row's own entry, by its name
        assert found[name]["bone"] == short and found[name]["object"] == RIG
    # within a group, worst first as the report sorts them
    order = [name for name, _ in entries.worst_first(found)]
    for _group, members in grouped:
        names = [name for _short, name in members]
        assert names == [n for n in order if n in names]
    assert {short for short, _ in grouped[1][1]} == {"Cube", f"{RIG}: {BONES[0]}x"}


def test_the_last_bake_lines_group_bones_under_their_armature(clean_blender):
    _scene()
    with bpy.context.temp_override(selected_objects=list(bpy.context.selected_objects)):
        assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
    scene = bpy.context.scene
    per_object = bake_panel.last_bake(scene)
    assert len(per_object) == 4
    rows = groups.grouped((*groups.split_name(scene, name), frames)
                          for name, frames in per_object.items())
    by_group = {g: dict(members) for g, members in rows}
    # keyed 1..21: 21 frames each, the bones under the rig by their own names
    assert by_group[RIG] == {BONES[0]: 21, BONES[1]: 21}
    assert by_group[groups.OBJECTS] == {"Cube": 21, f"{RIG}: {BONES[0]}x": 21}


def test_the_last_bake_lines_are_saved_with_the_file_and_go_with_a_revert(clean_blender,
                                                                          tmp_path):
    """An undo walk: the lines were kept in the session only, so a file saved after a bake
    and opened again drew "Last bake:" and nothing (the totals, scene settings, were
    saved), and after Ctrl+Z of a later bake the lines named the bake undone. They are a
    scene setting now, saved and undone with the totals. The keys counted from the
    F-curves the bake wrote."""
    from quatbake.addon import animdata

    _scene()
    with bpy.context.temp_override(selected_objects=list(bpy.context.selected_objects)):
        assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
    cube = bpy.data.objects["Cube"]
    written = {len(fc.keyframe_points) for fc in animdata.rotation_fcurves(cube)}
    path = str(tmp_path / "baked.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bake_panel.last_bake(bpy.context.scene) == {}
    assert entries.results(bpy.context.scene) == {}    # the bake's entries: not this file's
    bpy.ops.wm.open_mainfile(filepath=path)
    scene = bpy.context.scene
    per_object = bake_panel.last_bake(scene)
    assert len(per_object) == 4 and {per_object["Cube"]} == written
    assert sum(per_object.values()) == scene.quatbake.last_frames_written
    scenes.select_only(bpy.data.objects["Cube"])
    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    assert bake_panel.last_bake(scene) == {} and not scene.quatbake.has_last_bake
