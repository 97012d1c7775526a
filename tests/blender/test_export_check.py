"""export-check (issue 15) with Blender's own glTF exporter, real bpy, no mocks.

The independent reference is tests/blender/gltf_spec_eval.py: plain numpy
reading of the .bin, the spec's slerp and Hermite formulas written out, the
exporter's swizzle undone by hand, and ``frame_set`` + ``matrix_world``.
"""

import json
import math
import pathlib

import bpy
import numpy as np
import pytest

from quatbake.addon import animdata, export_check
from quatbake.report import export_check_report

from export_scenes import build_flipped_rig, build_three_empties
from gltf_spec_eval import (
    angle_deg,
    export_for_reference,
    reference_bone_deviation,
    reference_bone_quats,
    reference_deviation,
    relative_deg,
)
from report_schema import validate_export_check
from scenes import assert_same_snapshot, scene_snapshot, select_only
from test_realdata_import import gltf_import_options

# A sampled export writes float32 keys (~6e-8 relative, ~1e-5 deg per key) and
# the exporter's export_optimize_animation_size drops keys it finds redundant:
# measured up to 5.2e-5 deg on these objects (issue 15: "within 4e-5").
SAMPLED_DEG = 1e-4

# export-check vs the independent evaluation (gltf_spec_eval): the bar.
AGREE_DEG = 0.05


@pytest.fixture
def three_empties(clean_blender):
    return build_three_empties()


# -------------------------------------------------------------------- the check


def _by_name(report):
    """The objects' entries by name (a pose bone's carries its armature's name and its own
    ``bone``)."""
    return {o["name"]: o for o in report["objects"] if not o.get("bone")}


def test_keys_as_they_are_play_far_off_with_the_right_causes(three_empties):
    report = export_check.check_objects(
        bpy.context, three_empties, {"export_force_sampling": False}
    )
    assert report["schema"] == "quatbake.export-check/1" and report["errors"] == []
    got = _by_name(report)
    wind, swing, flip = got["Windmill"], got["Swing"], got["Flip"]
    # Windmill: both exported keys are one orientation, so the player stands still
    # while Blender turns a full circle: 180 deg off at the middle frame 13.
    assert wind["key_count"] == 2 and wind["interpolation"] == "LINEAR"
    assert abs(wind["max_deviation_deg"] - 180.0) < 0.01 and wind["worst_frame"] == 13
    assert [(iv["frames"], iv["cause"]) for iv in wind["intervals"]] == [([1, 25], "turn_lost")]
    assert wind["advice"].startswith("turn_lost in 1 interval,") and "--tolerance" in wind["advice"]
    assert abs(wind["intervals"][0]["blender_turn_deg"] - 360.0) < 0.01
    # Swing: the 170 -> -170 interval (frames 9-17) is Blender's long way round.
    assert swing["max_deviation_deg"] > 90.0
    causes = {tuple(iv["frames"]): iv["cause"] for iv in swing["intervals"]}
    assert causes[(9, 17)] == "turn_lost"
    # Flip: the key stored as -q (frame 25) spoils the interval before it.
    causes = {tuple(iv["frames"]): iv["cause"] for iv in flip["intervals"]}
    assert causes[(13, 25)] == "sign_flip"
    assert flip["max_deviation_deg"] > 90.0
    for o in got.values():
        assert o["animation_bytes"] > 0 and set(o["keys"]) >= {"rotation"}
    assert report["gltf_bytes"] > 0
    # The JSON written for it fits the shipped schema (strict JSON, no NaN).
    validate_export_check(json.loads(export_check_report.dumps(report)))


def test_sampled_export_plays_within_float32_of_blender(three_empties):
    report = export_check.check_objects(bpy.context, three_empties, {})
    for o in report["objects"]:
        assert o["max_deviation_deg"] < SAMPLED_DEG, o["name"]
        assert o["intervals"] == [] and o["causes"] == {}
        # Location too: the camera's Bezier move (float32 positions, ~1e-6 units).
        assert o["max_location_deviation"] < 1e-5
    # A sampled export pays with a key on every frame (the exporter's optimiser
    # may drop a few on straight runs).
    assert _by_name(report)["Swing"]["key_count"] > 10


@pytest.mark.parametrize("sampling", [True, False])
def test_agrees_with_an_independent_spec_evaluation_of_blenders_export(
    three_empties, tmp_path, sampling
):
    report = export_check.check_objects(
        bpy.context, three_empties, {"export_force_sampling": sampling}
    )
    frames = np.arange(1, 26)
    ref = reference_deviation(
        export_for_reference(tmp_path, three_empties, export_force_sampling=sampling),
        three_empties,
        frames,
    )
    for o in report["objects"]:
        np.testing.assert_array_equal(o["per_frame"]["frame"], frames)
        diff = np.abs(np.asarray(o["per_frame"]["deviation_deg"]) - ref[o["name"]])
        assert diff.max() < AGREE_DEG, (o["name"], diff.max())


def test_camera_correction_is_undone(three_empties):
    cam = bpy.data.objects["Cam"]
    report = export_check.check_objects(bpy.context, [cam], {})
    (entry,) = report["objects"]
    assert report["exporter_options"]["export_cameras"] is True  # switched on for a camera
    # Without undoing the exporter's 90-degree camera turn this would be 90 deg.
    assert entry["max_deviation_deg"] < SAMPLED_DEG


def test_the_check_changes_nothing_in_the_scene(three_empties):
    scene = bpy.context.scene
    scene.frame_set(7)
    select_only(three_empties[0])
    before = scene_snapshot()
    export_check.check_objects(bpy.context, three_empties, {"export_force_sampling": False})
    assert_same_snapshot(before, scene_snapshot())
    assert scene.frame_current == 7
    assert [o.name for o in bpy.context.selected_objects] == [three_empties[0].name]


def test_exporter_options_are_typed_and_checked(clean_blender):
    parsed = export_check.parse_exporter_options(
        ["export_force_sampling=False", "export_frame_step=2", "export_image_format=AUTO"]
    )
    assert parsed == {
        "export_force_sampling": False,
        "export_frame_step": 2,
        "export_image_format": "AUTO",
    }
    with pytest.raises(export_check.ExportCheckError, match="did you mean export_force_sampling"):
        export_check.parse_exporter_options(["export_force_samplin=0"])
    with pytest.raises(export_check.ExportCheckError, match="takes a boolean value"):
        export_check.parse_exporter_options(["export_force_sampling=maybe"])
    with pytest.raises(export_check.ExportCheckError, match="must be one of"):
        export_check.parse_exporter_options(["export_image_format=GIF"])
    with pytest.raises(export_check.ExportCheckError, match="set by export-check itself"):
        export_check.parse_exporter_options(["filepath=/tmp/x.gltf"])
    with pytest.raises(export_check.ExportCheckError, match="NAME=VALUE"):
        export_check.parse_exporter_options(["export_force_sampling"])


def test_operator_and_panels_register_and_unregister(clean_blender):
    import quatbake

    for name in ("QUATBAKE_OT_export_check", "QUATBAKE_PT_export_check",
                 "QUATBAKE_PT_export_check_graph"):
        assert hasattr(bpy.types, name), name
    quatbake.unregister()
    try:
        for name in ("QUATBAKE_OT_export_check", "QUATBAKE_PT_export_check"):
            assert not hasattr(bpy.types, name), name
    finally:
        quatbake.register()  # the fixture unregisters again


def test_operator_reports_and_keeps_results(three_empties):
    select_only(*three_empties)
    assert bpy.ops.quatbake.export_check(exporter_options="export_force_sampling=False") == {
        'FINISHED'
    }
    from quatbake.addon.export_check import ops as ops_export_check

    found = ops_export_check.results(bpy.context.scene)
    assert found["Windmill"]["causes"] == {"turn_lost": 1}
    assert found["Windmill"]["max_deviation_deg"] > 179.0
    with pytest.raises(RuntimeError, match="not an option of Blender's glTF exporter"):
        bpy.ops.quatbake.export_check(exporter_options="no_such_option=1")


def test_the_panel_names_the_controls_and_leaves_the_command_lines_to_the_cli():
    """Every cause's advice, and the Linear sentence, as the Export Check panel shows it:
    the Re-bake panel's controls kept word for word, no command line left."""
    from quatbake.addon.export_check.panel import panel_text
    from quatbake.addon.ui.texts import KEEP_TOGETHER
    from quatbake.core import export_compare

    linear = "Re-bake with Keys: Linear (quatbake bake --keys linear) for this engine: x."
    texts = [export_compare.advice({cause: 1}, 5.0) for cause in export_compare.ADVICE]
    texts.append(export_compare.advice({"between_samples": 1}, 5.0, then=linear))
    for text in texts:
        drawn = panel_text(text)
        shown = drawn.replace(KEEP_TOGETHER, " ")
        assert "quatbake" not in shown and "--" not in shown, shown
        for control in ("Re-bake", "Key Tolerance 0.01", "Keys: Linear"):
            assert (control in text) == (control in shown), (control, shown)
        assert "  " not in shown and " ," not in shown and shown.endswith("."), shown
        # A control and its value, a figure and its unit: no line break between them.
        for together in ("Keys: Linear", "Key Tolerance 0.01", "5 deg", "1 interval"):
            if together in shown:
                assert together.replace(" ", KEEP_TOGETHER) in drawn, (together, drawn)
    assert panel_text(export_compare.advice({"key_mismatch": 1}, 5.0)).endswith(
        "bake the object (Re-bake) so the exporter writes plain keys.")


def test_object_left_out_of_the_file_is_named(three_empties):
    hidden = bpy.data.objects["Swing"]
    bpy.context.scene.collection.objects.unlink(hidden)  # not in the view layer: not exported
    report = export_check.check_objects(bpy.context, three_empties, {}, only_these=False)
    assert [e["object"] for e in report["errors"]] == ["Swing"]
    assert "not in the exported glTF file" in report["errors"][0]["message"]
    assert sorted(o["name"] for o in report["objects"]) == ["Cam", "Flip", "Windmill"]


@pytest.mark.parametrize("sampling", [True, False])
def test_agrees_with_the_corpus_oracle(three_empties, tmp_path, sampling):
    """The same check with tests/oracles/gltf_reference.py (another helper's spec reader)."""
    from oracles import gltf_reference as gr

    report = export_check.check_objects(
        bpy.context, three_empties, {"export_force_sampling": sampling}
    )
    doc = gr.load_gltf(
        export_for_reference(tmp_path, three_empties, export_force_sampling=sampling)
    )
    frames = np.arange(1, 26)
    scene = bpy.context.scene
    blender = {o.name: [] for o in three_empties}
    for f in frames:
        scene.frame_set(int(f))
        for o in three_empties:
            q = o.matrix_world.to_quaternion()
            blender[o.name].append([q.w, q.x, q.y, q.z])
    for entry in report["objects"]:
        name = entry["name"]
        ch = next(
            c
            for a in doc.animations
            for c in a.channels
            if c.node_name == name and c.path == "rotation"
        )
        q = np.array([gr.gltf_to_blender_quat(v) for v in ch.evaluate(frames / 24.0)])
        if "camera" in doc.nodes[doc.node_index(name)]:
            # Undo the exporter's camera turn (sqrt(.5), -sqrt(.5), 0, 0): times its inverse.
            h = np.sqrt(0.5)
            w, x, y, z = q.T
            q = np.stack([h * (w - x), h * (x + w), h * (y + z), h * (z - y)], axis=1)
        ref = angle_deg(q, np.array(blender[name]))
        diff = np.abs(np.asarray(entry["per_frame"]["deviation_deg"]) - ref)
        assert diff.max() < AGREE_DEG, (name, diff.max())


REAL_BLEND = (
    pathlib.Path(__file__).resolve().parents[1]
    / "data"
    / "realdata"
    / "blend"
    / "06_parent-inverse-anim.blend"
)


class _AllAnimations:
    """Every animation of a file played at once, in the oracle's Animation shape."""

    def __init__(self, doc):
        self.channels = [c for a in doc.animations for c in a.channels]


@pytest.mark.parametrize("sampling", [True, False])
def test_real_blend_with_parented_children_agrees_with_the_oracle(
    clean_blender, tmp_path, sampling
):
    # glTF-Blender-IO's own test scene (saved by 2.79): Bezier keys on Euler,
    # quaternion and axis-angle children of parents with a parent inverse.
    from oracles import gltf_reference as gr

    bpy.ops.wm.open_mainfile(filepath=str(REAL_BLEND), load_ui=False)  # the add-on stays
    names = ["ChildAxisAngle", "ChildEuler", "ChildQuaternion"]
    objects = [bpy.data.objects[n] for n in names]
    scene = bpy.context.scene
    frames = np.arange(scene.frame_start, scene.frame_end + 1)
    report = export_check.check_objects(
        bpy.context, objects, {"export_force_sampling": sampling}, only_these=False
    )
    select_only(*bpy.context.view_layer.objects)
    path = str(tmp_path / "real.gltf")
    bpy.ops.export_scene.gltf(
        filepath=path, export_format='GLTF_SEPARATE', export_force_sampling=sampling
    )
    doc = gr.load_gltf(path)
    fps = scene.render.fps / scene.render.fps_base
    everything = _AllAnimations(doc)
    got = {o["name"]: o for o in report["objects"]}
    for obj in objects:
        blender, player = [], []
        for f in frames:
            scene.frame_set(int(f))
            q = obj.matrix_world.to_quaternion()
            blender.append([q.w, q.x, q.y, q.z])
            w = doc.world_matrices(everything, f / fps)[doc.node_index(obj.name)][:3, :3]
            q_xyzw = gr.matrix_to_quat_xyzw(w / np.linalg.norm(w, axis=0))
            player.append(gr.gltf_to_blender_quat(q_xyzw))
        ref = angle_deg(np.array(player), np.array(blender))
        diff = np.abs(np.asarray(got[obj.name]["per_frame"]["deviation_deg"]) - ref)
        assert diff.max() < AGREE_DEG, (obj.name, diff.max())
        if sampling and not (obj.name == "ChildAxisAngle" and bpy.app.version < (4, 0, 0)):
            assert got[obj.name]["max_deviation_deg"] < SAMPLED_DEG
    if sampling and bpy.app.version < (4, 0, 0):
        # Found here: Blender 3.4.1's exporter samples the axis-angle child wrongly
        # (the keys themselves are off, up to 96.7 deg; the oracle agrees), fixed by 5.0.
        axis_angle = got["ChildAxisAngle"]
        assert axis_angle["max_deviation_deg"] > 90.0
        assert set(axis_angle["causes"]) == {"key_mismatch"}
    if not sampling:
        # Found here: without sampling the exporter writes the axis-angle child's
        # last key 88 deg off Blender's pose at that very frame (the oracle agrees):
        # a wrong key, not an interpolation difference.
        assert got["ChildAxisAngle"]["max_deviation_deg"] > 80.0
        assert got["ChildAxisAngle"]["causes"] == {"key_mismatch": 1}


POINTER_GLTF = REAL_BLEND.parents[1] / "gltf" / "24_animation_pointer.gltf"


def test_real_animated_cameras_lose_their_last_subframe_key(clean_blender, tmp_path):
    # The UnityGLTF "Animate All The Things" file (30 fps keys) imported at 24 fps:
    # the last keys land on frame 240.4; the exporter samples whole frames, so after
    # frame 240 the player holds frame 240's pose while Blender plays on to 240.4.
    from oracles import gltf_reference as gr

    bpy.ops.import_scene.gltf(filepath=str(POINTER_GLTF), **gltf_import_options())
    if not bpy.data.actions:
        pytest.skip(f"Blender {bpy.app.version_string}'s glTF importer predates "
                    "KHR_animation_pointer, the only kind of channel in this file")
    cams = [o for o in bpy.data.objects if o.type in {'CAMERA', 'LIGHT'} and o.animation_data]
    report = export_check.check_objects(bpy.context, cams, {}, only_these=False)
    got = {o["name"]: o for o in report["objects"]}
    ortho = got["Camera-Orthographic"]
    assert ortho["causes"] == {"after_last_key": 1}
    (tail,) = ortho["intervals"]
    assert tail["frames"][0] == 240 and tail["worst_frame"] == 241
    assert 0.5 < ortho["max_deviation_deg"] < 0.6
    assert got["Camera-Perspective"]["max_deviation_deg"] < SAMPLED_DEG
    validate_export_check(json.loads(export_check_report.dumps(report)))
    # The oracle's reading of the same export agrees frame by frame.
    frames = np.asarray(ortho["per_frame"]["frame"])
    fps = bpy.context.scene.render.fps
    out = str(tmp_path / "cams.gltf")
    bpy.ops.export_scene.gltf(filepath=out, export_format='GLTF_SEPARATE',
                              export_cameras=True, export_lights=True)
    doc = gr.load_gltf(out)
    everything = _AllAnimations(doc)
    cam = bpy.data.objects["Camera-Orthographic"]
    index = doc.node_index(cam.name)
    blender, player = [], []
    for f in frames:
        bpy.context.scene.frame_set(int(f))
        q = cam.matrix_world.to_quaternion()
        blender.append([q.w, q.x, q.y, q.z])
        w = doc.world_matrices(everything, f / fps)[index][:3, :3]
        qg = gr.gltf_to_blender_quat(gr.matrix_to_quat_xyzw(w / np.linalg.norm(w, axis=0)))
        h = np.sqrt(0.5)          # undo the exporter's camera turn: times (h, h, 0, 0)
        qw, qx, qy, qz = qg
        player.append([h * (qw - qx), h * (qx + qw), h * (qy + qz), h * (qz - qy)])
    ref = angle_deg(np.array(player), np.array(blender))
    assert np.abs(ref - np.asarray(ortho["per_frame"]["deviation_deg"])).max() < AGREE_DEG


def test_broken_keys_are_named_and_the_others_still_checked(clean_blender):
    from scenes import make_animated_object

    bad = make_animated_object("Broken", 'XYZ', [1, 10], [[0, 0, float("nan")], [0, 0, 1]],
                               'LINEAR')
    good = make_animated_object("Fine", 'XYZ', [1, 10], [[0, 0, 0], [0, 0, 1]], 'LINEAR')
    bpy.context.scene.frame_set(1)   # animated values as Blender shows them (NaN for Broken)
    before = scene_snapshot()
    report = export_check.check_objects(bpy.context, [bad, good], {})
    assert [o["name"] for o in report["objects"]] == ["Fine"]
    (error,) = report["errors"]
    assert error["object"] == "Broken"
    assert "not finite at frame 1" in error["message"] and ".." not in error["message"]
    after = scene_snapshot()
    # Every key unchanged; object values compared without Broken's NaN (NaN != NaN).
    for snap in (before, after):
        snap["objects"].pop("Broken")
    assert_same_snapshot(before, after)


def test_ntsc_frame_rate_drifts_and_is_called_timing(three_empties, tmp_path):
    # 29.97 fps (30 / 1.001): Blender plays frame f at f * 1.001 / 30 s; io_scene_gltf2
    # 5.0 writes f / (30 * 1.001), 3.4 writes f / 30 (read from their sources).
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = 30, 1.001
    report = export_check.check_objects(bpy.context, three_empties, {})
    expected = 30 * 1.001 if bpy.app.version >= (4, 0, 0) else 30.0
    # render.fps_base is stored as float32 (1.001 -> 1.00100004673): ~2e-6 fps.
    assert abs(report["exporter_fps"] - expected) < 1e-5
    assert abs(report["fps"] - 30 / 1.001) < 1e-5
    # The keys land a little before Blender's frames (frame 1's at 0.998), so the
    # check starts at frame 0.
    frames = np.asarray(_by_name(report)["Windmill"]["per_frame"]["frame"])
    ref = reference_deviation(export_for_reference(tmp_path, three_empties), three_empties,
                              frames, fps=30 / 1.001)
    got = _by_name(report)
    for name in ("Windmill", "Swing", "Flip"):
        entry = got[name]
        # Sampled keys, right values, wrong clock: every cause is timing.
        assert set(entry["causes"]) == {"timing"}, (name, entry["causes"])
        assert entry["max_deviation_deg"] > 0.1
        diff = np.abs(np.asarray(entry["per_frame"]["deviation_deg"]) - ref[name])
        assert diff.max() < AGREE_DEG, (name, diff.max())
    validate_export_check(json.loads(export_check_report.dumps(report)))


def _pre_roll():
    """Keyed from frame -10 (a pre-roll before the shot), LINEAR: 0, 45 and 90 deg about Z."""
    from scenes import make_animated_object

    return make_animated_object("PreRoll", 'XYZ', [-10, 0, 20],
                                np.radians([[0, 0, 0], [0, 0, 45], [0, 0, 90]]), 'LINEAR')


def test_animation_before_frame_0_is_compared_where_an_engine_plays_it(clean_blender,
                                                                        tmp_path):
    """The exporter (4.2 and newer) slides animation that starts before frame 0 to start
    at 0 s by default: every interval read as a key_mismatch, advised a re-bake."""
    obj = _pre_roll()
    report = export_check.check_objects(bpy.context, [obj], {})
    validate_export_check(json.loads(export_check_report.dumps(report)))
    entry = _by_name(report)["PreRoll"]
    frames = np.asarray(entry["per_frame"]["frame"])
    assert frames[0] == -10.0
    assert not entry["causes"] and entry["max_deviation_deg"] < AGREE_DEG, entry["causes"]
    path = export_for_reference(tmp_path, [obj])
    if "export_negative_frame" not in bpy.ops.export_scene.gltf.get_rna_type().properties:
        # 3.4's exporter writes frame f at f / fps, negative times too.
        assert "time_note" not in report and "frame_at_0s" not in entry
        ref = reference_deviation(path, [obj], frames)
    else:
        assert entry["frame_at_0s"] == -10.0 and "SLIDE" in report["time_note"]
        # The spec's evaluation of the file at (f + 10) / fps is Blender's frame f: the
        # file starts at 0 s with frame -10's pose.
        ref = reference_deviation(path, [obj], frames, seconds=(frames + 10.0) / 24.0)
    assert ref["PreRoll"].max() < AGREE_DEG
    diff = np.abs(np.asarray(entry["per_frame"]["deviation_deg"]) - ref["PreRoll"])
    assert diff.max() < AGREE_DEG


@pytest.mark.parametrize("mode", ["ACTIONS", "ACTIVE_ACTIONS"])
def test_each_object_is_compared_with_its_own_slide(clean_blender, tmp_path, mode):
    """A review: one slide for the whole file mis-timed the objects the exporter had not
    slid (172 deg off for one keyed from frame 1 beside a pre-roll). By default the
    exporter slides each action by its own start, with ACTIVE_ACTIONS all of them by the
    earliest; the file is checked by the spec's own evaluation at the times the check
    says each object plays."""
    from scenes import make_animated_object

    if "export_negative_frame" not in bpy.ops.export_scene.gltf.get_rna_type().properties:
        pytest.skip("this exporter has no export_negative_frame (Blender 3.4)")
    objects = [make_animated_object(name, 'XYZ', [start, start + 10, 20],
                                    np.radians([[0, 0, 0], [0, 0, 60], [0, 0, 150]]), 'LINEAR')
               for name, start in (("Early", -10), ("Later", -4), ("Plain", 1))]
    options = {"export_animation_mode": mode}
    report = export_check.check_objects(bpy.context, objects, options)
    validate_export_check(json.loads(export_check_report.dumps(report)))
    got = _by_name(report)
    path = export_for_reference(tmp_path, objects, **options)
    expected = ({"Early": -10.0, "Later": -4.0} if mode == "ACTIONS" else
                {"Early": -10.0, "Later": -10.0, "Plain": -10.0})
    for obj in objects:
        entry = got[obj.name]
        assert entry.get("frame_at_0s") == expected.get(obj.name), (obj.name, entry)
        assert not entry["causes"] and entry["max_deviation_deg"] < AGREE_DEG, (obj.name, entry)
        frames = np.asarray(entry["per_frame"]["frame"])
        at_0s = expected.get(obj.name, 0.0)
        ref = reference_deviation(path, [obj], frames, seconds=(frames - at_0s) / 24.0)
        assert ref[obj.name].max() < AGREE_DEG, obj.name


def test_animation_cut_at_frame_0_is_compared_from_there(clean_blender, tmp_path):
    if "export_negative_frame" not in bpy.ops.export_scene.gltf.get_rna_type().properties:
        pytest.skip("this exporter has no export_negative_frame (Blender 3.4)")
    obj = _pre_roll()
    report = export_check.check_objects(bpy.context, [obj],
                                        {"export_negative_frame": 'CROP'})
    validate_export_check(json.loads(export_check_report.dumps(report)))
    entry = _by_name(report)["PreRoll"]
    frames = np.asarray(entry["per_frame"]["frame"])
    assert frames[0] == 0.0 and "frame_at_0s" not in entry and "CROP" in report["time_note"]
    assert not entry["causes"], entry["causes"]
    ref = reference_deviation(export_for_reference(tmp_path, [obj], export_negative_frame='CROP'),
                              [obj], frames)
    assert ref["PreRoll"].max() < AGREE_DEG


def test_a_disabled_exporter_is_a_sentence(three_empties):
    import addon_utils

    addon_utils.disable("io_scene_gltf2")
    try:
        with pytest.raises(export_check.ExportCheckError, match="glTF exporter is not enabled"):
            export_check.check_objects(bpy.context, three_empties, {})
        select_only(*three_empties)
        with pytest.raises(RuntimeError, match="glTF exporter is not enabled"):
            bpy.ops.quatbake.export_check()
    finally:
        addon_utils.enable("io_scene_gltf2")


def test_real_object_under_a_bone_exported_without_sampling_has_wrong_keys(clean_blender,
                                                                          tmp_path):
    # Same file: "Bone.004_end" is parented to a bone. Without sampling the exporter
    # writes its keys 90 deg off (on 30 fps key times, between Blender's frames);
    # the check evaluates Blender at each key's own time and calls them key_mismatch.
    from oracles import gltf_reference as gr

    bpy.ops.import_scene.gltf(filepath=str(POINTER_GLTF), **gltf_import_options())
    if not bpy.data.actions:
        pytest.skip(f"Blender {bpy.app.version_string}'s glTF importer predates "
                    "KHR_animation_pointer, the only kind of channel in this file")
    obj = bpy.data.objects["Bone.004_end"]
    assert obj.parent_type == 'BONE'
    report = export_check.check_objects(bpy.context, [obj], {"export_force_sampling": False},
                                        only_these=False)
    (entry,) = report["objects"]
    assert abs(entry["max_deviation_deg"] - 90.0) < 1.0
    assert set(entry["causes"]) <= {"key_mismatch", "after_last_key"}
    assert entry["causes"]["key_mismatch"] >= 200
    out = str(tmp_path / "bone.gltf")
    bpy.ops.export_scene.gltf(filepath=out, export_format='GLTF_SEPARATE',
                              export_force_sampling=False)
    doc = gr.load_gltf(out)
    everything = _AllAnimations(doc)
    index = doc.node_index(obj.name)
    frames = np.asarray(entry["per_frame"]["frame"])[::10]
    blender, player = [], []
    for f in frames:
        bpy.context.scene.frame_set(int(f))
        q = obj.matrix_world.to_quaternion()
        blender.append([q.w, q.x, q.y, q.z])
        w = doc.world_matrices(everything, f / bpy.context.scene.render.fps)[index][:3, :3]
        q_xyzw = gr.matrix_to_quat_xyzw(w / np.linalg.norm(w, axis=0))
        player.append(gr.gltf_to_blender_quat(q_xyzw))
    ref = angle_deg(np.array(player), np.array(blender))
    ours = np.asarray(entry["per_frame"]["deviation_deg"])[::10]
    assert np.abs(ref - ours).max() < AGREE_DEG


# ------------------------------------------- clips Blender does not play (issue 21)

PARENT_INVERSE_GLTF = REAL_BLEND.parents[1] / "gltf" / "06_parent-inverse-anim.gltf"


def _rotation_channel(doc, animation: str, node: str):
    (anim,) = [a for a in doc.animations if a.name == animation]
    return anim.channel(node, "rotation")


def _exported_name(doc, action: str, track: str) -> str:
    """The name the glTF exporter gave a stashed clip's animation in the file ``doc``: its
    action's (4.5 and later, where the importer names the action as the track) or its
    track's (3.4; 4.2, whose importer names the stashed action "<action>_<object>")."""
    names = {a.name for a in doc.animations}
    (found,) = [n for n in dict.fromkeys((action, track)) if n in names]
    return found


def test_real_import_stashed_clips_are_not_blamed_on_the_object(clean_blender, tmp_path):
    # glTF-Blender-IO's 06_parent-inverse-anim.gltf as Blender's importer leaves it: every
    # animation stashed on a muted NLA track, only ChildAxisAngle's clip active. The
    # exporter writes the stashes out again; before issue 21 the check compared them with
    # Blender's (still) playback and called ChildEuler and ChildQuaternion key_mismatch,
    # 90 deg off, "bake the object".
    from oracles import gltf_reference as gr

    bpy.ops.import_scene.gltf(filepath=str(PARENT_INVERSE_GLTF), **gltf_import_options())
    names = ["ChildAxisAngle", "ChildEuler", "ChildQuaternion"]
    objects = [bpy.data.objects[n] for n in names]
    stashed = {n: next(s.action.name for t in bpy.data.objects[n].animation_data.nla_tracks
                       for s in t.strips) for n in names}
    tracks = {n: bpy.data.objects[n].animation_data.nla_tracks[0].name for n in names}
    bpy.context.scene.frame_set(1)
    before = scene_snapshot()
    report = export_check.check_objects(bpy.context, objects, {}, only_these=False,
                                        keep_folder=str(tmp_path))
    assert_same_snapshot(before, scene_snapshot())
    validate_export_check(json.loads(export_check_report.dumps(report)))
    assert report["errors"] == []
    (played,) = report["objects"]
    assert played["name"] == "ChildAxisAngle" and played["causes"] == {}
    assert played["max_deviation_deg"] < SAMPLED_DEG and "left_out_animations" not in played
    skipped = {s["object"]: s["message"] for s in report["skipped"]}
    assert sorted(skipped) == ["ChildEuler", "ChildQuaternion"]
    for name, message in skipped.items():
        assert f'NLA clip "{stashed[name]}" on the muted track "{tracks[name]}"' in message
        assert f"--clips {stashed[name]}" in message and "key_mismatch" not in message
    # Independently: the file the check read drives ChildEuler with the source file's own
    # clip (the oracle's reading of both files agrees at the source keys, float32), while
    # Blender plays it standing still: the difference is the stash, not the object.
    exported = gr.load_gltf(tmp_path / "export_check.gltf")
    source = gr.load_gltf(PARENT_INVERSE_GLTF)
    for name in ("ChildEuler", "ChildQuaternion"):
        src = _rotation_channel(source, next(
            a.name for a in source.animations
            if any(c.node_name == name and c.path == "rotation" for c in a.channels)), name)
        animation = _exported_name(exported, stashed[name], tracks[name])
        out = _rotation_channel(exported, animation, name)
        times = np.asarray(src.times)
        # The exporter samples whole frames; the source keys are 1/24 s apart (whole frames).
        assert angle_deg(out.evaluate_wxyz(times), src.evaluate_wxyz(times)).max() < 1e-3
        assert angle_deg(src.evaluate_wxyz(times[:1]), src.evaluate_wxyz(times)).max() > 10.0
        obj = bpy.data.objects[name]
        still = []
        for f in range(int(times[0] * 24), int(times[-1] * 24) + 1):
            bpy.context.scene.frame_set(f)
            q = obj.matrix_world.to_quaternion()
            still.append([q.w, q.x, q.y, q.z])
        assert angle_deg(np.array(still[:1]), np.array(still)).max() < 1e-6
    bpy.context.scene.frame_set(1)


def test_a_baked_clip_is_compared_and_its_stash_left_out_with_a_note(clean_blender, tmp_path):
    # What the skipped sentence says to do: bake the clip (it becomes the active action),
    # check again. The stash stays in the NLA and in the file; it is left out by name.
    from quatbake.addon import bake

    from oracles import gltf_reference as gr

    bpy.ops.import_scene.gltf(filepath=str(PARENT_INVERSE_GLTF), **gltf_import_options())
    obj = bpy.data.objects["ChildEuler"]
    (track,) = obj.animation_data.nla_tracks
    clip = track.strips[0].action.name
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', clip=clip))
    report = export_check.check_objects(bpy.context, [obj], {}, only_these=True,
                                        keep_folder=str(tmp_path))
    validate_export_check(json.loads(export_check_report.dumps(report)))
    assert report["skipped"] == [] and report["errors"] == []
    (entry,) = report["objects"]
    stash = _exported_name(gr.load_gltf(tmp_path / "export_check.gltf"), clip, track.name)
    assert entry["animation"] == obj.animation_data.action.name
    assert entry["left_out_animations"] == [stash]
    assert f'"{stash}"' in entry["note"] and "muted track" in entry["note"]
    assert entry["causes"] == {} and entry["max_deviation_deg"] < SAMPLED_DEG
    # The oracle plays the animation the check compared (named after the baked action)
    # and agrees frame by frame with its deviation from Blender's playback.
    doc = gr.load_gltf(tmp_path / "export_check.gltf")
    (anim,) = [a for a in doc.animations if a.name == entry["animation"]]
    index = doc.node_index(obj.name)
    frames = np.asarray(entry["per_frame"]["frame"])
    blender, player = [], []
    for f in frames:
        bpy.context.scene.frame_set(int(f))
        q = obj.matrix_world.to_quaternion()
        blender.append([q.w, q.x, q.y, q.z])
        w = doc.world_matrices(anim, f / bpy.context.scene.render.fps)[index][:3, :3]
        player.append(gr.gltf_to_blender_quat(gr.matrix_to_quat_xyzw(
            w / np.linalg.norm(w, axis=0))))
    ref = angle_deg(np.array(player), np.array(blender))
    assert np.abs(ref - np.asarray(entry["per_frame"]["deviation_deg"])).max() < AGREE_DEG
    bpy.context.scene.frame_set(1)


def test_operator_shows_a_stash_only_object_as_not_compared(clean_blender):
    from quatbake.addon.export_check import ops as ops_export_check

    bpy.ops.import_scene.gltf(filepath=str(PARENT_INVERSE_GLTF), **gltf_import_options())
    select_only(bpy.data.objects["ChildEuler"])
    before = scene_snapshot()
    # Nothing compared, but nothing wrong either: the operator finishes and says why.
    assert bpy.ops.quatbake.export_check() == {'FINISHED'}
    assert_same_snapshot(before, scene_snapshot())
    (message,) = [s["skipped"] for s in ops_export_check.results(bpy.context.scene).values()]
    assert message.startswith('Object "ChildEuler" is not compared') and "NLA clip" in message


def _rig_with_a_flipped_bone():
    return build_flipped_rig()

def _bone_entries(report) -> dict:
    return {o["bone"]: o for o in report["objects"] if o.get("bone")}


@pytest.mark.parametrize("sampled", [True, False], ids=["sampled", "keys-as-they-are"])
def test_pose_bones_are_compared_at_their_joint_nodes(clean_blender, tmp_path, sampled):
    """Each keyed pose bone is an entry of its own, compared at the joint node the exporter
    writes it as (its world matrix: the arm follows the root in both), against the spec's
    evaluation of the file written out in gltf_spec_eval."""
    rig = _rig_with_a_flipped_bone()
    options = {} if sampled else {"export_force_sampling": False}
    report = export_check.check_objects(bpy.context, [rig], options)
    validate_export_check(json.loads(export_check_report.dumps(report)))
    bones = _bone_entries(report)
    assert sorted(bones) == ["arm", "root"]           # hand has no keys of its own
    assert _by_name(report)["Rig"].get("bones_not_compared") is None
    frames = np.arange(1.0, 22.0)
    reference = reference_bone_deviation(
        export_for_reference(tmp_path, [rig], **options), rig, ["root", "arm"], frames)
    for name, entry in bones.items():
        assert entry["name"] == "Rig" and entry["type"] == 'BONE', entry
        np.testing.assert_array_equal(entry["per_frame"]["frame"], frames)
        np.testing.assert_allclose(entry["per_frame"]["deviation_deg"], reference[name],
                                   atol=AGREE_DEG, err_msg=name)
    if sampled:
        # A key per frame: float32 keys, nothing else.
        assert max(bones["arm"]["max_deviation_deg"], bones["root"]["max_deviation_deg"]) \
            < SAMPLED_DEG
    else:
        # The player slerps the short way from the flipped key; Blender's channels went
        # the long way round.
        assert bones["arm"]["max_deviation_deg"] > 90.0
        assert "sign_flip" in bones["arm"]["causes"], bones["arm"]["causes"]
        # Its own flipped key, 180 deg, leads; the root's 0.9 deg comes after.
        advice = bones["arm"]["advice"]
        assert advice.startswith("sign_flip in ") and 'also follows "Rig: root"' in advice
    # The causes are found on each bone's own motion, relative to what is above it.
    assert (bones["root"]["parent"], bones["arm"]["parent"]) == ("Rig", "Rig: root")
    quats = reference_bone_quats(export_for_reference(tmp_path, [rig], **options), rig,
                                 ["root", "arm"], frames)
    own = relative_deg(quats["root"], quats["arm"])
    assert bones["arm"]["own_max_deviation_deg"] == pytest.approx(own.max(), abs=AGREE_DEG)
    # The root follows the armature, which plays right; the arm follows the root.
    assert "inherited" not in bones["root"]["causes"]
    from quatbake.core.export_compare import CAUSE_MIN_DEG

    assert ("inherited" in bones["arm"]["causes"]) == (reference["root"].max() >= CAUSE_MIN_DEG)


def _rekey(rig, bone: str, values) -> None:
    """Give the bone's three quaternion keys (frames 1, 11, 21) new values."""
    from quatbake.addon.transform import AnimatedTransform

    for c, fc in enumerate(animdata.rotation_fcurves(AnimatedTransform(rig, bone))):
        for key, value in zip(fc.keyframe_points, values[:, c]):
            key.co[1] = value
        fc.update()


def test_a_bone_that_only_follows_its_parent_is_not_blamed(clean_blender):
    """The root's middle key is flipped (keys as they are: the player slerps the short
    way, Blender's channels the long way); the arm's own keys hold it still on the root:
    the arm is as far off as the root in the world, and the fix is the root's."""
    rig = _rig_with_a_flipped_bone()
    half = np.radians([0.0, 80.0, 160.0]) / 2.0
    flipped = np.stack([np.cos(half), 0 * half, 0 * half, np.sin(half)], axis=1)
    flipped[1] *= -1.0
    _rekey(rig, "root", flipped)
    _rekey(rig, "arm", np.tile([1.0, 0.0, 0.0, 0.0], (3, 1)))
    report = export_check.check_objects(bpy.context, [rig], {"export_force_sampling": False})
    validate_export_check(json.loads(export_check_report.dumps(report)))
    bones = _bone_entries(report)
    assert "sign_flip" in bones["root"]["causes"]
    assert bones["root"]["max_deviation_deg"] > 90.0
    assert bones["arm"]["causes"] == {"inherited": 1}, bones["arm"]["causes"]
    assert bones["arm"]["max_deviation_deg"] == pytest.approx(
        bones["root"]["max_deviation_deg"], abs=AGREE_DEG)
    assert bones["arm"]["own_max_deviation_deg"] < 0.01
    assert bones["arm"]["advice"].startswith('Follows "Rig: root", which plays up to')
    assert "its own motion plays as in Blender" in bones["arm"]["advice"]

def test_keyed_bones_the_exporter_leaves_out_are_counted(clean_blender):
    """Deform Bones Only leaves out a keyed control: the armature's entry says which
    bone was not compared, and is no all-clear for it."""
    rig = _rig_with_a_flipped_bone()
    rig.data.bones["arm"].use_deform = False
    report = export_check.check_objects(bpy.context, [rig], {"export_def_bones": True})
    validate_export_check(json.loads(export_check_report.dumps(report)))
    assert sorted(_bone_entries(report)) == ["root"]
    entry = _by_name(report)["Rig"]
    assert entry["bones_not_compared"] == 1
    assert '"arm"' in entry["note"] and "not in the exported file" in entry["note"]
    assert "not compared" in entry["advice"]


def test_the_operator_folds_the_bones_that_play_right_and_lists_one_with_a_cause(
        clean_blender):
    """The panel's boxes: the armature, one box for its bones that play right (a rig's
    hundreds of controls are not hundreds of boxes), and a box of its own for a bone a
    player plays wrong."""
    from quatbake.addon.export_check import ops as ops_export_check

    from scenes import key_bone, quats_about_z

    rig = _rig_with_a_flipped_bone()
    key_bone(rig, "hand", "rotation_quaternion", [1, 21], quats_about_z([0, 30]),
             'QUATERNION', 'LINEAR')
    select_only(rig)
    before = scene_snapshot()
    assert bpy.ops.quatbake.export_check() == {'FINISHED'}     # sampled: all play right
    assert_same_snapshot(before, scene_snapshot())
    found = ops_export_check.results(bpy.context.scene)
    assert set(found) == {"Rig", "Rig: 3 bones"}, set(found)
    folded = found["Rig: 3 bones"]
    assert not folded["causes"] and "3 pose bones play as in Blender" in folded["note"]
    assert folded["max_deviation_deg"] < SAMPLED_DEG

    assert bpy.ops.quatbake.export_check(
        exporter_options="export_force_sampling=False") == {'FINISHED'}
    found = ops_export_check.results(bpy.context.scene)
    assert found["Rig: arm"]["causes"].get("sign_flip"), found["Rig: arm"]
    assert found["Rig: arm"]["max_deviation_deg"] > 90.0


def test_a_bone_is_placed_in_its_parents_space_as_numpy_solves_it():
    """export_check's written-out inverse of the node above a bone, against LAPACK's
    solve (numpy), on affine matrices with scale and shear; float64: ~1e-12."""
    from quatbake.addon.export_check.engine import _relative

    rng = np.random.default_rng(7)
    parent, child = np.zeros((2, 200, 4, 4))
    parent[:, :3, :], child[:, :3, :] = rng.normal(size=(2, 200, 3, 4))
    parent[:, 3, 3] = child[:, 3, 3] = 1.0
    found, collapsed = _relative(parent, child)
    np.testing.assert_allclose(found, np.linalg.solve(parent, child), atol=1e-9)
    assert not collapsed.any()
    # A parent scaled to nothing (or not finite): no inverse; the identity, and said so.
    parent[3, :3, :3] = 0.0
    parent[5, 0, 0] = np.nan
    found, collapsed = _relative(parent, child)
    assert np.flatnonzero(collapsed).tolist() == [3, 5]
    assert np.isfinite(found).all() and (found[[3, 5]] == np.eye(4)).all()


@pytest.mark.parametrize("sampled", [True, False], ids=["sampled", "keys-as-they-are"])
def test_a_real_mocap_rigs_bones_against_the_spec(clean_blender, tmp_path, sampled):
    """The CMU walk (31 bones, 525 frames at 120 fps, Euler keys on every frame) imported
    by Blender's BVH importer: every bone's per-frame deviation agrees with the spec's
    evaluation of the same file (gltf_spec_eval), with sampling and with the keys as they
    are, which io_scene_gltf2 writes far from Blender's pose for these Euler bones."""
    from test_realdata_import import import_bvh

    _clip, arm, scene = import_bvh("cmu_12_01_walk.bvh")
    options = {} if sampled else {"export_force_sampling": False}
    report = export_check.check_objects(bpy.context, [arm], options)
    validate_export_check(json.loads(export_check_report.dumps(report)))
    bones = _bone_entries(report)
    assert len(bones) == 31 and not report["errors"]
    fps = scene.render.fps / scene.render.fps_base
    frames = np.asarray(next(iter(bones.values()))["per_frame"]["frame"])
    reference = reference_bone_deviation(
        export_for_reference(tmp_path, [arm], **options), arm, sorted(bones), frames, fps)
    for name, entry in bones.items():
        np.testing.assert_allclose(entry["per_frame"]["deviation_deg"], reference[name],
                                   atol=AGREE_DEG, err_msg=name)
    worst = max(e["max_deviation_deg"] for e in bones.values())
    if sampled:
        # A key per frame on the exporter's clock (fps_base 0.999996 after the import):
        # the toes, the fastest bones, drift by a few hundredths of a degree.
        assert worst < 0.1
    else:
        assert worst > 10.0
        # Below the first bone that goes wrong, the rest follow it: they say so.
        assert sum("inherited" in e["causes"] for e in bones.values()) >= 10


def test_a_child_object_that_only_follows_its_parent_is_not_blamed(clean_blender, tmp_path):
    """Objects as bones: Parent's middle quaternion key is flipped (keys as they are); Child,
    parented to it and not animated itself, is as far off in the world, and the fix is the
    parent's. The parent's figures agree with the spec's evaluation (gltf_spec_eval)."""
    from scenes import make_animated_object

    half = np.radians([0.0, 80.0, 160.0]) / 2.0
    keys = np.stack([np.cos(half), 0 * half, np.sin(half), 0 * half], axis=1)
    keys[1] *= -1.0
    parent = make_animated_object("Parent", 'QUATERNION', [1.0, 11.0, 21.0], keys, 'LINEAR')
    child = bpy.data.objects.new("Child", None)
    bpy.context.scene.collection.objects.link(child)
    child.parent = parent
    child.location, child.rotation_euler = (0.0, 2.0, 0.0), (0.4, 0.0, 0.3)
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 21
    options = {"export_force_sampling": False}
    report = export_check.check_objects(bpy.context, [parent, child], options)
    validate_export_check(json.loads(export_check_report.dumps(report)))
    found = _by_name(report)
    assert "sign_flip" in found["Parent"]["causes"] and "parent" not in found["Parent"]
    assert found["Child"]["parent"] == "Parent"
    assert found["Child"]["causes"] == {"inherited": 1}, found["Child"]["causes"]
    assert found["Child"]["own_max_deviation_deg"] < 0.01
    assert found["Child"]["advice"].startswith('Follows "Parent", which plays up to')
    frames = np.arange(1.0, 22.0)
    reference = reference_deviation(export_for_reference(tmp_path, [parent, child], **options),
                                    [parent, child], frames)
    np.testing.assert_allclose(found["Parent"]["per_frame"]["deviation_deg"],
                               reference["Parent"], atol=AGREE_DEG)
    assert found["Child"]["max_deviation_deg"] > 90.0


def test_a_bezier_bake_of_a_rig_is_judged_at_quarter_frames_bone_by_bone(clean_blender,
                                                                        tmp_path):
    """The rig baked to few Bezier keys (Key Tolerance 0.1 deg), exported as they are
    (CUBICSPLINE): each bone's quarter-frame figures agree with the spec's evaluation of
    the file, bone through its parents (gltf_spec_eval)."""
    from quatbake.addon import bake

    rig = _rig_with_a_flipped_bone()
    bake.bake_objects([rig], bake.BakeSettings(method='SLERP', tolerance_deg=0.1,
                                               key_interpolation='BEZIER'))
    options = {"export_force_sampling": False}
    report = export_check.check_objects(bpy.context, [rig], options)
    validate_export_check(json.loads(export_check_report.dumps(report)))
    bones = _bone_entries(report)
    assert sorted(bones) == ["arm", "root"]
    quarters = np.arange(1.0, 21.125, 0.25)
    path = export_for_reference(tmp_path, [rig], **options)
    reference = reference_bone_deviation(path, rig, ["root", "arm"], quarters)
    for name, entry in bones.items():
        block = entry["bezier"]
        assert block["samples_per_frame"] == 4 and block["exported_as"] == "keys", name
        np.testing.assert_allclose(block["per_sample"]["frame"], quarters)
        np.testing.assert_allclose(block["per_sample"]["deviation_deg"], reference[name],
                                   atol=AGREE_DEG, err_msg=name)


def test_objects_named_like_bones_are_not_taken_for_them(clean_blender):
    """An Empty parented to the rig and named like its bone "arm", a mesh parented to the
    bone "arm" and named like the bone "hand", and an Empty "root" in no scene at all:
    the file's skin tells the joints from the objects. Sampled, every bone plays right,
    and each is compared under its own parent bone."""
    rig = build_flipped_rig()
    scene = bpy.context.scene
    empty = bpy.data.objects.new("arm", None)
    scene.collection.objects.link(empty)
    empty.parent = rig
    mesh = bpy.data.objects.new("hand", bpy.data.meshes.new("hand"))
    scene.collection.objects.link(mesh)
    mesh.parent, mesh.parent_type, mesh.parent_bone = rig, 'BONE', "arm"
    bpy.data.objects.new("root", None)          # an orphan: in no scene, not exported
    report = export_check.check_objects(bpy.context, [rig, empty], {})
    validate_export_check(json.loads(export_check_report.dumps(report)))
    bones = _bone_entries(report)
    assert sorted(bones) == ["arm", "root"]
    assert (bones["root"]["parent"], bones["arm"]["parent"]) == ("Rig", "Rig: root")
    for name, entry in bones.items():
        assert entry["max_deviation_deg"] < SAMPLED_DEG and not entry["causes"], entry
    objects = _by_name(report)
    assert objects["arm"]["node"] not in {b["node"] for b in bones.values()}
    assert objects["arm"]["parent"] == "Rig" and not objects["arm"]["causes"]


def test_a_bone_scaled_to_nothing_for_a_while_is_still_checked(clean_blender):
    """The root bone scaled to 0 on frames 9-12 (a rig hiding a part), sampled export: it
    and its child show nothing there, in Blender and in the engine; the check says they
    play right rather than failing on a matrix with no rotation (objects alike)."""
    rig = build_flipped_rig()
    pose = rig.pose.bones["root"]
    for frame, scale in ((1, 1.0), (8, 1.0), (9, 0.0), (12, 0.0), (13, 1.0)):
        pose.scale = (scale, scale, scale)
        pose.keyframe_insert("scale", frame=frame)
    report = export_check.check_objects(bpy.context, [rig], {})
    validate_export_check(json.loads(export_check_report.dumps(report)))
    assert not report["errors"], report["errors"]
    bones = _bone_entries(report)
    assert sorted(bones) == ["arm", "root"]
    for name, entry in bones.items():
        assert entry["max_deviation_deg"] < SAMPLED_DEG and not entry["causes"], (name, entry)


def test_objects_blender_does_not_evaluate_are_errors_not_passes(clean_blender, tmp_path):
    """A pipeline walk: an object disabled in viewports, and one in a collection excluded
    from the view layer, each keyed 0 -> 90 deg, read "plays as in Blender (within 0 deg)",
    exit 0: the exporter writes their stored pose on every key, and matrix_world, never
    evaluated either, agreed. They are errors now, and the visible one is still checked.
    Independent check: Blender's own export of the scene, read by the spec, holds the
    disabled one still while its F-curve turns."""
    import math

    from gltf_spec_eval import _load, _node_rotation

    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 30
    excluded = bpy.data.collections.new("Excluded")
    scene.collection.children.link(excluded)

    def keyed(name, collection):
        obj = bpy.data.objects.new(name, None)
        collection.objects.link(obj)
        for frame, z in ((1, 0.0), (30, 90.0)):
            obj.rotation_euler = (0.0, 0.0, math.radians(z))
            obj.keyframe_insert("rotation_euler", frame=frame)
        return obj

    visible = keyed("Visible", scene.collection)
    disabled = keyed("Disabled", scene.collection)
    disabled.hide_viewport = True
    hidden = keyed("InExcluded", excluded)
    bpy.context.view_layer.layer_collection.children["Excluded"].exclude = True

    path = str(tmp_path / "scene.gltf")
    bpy.ops.export_scene.gltf(filepath=path, export_format='GLTF_SEPARATE')
    doc, blob = _load(path)
    index = next(i for i, n in enumerate(doc["nodes"]) if n["name"] == "Disabled")
    written = _node_rotation(doc, blob, index, np.array([0.0, 29.0 / 24.0]))
    assert angle_deg(written[:1], written[1:])[0] < 1e-6          # held still in the file
    z = animdata.find_fcurves(disabled, "rotation_euler", 3)[2]
    assert abs(z.evaluate(30) - z.evaluate(1)) == pytest.approx(math.pi / 2)

    report = export_check.check_objects(bpy.context, [visible, disabled, hidden], {})
    validate_export_check(json.loads(export_check_report.dumps(report)))
    assert [o["name"] for o in report["objects"]] == ["Visible"]
    said = {e["object"]: e["message"] for e in report["errors"]}
    assert set(said) == {"Disabled", "InExcluded"}
    assert "is disabled in viewports" in said["Disabled"]
    assert 'excluded from the view layer "ViewLayer"' in said["InExcluded"]
    assert all("animation is lost" in m for m in said.values())


def test_an_euler_order_the_exporter_writes_wrong_is_named_with_a_way_out(clean_blender,
                                                                         tmp_path):
    """A pipeline walk: keys in ZYX (any order but XYZ), exported as they are, play up to
    4 deg off: Blender's exporter turns them into wrong quaternions. The check said
    "after_last_key ... key the motion inside the exported range" first, and a Linear bake
    in the object's order did not help. Now: the keys are named, the way out is sampling
    or quaternion keys, and a Linear bake to quaternions exports within its tolerance.
    Independent figures: the spec's evaluation of Blender's own export (gltf_spec_eval)
    against matrix_world."""
    import math

    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 40
    obj = bpy.data.objects.new("Zyx", None)
    scene.collection.objects.link(obj)
    obj.rotation_mode = 'ZYX'
    for frame, z in ((1, 0.0), (20, 20.0)):
        obj.rotation_euler = (math.radians(10), math.radians(5), math.radians(z))
        obj.keyframe_insert("rotation_euler", frame=frame)
    frames = np.arange(1, 41)
    as_keyed = reference_deviation(export_for_reference(tmp_path, [obj],
                                                        export_force_sampling=False),
                                   [obj], frames)["Zyx"]
    assert as_keyed.max() > 1.0                         # the exporter's wrong keys
    report = export_check.check_objects(bpy.context, [obj], {"export_force_sampling": False})
    entry = _by_name(report)["Zyx"]
    assert set(entry["causes"]) == {"key_mismatch"}, entry["causes"]
    assert abs(entry["max_deviation_deg"] - as_keyed.max()) < AGREE_DEG
    assert "writes ZYX Euler keys" in entry["advice"] and "with sampling" in entry["advice"]

    from quatbake.addon import bake

    bake.bake_objects([obj], bake.BakeSettings(tolerance_deg=0.01, key_interpolation='LINEAR',
                                               output_mode='QUATERNION'))
    assert obj.rotation_mode == 'QUATERNION'
    baked = reference_deviation(export_for_reference(tmp_path, [obj],
                                                     export_force_sampling=False),
                                [obj], frames)["Zyx"]
    assert baked.max() <= 0.01 + SAMPLED_DEG


def test_two_left_out_clips_are_named_in_the_plural(clean_blender, tmp_path):
    """A game-rig walk: 'The glTF animation "Idle", "Run" also drives it; it comes from
    ...'. Two clips left out are spoken of as two; the file names both animations."""
    from quatbake.addon import bake

    from oracles import gltf_reference as gr

    bpy.ops.import_scene.gltf(filepath=str(PARENT_INVERSE_GLTF), **gltf_import_options())
    obj = bpy.data.objects["ChildEuler"]
    (track,) = obj.animation_data.nla_tracks
    clip = track.strips[0].action
    second = obj.animation_data.nla_tracks.new()
    second.strips.new("Again", 1, clip.copy())
    second.mute = True
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', clip=clip.name))
    report = export_check.check_objects(bpy.context, [obj], {}, only_these=True,
                                        keep_folder=str(tmp_path))
    (entry,) = report["objects"]
    names = entry["left_out_animations"]
    assert len(names) == 2, names
    exported = {a.name for a in gr.load_gltf(tmp_path / "export_check.gltf").animations}
    assert set(names) <= exported
    assert entry["note"].startswith("The glTF animations ") and " also drive it; they come " \
        "from the NLA clips " in entry["note"] and "so they are left out" in entry["note"], \
        entry["note"]


FOX_GLB = PARENT_INVERSE_GLTF.parent / "Fox.glb"


def _nla_tracks_mode():
    from quatbake.addon.export_check.exporter import exporter_properties

    if "NLA_TRACKS" not in {i.identifier for i in exporter_properties().get(
            "export_animation_mode", bpy.types.Object.bl_rna.properties["type"]).enum_items}:
        pytest.skip("this Blender's glTF exporter has no NLA_TRACKS mode")
    return {"export_animation_mode": 'NLA_TRACKS'}


def test_nla_tracks_mode_compares_a_stash_moved_a_frame_with_its_action(clean_blender,
                                                                        tmp_path):
    """A game-rig walk: exported in NLA_TRACKS mode, Fox.glb's active clip Survey comes from
    its importer's stash, a track whose strip starts a frame after the keys. The check
    compared that track with the active action and blamed the frame on the keys
    ("key_mismatch in 82 intervals, up to 1.3 deg: bake the object"). The file's own key
    times show the frame; the bones are compared with it moved back, and the move is said."""
    from oracles import gltf_reference as gr

    options = _nla_tracks_mode()
    bpy.ops.import_scene.gltf(filepath=str(FOX_GLB), **gltf_import_options())
    rig = next(o for o in bpy.data.objects if o.type == 'ARMATURE')
    action = rig.animation_data.action          # "Survey" ("Survey_root" in 4.2's importer)
    (track,) = [t for t in rig.animation_data.nla_tracks
                if any(s.action == action for s in t.strips)]
    report = export_check.check_objects(bpy.context, [rig], options, only_these=True,
                                        keep_folder=str(tmp_path))
    doc = gr.load_gltf(tmp_path / "export_check.gltf")
    survey = next(a for a in doc.animations if a.name == track.name)
    first = min(float(c.times[0]) for c in survey.channels)
    assert abs(first * 24.0 - 1.0) < 1e-4, first       # the track: a frame after the keys
    bones = [o for o in report["objects"] if o.get("bone")]
    assert len(bones) >= 20 and report["skipped"] == [], report["skipped"]
    worst = max(o["max_deviation_deg"] for o in bones)
    assert worst < 2 * SAMPLED_DEG, worst     # float32 keys: the frame is not blamed
    assert not any(o["causes"] for o in bones), [o["causes"] for o in bones if o["causes"]]
    note = report["time_note"]
    assert f'NLA track "{track.name}"' in note and "1 frame later" in note, note


def _tracks_scene(case: str, start: float = 1.0):
    """An empty keyed 0 -> 90 deg about Z over frames 1-21 (its action "Turn"), set up as
    ``case``: the active action alone, on one unmuted track (its strip at ``start``) and no
    active action, on two unmuted tracks, or active with a muted stash that plays it twice
    as slow."""
    obj = bpy.data.objects.new("Tracks", None)
    bpy.context.scene.collection.objects.link(obj)
    for frame, deg in ((1, 0.0), (21, 90.0)):
        obj.rotation_euler = (0.0, 0.0, math.radians(deg))
        obj.keyframe_insert("rotation_euler", frame=frame)
    ad = obj.animation_data
    turn = ad.action
    turn.name = "Turn"
    if case in ("one track", "two tracks"):
        ad.action = None
        ad.nla_tracks.new().strips.new("Turn", int(start), turn)
        if case == "two tracks":
            other = turn.copy()
            other.name = "Lean"
            ad.nla_tracks.new().strips.new("Lean", 1, other)
    elif case == "scaled stash":
        track = ad.nla_tracks.new()
        track.strips.new("Turn", 1, turn).scale = 2.0
        track.mute = True
    return obj


@pytest.mark.parametrize("start", [1, 5])
def test_one_nla_track_with_no_active_action(clean_blender, tmp_path, start):
    """An action pushed down to a track, no active action: the exporter's default mode
    writes the action at its own frames. Where the strip keeps them it plays what Blender
    plays, and is compared (a review: such an object went unchecked, "no one glTF
    animation plays what Blender plays"); the spec's own evaluation of the file agrees.
    Moved to frame 5 it is not compared, and the sentence no longer speaks of an active
    action there is none of ("... plays it with the active action. Mute the track ... to
    check the active action")."""
    obj = _tracks_scene("one track", start)
    assert obj.animation_data.action is None
    report = export_check.check_objects(bpy.context, [obj], {}, only_these=True)
    if start == 1:
        assert report["skipped"] == []
        (entry,) = report["objects"]
        frames = np.arange(1, 22, dtype=float)
        spec = reference_deviation(export_for_reference(tmp_path, [obj]), [obj],
                                   frames)["Tracks"]
        assert entry["max_deviation_deg"] < SAMPLED_DEG and spec.max() < SAMPLED_DEG
        return
    (skipped,) = report["skipped"]
    said = skipped["message"]
    assert "is not muted, so Blender plays it," in said and "active action" not in said, said
    assert "Bake the NLA into one action" in said or "Export in NLA_TRACKS mode" in said, said


@pytest.mark.parametrize("case", ["action alone", "one track", "two tracks", "scaled stash"])
def test_nla_tracks_mode_is_judged_by_what_it_writes(clean_blender, tmp_path, case):
    """The exporter's NLA_TRACKS mode writes each track as its strips place it and never the
    active action. Before, an unmuted track with no active action was "not compared ... plays
    it with the active action" (there was none, and the file held what Blender plays), and
    an active action on no track was told to bake, which writes another action the mode
    leaves out too. Blender's playback (frame_set) and the file's animations (read back)
    show each case."""
    from oracles import gltf_reference as gr

    options = _nla_tracks_mode()
    obj = _tracks_scene(case)
    bpy.context.scene.frame_set(21)
    turned = math.degrees(obj.matrix_world.to_euler().z)
    bpy.context.scene.frame_set(1)
    report = export_check.check_objects(bpy.context, [obj], options, only_these=True,
                                        keep_folder=str(tmp_path))
    written = {a.name for a in gr.load_gltf(tmp_path / "export_check.gltf").animations}
    if case == "action alone":
        assert written == set() and abs(turned - 90.0) < 1e-4
        (entry,) = report["objects"]
        assert "not_exported" in entry["causes"]
        assert "NLA_TRACKS mode writes NLA tracks only" in entry["advice"] and \
            "Push Down" in entry["advice"] and "Re-bake" not in entry["advice"], \
            entry["advice"]
    elif case == "one track":
        assert len(written) == 1 and abs(turned - 90.0) < 1e-4
        (entry,) = report["objects"]
        assert report["skipped"] == [] and entry["causes"] == {}, entry["causes"]
        assert entry["max_deviation_deg"] < SAMPLED_DEG
    else:
        assert report["objects"] == []
        (skipped,) = report["skipped"]
        said = skipped["message"]
        assert said.startswith('Object "Tracks" is not compared: '), said
        if case == "two tracks":
            assert len(written) == 2 and "NLA tracks " in said and "together" in said, said
        else:
            assert abs(turned - 90.0) < 1e-4 and "(scale 2)" in said and \
                "export in ACTIONS mode" in said, said


@pytest.mark.parametrize("how", ["unmuted", "soloed"])
def test_an_object_whose_nla_blends_is_not_compared_with_one_animation(clean_blender, how):
    """A game-rig walk: with Run's track soloed, Blender played Run and the check compared
    the file's Walk ("key_mismatch 176.9 deg, bake the object"); with the track unmuted,
    Blender turned the object by it, unmentioned. The exporter writes each action on its
    own, so no one animation plays what Blender plays: the object is named as not
    compared, and why. Blender's playback (frame_set) shows the strip moving it."""
    from quatbake.addon.export_check.exporter import exporter_properties

    obj = bpy.data.objects.new("Blend", None)
    bpy.context.scene.collection.objects.link(obj)
    for frame, x in ((1, 0.0), (21, 2.0)):
        obj.location = (x, 0.0, 0.0)
        obj.keyframe_insert("location", frame=frame)
    walk = obj.animation_data.action
    obj.animation_data.action = None
    for frame, deg in ((1, 0.0), (21, 90.0)):
        obj.rotation_euler = (0.0, 0.0, math.radians(deg))
        obj.keyframe_insert("rotation_euler", frame=frame)
    run = obj.animation_data.action
    obj.animation_data.action = walk
    track = obj.animation_data.nla_tracks.new()
    track.strips.new("Run", 1, run)
    track.is_solo = how == "soloed"
    bpy.context.scene.frame_set(21)
    assert abs(obj.matrix_world.to_euler().z - math.radians(90.0)) < 1e-5   # Run plays
    bpy.context.scene.frame_set(1)
    report = export_check.check_objects(bpy.context, [obj], {}, only_these=True)
    assert report["objects"] == []
    (skipped,) = report["skipped"]
    said = skipped["message"]
    word = "is soloed" if how == "soloed" else "is not muted"
    assert said.startswith('Object "Blend" is not compared: its NLA track') and word in said
    assert "Mute the track (or turn Solo off)" in said, said
    if "export_animation_mode" in exporter_properties():
        # The exporter's SCENE mode writes what plays: compared then.
        report = export_check.check_objects(bpy.context, [obj],
                                            {"export_animation_mode": 'SCENE'},
                                            only_these=True)
        assert [o["name"] for o in report["objects"]] == ["Blend"], report["skipped"]


@pytest.mark.parametrize("case", ["blend in", "influence", "strip time", "stash blends in",
                                  "add on top"])
def test_a_strip_that_changes_its_action_is_not_blamed_on_the_keys(clean_blender, case):
    """A review: since a pushed-down strip is compared with its action, one that fades in
    over 10 frames (or plays at an animated influence) read "key_mismatch, up to 7.8 deg:
    bake the object", and a plain bake refuses such an object. In NLA_TRACKS mode a muted
    stash that blends in did the same, and a track blending Add over another was said to
    be written as an animation of its own (the exporter merges it into the one below).
    Blender's playback (frame_set) shows the strip changing what the keys play; each is
    named as not compared, with what the strip does."""
    obj = _tracks_scene("one track" if case in ("blend in", "influence", "strip time")
                        else "action alone")
    ad = obj.animation_data
    if case == "stash blends in":
        track = ad.nla_tracks.new()
        track.strips.new("Turn", 1, ad.action).blend_in = 10.0
        track.mute = True
        options = _nla_tracks_mode()
    elif case == "add on top":
        options = _nla_tracks_mode()
        turn = ad.action
        ad.action = None
        ad.nla_tracks.new().strips.new("Turn", 1, turn)
        for frame, deg in ((1, 0.0), (21, 30.0)):      # a lean about X, its own action
            obj.rotation_euler = (math.radians(deg), 0.0, 0.0)
            obj.keyframe_insert("rotation_euler", index=0, frame=frame)
        lean = ad.action
        ad.action = None
        ad.nla_tracks.new().strips.new("Lean", 1, lean).blend_type = 'ADD'
    else:
        options = {}
        strip = ad.nla_tracks[0].strips[0]
        if case == "blend in":
            strip.blend_in = 10.0
        elif case == "strip time":                    # a review: retimed, not blamed
            strip.use_animated_time = True
            for frame, time in ((1, 1.0), (21, 11.0)):
                strip.strip_time = time
                strip.keyframe_insert("strip_time", frame=frame)
        else:
            strip.use_animated_time = False
            strip.use_animated_influence = True
            strip.influence = 0.5
            strip.keyframe_insert("influence", frame=1)
    scene = bpy.context.scene
    scene.frame_set(6 if case == "blend in" else 21)
    plays = obj.matrix_world.to_euler()
    scene.frame_set(1)
    if case == "add on top":                           # the two tracks play together
        assert abs(math.degrees(plays.x) - 30.0) < 1e-3 and abs(math.degrees(plays.z) - 90.0) < 1e-3
    elif case != "stash blends in":                    # the strip changes what the keys play
        (z,) = [fc for fc in animdata.action_fcurves(ad.nla_tracks[0].strips[0].action,
                                                     animdata.strip_slot_identifier(
                                                         ad.nla_tracks[0].strips[0]))
                if fc.data_path == "rotation_euler" and fc.array_index == 2]
        keyed = math.degrees(z.evaluate(6.0 if case == "blend in" else 21.0))
        assert abs(math.degrees(plays.z) - keyed) > 1.0, (math.degrees(plays.z), keyed)
    report = export_check.check_objects(bpy.context, [obj], options, only_these=True)
    assert report["objects"] == [], [(o["name"], o["advice"]) for o in report["objects"]]
    (skipped,) = report["skipped"]
    said = skipped["message"]
    words = {"blend in": "blend in 10", "influence": "animated influence",
             "strip time": "animated strip time", "stash blends in": "blend in 10",
             "add on top": "together"}[case]
    assert said.startswith('Object "Tracks" is not compared') and words in said, said
    assert "writes each as an animation of its own" not in said, said


def _compared_as_the_spec_plays_it(obj, tmp_path) -> None:
    """``obj`` is compared (not skipped), and the spec's own evaluation of the exported
    file agrees with the check's figure."""
    report = export_check.check_objects(bpy.context, [obj], {}, only_these=True)
    assert report["skipped"] == [], report["skipped"]
    (entry,) = report["objects"]
    spec = reference_deviation(export_for_reference(tmp_path, [obj]), [obj],
                               np.arange(1, 22, dtype=float))["Tracks"]
    assert entry["max_deviation_deg"] < SAMPLED_DEG and spec.max() < SAMPLED_DEG


def test_a_lone_strip_with_auto_blend_plays_its_keys_and_is_compared(clean_blender, tmp_path):
    """A review: Auto Blend In/Out on a strip with no neighbours blends nothing (Blender
    plays the keys as they are), yet the strip was said to blend and the object left
    unchecked. The spec's evaluation of the file agrees with the check's figure."""
    obj = _tracks_scene("one track")
    obj.animation_data.nla_tracks[0].strips[0].use_auto_blend = True
    _compared_as_the_spec_plays_it(obj, tmp_path)


def test_a_lone_strip_blending_combine_plays_its_keys_and_is_compared(clean_blender,
                                                                        tmp_path):
    """A review: a lone strip blending Combine was said to change its keys and the object
    left unchecked. Blender combines it onto the channels' defaults: its keys as they are
    (frame_set agrees with the action's own curve), and the spec's evaluation of the file
    agrees with the check's figure."""
    obj = _tracks_scene("one track")
    strip = obj.animation_data.nla_tracks[0].strips[0]
    strip.blend_type = 'COMBINE'
    (z,) = [fc for fc in animdata.action_fcurves(strip.action,
                                                 animdata.strip_slot_identifier(strip))
            if fc.data_path == "rotation_euler" and fc.array_index == 2]
    bpy.context.scene.frame_set(13)
    assert abs(obj.matrix_world.to_euler().z - z.evaluate(13.0)) < 1e-6
    bpy.context.scene.frame_set(1)
    _compared_as_the_spec_plays_it(obj, tmp_path)


def test_an_armature_played_by_a_pushed_down_action_has_its_bones_compared(clean_blender):
    """A review: a rig whose action was pushed down to one strip (no active action) read
    "Plays as in Blender" for the armature object alone, its turning bone never compared.
    The bones its playing strip keys are compared, here within the float32 of a sampled
    export (Blender's playback: the bone turns 90 deg by frame 21)."""
    import scenes

    rig = scenes.make_rig("Rig", [("arm", None, (0, 0, 0), (0, 1, 0))])
    scenes.key_bone(rig, "arm", "rotation_euler", [1, 21],
                    np.radians([[0, 0, 0], [0, 0, 90]]), mode='XYZ')
    ad = rig.animation_data
    action = ad.action
    ad.action = None
    ad.nla_tracks.new().strips.new("Turn", 1, action)
    bpy.context.scene.frame_set(21)
    assert abs(math.degrees(rig.pose.bones["arm"].matrix_basis.to_euler().z) - 90.0) < 1e-3
    bpy.context.scene.frame_set(1)
    report = export_check.check_objects(bpy.context, [rig], {}, only_these=True)
    bones = [o for o in report["objects"] if o.get("bone") == "arm"]
    assert len(bones) == 1, [(o["name"], o.get("bone")) for o in report["objects"]]
    assert bones[0]["max_deviation_deg"] < SAMPLED_DEG and bones[0]["causes"] == {}
