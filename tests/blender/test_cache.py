"""Transform Cache cameras (USD and Alembic imports): the report and the bake.

Each file is written here by Blender's own exporters (``bpy.ops.wm.alembic_export``,
``bpy.ops.wm.usd_export``) from a keyed camera that turns the long way (a quaternion
key stored with its sign flipped, or an Euler 170 -> -170 deg wrap, so Blender's
playback of the keys is no slerp), then imported into an emptied scene with Blender's
importers, where the camera has a Transform Cache constraint and no keys. One public
file from another program is read too (tests/data/realdata/usd/teapotScene_camera.usd,
written with USD's own Python API).

The numbers are checked against independent ones: the source camera's own
orientations (``frame_set`` + ``matrix_world`` in the source scene, mathutils, before
export), scipy's ``Slerp`` of the orientations at the sample times, the file's own
values (USD text: the xformOp time samples, composed and interpolated as USD does,
with scipy), and Blender's playback after the bake (``frame_set`` + ``matrix_world``).

Debian's Blender 3.4.1 is built without Alembic and USD (``bpy.app.build_options``):
those tests skip there with that reason; the ones that need no importer run on both.
"""
from __future__ import annotations

import math
import pathlib
import re

import bpy
import numpy as np
import pytest
from cache_playback import angle_deg, playback, scipy_slerp

from quatbake.addon import animdata, bake, cli, record
from quatbake.addon.analyze import engine as analyze
from quatbake.addon.analyze import entries
from quatbake.addon.animdata import cache as anim_cache
from quatbake.core import cache_times

import report_schema
import scenes

pytestmark = pytest.mark.bpy

REALDATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "realdata"
TEAPOT = REALDATA / "usd" / "teapotScene_camera.usd"

_VERSION = bpy.app.version_string
HAS_ALEMBIC = bool(getattr(bpy.app.build_options, "alembic", False)) and \
    hasattr(bpy.ops.wm, "alembic_import")
HAS_USD = bool(getattr(bpy.app.build_options, "usd", False)) and hasattr(bpy.ops.wm, "usd_import")
needs_alembic = pytest.mark.skipif(
    not HAS_ALEMBIC, reason=f"Blender {_VERSION} here is built without Alembic "
    "(bpy.app.build_options.alembic is False): it has no Alembic exporter or importer")
needs_usd = pytest.mark.skipif(
    not HAS_USD, reason=f"Blender {_VERSION} here is built without USD "
    "(bpy.app.build_options.usd is False): it has no USD exporter or importer")

KEY_FRAMES = (1.0, 5.0, 9.0)
# float32 matrices in the files and float32 matrix_world: ~6e-8 relative, 1e-5 deg; and
# Blender's frame time is float32 (~1e-6 frame near frame 10), which a camera turning
# ~70 deg per frame turns into ~1e-4 deg at a subframe sample: 1e-3 deg leaves a margin.
SAMPLE_TOL_DEG = 1e-3
# Blender's interpolation between samples and scipy's slerp, both from float32 data
# (Blender blends in float32, at a float32 time): 2e-3 deg.
BETWEEN_TOL_DEG = 2e-3
# Baked Euler keys are float32 (~1e-7 rad per channel); composed through the parent.
BAKED_TOL_DEG = 1e-3
LOCATION_TOL = 1e-5


def _rotation():
    return pytest.importorskip("scipy.spatial.transform")


def _source_camera(kind: str):
    """The keyed camera the files are written from: 'flip' (QUATERNION keys, the middle one
    stored with its sign flipped) or 'wrap' (XYZ Euler keys 170 -> -170 -> -100 deg)."""
    cam = scenes.new_object("Cam", 'QUATERNION' if kind == "flip" else 'XYZ',
                            data=bpy.data.cameras.new("Cam"))
    yaw = np.radians([0.0, 100.0, 160.0] if kind == "flip" else [170.0, -170.0, -100.0])
    if kind == "flip":
        half = 0.5 * yaw
        tilt = math.radians(80.0) / 2.0
        # Rz(yaw) @ Rx(80 deg); the middle key's sign flipped (Blender plays the long way).
        quats = np.stack([np.cos(half) * math.cos(tilt), np.cos(half) * math.sin(tilt),
                          np.sin(half) * math.sin(tilt), np.sin(half) * math.cos(tilt)], axis=1)
        quats[1] *= -1.0
        scenes.key_channels(cam, "rotation_quaternion", KEY_FRAMES, quats)
    else:
        # Pitch and roll move too, so an Euler lerp between two samples is off the arc.
        eulers = np.stack([np.radians([80.0, 30.0, 60.0]), np.radians([0.0, 25.0, 0.0]), yaw],
                          axis=1)
        scenes.key_channels(cam, "rotation_euler", KEY_FRAMES, eulers)
    scenes.key_channels(cam, "location", KEY_FRAMES, [[0.0, 0.0, 1.0], [2.0, 1.0, 1.5],
                                                      [4.0, 0.0, 1.0]])
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 9
    return cam


def _empty_scene() -> None:
    """Remove what the source scene made, so the import lands in an empty one."""
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    for data in (bpy.data.cameras, bpy.data.actions):
        for item in list(data):
            data.remove(item)
    bpy.context.scene.frame_set(1)


def _export_import(tmp_path, kind: str, fmt: str, source_frames, fps_out: int = 24,
                   fps_in: int = 24, **export):
    """Write the source camera with Blender's exporter, read it back with its importer.

    Returns (the imported camera, the source's orientations and locations at
    ``source_frames``: mathutils, before export)."""
    scene = bpy.context.scene
    scene.render.fps = fps_out
    cam = _source_camera(kind)
    source = playback(cam, source_frames)
    path = str(tmp_path / f"cam_{kind}.{fmt}")
    if fmt == "abc":
        bpy.ops.wm.alembic_export(filepath=path, start=1, end=9, **export)
    else:
        bpy.ops.wm.usd_export(filepath=path, export_animation=True, **export)
    _empty_scene()
    scene.render.fps = fps_in
    if fmt == "abc":
        bpy.ops.wm.alembic_import(filepath=path)
    else:
        bpy.ops.wm.usd_import(filepath=path)
    imported = bpy.data.objects["Cam"]
    assert animdata.get_action(imported) is None
    assert [c.type for c in imported.constraints] == ['TRANSFORM_CACHE']
    return imported, source


# -- what the importers leave, and the sample times ---------------------------------------

@needs_alembic
@pytest.mark.parametrize("xsamples", [1, 4])
def test_alembic_sample_frames_are_the_exported_ones_and_play_the_source(clean_blender,
                                                                         tmp_path, xsamples):
    # Blender's exporter writes xsamples per frame from start to end (the last frame's
    # subsamples included): frames 1, 1 + 1/x, ..., 9 + (x-1)/x.
    expected = np.arange(1.0, 10.0 - 1e-9 if xsamples > 1 else 9.0 + 1e-9, 1.0 / xsamples)
    cam, source = _export_import(tmp_path, "flip", "abc", expected, xsamples=xsamples)
    con = anim_cache.playing_cache(cam)
    samples = anim_cache.sample_frames(cam, con)
    np.testing.assert_allclose(samples.frames, expected, rtol=0, atol=1e-9)
    assert samples.format == "Alembic" and samples.how == "file"
    played, locs = playback(cam, expected)
    assert angle_deg(played, source[0]).max() < SAMPLE_TOL_DEG
    np.testing.assert_allclose(locs, source[1], atol=LOCATION_TOL)


@needs_alembic
def test_alembic_frames_follow_the_scene_rate_and_the_frame_offset(clean_blender, tmp_path):
    """Written at 12 fps, read at 24 fps: seconds times 24, so samples every 2 frames; the
    cache file's Frame Offset moves them."""
    source_frames = np.arange(1.0, 10.0)
    cam, source = _export_import(tmp_path, "wrap", "abc", source_frames, fps_out=12, fps_in=24)
    con = cam.constraints[0]
    np.testing.assert_allclose(anim_cache.sample_frames(cam, con).frames, 2 * source_frames,
                               atol=1e-9)
    con.cache_file.frame_offset = 5
    frames = anim_cache.sample_frames(cam, con).frames
    np.testing.assert_allclose(frames, 2 * source_frames + 5, atol=1e-9)
    played, _locs = playback(cam, frames)
    assert angle_deg(played, source[0]).max() < SAMPLE_TOL_DEG


@needs_usd
@pytest.mark.parametrize("op_mode", ["TRS", "TOS", "MAT"])
def test_usd_text_sample_frames_play_the_source(clean_blender, tmp_path, op_mode):
    frames = np.arange(1.0, 10.0)
    cam, source = _export_import(tmp_path, "wrap", "usda", frames, xform_op_mode=op_mode)
    samples = anim_cache.sample_frames(cam, cam.constraints[0])
    np.testing.assert_array_equal(samples.frames, frames)
    assert samples.format == "USD" and samples.how == "file"
    played, locs = playback(cam, frames)
    assert angle_deg(played, source[0]).max() < SAMPLE_TOL_DEG
    np.testing.assert_allclose(locs, source[1], atol=LOCATION_TOL)


@needs_usd
def test_binary_usd_takes_the_scene_range_and_says_so(clean_blender, tmp_path):
    frames = np.arange(1.0, 10.0)
    cam, _source = _export_import(tmp_path, "wrap", "usdc", frames)
    samples = anim_cache.sample_frames(cam, cam.constraints[0])
    np.testing.assert_array_equal(samples.frames, frames)
    assert "binary USD" in samples.how and "1..9" in samples.how
    result = analyze.analyze_object(cam, "slerp")
    assert "binary USD" in result.findings[0]
    # The bake says so too (a walk: a 40-frame file in a 20-frame scene lost 21-40, 129
    # deg off, with "0.000 deg" said).
    baked = bake.bake_objects([cam], bake.BakeSettings(method='SLERP'))
    said = [w.message for w in baked.warnings if "binary USD" in w.message]
    assert len(said) == 1 and "set the scene's frame range to the file's" in said[0], said


# -- the report ---------------------------------------------------------------------------

@needs_alembic
def test_alembic_report_compares_playback_with_slerp_of_the_samples(clean_blender, tmp_path):
    samples = np.arange(1.0, 9.0 + 1e-9, 1.0)
    quarter = np.arange(1.0, 9.0 + 1e-9, 0.25)
    cam, source = _export_import(tmp_path, "flip", "abc", samples)
    assert cli.rotation_keyed_objects(bpy) == [cam]
    result = analyze.analyze_object(cam, "slerp")
    np.testing.assert_array_equal(result.keys, samples)
    assert set(quarter) <= set(result.frames.tolist())
    at = np.searchsorted(result.frames, samples)
    # Blender's side at the samples is the exported camera's own orientation ...
    assert angle_deg(result.blender_quats[at], source[0]).max() < SAMPLE_TOL_DEG
    # ... the method's side is scipy's slerp of those orientations, subframes included ...
    oracle = scipy_slerp(samples, source[0], result.frames)
    assert angle_deg(result.custom_quats, oracle).max() < SAMPLE_TOL_DEG
    # ... and Alembic's own interpolation of the cached matrices is a short-arc slerp too.
    assert result.max_deviation_deg < BETWEEN_TOL_DEG
    assert result.long_arc_segments == []
    # The camera turns the long way as the keys did: 260 + 300 deg, followed sample by sample.
    turned = angle_deg(source[0][:-1], source[0][1:]).sum()
    assert turned > 400.0
    assert result.findings[0].startswith('Plays Transform Cache "Transform Cache" (cam_flip.abc')
    assert result.cache["samples"] == samples.size and result.cache["format"] == "Alembic"
    # Where the keys come from asks for nothing (a walk: it alone read "to check").
    from quatbake.core import findings

    assert result.findings[0] in result.notes
    assert findings.verdict(result) == "fine", result.findings


def _usd_op_values(text: str, op: str) -> dict:
    """{time code: value tuple} of ``xformOp:<op>.timeSamples`` in a USD text file."""
    block = re.search(rf"xformOp:{re.escape(op)}\.timeSamples = \{{(.*?)\n\s*\}}", text, re.S)
    out = {}
    for line in block.group(1).strip().splitlines():
        time, value = line.split(":", 1)
        numbers = re.findall(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?", value)
        out[float(time)] = tuple(float(v) for v in numbers)
    return out


def _lerp_table(table: dict, frames) -> np.ndarray:
    """USD's linear interpolation of time samples (held before the first, after the last)."""
    times = np.array(sorted(table))
    values = np.array([table[t] for t in times])
    return np.stack([np.interp(frames, times, values[:, c]) for c in range(values.shape[1])],
                    axis=1)


@needs_usd
def test_usd_report_compares_the_files_euler_lerp_with_slerp(clean_blender, tmp_path):
    """TRS ops: USD interpolates rotateXYZ linearly in degrees, so between samples Blender
    plays an Euler lerp of the file's values, which the report compares with slerp."""
    tr = _rotation()
    samples = np.arange(1.0, 10.0)
    cam, source = _export_import(tmp_path, "wrap", "usda", samples, xform_op_mode='TRS')
    text = pathlib.Path(bpy.path.abspath(cam.constraints[0].cache_file.filepath)).read_text()
    result = analyze.analyze_object(cam, "slerp")
    euler = _lerp_table(_usd_op_values(text, "rotateXYZ"), result.frames)
    played = tr.Rotation.from_euler("xyz", euler, degrees=True).as_quat()[:, [3, 0, 1, 2]]
    assert angle_deg(result.blender_quats, played).max() < BETWEEN_TOL_DEG
    oracle = scipy_slerp(samples, source[0], result.frames)
    assert angle_deg(result.custom_quats, oracle).max() < SAMPLE_TOL_DEG
    expected = angle_deg(played, oracle)
    assert expected.max() > 0.5        # the Euler lerp is visibly off the arc here
    assert abs(result.max_deviation_deg - expected.max()) < BETWEEN_TOL_DEG


@needs_usd
def test_report_of_a_public_usd_camera_against_the_files_own_values(clean_blender):
    """teapotScene_camera.usd (usd-wg/assets, written with USD's Python API): a camera prim
    under a Y-up stage, translate / rotateY / rotateX ops sampled on frames 0..479."""
    tr = _rotation()
    bpy.ops.wm.usd_import(filepath=str(TEAPOT))
    cam = bpy.data.objects["mono"]
    text = TEAPOT.read_text()
    result = analyze.analyze_object(cam, "slerp")
    np.testing.assert_array_equal(result.keys, np.arange(0.0, 480.0))
    frames = result.frames
    translate = _lerp_table(_usd_op_values(text, "translate:zoomedIn"), frames)
    turn_y = _lerp_table(_usd_op_values(text, "rotateY:zoomedIn"), frames)
    turn_x = _lerp_table(_usd_op_values(text, "rotateX:zoomedIn"), frames)
    # xformOpOrder [translate, rotateY, rotateX]: p' = T Ry Rx p; Blender puts a Y-up stage
    # under its Z-up world with a +90 deg turn about X (the parent empty "Cameras").
    local = tr.Rotation.from_euler("y", turn_y, degrees=True) * \
        tr.Rotation.from_euler("x", turn_x, degrees=True)
    up = tr.Rotation.from_euler("x", 90.0, degrees=True)
    # The report reads the camera's own orientation, the one its channels play and a bake
    # writes: the file's own ops, without the parent's turn (a real-file walk: compared in
    # the world, a Key Tolerance bake's keys read 90 deg off the cache).
    assert angle_deg(result.blender_quats, local.as_quat()[:, [3, 0, 1, 2]]).max() \
        < BETWEEN_TOL_DEG
    positions = up.apply(translate)
    played, locs = playback(cam, frames[::97])
    # ... and Blender's world, the parent's turn included.
    assert angle_deg(played, (up * local).as_quat()[::97][:, [3, 0, 1, 2]]).max() \
        < BETWEEN_TOL_DEG
    np.testing.assert_allclose(locs, positions[::97], atol=1e-4)
    assert result.max_deviation_deg < 0.01      # a slow, smooth turn: slerp plays it
    assert cli.rotation_keyed_objects(bpy) == [cam]


# -- the bake -----------------------------------------------------------------------------

def _state(obj) -> tuple:
    """What a revert must put back beyond the scene snapshot: constraints and animation data."""
    return (tuple((c.name, c.mute, c.influence) for c in obj.constraints),
            obj.animation_data is not None, obj.rotation_mode, tuple(obj.rotation_euler),
            tuple(obj.rotation_quaternion), tuple(obj.location))


@needs_alembic
@pytest.mark.parametrize("kind", ["flip", "wrap"])
def test_bake_turns_a_sparse_cache_into_slerp_keys_and_revert_puts_it_back(clean_blender,
                                                                           tmp_path, kind):
    """Written at 8 fps and read at 24: samples on every third frame, so the two frames in
    between are the bake's own interpolation (a third of the way, where slerp and nlerp
    differ by about a degree here): scipy's slerp of the source orientations."""
    source_frames = np.arange(1.0, 10.0)
    cam, source = _export_import(tmp_path, kind, "abc", source_frames, fps_out=8, fps_in=24)
    samples = 3 * source_frames
    frames = np.arange(samples[0], samples[-1] + 1.0)
    before_play = playback(cam, np.arange(3.0, 27.01, 0.25))
    before = scenes.scene_snapshot()
    before_state = _state(cam)

    result = bake.bake_objects([cam], bake.BakeSettings(method='SLERP'))

    assert result.objects == ["Cam"]
    assert cam.constraints[0].mute and not anim_cache.plays_cache(cam)
    action = animdata.get_action(cam)
    assert action is not None and action.name == "Cam" + bake.BAKED_SUFFIX
    assert record.cache_baked(cam) == "Transform Cache" and bake.can_revert(cam)
    keyed = animdata.key_frames(animdata.rotation_fcurves(cam))
    np.testing.assert_array_equal(keyed, frames)
    played, locs = playback(cam, frames)
    oracle = scipy_slerp(samples, source[0], frames)
    assert angle_deg(played, oracle).max() < BAKED_TOL_DEG
    linear = np.stack([np.interp(frames, samples, source[1][:, c]) for c in range(3)], axis=1)
    np.testing.assert_allclose(locs, linear, atol=LOCATION_TOL)
    # Now it has keys: the report compares them (the cache muted), and knows what they replaced.
    after_bake = analyze.analyze_object(cam, "slerp")
    # The importer gives the camera XYZ Euler (whatever the source's mode); the bake keeps it.
    assert not hasattr(after_bake, "cache") and after_bake.channels == ["rotation_euler"]
    assert after_bake.max_deviation_deg < BAKED_TOL_DEG
    before_bake = analyze.analyze_object(cam, "slerp", original=True)
    assert before_bake.cache["samples"] == samples.size and cam.constraints[0].mute

    assert bake.revert_objects([cam]) == ["Cam"]
    assert _state(cam) == before_state
    assert cam.animation_data is None
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())
    after_play = playback(cam, np.arange(3.0, 27.01, 0.25))
    np.testing.assert_array_equal(after_play[0], before_play[0])
    np.testing.assert_array_equal(after_play[1], before_play[1])


@needs_usd
def test_bake_of_the_public_usd_camera_under_its_parent_replays_the_cache(clean_blender):
    bpy.ops.wm.usd_import(filepath=str(TEAPOT))
    cam = bpy.data.objects["mono"]
    frames = np.arange(0.0, 480.0, 7.0)
    cache_quats, cache_locs = playback(cam, frames)
    before_state = _state(cam)

    result = bake.bake_objects([cam], bake.BakeSettings(method='SQUAD'))

    assert result.objects == ["mono"] and result.frames_written == 480
    baked_quats, baked_locs = playback(cam, frames)
    assert angle_deg(baked_quats, cache_quats).max() < BAKED_TOL_DEG
    np.testing.assert_allclose(baked_locs, cache_locs, atol=1e-4)
    assert cam.parent.name == "Cameras" and cam.constraints[0].mute
    bake.revert_objects([cam])
    assert _state(cam) == before_state


@needs_alembic
def test_gimbal_lock_under_a_delta_rotation_is_read_from_the_channels_a_bake_writes(
        clean_blender, tmp_path):
    """A review: with a delta rotation (Y 90 deg) on a cached camera, the report read the
    Euler angles of delta @ rotation and found no gimbal lock, and the bake then wrote
    rotation_euler Y at -90 deg. The frames near it come from the baked channel's own
    values (fc.evaluate), within 5 deg of +-90."""
    from quatbake.addon import bake

    cam = scenes.new_object("Cam", 'XYZ')
    scenes.key_channels(cam, "rotation_euler", [1.0, 5.0, 9.0],
                        np.radians([[0.0, 0.0, 0.0], [0.0, 0.0, 60.0], [0.0, 0.0, 150.0]]))
    path = str(tmp_path / "turn.abc")
    bpy.ops.wm.alembic_export(filepath=path, start=1, end=9)
    _empty_scene()
    bpy.ops.wm.alembic_import(filepath=path)
    cam = bpy.data.objects["Cam"]
    assert [c.type for c in cam.constraints] == ['TRANSFORM_CACHE']
    cam.rotation_mode = 'XYZ'
    cam.delta_rotation_euler = (0.0, math.radians(90.0), 0.0)
    before = analyze.analyze_object(cam, "slerp")
    bake.bake_objects([cam], bake.BakeSettings())
    y = next(fc for fc in animdata.rotation_fcurves(cam) if fc.array_index == 1)
    whole = np.arange(1.0, 10.0)
    middle = np.degrees([y.evaluate(f) for f in whole])
    near = whole[np.abs(np.mod(middle, 180.0) - 90.0) <= 5.0].tolist()
    assert near, middle                              # the bake does pass near the lock
    assert [f for f in before.gimbal_frames if float(f).is_integer()] == near


@needs_usd
def test_a_key_tolerance_bake_of_the_public_usd_camera_reads_what_it_plays(clean_blender):
    """A real-file walk: after a 0.1 deg Bezier bake of the teapot camera (2 keys per
    channel), the Difference Report read "visible", 90.02 deg: the cache was analysed in
    the world, the keys under the parent's 90 deg turn. Now its figure is what Blender
    plays, against scipy's slerp of the cache's own 480 samples, within the tolerance."""
    tr = _rotation()
    bpy.ops.wm.usd_import(filepath=str(TEAPOT))
    cam = bpy.data.objects["mono"]
    samples = np.arange(0.0, 480.0)
    cached, _ = playback(cam, samples)
    scenes.select_only(cam)
    assert bpy.ops.quatbake.bake(tolerance=0.1, key_interpolation='BEZIER') == {'FINISHED'}
    assert len(animdata.rotation_fcurves(cam)[0].keyframe_points) < 10
    baked, _ = playback(cam, samples)
    slerp = tr.Slerp(samples, tr.Rotation.from_quat(cached[:, [1, 2, 3, 0]]))(samples)
    measured = angle_deg(baked, slerp.as_quat()[:, [3, 0, 1, 2]])
    entry = entries.results(bpy.context.scene)["mono"]
    assert measured.max() < 0.1
    assert entry["max_deviation_deg"] == pytest.approx(measured.max(), abs=1e-3)
    assert entry["verdict"] != "visible", entry


@needs_alembic
def test_bake_operator_undo_and_redo(clean_blender, tmp_path):
    cam, _source = _export_import(tmp_path, "wrap", "abc", np.arange(1.0, 10.0))
    scenes.select_only(cam)
    before = _state(cam)
    bpy.ops.ed.undo_push(message="before bake")
    assert bpy.ops.quatbake.bake('EXEC_DEFAULT', True, method='SLERP') == {'FINISHED'}
    cam = bpy.data.objects["Cam"]
    baked = _state(cam)
    assert baked[0][0][1] is True and animdata.get_action(cam) is not None
    assert bpy.ops.ed.undo() == {'FINISHED'}
    cam = bpy.data.objects["Cam"]
    assert _state(cam) == before and animdata.get_action(cam) is None
    assert bpy.ops.ed.redo() == {'FINISHED'}
    cam = bpy.data.objects["Cam"]
    assert _state(cam)[0] == baked[0] and record.cache_baked(cam)


@needs_alembic
def test_a_broken_cache_leaves_that_camera_and_the_one_beside_it_is_baked(clean_blender,
                                                                          tmp_path):
    """One object's problem never stops the others (a review: a camera at half influence
    left the good camera beside it unbaked, and unnamed): CamB is left as it was and
    named, CamA baked, playing at whole frames what its cache played (matrix_world before
    the bake, the oracle)."""
    cam_a, _source = _export_import(tmp_path, "wrap", "abc", np.arange(1.0, 10.0))
    cam_a.name = "CamA"
    bpy.ops.wm.alembic_import(filepath=str(tmp_path / "cam_wrap.abc"))
    cam_b = bpy.data.objects["Cam"]
    cam_b.name = "CamB"
    cam_b.constraints[0].influence = 0.5
    frames = np.arange(1.0, 10.0)
    played_a = playback(cam_a, frames)
    state_b = _state(cam_b)
    result = bake.bake_objects([cam_a, cam_b], bake.BakeSettings(method='SLERP'))
    assert result.objects == ["CamA"] and result.failed_transforms == ["CamB"]
    assert 'Object "CamB": its Transform Cache "Transform Cache" has influence 0.5' in \
        result.failed[0].message
    assert _state(cam_b) == state_b and not bake.can_revert(cam_b)
    assert record.cache_baked(cam_a) and cam_a.constraints[0].mute
    quats, locs = playback(cam_a, frames)
    # The cache's samples are the bake's keys (float32): 1e-4 deg, 1e-4 units.
    assert angle_deg(quats, played_a[0]).max() < 1e-4
    np.testing.assert_allclose(locs, played_a[1], atol=1e-4)


@needs_alembic
def test_refusals_name_the_object_and_change_nothing(clean_blender, tmp_path):
    cam, _source = _export_import(tmp_path, "wrap", "abc", np.arange(1.0, 10.0))
    con = cam.constraints[0]

    con.influence = 0.5
    before, state = scenes.scene_snapshot(), _state(cam)
    with pytest.raises(bake.BakeError, match='Object "Cam": its Transform Cache '
                       '"Transform Cache" has influence 0.5'):
        bake.bake_objects([cam], bake.BakeSettings())
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())
    assert _state(cam) == state
    con.influence = 1.0

    track = cam.constraints.new('TRACK_TO')
    state = _state(cam)
    with pytest.raises(bake.BakeError, match='constraint "Track To" acts after'):
        bake.bake_objects([cam], bake.BakeSettings())
    assert _state(cam) == state
    cam.constraints.remove(track)

    path = con.cache_file.filepath
    con.cache_file.filepath = str(tmp_path / "gone.abc")
    with pytest.raises(bake.BakeError, match="gone.abc, which is missing"):
        bake.bake_objects([cam], bake.BakeSettings())
    with pytest.raises(animdata.ChannelError, match="gone.abc, which is missing"):
        analyze.analyze_object(cam, "slerp")
    con.cache_file.filepath = path

    bake.bake_objects([cam], bake.BakeSettings())
    state, before = _state(cam), scenes.scene_snapshot()
    with pytest.raises(bake.BakeError, match="already plays a QuatBake bake of its Transform "
                       "Cache \"Transform Cache\".*Revert it first"):
        bake.bake_objects([cam], bake.BakeSettings(method='SQUAD'))
    assert _state(cam) == state
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


@needs_alembic
def test_a_cached_camera_and_a_keyed_object_bake_together(clean_blender, tmp_path):
    cam, _source = _export_import(tmp_path, "wrap", "abc", np.arange(1.0, 10.0))
    cube = scenes.make_animated_object("Cube", 'XYZ', [1, 9], np.radians([[0, 0, 0],
                                                                           [0, 0, 90]]))
    result = bake.bake_objects([cube, cam], bake.BakeSettings(method='SQUAD'))
    assert result.objects == ["Cube", "Cam"]
    assert record.cache_baked(cam) and record.is_baked(cube) and not record.cache_baked(cube)
    assert sorted(bake.revert_objects([cam, cube])) == ["Cam", "Cube"]
    assert not cam.constraints[0].mute and cam.animation_data is None


@needs_alembic
def test_a_failed_write_puts_the_cache_back(clean_blender, tmp_path, monkeypatch):
    """All or nothing: when writing the second object fails, the first cache bake is undone
    too (its constraint plays again, its action is gone)."""
    cam, _source = _export_import(tmp_path, "wrap", "abc", np.arange(1.0, 10.0))
    other = scenes.make_animated_object("Other", 'XYZ', [1, 9], np.radians([[0, 0, 0],
                                                                             [0, 0, 90]]))
    state, before = _state(cam), scenes.scene_snapshot()
    from quatbake.addon.bake import engine

    def broken(owner, plans, fake_users):
        raise RuntimeError("disk full")

    monkeypatch.setattr(engine, "write_owner", broken)
    with pytest.raises(bake.BakeError, match="failed"):
        bake.bake_objects([cam, other], bake.BakeSettings())
    assert _state(cam) == state and cam.animation_data is None
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


# -- panel, JSON and the command line -------------------------------------------------------

@needs_alembic
def test_panel_entry_and_json_before_and_after_a_bake(clean_blender, tmp_path):
    from quatbake.addon.analyze import export

    cam, _source = _export_import(tmp_path, "flip", "abc", np.arange(1.0, 10.0))
    scene = bpy.context.scene
    found = entries.analyze_into(scene, [cam], "squad", replace=True)
    assert found["Cam"]["error"] == "" and found["Cam"]["before"] is None
    report = report_schema.validate_report(export.build([cam], "squad"))
    assert report["objects"][0]["transform_cache"]["format"] == "Alembic"
    scenes.select_only(cam)
    assert bpy.ops.quatbake.bake(method='SQUAD') == {'FINISHED'}
    entry = entries.results(scene)["Cam"]
    assert entry["before"] is not None and not entries.is_stale(scene, "Cam")
    report = report_schema.validate_report(export.build([cam], "squad"))
    assert report["after_bake"] and "transform_cache" in report["objects"][0]


@needs_usd
def test_cli_report_and_bake_of_a_file_whose_camera_is_cached(clean_blender, tmp_path, capsys):
    cam, _source = _export_import(tmp_path, "wrap", "usda", np.arange(1.0, 10.0))
    scenes.new_object("Plain", 'XYZ')
    blend = str(tmp_path / "shot.blend")
    bpy.ops.wm.save_as_mainfile(filepath=blend, copy=True)
    out_json = str(tmp_path / "r.json")
    assert cli.main(["report", blend, "--json", out_json, "--quiet"]) == cli.EXIT_OK
    report = report_schema.load_report(out_json)
    assert [o["name"] for o in report["objects"]] == ["Cam"]
    assert report["objects"][0]["keys"] == list(range(1, 10))
    assert report["objects"][0]["transform_cache"]["file"] == "cam_wrap.usda"
    baked = str(tmp_path / "baked.blend")
    assert cli.main(["bake", blend, "--objects", "Cam", "--output", baked, "--quiet"]) == \
        cli.EXIT_OK
    bpy.ops.wm.open_mainfile(filepath=baked)
    cam = bpy.data.objects["Cam"]
    assert cam.constraints[0].mute and record.cache_baked(cam)
    assert animdata.key_frames(animdata.rotation_fcurves(cam)).tolist() == list(range(1, 10))


# -- no importer needed (also inside Blender 3.4.1) -------------------------------------------

def test_a_transform_cache_without_a_file_moves_nothing_and_is_not_a_cache(clean_blender):
    obj = scenes.new_object("Empty", 'XYZ')
    obj.constraints.new('TRANSFORM_CACHE')
    assert not anim_cache.plays_cache(obj)
    with pytest.raises(analyze.NoRotationKeys, match="has no keys on rotation_euler"):
        analyze.analyze_object(obj, "slerp")
    assert cli.rotation_keyed_objects(bpy) == []


@needs_alembic
def test_alembic_reader_refuses_cut_and_foreign_files_by_name(clean_blender, tmp_path):
    _export_import(tmp_path, "wrap", "abc", np.arange(1.0, 10.0))
    path = tmp_path / "cam_wrap.abc"
    data = path.read_bytes()
    cut = tmp_path / "cut.abc"
    cut.write_bytes(data[:len(data) // 2])
    with pytest.raises(ValueError, match="cut.abc is not a readable Alembic file"):
        cache_times.alembic_sample_times(str(cut), "/Cam/Cam")
    with pytest.raises(ValueError, match=r"has no object /Cam/Ghost"):
        cache_times.alembic_sample_times(str(path), "/Cam/Ghost")


@needs_usd
def test_export_check_names_a_cache_camera_the_gltf_exporter_leaves_still(clean_blender,
                                                                         tmp_path):
    """The glTF exporter writes no animation for a Transform Cache constraint: the USD
    camera exports still. The check says "not exported", not "plays as in Blender"; a
    still object beside it keeps "plays as in Blender"."""
    import json

    from quatbake.addon import export_check
    from quatbake.report import export_check_report

    from gltf_spec_eval import export_for_reference

    bpy.ops.wm.usd_import(filepath=str(TEAPOT))
    cam = bpy.data.objects["mono"]
    still = scenes.new_object("Still", 'XYZ')
    still.rotation_euler = (0.3, 0.2, 0.1)
    # Independently: Blender's own export holds no animation channel for the camera's node,
    path = export_for_reference(tmp_path, [cam, still])
    doc = json.loads(pathlib.Path(path).read_text())
    node = next(i for i, n in enumerate(doc["nodes"]) if n.get("name") == cam.name)
    assert not any(ch["target"].get("node") == node
                   for anim in doc.get("animations", []) for ch in anim["channels"])
    # while Blender plays it turning (frame_set and matrix_world).
    scene = bpy.context.scene
    poses = []
    for frame in (0, 479):
        scene.frame_set(frame)
        poses.append(cam.matrix_world.to_quaternion())
    turned = math.degrees(poses[0].rotation_difference(poses[1]).angle)
    assert turned > 10.0
    report = export_check.check_objects(bpy.context, [cam, still], {})
    got = {o["name"]: o for o in report["objects"]}
    entry = got["mono"]
    assert entry["key_count"] == 0 and entry["causes"] == {"not_exported": 1}
    assert entry["advice"].startswith("Not exported") and "quatbake bake" in entry["advice"]
    # One pose held against two frames turned apart: at least half the turn off at one.
    assert entry["max_deviation_deg"] >= 0.5 * turned - 1e-3
    assert got["Still"]["causes"] == {}
    assert got["Still"]["advice"].startswith("Plays as in Blender")
    report_schema.validate_export_check(json.loads(export_check_report.dumps(report)))


@needs_usd
@pytest.mark.parametrize("mode", ['ZYX', 'AXIS_ANGLE', 'AUTO'])
def test_convert_of_a_cache_camera_writes_the_mode_asked_for(clean_blender, mode):
    """Convert turns the USD camera's cache into keys in the mode asked for (it wrote
    quaternions whatever was asked), playing what the cache played: frame_set +
    matrix_world before and after, at whole and quarter frames."""
    from quatbake.core import quat

    bpy.ops.wm.usd_import(filepath=str(TEAPOT))
    cam = bpy.data.objects["mono"]
    scene = bpy.context.scene
    times = np.arange(0.0, 479.0, 0.25)[::7]       # whole and quarter frames, spread out

    def playback():
        out = []
        for t in times:
            scene.frame_set(int(t), subframe=float(t % 1.0))
            q = cam.matrix_world.to_quaternion()
            out.append((q.w, q.x, q.y, q.z))
        scene.frame_set(0)
        return np.array(out)

    before = playback()
    result = bake.convert_objects([cam], mode, 0.01)
    assert result.objects == ["mono"]
    if mode == 'AUTO':
        note = next(n.message for n in result.notes if "farthest from gimbal lock" in n.message)
        assert cam.rotation_mode in note and cam.rotation_mode in rotation_orders()
    else:
        assert cam.rotation_mode == mode
    off = np.degrees(quat.angle_between(before, playback()))
    assert off.max() <= 0.01, off.max()
    bake.revert_objects([cam])
    assert cam.rotation_mode == 'XYZ'


def rotation_orders():
    return ('XYZ', 'XZY', 'YXZ', 'YZX', 'ZXY', 'ZYX')


@needs_alembic
@pytest.mark.parametrize("how", ["convert", "bezier bake"])
def test_a_fast_alembic_pan_keeps_its_tolerance_at_every_quarter_frame(clean_blender, tmp_path,
                                                                       how):
    """A camera panning ~20 deg a frame, a sample on every frame: keys on every frame,
    LINEAR, played 0.13 deg off the cache between frames while the conversion claimed
    0.01 deg, and a Bezier tolerance bake wrote those LINEAR keys (a layout walk). Both
    now write Bezier keys that Blender plays within the tolerance of the cache at every
    quarter frame: frame_set + matrix_world before and after."""
    from quatbake.core import quat

    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 41
    cam = scenes.new_object("Cam", 'XYZ', data=bpy.data.cameras.new("Cam"))
    for frame, euler in ((1, (80, 0, 0)), (14, (70, 15, 240)), (28, (95, -10, 500)),
                         (41, (85, 5, 760))):
        cam.rotation_euler = np.radians(euler)
        cam.keyframe_insert("rotation_euler", frame=frame)
    path = str(tmp_path / "pan.abc")
    bpy.ops.wm.alembic_export(filepath=path, start=1, end=41)
    _empty_scene()
    bpy.ops.wm.alembic_import(filepath=path)
    cam = bpy.data.objects["Cam"]
    quarters = np.arange(1.0, 41.0 + 1e-9, 0.25)
    before, _ = playback(cam, quarters)
    tolerance = 0.01 if how == "convert" else 0.02
    if how == "convert":
        result = bake.convert_objects([cam], 'XYZ', tolerance)
    else:
        result = bake.bake_objects([cam], bake.BakeSettings(
            tolerance_deg=tolerance, key_interpolation='BEZIER'))
    after, _ = playback(cam, quarters)
    off = np.degrees(quat.angle_between(before, after))
    assert off.max() <= tolerance, (off.max(), quarters[np.argmax(off)])
    rotation = [fc for fc in animdata.object_fcurves(cam) if fc.data_path.startswith("rotation")]
    assert {k.interpolation for fc in rotation for k in fc.keyframe_points} == {'BEZIER'}
    stats = next(n.message for n in result.notes if "quarter frames" in n.message)
    assert f"within {tolerance:g} deg" in stats


@needs_alembic
def test_a_revert_of_a_cache_bake_names_what_was_keyed_since_it(clean_blender, tmp_path):
    """A review: the scale keyed on a cache bake's action went with the Revert, unsaid."""
    cam, _source = _export_import(tmp_path, "flip", "abc", [1.0])
    bake.bake_objects([cam], bake.BakeSettings())
    cam.scale = (1.0, 1.0, 0.5)
    cam.keyframe_insert("scale", frame=5)
    notes = []
    bake.revert_objects([cam], notes)
    assert len(notes) == 1 and "Transform Cache bake (scale) went with it" in notes[0]


@needs_alembic
def test_a_custom_range_bake_of_a_cache_reports_the_poses_it_holds_beyond(clean_blender,
                                                                           tmp_path):
    """A review: a Custom Range bake of a cache camera read "largest change 0.00 deg" while
    the frames beyond the range, held, played up to 130 deg away. The figure is the
    largest angle between the playback before and after the bake at every whole frame."""
    cam, _source = _export_import(tmp_path, "wrap", "abc", np.arange(1.0, 10.0))
    frames = np.arange(1.0, 10.0)
    before = playback(cam, frames)[0]
    result = bake.bake_objects([cam], bake.BakeSettings(method='SLERP', frame_range=(1, 4)))
    changed = angle_deg(before, playback(cam, frames)[0])
    assert changed[4:].max() > 10.0                          # held beyond frame 4
    assert result.max_deviation_deg == pytest.approx(changed.max(), abs=1e-3)
    # And says which samples it leaves out, as for keys (a walk: nothing was said).
    said = [w.message for w in result.warnings if "Custom Range" in w.message]
    assert len(said) == 1 and "leaves out 5 of its Transform Cache's 9 samples" in said[0], said


@needs_alembic
def test_revert_of_an_edited_cache_bake_says_the_cache_plays_again(clean_blender, tmp_path):
    """A review: after a baked key of a cache camera was moved, Revert said it "put back
    the keys from before the bake"; there were none, the cache played."""
    cam, _source = _export_import(tmp_path, "wrap", "abc", np.arange(1.0, 10.0))
    bake.bake_objects([cam], bake.BakeSettings(method='SLERP'))
    z = animdata.find_fcurves(cam, "rotation_euler", 3)[2]
    z.keyframe_points[3].co[1] += 0.2
    z.update()
    notes = []
    bake.revert_objects([cam], notes)
    assert notes and "put back the Transform Cache's playback" in notes[0], notes
    assert animdata.get_action(cam) is None and anim_cache.plays_cache(cam)


@needs_usd
def test_convert_of_a_usd_camera_keeps_its_euler_playback_between_samples(clean_blender,
                                                                         tmp_path):
    """A walk: a USD camera (rotateXYZ samples, which Blender plays Euler angle by angle
    between them) converted to Quaternion said "within 0.01 deg" and played up to 24.7
    deg off at frame 21.5: its path slerped the samples. Blender's playback before and
    after (frame_set + matrix_world) at every quarter frame."""
    cam, _source = _export_import(tmp_path, "wrap", "usda", [1.0])
    quarters = np.arange(1.0, 9.0 + 1e-9, 0.25)
    before = playback(cam, quarters)[0]
    bake.convert_objects([cam], 'QUATERNION', 0.01)
    off = angle_deg(before, playback(cam, quarters)[0])
    assert off.max() <= 0.01, (off.max(), quarters[np.argmax(off)])


@needs_alembic
@pytest.mark.parametrize("how", ["deleted", "renamed"])
def test_revert_refuses_when_the_muted_cache_constraint_is_gone(clean_blender, tmp_path, how):
    """A walk: bake a cache camera, delete its (muted) Transform Cache constraint, Revert:
    it said "Reverted" and deleted the bake, the camera's only animation (178.9 deg off).
    It refuses, naming the constraint, and changes nothing. Renamed, the constraint is no
    longer guessed at (two reviews: the user's own muted take, muted before the bake or
    after, was taken for it, enabled, and the bake deleted): the refusal asks for the name
    back, and with it Revert plays the cache again (frame_set, as before the bake)."""
    cam, _source = _export_import(tmp_path, "wrap", "abc", np.arange(1.0, 10.0))
    frames = np.arange(1.0, 10.0)
    before = playback(cam, frames)[0]
    baked_con = cam.constraints[0]
    name = baked_con.name
    bake.bake_objects([cam], bake.BakeSettings(method='SLERP'))
    baked = animdata.get_action(cam)
    take = cam.constraints.new('TRANSFORM_CACHE')        # the user's alternate take
    take.name, take.cache_file, take.object_path = \
        "AltTake", baked_con.cache_file, baked_con.object_path
    take.mute = True
    if how == "deleted":
        cam.constraints.remove(cam.constraints[name])
    else:
        cam.constraints[name].name = "Renamed"
    with pytest.raises(bake.BakeError) as info:
        bake.revert_objects([cam])
    said = str(info.value)
    assert f'"{name}"' in said and "is gone" in said and "again" in said, said
    assert cam.constraints["AltTake"].mute
    assert animdata.get_action(cam) == baked and baked.name in bpy.data.actions
    if how == "renamed":
        cam.constraints["Renamed"].name = name
        bake.revert_objects([cam])
        assert animdata.get_action(cam) is None and not cam.constraints[name].mute
        assert cam.constraints["AltTake"].mute
        cam.constraints.remove(cam.constraints["AltTake"])
        np.testing.assert_allclose(playback(cam, frames)[0], before, atol=1e-6)


@needs_usd
def test_a_bake_that_straightens_a_usd_wrap_between_samples_says_how_far(clean_blender,
                                                                         tmp_path):
    """A walk: Blender's USD exporter writes rotateXYZ wrapped to +-180, which Blender
    plays the long way round between two samples; the bake takes the short way there and
    said "largest change 0.00 deg" (its frames are the samples). The figure is Blender's
    playback before against after between the samples too (frame_set every 1/32 frame)."""
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 9
    pan = scenes.new_object("Cam", 'XYZ', data=bpy.data.cameras.new("Cam"))
    scenes.key_channels(pan, "rotation_euler", [1.0, 9.0],
                        np.radians([[80.0, 0.0, 0.0], [80.0, 0.0, 300.0]]), 'LINEAR')
    path = str(tmp_path / "pan.usda")
    bpy.ops.wm.usd_export(filepath=path, export_animation=True)
    _empty_scene()
    bpy.ops.wm.usd_import(filepath=path)
    cam = bpy.data.objects["Cam"]
    fine = np.arange(1.0, 9.0 + 1e-9, 1.0 / 32.0)
    before = playback(cam, fine)[0]
    result = bake.bake_objects([cam], bake.BakeSettings(method='SLERP'))
    changed = angle_deg(before, playback(cam, fine)[0])
    assert changed.max() > 90.0 and angle_deg(before[::32], playback(cam, fine[::32])[0]).max() < 1e-3
    # Its samples bisect the turn to a few degrees; the 1/32 grid is as fine.
    assert result.max_deviation_deg == pytest.approx(changed.max(), abs=3.0)


@needs_alembic
def test_a_bake_of_an_idle_cache_names_it_not_the_keys(clean_blender, tmp_path):
    """A walk: a camera whose Transform Cache was muted (or reads no file) was told it "has
    no animation ... Key its rotation on two frames or more": the constraint is named, with
    what would make it play. Nothing is changed."""
    cam, _source = _export_import(tmp_path, "wrap", "abc", np.arange(1.0, 10.0))
    con = cam.constraints[0]
    con.mute = True
    before = scenes.scene_snapshot()
    with pytest.raises(bake.BakeError) as info:
        bake.bake_objects([cam], bake.BakeSettings())
    said = str(info.value)
    assert f'its Transform Cache "{con.name}" is muted (unmute it to bake the cache)' in said
    assert "Key its rotation" not in said, said
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())
    con.mute = False
    con.object_path = ""
    with pytest.raises(bake.BakeError, match="reads no object path"):
        bake.bake_objects([cam], bake.BakeSettings())


@needs_alembic
def test_analyze_of_a_cache_whose_file_is_gone_does_not_say_it_has_no_keys(clean_blender,
                                                                           tmp_path):
    """A walk: Analyze of a cache camera whose file went missing warned of the file, then
    ended "None of the selected objects has rotation keys to analyze", which is not why."""
    cam, _source = _export_import(tmp_path, "wrap", "abc", np.arange(1.0, 10.0))
    cam.constraints[0].cache_file.filepath = str(tmp_path / "gone.abc")
    scenes.select_only(cam)
    with pytest.raises(RuntimeError) as raised:
        bpy.ops.quatbake.analyze()
    said = str(raised.value)
    assert "None of the selected objects could be analysed (1 failed" in said, said
    assert "has rotation keys" not in said, said
    from quatbake.addon.analyze import entries

    (entry,) = entries.results(bpy.context.scene).values()
    assert "gone.abc, which is missing" in entry["error"], entry


SPEED_FINDING = "location segments move at speeds"


@needs_alembic
@pytest.mark.parametrize("fps_in", [12, 24, 30, 48])
def test_a_24_hz_alembic_dolly_is_a_recording_at_any_scene_rate(clean_blender, tmp_path,
                                                               fps_in):
    """A triage: a dolly eased in and out, cached by Blender's Alembic exporter at 24 fps,
    read in a 25, 30 or 48 fps scene (samples over a frame apart) was told "location
    segments move at speeds 2304x apart: re-bake with Constant Speed", and at 12 or 24 fps
    not. Its samples are a recording at every rate. The premise, from the importer's
    samples: the file's segments move at very different speeds."""
    scene = bpy.context.scene
    scene.render.fps = 24
    dolly = bpy.data.objects.new("Dolly", None)
    scene.collection.objects.link(dolly)
    dolly.location = (0.0, 0.0, 0.0)
    dolly.keyframe_insert("location", frame=1)
    dolly.location = (10.0, 0.0, 0.0)
    dolly.keyframe_insert("location", frame=49)        # Bezier: eased in and out
    path = str(tmp_path / "dolly.abc")
    bpy.ops.wm.alembic_export(filepath=path, start=1, end=49)
    _empty_scene()
    scene.render.fps = fps_in
    bpy.ops.wm.alembic_import(filepath=path)
    cached = bpy.data.objects["Dolly"]
    con = anim_cache.playing_cache(cached)
    frames = anim_cache.sample_frames(cached, con).frames
    np.testing.assert_allclose(np.diff(frames), fps_in / 24.0, atol=1e-6)
    x = []
    for f in frames:
        scene.frame_set(int(np.floor(f)), subframe=float(f % 1.0))
        x.append(cached.matrix_world.translation.x)
    steps = np.abs(np.diff(x))
    assert steps.max() / steps[steps > 1e-6].min() > 10.0
    found = analyze.analyze_object(cached, "slerp")
    assert not any(SPEED_FINDING in f for f in found.findings), found.findings


@needs_usd
def test_a_sparse_usd_cache_keeps_its_constant_speed_advice(clean_blender, tmp_path):
    """A review: marking every cache a recording silenced the advice for a camera sampled
    at frames 1, 11 and 21 (1 unit, then 10, in the same ten frames: the file's own
    samples), which is keyed motion, not a capture."""
    path = tmp_path / "dolly.usda"
    path.write_text('#usda 1.0\n(\n    startTimeCode = 1\n    endTimeCode = 21\n'
                    '    timeCodesPerSecond = 24\n    upAxis = "Z"\n)\n'
                    'def Xform "Dolly"\n{\n'
                    '    double3 xformOp:translate.timeSamples = '
                    '{ 1: (0, 0, 0), 11: (1, 0, 0), 21: (11, 0, 0) }\n'
                    '    uniform token[] xformOpOrder = ["xformOp:translate"]\n}\n')
    _empty_scene()
    bpy.ops.wm.usd_import(filepath=str(path))
    cached = bpy.data.objects["Dolly"]
    found = analyze.analyze_object(cached, "slerp")
    assert any(f"{SPEED_FINDING} 10.0x apart" in f for f in found.findings), found.findings
