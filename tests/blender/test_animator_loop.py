"""The animator's loop through the operators: diagnose, bake, see that it worked.

Runs with the bpy module and inside Blender 3.4.1 (pytest-blender). After
Analyze and Re-bake, the Difference Report must describe the baked objects
(no stale advice), with the figures before the bake checked against
frame_set + matrix_basis and core's interpolation of the key orientations.
"""
import os

import bpy
import numpy as np
import pytest

from quatbake.addon import animdata, versions
from quatbake.addon.analyze import entries as report_results
from quatbake.addon.bake import presets

import report_schema
import scenes

pytestmark = pytest.mark.bpy

FRAMES = np.array([1.0, 41.0, 81.0])


def _flip_and_wrap():
    """Flip: key 41's quaternion sign flipped (both intervals go the long way);
    Wrap: Z keyed 170 -> -170 degrees (one interval turns 340 instead of 20)."""
    keys = scenes.quats_about_z([0, 40, 80])
    keys[1] *= -1.0
    flip = scenes.make_animated_object("Flip", 'QUATERNION', FRAMES, keys, 'LINEAR')
    wrap = scenes.make_animated_object("Wrap", 'XYZ', [1.0, 25.0],
                                       np.radians([[0, 0, 170], [0, 0, -170]]), 'LINEAR')
    scenes.select_only(flip, wrap)
    return flip, wrap


def test_after_analyze_and_bake_no_stale_result_or_advice(clean_blender):
    flip, wrap = _flip_and_wrap()
    want_before = {o.name: scenes.max_deviation_from_keys(o) for o in (flip, wrap)}
    scene = bpy.context.scene
    scene.quatbake.method = 'SLERP'

    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    found = report_results.results(scene)
    assert found["Flip"]["long_arc_segments"] == [[1, 41], [41, 81]]
    assert found["Wrap"]["long_arc_segments"] == [[1, 25]]
    assert "long way" in found["Flip"]["advice"] and found["Flip"]["verdict"] == "long way round"

    assert bpy.ops.quatbake.bake() == {'FINISHED'}

    found = report_results.results(scene)
    for name in ("Flip", "Wrap"):
        entry = found[name]
        assert not report_results.is_stale(scene, name), name
        assert entry["long_arc_segments"] == [], name
        assert "long way" not in entry["advice"] and "re-bake" not in entry["advice"], entry
        assert entry["verdict"] == "fine"
        # keys on every frame replayed exactly: float32 keys, ~1e-5 deg
        assert entry["max_deviation_deg"] < report_results.FINE_DEG
        before = entry["before"]
        assert before["verdict"] == "long way round"
        # matrix_basis is float32 (mathutils), keys float32: ~1e-4 deg
        assert before["max_deviation_deg"] == pytest.approx(want_before[name], abs=0.01)
        text = report_results.before_after(entry)
        assert text.endswith("long way round fixed"), text
        assert text.startswith(f"{want_before[name]:.1f}\u00b0 -> "), text
    assert found["Flip"]["before"]["long_arc_segments"] == [[1, 41], [41, 81]]
    # the worst first: equal verdicts, the larger difference first
    order = [name for name, _ in report_results.worst_first(found)]
    assert order == sorted(order, key=lambda n: -found[n]["max_deviation_deg"])


def test_revert_refreshes_the_report_to_the_original_keys(clean_blender):
    flip, wrap = _flip_and_wrap()
    bpy.ops.quatbake.bake()
    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    entry = report_results.results(bpy.context.scene)["Flip"]
    assert entry["before"] is None and entry["long_arc_segments"] == [[1, 41], [41, 81]]
    assert not report_results.is_stale(bpy.context.scene, "Flip")


def test_changed_keys_mark_the_result_stale_and_one_click_re_runs_it(clean_blender):
    flip, _wrap = _flip_and_wrap()
    scene = bpy.context.scene
    bpy.ops.quatbake.analyze()
    assert not report_results.is_stale(scene, "Flip")
    animdata.rotation_fcurves(flip)[0].keyframe_points.insert(60.0, 0.5)
    assert report_results.is_stale(scene, "Flip")
    assert not report_results.is_stale(scene, "Wrap")
    assert bpy.ops.quatbake.analyze(object_name="Flip") == {'FINISHED'}
    assert not report_results.is_stale(scene, "Flip")
    assert "Wrap" in report_results.results(scene)   # a one-object re-run keeps the others


def test_a_bake_too_long_to_re_analyse_marks_the_report_out_of_date(clean_blender, monkeypatch):
    _flip_and_wrap()
    scene = bpy.context.scene
    bpy.ops.quatbake.analyze()
    monkeypatch.setattr(report_results, "REFRESH_FRAME_LIMIT", 10)
    bpy.ops.quatbake.bake()
    assert report_results.is_stale(scene, "Flip") and report_results.is_stale(scene, "Wrap")
    assert report_results.results(scene)["Flip"]["pending"]
    bpy.ops.quatbake.analyze(object_name="Flip")
    assert not report_results.is_stale(scene, "Flip")
    assert report_results.results(scene)["Flip"]["long_arc_segments"] == []


def test_an_edited_bake_analysed_again_stays_out_of_date_through_undo_steps(clean_blender,
                                                                            monkeypatch):
    """A review: a Re-bake too long to re-analyse (pending), a Re-run of Analyze, then a
    baked key moved by hand (the same count): the entry is out of date. Any undo step
    (follow_undo, here of nothing that touched the keys) put the bake's pending entry back,
    "Not re-analysed after the bake", which was false: they were analysed, then edited.
    Only keys as that bake wrote them bring its pending entry back (the undo and redo of
    the bake itself: tests/gui/test_undo_report_rows_gui.py)."""
    _flip_and_wrap()
    scene = bpy.context.scene
    monkeypatch.setattr(report_results, "REFRESH_FRAME_LIMIT", 10)
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    assert report_results.results(scene)["Wrap"]["pending"]
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    assert not report_results.is_stale(scene, "Wrap")
    fc = animdata.rotation_fcurves(scene.objects["Wrap"])[2]
    key = fc.keyframe_points[len(fc.keyframe_points) // 2]
    key.co[1] += 0.3
    fc.update()
    assert report_results.is_stale(scene, "Wrap")
    report_results.follow_undo(scene)
    entry = report_results.results(scene)["Wrap"]
    assert report_results.is_stale(scene, "Wrap") and not entry.get("pending"), entry


def test_bake_operator_offers_no_lerp_and_refuses_the_scenes_lerp(clean_blender):
    flip, wrap = _flip_and_wrap()
    items = bpy.ops.quatbake.bake.get_rna_type().properties["method"].enum_items
    assert items.keys() == ['NLERP', 'SLERP', 'SQUAD']
    for item in items:
        assert "Choose it for" in item.description, item.identifier
    with pytest.raises(TypeError):
        bpy.ops.quatbake.bake(method='LERP')
    scene = bpy.context.scene
    scene.quatbake.method = 'LERP'      # what a script may still set (CONTRACT)
    before = scenes.scene_snapshot()
    with pytest.raises(RuntimeError, match="Lerp, which is for comparisons only"):
        bpy.ops.quatbake.bake()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())
    # Lerp still serves comparisons: Analyze with the scene's Lerp works
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    assert report_results.results(scene)["Flip"]["method"] == "lerp"


def test_compare_setting_picks_what_analyze_compares_with(clean_blender):
    _flip_and_wrap()
    settings = bpy.context.scene.quatbake
    settings.method = 'SLERP'
    settings.compare_method = 'LERP'
    bpy.ops.quatbake.analyze()
    assert report_results.results(bpy.context.scene)["Flip"]["method"] == "lerp"
    settings.compare_method = 'BAKE'
    bpy.ops.quatbake.analyze()
    assert report_results.results(bpy.context.scene)["Flip"]["method"] == "slerp"


def test_custom_range_starts_from_the_keyed_range(clean_blender):
    _flip_and_wrap()
    settings = bpy.context.scene.quatbake
    assert (settings.frame_start, settings.frame_end) == (1, 250)   # the property defaults
    settings.use_frame_range = True
    # Flip is keyed 1..81, Wrap 1..25: the union
    assert (settings.frame_start, settings.frame_end) == (1, 81)


def test_export_report_writes_html_and_json_beside_it(clean_blender, tmp_path):
    flip, wrap = _flip_and_wrap()
    want = {o.name: scenes.max_deviation_from_keys(o) for o in (flip, wrap)}
    html_path = tmp_path / "shot 010 report.html"

    assert bpy.ops.quatbake.export_report(filepath=str(html_path),
                                          open_in_browser=False) == {'FINISHED'}

    json_path = tmp_path / "shot 010 report.json"
    assert html_path.is_file() and json_path.is_file()
    report = report_schema.load_report(json_path)   # strict JSON, fits the shipped schema
    assert report["schema"] == "quatbake.report/1"
    assert report["blender_version"] == bpy.app.version_string
    assert {o["name"] for o in report["objects"]} == {"Flip", "Wrap"}
    for entry in report["objects"]:
        assert entry["max_deviation_deg"] == pytest.approx(want[entry["name"]], abs=0.01)
    assert report["after_bake"] == []
    page = html_path.read_text(encoding="utf-8")
    assert "Flip" in page and "Wrap" in page and "<svg" in page


def test_export_report_after_a_bake_has_the_after_bake_section(clean_blender, tmp_path):
    flip, wrap = _flip_and_wrap()
    want = {o.name: scenes.max_deviation_from_keys(o) for o in (flip, wrap)}
    bpy.ops.quatbake.bake()
    html_path = tmp_path / "after.html"
    bpy.ops.quatbake.export_report(filepath=str(html_path), open_in_browser=False)
    report = report_schema.load_report(tmp_path / "after.json")
    # the objects' entries describe the keys before the bake ...
    for entry in report["objects"]:
        assert entry["max_deviation_deg"] == pytest.approx(want[entry["name"]], abs=0.01)
    # ... and the after-bake section what plays now
    after = {a["name"]: a for a in report["after_bake"]}
    assert set(after) == {"Flip", "Wrap"}
    assert after["Flip"]["before_long_arc_segments"] == [[1, 41], [41, 81]]
    assert after["Flip"]["long_arc_segments"] == []
    assert after["Flip"]["max_deviation_deg"] < report_results.FINE_DEG
    assert "After the bake" in html_path.read_text(encoding="utf-8")


def test_export_report_in_pose_mode_reports_the_selected_bones(clean_blender, tmp_path):
    """A walk: in Pose Mode with two of a rig's bones selected, the panel listed those two
    and the page every keyed bone of the rig."""
    rig = scenes.make_rig("Rig", [(name, None, (i, 0, 0), (i, 0, 1))
                                  for i, name in enumerate(("a", "b", "c"))])
    keys = scenes.quats_about_z([0, 40, 80])
    keys[1] *= -1.0
    for name in ("a", "b", "c"):
        scenes.key_bone(rig, name, "rotation_quaternion", FRAMES, keys, mode='QUATERNION')
    scenes.select_only(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode='POSE')
    for name in ("a", "b", "c"):
        versions.select_bone(rig, name, name != "b")
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    listed = set(report_results.results(bpy.context.scene))
    assert len(listed) == 2

    page = tmp_path / "bones.html"
    assert bpy.ops.quatbake.export_report(filepath=str(page), open_in_browser=False) \
        == {'FINISHED'}
    report = report_schema.load_report(tmp_path / "bones.json")
    assert listed == {"Rig: a", "Rig: c"}
    assert sorted((o["name"], o["bone"]) for o in report["objects"]) == [("Rig", "a"),
                                                                         ("Rig", "c")]
    # None selected: said, as Analyze says it, and nothing written.
    for name in ("a", "c"):
        versions.select_bone(rig, name, False)
    with pytest.raises(RuntimeError, match="No pose bones are selected"):
        bpy.ops.quatbake.export_report(filepath=str(tmp_path / "none.html"),
                                       open_in_browser=False)
    assert not (tmp_path / "none.html").exists()


@pytest.mark.parametrize("saved", [False, True], ids=["unsaved", "saved"])
def test_export_report_to_a_folder_names_the_page_after_the_file(clean_blender, tmp_path,
                                                                 saved):
    """A walk: the file browser's name left empty wrote the hidden ".html" and ".html.json"
    into the folder, and said it had succeeded."""
    _flip_and_wrap()
    stem = "quatbake_report"
    if saved:
        bpy.ops.wm.save_as_mainfile(filepath=str(tmp_path / "shot 010.blend"))
        stem = "shot 010"
    folder = tmp_path / "reports"
    folder.mkdir()
    assert bpy.ops.quatbake.export_report(filepath=str(folder) + os.sep,
                                          open_in_browser=False) == {'FINISHED'}
    assert sorted(p.name for p in folder.iterdir()) == [f"{stem}.html", f"{stem}.json"]
    report = report_schema.load_report(folder / f"{stem}.json")
    assert {o["name"] for o in report["objects"]} == {"Flip", "Wrap"}


def test_export_report_that_cannot_be_written_leaves_nothing(clean_blender, tmp_path):
    _flip_and_wrap()
    missing = tmp_path / "no such folder" / "r.html"
    with pytest.raises(RuntimeError, match="could not be written"):
        bpy.ops.quatbake.export_report(filepath=str(missing), open_in_browser=False)
    assert not any(tmp_path.rglob("*.json")) and not any(tmp_path.rglob("*.html"))


def _user_preset_dir() -> str:
    return bpy.utils.user_resource('SCRIPTS', path=os.path.join("presets", presets.PRESET_SUBDIR))


def test_a_user_preset_can_be_added_applied_and_removed(clean_blender):
    settings = bpy.context.scene.quatbake
    name = "QuatBake test preset 7f3"
    path = os.path.join(_user_preset_dir(), presets.QUATBAKE_OT_preset_add.as_filename(name) + ".py")
    assert not os.path.exists(path)
    try:
        settings.method, settings.location_method, settings.constant_speed = \
            'SQUAD', 'CATMULL_ROM', True
        settings.frame_step = 3
        assert bpy.ops.quatbake.preset_add(name=name) == {'FINISHED'}
        assert os.path.isfile(path)
        assert settings.preset_name == name
        # Blender's operator-preset form, so the redo panel (4.2+) can run it too
        with open(path, encoding="utf-8") as handle:
            assert "op = bpy.context.active_operator" in handle.read()
        assert presets.active_preset_label(settings) == name

        settings.method, settings.location_method, settings.constant_speed = \
            'NLERP', 'KEEP', False
        settings.frame_step = 1
        assert presets.active_preset_label(settings) == f"{name} (changed)"
        files = presets.preset_files()
        assert files[name] == path
        assert bpy.ops.quatbake.apply_preset(filepath=files[name]) == {'FINISHED'}
        assert (settings.method, settings.location_method, settings.constant_speed,
                settings.frame_step) == ('SQUAD', 'CATMULL_ROM', True, 3)
        assert presets.active_preset_label(settings) == name

        assert bpy.ops.quatbake.preset_add(name=name, remove_name=True) == {'FINISHED'}
        assert not os.path.exists(path)
        assert settings.preset_name == ""
    finally:
        if os.path.exists(path):
            os.remove(path)


def test_shipped_presets_cannot_be_removed(clean_blender):
    shipped = sorted(presets.preset_files())[0]
    path = presets.preset_files()[shipped]
    assert bpy.ops.quatbake.preset_add(name=shipped, remove_name=True) == {'CANCELLED'}
    assert os.path.isfile(path)


def test_many_objects_are_listed_worst_first(clean_blender):
    flip, wrap = _flip_and_wrap()
    others = []
    for k, deg in enumerate((10.0, 60.0, 120.0)):
        # Bezier Euler turns of growing size: Blender eases, slerp does not, so
        # the difference grows with the turn (no long way round).
        others.append(scenes.make_animated_object(
            f"Turn{k}", 'XYZ', [1.0, 30.0], np.radians([[0, 0, 0], [0, 0, deg]])))
    scenes.select_only(flip, wrap, *others)
    want = {o.name: scenes.max_deviation_from_keys(o) for o in (flip, wrap, *others)}
    bpy.ops.quatbake.analyze()
    rows = bpy.context.scene.quatbake.report_rows
    names = [r.name for r in rows]
    long_way = {"Flip", "Wrap"}
    assert set(names[:2]) == long_way                  # the long way round first
    rest = names[2:]
    assert rest == sorted(rest, key=lambda n: -want[n])   # then the largest difference first
    for row in rows:
        # float32 keys and matrix_basis: ~1e-4 deg (as test_analyze)
        assert row.max_deviation_deg == pytest.approx(want[row.name], abs=0.01)



def test_a_re_bake_of_one_bone_leaves_the_other_bones_results_current(clean_blender):
    """A walk: Analyze a rig, Re-bake one bone in Pose Mode: every other bone's entry said
    "out of date" (the rig's action was renamed by the bake; their keys were copied as
    they were). They stay current, and a key edited on one of them still marks it."""
    rig = scenes.make_rig("Rig", [("arm", None, (0, 0, 0), (0, 0, 1)),
                                  ("leg", None, (1, 0, 0), (1, 0, 1))])
    keys = scenes.quats_about_z([0, 40, 80])
    keys[1] *= -1.0
    for bone in ("arm", "leg"):
        scenes.key_bone(rig, bone, "rotation_quaternion", FRAMES, keys, mode='QUATERNION')
    scene = bpy.context.scene
    scenes.select_only(rig)
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    bpy.ops.object.mode_set(mode='POSE')
    for b in rig.data.bones:
        versions.select_bone(rig, b.name, b.name == "arm")
    rig.data.bones.active = rig.data.bones["arm"]
    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    found = report_results.results(scene)
    assert found["Rig: arm"]["before"] is not None and found["Rig: leg"]["before"] is None
    assert not report_results.is_stale(scene, "Rig: arm")
    assert not report_results.is_stale(scene, "Rig: leg")
    leg = next(fc for fc in animdata.object_fcurves(rig)
               if fc.data_path == scenes.bone_path("leg", "rotation_quaternion"))
    leg.keyframe_points.insert(60.0, 0.5)
    assert report_results.is_stale(scene, "Rig: leg")


def test_a_delta_rotation_keyed_since_the_analysis_marks_it_out_of_date(clean_blender):
    """A review: the entries' fingerprints read rotation and location keys only, so a delta
    rotation edited since the analysis (into a wrap: 180 deg the long way) left the entry
    current once a bake of another bone no longer renamed its way out of it."""
    flip, _wrap = _flip_and_wrap()
    scene = bpy.context.scene
    bpy.ops.quatbake.analyze()
    assert not report_results.is_stale(scene, "Flip")
    flip.delta_rotation_quaternion = (0.0, 0.0, 0.0, 1.0)
    flip.keyframe_insert("delta_rotation_quaternion", frame=1)
    assert report_results.is_stale(scene, "Flip")
