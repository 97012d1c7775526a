"""Alembic files written by other programs, read through Blender's Transform Cache.

tests/data/realdata/abc/ (sources and licences in tests/data/realdata/README.md):

- ``rotatingCube.abc`` (ImageEngine/cortex; Maya 2012 AbcExport, converted to Ogawa by
  Cortex): ``/pCube1`` turns 90 deg about X per sample, 24 samples at 24 fps. Cortex's own
  test (``AlembicSceneTest.testRotatingTransformAtSample``) pins sample i to
  ``Rx(90 i deg)``; Blender's Y-up -> Z-up change leaves X as it is.
- ``testAbcCamera.abc`` (PixarAnimationStudios/OpenUSD, written by USD's Alembic plugin
  from ``testShotFlattened.usd``): ``/World/main_cam`` dollies straight, 20 samples of
  ``xformOp:transform`` (translation y = -2340 .. -840.78 in the file), no turn.

The oracles are the files' own values (the numbers above, written here from the source
files, never from QuatBake), scipy's ``Slerp`` of the orientations Blender plays at the
samples, and Blender's playback (``frame_set`` + ``matrix_world``) before and after a bake.
Debian's Blender 3.4.1 has no Alembic importer: these tests skip there.
"""
from __future__ import annotations

import pathlib

import bpy
import numpy as np
import pytest
from cache_playback import angle_deg, playback, scipy_slerp

from quatbake.addon import animdata, bake, cli, record
from quatbake.addon.analyze import engine as analyze
from quatbake.addon.animdata import cache as anim_cache

import report_schema

ABC = pathlib.Path(__file__).resolve().parents[1] / "data" / "realdata" / "abc"
CUBE = ABC / "rotatingCube.abc"
CAMERA = ABC / "testAbcCamera.abc"

HAS_ALEMBIC = bool(getattr(bpy.app.build_options, "alembic", False)) and \
    hasattr(bpy.ops.wm, "alembic_import")
pytestmark = [pytest.mark.bpy, pytest.mark.skipif(
    not HAS_ALEMBIC, reason=f"Blender {bpy.app.version_string} here is built without Alembic "
    "(bpy.app.build_options.alembic is False): it has no Alembic importer")]

# The file's matrices are doubles, Blender's playback float32 (matrix_world, a float32
# frame time): 1e-4 deg measured at most 3.6e-5; 1e-3 leaves a margin.
PLAY_TOL_DEG = 1e-3
# Baked Euler keys are float32 radians: a key near 2070 deg (36 rad) is 3.8e-6 rad apart
# from the next float, 2e-4 deg.
BAKED_TOL_DEG = 2e-3
# The camera's location reaches 2340 units: float32 spacing there is 2.4e-4.
CAMERA_LOC_TOL = 1e-3

# testShotFlattened.usd (OpenUSD, the camera's source): xformOp:transform translation y at
# time codes 1, 2, 10, 20 (the other components are 0, the rotation the identity).
CAMERA_Y = {1: -2340.0, 2: -2261.0939467969, 10: -1629.84552117212, 20: -840.784989141147}


def _rx(deg) -> np.ndarray:
    """(n, 4) w-first quaternions of turns of ``deg`` degrees about X."""
    half = np.radians(np.asarray(deg, dtype=np.float64)) / 2.0
    return np.stack([np.cos(half), np.sin(half), 0.0 * half, 0.0 * half], axis=1)


def _state(obj) -> tuple:
    return (tuple((c.name, c.mute, c.influence) for c in obj.constraints),
            obj.animation_data is not None, obj.rotation_mode, tuple(obj.rotation_euler),
            tuple(obj.location))


def _import(path):
    bpy.ops.wm.alembic_import(filepath=str(path))


def test_the_maya_cube_plays_the_files_samples_and_slerp_between_them(clean_blender):
    """What the importer leaves: a keyless cube with a Transform Cache; at sample i it plays
    Rx(90 i deg) (the file's values) and between samples the short arc, which is scipy's
    slerp of the played samples (90 deg apart, so the short arc is unambiguous)."""
    _import(CUBE)
    cube = bpy.data.objects["pCube1"]
    assert [c.type for c in cube.constraints] == ['TRANSFORM_CACHE']
    assert animdata.get_action(cube) is None and cube.parent is None
    assert (bpy.context.scene.frame_start, bpy.context.scene.frame_end) == (1, 24)
    samples = np.arange(1.0, 25.0)
    at_samples, locs = playback(cube, samples)
    assert angle_deg(at_samples, _rx(90.0 * (samples - 1.0))).max() < PLAY_TOL_DEG
    np.testing.assert_allclose(locs, 0.0, atol=1e-6)
    quarters = np.arange(1.0, 24.01, 0.25)
    played, _ = playback(cube, quarters)
    assert angle_deg(played, scipy_slerp(samples, at_samples, quarters)).max() < PLAY_TOL_DEG
    assert angle_deg(played, _rx(90.0 * (quarters - 1.0))).max() < PLAY_TOL_DEG


def test_report_of_the_maya_cube_reads_the_files_samples_and_turns(clean_blender, tmp_path):
    _import(CUBE)
    cube = bpy.data.objects["pCube1"]
    result = analyze.analyze_object(cube, "slerp")
    np.testing.assert_array_equal(result.keys, np.arange(1.0, 25.0))
    assert result.cache["samples"] == 24 and result.cache["format"] == "Alembic"
    # The report's Blender orientations are the file's values, at every frame it compares.
    assert angle_deg(result.blender_quats, _rx(90.0 * (result.frames - 1.0))).max() \
        < PLAY_TOL_DEG
    assert result.max_deviation_deg < PLAY_TOL_DEG     # Alembic plays slerp itself

    blend = str(tmp_path / "cube.blend")
    bpy.ops.wm.save_as_mainfile(filepath=blend, copy=True)
    out = str(tmp_path / "r.json")
    assert cli.main(["report", blend, "--json", out, "--quiet"]) == cli.EXIT_OK
    obj = report_schema.load_report(out)["objects"][0]
    assert obj["name"] == "pCube1" and obj["keys"] == list(range(1, 25))
    assert obj["transform_cache"]["file"] == "rotatingCube.abc"
    assert obj["transform_cache"]["samples"] == 24
    # 23 intervals of a quarter turn each: 2070 deg in all, each the short arc.
    turned = [iv["blender_turn_deg"] for iv in obj["key_intervals"]]
    np.testing.assert_allclose(turned, 90.0, atol=PLAY_TOL_DEG)
    assert {iv["kind"] for iv in obj["key_intervals"]} == {"short"}
    assert obj["max_deviation_deg"] < PLAY_TOL_DEG


@pytest.mark.parametrize("method", ["SLERP", "SQUAD"])
def test_a_bake_of_the_maya_cube_plays_the_files_spin_and_revert_brings_the_cache_back(
        clean_blender, method):
    """A uniform spin: slerp and squad of its samples are the same 90 deg per frame, so the
    baked keys must play Rx(90 (f - 1) deg) at every quarter frame: 2070 deg, not the short
    way between two wrapped Euler values."""
    _import(CUBE)
    cube = bpy.data.objects["pCube1"]
    quarters = np.arange(1.0, 24.01, 0.25)
    before_play = playback(cube, quarters)
    before_state = _state(cube)

    result = bake.bake_objects([cube], bake.BakeSettings(method=method))

    assert result.objects == ["pCube1"] and result.frames_written == 24
    assert cube.constraints[0].mute and not anim_cache.plays_cache(cube)
    assert record.cache_baked(cube) == cube.constraints[0].name
    np.testing.assert_array_equal(animdata.key_frames(animdata.rotation_fcurves(cube)),
                                  np.arange(1.0, 25.0))
    played, locs = playback(cube, quarters)
    assert angle_deg(played, _rx(90.0 * (quarters - 1.0))).max() < BAKED_TOL_DEG
    np.testing.assert_allclose(locs, 0.0, atol=1e-6)
    x = animdata.evaluate_rotation_raw(cube, np.arange(1.0, 25.0), 'XYZ',
                                       animdata.rotation_fcurves(cube), exact=True)[:, 0]
    np.testing.assert_allclose(np.degrees(np.diff(x)), 90.0, atol=BAKED_TOL_DEG)  # a ramp

    assert bake.revert_objects([cube]) == ["pCube1"]
    assert _state(cube) == before_state and cube.animation_data is None
    after_play = playback(cube, quarters)
    np.testing.assert_array_equal(after_play[0], before_play[0])


def test_the_usd_written_camera_dollies_as_its_source_and_a_bake_keeps_that(clean_blender):
    """A real camera under a parent ("World"): the importer turns the Y-up file's camera
    +90 deg about X and its y into Blender's z. QuatBake finds no turn, and a bake keys the
    file's dolly exactly (location linear between the samples, the rotation held)."""
    _import(CAMERA)
    cam = bpy.data.objects["main_cam"]
    assert cam.type == 'CAMERA' and cam.parent.name == "World"
    assert [c.type for c in cam.constraints] == ['TRANSFORM_CACHE']
    frames = np.array(sorted(CAMERA_Y), dtype=np.float64)
    quats, locs = playback(cam, frames)
    expected = np.zeros((frames.size, 3))
    expected[:, 2] = [CAMERA_Y[int(f)] for f in frames]
    np.testing.assert_allclose(locs, expected, atol=CAMERA_LOC_TOL)
    assert angle_deg(quats, _rx(np.full(frames.size, 90.0))).max() < PLAY_TOL_DEG

    result = analyze.analyze_object(cam, "slerp")
    np.testing.assert_array_equal(result.keys, np.arange(1.0, 21.0))
    assert result.cache["samples"] == 20
    assert result.max_deviation_deg < PLAY_TOL_DEG

    between = np.arange(1.0, 20.01, 0.5)
    cache_quats, cache_locs = playback(cam, between)
    # The file's dolly is linear in time: Blender's playback between samples is too.
    linear = np.interp(between, frames, expected[:, 2])
    np.testing.assert_allclose(cache_locs[:, 2], linear, atol=CAMERA_LOC_TOL)
    before_state = _state(cam)

    done = bake.bake_objects([cam], bake.BakeSettings(method='SLERP'))

    assert done.objects == ["main_cam"] and cam.constraints[0].mute
    baked_quats, baked_locs = playback(cam, between)
    assert angle_deg(baked_quats, cache_quats).max() < BAKED_TOL_DEG
    np.testing.assert_allclose(baked_locs, cache_locs, atol=CAMERA_LOC_TOL)
    bake.revert_objects([cam])
    assert _state(cam) == before_state


@pytest.mark.parametrize("output_mode", ["KEEP", "QUATERNION"])
def test_a_step_2_bake_of_the_maya_spin_says_the_keys_cannot_show_it(clean_blender, output_mode):
    """90 deg per sample baked every 2 frames: 180 deg from one baked key to the next, which
    LINEAR keys cannot show (measured: Euler keys 0, 180, 0, -180 ... and quaternion keys
    alike, so frame 4 plays 90 deg where the cache plays 270). The bake must say so and
    name Step, as turns.md promises for a turn of 180 deg or more per baked step; it said
    nothing, only "largest change 180.00 deg"."""
    _import(CUBE)
    cube = bpy.data.objects["pCube1"]
    result = bake.bake_objects([cube], bake.BakeSettings(method='SLERP', frame_step=2,
                                                         output_mode=output_mode))
    assert result.objects == ["pCube1"]
    played, _ = playback(cube, np.array([4.0]))
    off = float(angle_deg(played, _rx([270.0]))[0])      # the file's frame 4
    warned = [w.message for w in result.warnings if "Lower Step" in w.message]
    if off > 1.0:
        assert warned, (off, [w.message for w in result.warnings])
        assert "180 deg per baked step" in warned[0] and "pCube1" in warned[0]
    # The same file at Step 1 (90 deg per baked step) warns of nothing.
    bake.revert_objects([cube])
    again = bake.bake_objects([cube], bake.BakeSettings(method='SLERP', output_mode=output_mode))
    assert not [w for w in again.warnings if "Lower Step" in w.message]
