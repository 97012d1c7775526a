"""No QuatBake operator ever shows a Python traceback (issue 21): every operator, driven
over each hostile scene tests/blender builds (the bake's bad-input list, the readers'
broken keys, the bone cases, mixed selections), either works or says one sentence.

An exception escaping an operator reaches the caller as
``RuntimeError("Error: Python: Traceback ...")`` and is printed on stderr: both are
checked (operator_sweep). The Rigify rig gets the same sweep in test_rigify.py.
Runs with bpy 5.0.1 and inside Blender 3.4.1.
"""
import bpy
import numpy as np
import pytest
from operator_sweep import SWEPT, assert_no_traceback, drive_every_operator, registered_operators
from test_bones import make_checked_rig
from test_hostile_readers import _hostile_objects

from quatbake.addon import animdata, versions

import scenes
from test_hostile_bake import BAD_INPUT

pytestmark = pytest.mark.bpy


def test_every_operator_is_swept(clean_blender):
    assert registered_operators() == set(SWEPT)


def _readers_scene():
    _hostile_objects()
    return list(bpy.data.objects)


def _bone_driver_and_nan():
    rig = make_checked_rig()
    rig.pose.bones["still"].driver_add("rotation_quaternion", 0)
    fc = next(fc for fc in animdata.object_fcurves(rig)
              if fc.data_path == scenes.bone_path("wrap", "rotation_euler") and fc.array_index == 1)
    fc.keyframe_points[1].co[1] = float("nan")
    return [rig]


def _location_bone_beside_a_cube():
    """Issue 21's two-bone repro: a bone keyed on location only (two keys), a bone keyed
    on nothing, beside a cube with rotation keys."""
    rig = scenes.make_rig("Rig", [("loc", None, (0, 0, 0), (0, 0, 1)),
                                  ("bare", None, (1, 0, 0), (1, 0, 1))])
    scenes.key_bone(rig, "loc", "location", [1, 21], [[0, 0, 0], [1, 0, 0]])
    cube = scenes.make_animated_object("Cube", 'XYZ', [1, 21], np.radians([[0, 0, 0],
                                                                           [0, 0, 170]]))
    return [rig, cube]


def _nla_only_parent_beside_a_keyed_child():
    parent = scenes.make_animated_object("Parent", 'QUATERNION', [1, 21],
                                         [[1, 0, 0, 0], [0, 0, 0, 1]])
    action = animdata.get_action(parent)
    track = parent.animation_data.nla_tracks.new()
    track.strips.new("Clip", 1, action)
    animdata.assign_action(parent, None)
    child = scenes.make_animated_object("Child", 'XYZ', [1, 21], np.radians([[0, 0, 0],
                                                                             [0, 90, 0]]))
    child.parent = parent
    return [parent, child]


def _armature_without_action():
    return [scenes.make_rig("Bare", [("b", None, (0, 0, 0), (0, 0, 1))])]


SCENES = [b for b in BAD_INPUT] + [
    _readers_scene, _bone_driver_and_nan, _location_bone_beside_a_cube,
    _nla_only_parent_beside_a_keyed_child, _armature_without_action]
# The readers' scene keys a frame 5,000,001: a glTF export of it would sample five
# million frames, so that one scene leaves out the export check.
NO_EXPORT = {_readers_scene}


@pytest.mark.parametrize("build", SCENES, ids=[f.__name__.lstrip("_").removeprefix("case_")
                                               for f in SCENES])
def test_no_operator_shows_a_traceback(clean_blender, tmp_path, capfd, build):
    built = build()
    objects = built[0] if isinstance(built, tuple) else built
    scenes.select_only(*objects)
    bpy.context.scene.frame_set(1)
    capfd.readouterr()
    said = drive_every_operator(tmp_path, export_check=build not in NO_EXPORT)
    printed = capfd.readouterr()
    assert_no_traceback(said, printed.out + printed.err)


def test_no_operator_shows_a_traceback_in_pose_mode_on_hostile_bones(clean_blender, tmp_path,
                                                                    capfd):
    rig = _bone_driver_and_nan()[0]
    scenes.select_only(rig)
    bpy.ops.object.mode_set(mode='POSE')
    for bone in rig.data.bones:
        versions.select_bone(rig, bone.name, True)
    capfd.readouterr()
    said = drive_every_operator(tmp_path)
    printed = capfd.readouterr()
    bpy.ops.object.mode_set(mode='OBJECT')
    assert_no_traceback(said, printed.out + printed.err)
