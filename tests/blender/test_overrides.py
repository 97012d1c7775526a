"""Library overrides (a pipeline walk): a show's characters are linked and overridden, their
actions the shot's own. The bake refused every override ("cannot be changed ... Make
Local", which is false: its action is local, and Make Local cuts the shot from the
asset); and Blender resets an override's add-on properties when the file is opened
again, so a bake saved in the shot had lost its record (Revert had nothing to put
back). Checked against the textbook slerp of the keys (numpy here: Blender 3.4.1's Python
has no scipy) and the playback before the bake."""
import math

import bpy
import numpy as np
import pytest

from quatbake.addon import animdata, bake, overrides

import scenes

pytestmark = pytest.mark.bpy

KEYS = np.array([1.0, 21.0, 41.0])
FRAMES = np.arange(1.0, 42.0, 2.0)
# Played rotations compared in float32 (Blender's matrices): a few 1e-7 rad.
TOL_DEG = 1e-4


def _axis_quats():
    """Keys 0, -60 deg about X (the sign flipped: Blender turns 300 deg the long way),
    100 deg about Y; (w, x, y, z)."""
    a = math.radians(60.0) / 2
    b = math.radians(100.0) / 2
    return np.array([[1.0, 0, 0, 0], [-math.cos(a), -math.sin(a), 0, 0],
                     [math.cos(b), 0, math.sin(b), 0]])


def _library(path, keyed=False):
    """The character's file: a rig in a collection; ``keyed``: with an action of its own."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    collection = bpy.data.collections.new("Character")
    bpy.context.scene.collection.children.link(collection)
    rig = scenes.make_rig("Rig", [("spine", None, (0, 0, 0), (0, 0, 1)),
                                  ("neck", "spine", (0, 0, 1), (0, 0, 1.5))])
    bpy.context.scene.collection.objects.unlink(rig)
    collection.objects.link(rig)
    if keyed:
        scenes.key_bone(rig, "spine", "rotation_quaternion", KEYS, _axis_quats(),
                        mode='QUATERNION')
    bpy.ops.wm.save_as_mainfile(filepath=str(path))


def _shot(tmp_path, override=True, library_keyed=False):
    """A shot linking the library's character, overridden (or only linked), its spine
    keyed in the shot (``library_keyed``: the library's own action plays instead); saved."""
    lib = tmp_path / "lib" / "character.blend"
    lib.parent.mkdir()
    _library(lib, keyed=library_keyed)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    shot = tmp_path / "shot" / "anim.blend"
    shot.parent.mkdir()
    bpy.ops.wm.save_as_mainfile(filepath=str(shot))
    with bpy.data.libraries.load(str(lib), link=True, relative=True) as (_src, dst):
        dst.collections = ["Character"]
    holder = bpy.data.objects.new("Character", None)
    holder.instance_type, holder.instance_collection = 'COLLECTION', dst.collections[0]
    bpy.context.scene.collection.objects.link(holder)
    scenes.select_only(holder)
    if override:
        bpy.ops.object.make_override_library()
        rig = _rig()
        assert rig.override_library is not None and rig.library is None
    if override and not library_keyed:
        scenes.key_bone(rig, "spine", "rotation_quaternion", KEYS, _axis_quats(),
                        mode='QUATERNION')
        assert rig.animation_data.action.library is None      # the shot's own action
    bpy.ops.wm.save_mainfile()
    return shot


def _rig():
    """The shot's rig: the override (the library's own armature is linked, not local)."""
    return next(o for o in bpy.data.objects if o.type == 'ARMATURE' and o.library is None)


def _played(frames) -> np.ndarray:
    out = []
    rig = _rig()
    for f in frames:
        bpy.context.scene.frame_set(int(f))
        q = rig.pose.bones["spine"].matrix_basis.to_quaternion()
        out.append([q.w, q.x, q.y, q.z])
    return np.array(out)


def _deg(a, b) -> np.ndarray:
    """Angles between (w, x, y, z) rotations: 2 atan2(|sin|, |cos|) of the half angle,
    exact near 0 where an arccos is not."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    cos = np.abs(np.sum(a * b, axis=1))
    sin = np.linalg.norm(a[:, :1] * b[:, 1:] - b[:, :1] * a[:, 1:] + np.cross(a[:, 1:], b[:, 1:]),
                         axis=1)
    return np.degrees(2.0 * np.arctan2(sin, cos))


def _slerp(frames) -> np.ndarray:
    """Shoemake's slerp of the keys, on the short arc, (w, x, y, z)."""
    keys = _axis_quats()
    out = []
    for f in frames:
        i = min(int(np.searchsorted(KEYS, f, side="right")) - 1, KEYS.size - 2)
        t = (f - KEYS[i]) / (KEYS[i + 1] - KEYS[i])
        p, q = keys[i], keys[i + 1] * np.sign(np.dot(keys[i], keys[i + 1]))
        theta = np.arccos(np.clip(np.dot(p, q), -1.0, 1.0))
        out.append(p if theta < 1e-12 else
                   (np.sin((1 - t) * theta) * p + np.sin(t * theta) * q) / np.sin(theta))
    return np.array(out)


def test_an_overridden_rig_bakes_saves_opens_and_reverts(clean_blender, tmp_path):
    shot = _shot(tmp_path)
    before = _played(FRAMES)
    assert _deg(before, _slerp(FRAMES)).max() > 90.0         # the long way round, as keyed
    result = bake.bake_objects([_rig()], bake.BakeSettings(method='SLERP'))
    assert result.objects == ["Rig: spine"]
    assert _deg(_played(FRAMES), _slerp(FRAMES)).max() < TOL_DEG
    baked = tmp_path / "shot" / "baked.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(baked))
    bpy.ops.wm.open_mainfile(filepath=str(baked))
    rig = _rig()
    assert rig.override_library is not None
    assert _deg(_played(FRAMES), _slerp(FRAMES)).max() < TOL_DEG  # the bake still plays
    assert bake.can_revert(rig) and rig.pose.bones["spine"].quatbake.baked
    assert bake.revert_objects([rig]) == ["Rig: spine"]
    assert _deg(_played(FRAMES), before).max() < TOL_DEG
    reverted = tmp_path / "shot" / "reverted.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(reverted))
    bpy.ops.wm.open_mainfile(filepath=str(reverted))
    assert _deg(_played(FRAMES), before).max() < TOL_DEG
    assert [a.name for a in bpy.data.actions if a.library is None] == ["RigAction"]
    assert shot.exists()


def test_without_the_handlers_the_record_is_lost(clean_blender, tmp_path):
    """What the handlers are for: Blender itself sets an override's add-on properties
    back when the file is opened (if it ever keeps them, this test says so)."""
    _shot(tmp_path)
    bake.bake_objects([_rig()], bake.BakeSettings(method='SLERP'))
    overrides.unregister()
    try:
        path = tmp_path / "shot" / "bare.blend"
        bpy.ops.wm.save_as_mainfile(filepath=str(path))
        bpy.ops.wm.open_mainfile(filepath=str(path))
        assert _rig().quatbake.baked_action is None
    finally:
        overrides.register()


def test_the_command_line_bakes_an_overridden_rig(clean_blender, tmp_path):
    from quatbake.addon import cli

    shot = _shot(tmp_path)
    out = tmp_path / "shot" / "cli.blend"
    assert cli.main(["bake", str(shot), "--output", str(out), "--quiet"]) == cli.EXIT_OK
    bpy.ops.wm.open_mainfile(filepath=str(out))
    assert _deg(_played(FRAMES), _slerp(FRAMES)).max() < TOL_DEG
    assert bake.can_revert(_rig())


def test_a_rig_only_linked_is_refused_naming_its_library(clean_blender, tmp_path):
    _shot(tmp_path, override=False)
    rig = next(o for o in bpy.data.objects if o.type == 'ARMATURE')
    assert rig.library is not None
    before = scenes.scene_snapshot()
    with pytest.raises(bake.BakeError, match=r"linked from the library .*character\.blend.* "
                       r"without an override.*Make a library override"):
        bake.bake_objects([rig], bake.BakeSettings(method='SLERP'))
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def test_a_missing_library_is_named_not_taken_for_a_shot_without_keys(clean_blender, tmp_path,
                                                                     capsys):
    """A farm worker without the show's path mapped: the rig's library is not there. The
    command said "no object with rotation keys ... no other keys", blaming the animation,
    and never named the library (a pipeline walk)."""
    from quatbake.addon import cli

    shot = _shot(tmp_path)
    (tmp_path / "lib" / "character.blend").rename(tmp_path / "elsewhere.blend")
    code = cli.main(["report", str(shot), "--json", str(tmp_path / "r.json")])
    said = capsys.readouterr().err
    assert code == cli.EXIT_BAD_INPUT
    assert "note: " in said and "character.blend\", which is not there" in said
    assert "no other keys" not in said and "map the library's path" in said
    assert not (tmp_path / "r.json").exists()       # nothing else to report: nothing written


def test_a_library_reload_before_saving_keeps_the_record(clean_blender, tmp_path):
    """A review: Outliner > Reload (the rig's file updated) re-applies the overrides and
    reset the record, with no save or load to keep it: the bake played on and Revert was
    gone for good. Kept on the baked action as the bake ends, it comes back at the next
    update."""
    _shot(tmp_path)
    before = _played(FRAMES)
    bake.bake_objects([_rig()], bake.BakeSettings(method='SLERP'))
    bpy.data.libraries[0].reload()
    bpy.context.view_layer.update()
    rig = _rig()
    assert bake.can_revert(rig) and rig.pose.bones["spine"].quatbake.baked
    assert bake.revert_objects([rig]) == ["Rig: spine"]
    assert _deg(_played(FRAMES), before).max() < TOL_DEG


def _second_override(tmp_path):
    """The shot of _shot with a second override of the character, unkeyed, holding a pose."""
    shot = _shot(tmp_path)
    holder = bpy.data.objects.new("Extra", None)
    holder.instance_type = 'COLLECTION'
    holder.instance_collection = next(c for c in bpy.data.collections if c.library is not None)
    bpy.context.scene.collection.objects.link(holder)
    scenes.select_only(holder)
    bpy.ops.object.make_override_library()
    other = next(o for o in bpy.data.objects if o.type == 'ARMATURE' and o.library is None
                 and o != _rig())
    return shot, other


def test_a_rig_given_another_rigs_baked_action_does_not_take_its_record(clean_blender,
                                                                        tmp_path):
    """A review: a second override given the first's baked action (Link Animation Data)
    took the first's record when the file was opened again, and its Revert put the first
    rig's keys on it."""
    shot, other = _second_override(tmp_path)
    rig = _rig()
    baked_name, other_name = rig.name, other.name
    bake.bake_objects([rig], bake.BakeSettings(method='SLERP'))
    other.animation_data_create()
    animdata.assign_action(other, rig.animation_data.action, animdata.get_slot_identifier(rig))
    assert not bake.can_revert(other)
    bpy.ops.wm.save_as_mainfile(filepath=str(shot))
    bpy.ops.wm.open_mainfile(filepath=str(shot))
    assert bake.can_revert(bpy.data.objects[baked_name])
    assert not bake.can_revert(bpy.data.objects[other_name])


def test_an_override_playing_the_librarys_action_is_refused_naming_the_library(clean_blender,
                                                                              tmp_path):
    """A review: the sentence said the action "cannot be re-baked ... linked from a library
    or overridden", on a first bake, without naming which."""
    _shot(tmp_path, library_keyed=True)
    rig = _rig()
    assert rig.animation_data.action.library is not None      # the library's own action
    before = scenes.scene_snapshot()
    with pytest.raises(bake.BakeError, match=r"its action \"RigAction\" is linked from the "
                       r"library .*character\.blend.*not the file's own"):
        bake.bake_objects([rig], bake.BakeSettings(method='SLERP'))
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def test_a_copy_of_the_baked_action_is_not_taken_for_the_bake_when_reopened(clean_blender,
                                                                            tmp_path):
    """A review: the copy Revert left playing ('RigAction.edited', the neck keyed since the
    bake kept in it) carried the baked action's kept record; reopened, the rig read as
    baked again, and a Revert took the spine's keys set since back to the old ones."""
    _shot(tmp_path)
    rig = _rig()
    bake.bake_objects([rig], bake.BakeSettings(method='SLERP'))
    rig.pose.bones["neck"].rotation_quaternion = (0.7071, 0.7071, 0.0, 0.0)
    rig.pose.bones["neck"].keyframe_insert("rotation_quaternion", frame=5)
    bake.revert_objects([rig])
    assert animdata.get_action(rig).name.endswith(".edited")
    assert overrides.KEPT not in animdata.get_action(rig)
    path = str(tmp_path / "shot.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.open_mainfile(filepath=path)
    rig = _rig()
    assert not bake.can_revert(rig)
    assert not [b.name for b in rig.pose.bones if b.quatbake.baked]


def test_repeated_rebakes_of_an_override_keep_one_copy_of_the_animators_changes(
        clean_blender, tmp_path):
    """A review: on an override each Re-bake after an edit left another 'RigAction.edited'
    behind, because the record kept on the bake named the copy before it."""
    _shot(tmp_path)
    rig = _rig()
    bake.bake_objects([rig], bake.BakeSettings(method='SLERP'))
    for frame in (5, 6, 7):
        rig.pose.bones["neck"].rotation_quaternion = (0.7071, 0.7071, 0.0, 0.01 * frame)
        rig.pose.bones["neck"].keyframe_insert("rotation_quaternion", frame=frame)
        bake.bake_objects([rig], bake.BakeSettings(method='SLERP'))
    local = sorted(a.name for a in bpy.data.actions if a.library is None)
    assert [n for n in local if ".edited" in n] == ["RigAction.edited"], local
