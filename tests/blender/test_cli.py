"""The command line's Blender-side steps in-process, on every Blender (bpy 5.0.1 and
the 3.4.1 program): picking objects, naming unknown ones, files Blender wrote.
The subprocess runs with exit codes are in tests/cli/test_cli_subprocess.py."""
import bpy
import numpy as np
import pytest

from quatbake.addon import cli

import scenes

pytestmark = pytest.mark.bpy


def _scene():
    scenes.make_animated_object("Cam", 'QUATERNION', [1, 30], [[1, 0, 0, 0], [0, 0, 0, 1]])
    scenes.make_animated_object("Arm", 'XYZ', [1, 30], np.radians([[0, 0, 170], [0, 0, -170]]))
    dolly = scenes.new_object("Dolly", 'XYZ')
    scenes.key_channels(dolly, "location", [1, 30], [[0, 0, 0], [1, 0, 0]])
    scenes.new_object("Plain", 'XYZ')


def test_default_objects_are_those_with_rotation_keys_by_name(clean_blender):
    _scene()
    assert [o.name for o in cli.rotation_keyed_objects(bpy)] == ["Arm", "Cam"]
    assert [o.name for o in cli.resolve_objects(bpy, None, "s.blend")] == ["Arm", "Cam"]


def test_unknown_object_is_one_sentence_naming_what_is_there(clean_blender):
    _scene()
    with pytest.raises(cli.BadInput) as err:
        cli.resolve_objects(bpy, ["Cam", "Ghost"], "s.blend")
    assert str(err.value) == 'Object "Ghost" is not in s.blend (objects with rotation keys: Arm, Cam).'


def test_an_unknown_object_among_many_counts_the_ones_not_named(clean_blender):
    """A report walk: with 13 keyed objects the list stopped at ten without a word."""
    for i in range(13):
        scenes.make_animated_object(f"Obj{i:02d}", 'XYZ', [1, 11], np.radians([[0, 0, 0],
                                                                              [0, 0, 40]]))
    with pytest.raises(cli.BadInput) as err:
        cli.resolve_objects(bpy, ["Nope"], "s.blend")
    names = ", ".join(f"Obj{i:02d}" for i in range(10))
    assert str(err.value) == (f'Object "Nope" is not in s.blend (objects with rotation keys: '
                              f"{names} and 3 more).")


def test_objects_without_rotation_keys_become_report_errors(clean_blender):
    _scene()
    objs = cli.resolve_objects(bpy, ["Dolly", "Arm", "Plain"], "s.blend")
    analyses, errors = cli.analyse_objects(objs, "slerp", cli.Progress(3, "report:", quiet=True))
    assert [a.name for a in analyses] == ["Arm"]
    assert analyses[0].long_arc_segments == [[1.0, 30.0]]
    assert [name for name, _ in errors] == ["Dolly", "Plain"]
    assert all("has no keys on rotation_euler" in message for _, message in errors)


def test_objects_without_rotation_keys_are_skipped_with_their_reason(clean_blender):
    """Issue 21: what the report command does: not errors, each skipped with its reason;
    the location-keyed one with its location keys."""
    _scene()
    objs = cli.resolve_objects(bpy, ["Dolly", "Arm", "Plain"], "s.blend")
    skipped = []
    analyses, errors = cli.analyse_objects(objs, "slerp", cli.Progress(3, "report:", quiet=True),
                                           skipped=skipped)
    assert [a.name for a in analyses] == ["Arm"] and errors == []
    assert [s.name for s in skipped] == ["Dolly", "Plain"]
    assert "keyed on location only" in skipped[0].message
    assert skipped[0].location_keys == [1.0, 30.0]
    assert "no other keys" in skipped[1].message and skipped[1].location_keys == []


def test_blend_files_this_blender_writes_pass_the_checks_and_cut_ones_do_not(clean_blender, tmp_path):
    _scene()
    path = tmp_path / "s.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path), copy=True, compress=False)
    assert cli.check_blend_file(str(path)) == str(path)
    data = path.read_bytes()
    cut = tmp_path / "cut.blend"
    cut.write_bytes(data[: len(data) - 200])
    with pytest.raises(cli.BadInput, match="truncated"):
        cli.check_blend_file(str(cut))
    junk = tmp_path / "junk.blend"
    junk.write_bytes(b"PK\x03\x04 not a blend")
    with pytest.raises(cli.BadInput, match="not a .blend file"):
        cli.check_blend_file(str(junk))
