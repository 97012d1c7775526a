"""The report's between-frame figure against what Blender plays, on real captures.

Which key intervals the report samples between the frames is decided by a bound
(core.stray, addon/animdata/subframes.py STRAY_CHECK_DEG): it skips an interval only where
the playback cannot stray from slerp by more than STRAY_CHECK_DEG. The reference here
is independent of it: Blender's own playback (frame_set with a subframe, the pose
bone's matrix) against scipy's Slerp of the orientations Blender plays at the keys,
every 1/16 frame. The report may not fall short of it by more than TOLERANCE_DEG.
"""
import numpy as np
import pytest

import quatbake
from quatbake.addon import analyze as addon_analyze
from quatbake.addon import animdata, bake, transform

from oracles import method_paths
from test_realdata_import import import_bvh, set_frame

pytestmark = pytest.mark.bpy

Rotation = pytest.importorskip("scipy.spatial.transform").Rotation
Slerp = pytest.importorskip("scipy.spatial.transform").Slerp

# The report may understate Blender by STRAY_CHECK_DEG (skipped intervals) plus what
# 1/16 frames sampled by the report and the reference differently can miss: none
# where both sample the same subframes, as on these files (keys on quarter frames).
TOLERANCE_DEG = 0.02


def _played(arm, scene, bones, times) -> dict:
    """bone -> scipy Rotation of matrix_basis at each of ``times`` (frame_set)."""
    out = {b: [] for b in bones}
    for t in times:
        set_frame(scene, float(t))
        for b in bones:
            m = np.array(arm.pose.bones[b].matrix_basis, dtype=np.float64)[:3, :3]
            out[b].append(m / np.linalg.norm(m, axis=0))
    return {b: Rotation.from_matrix(np.array(v)) for b, v in out.items()}


def _keyed(arm, scene, bones) -> dict:
    """bone -> (its key frames, scipy Rotation Blender plays there): what the report's
    slerp interpolates (before a bake: the keys the bake replaced)."""
    out = {}
    for b in bones:
        t = transform.AnimatedTransform(arm, b)
        keys = animdata.key_frames(animdata.rotation_fcurves(t, t.rotation_mode))
        out[b] = (keys, _played(arm, scene, [b], keys)[b])
    return out


def _truth(arm, scene, keyed: dict, step=1 / 16) -> dict:
    """bone -> (largest angle, its frame) between Blender's playback now and scipy's slerp
    of ``keyed`` (_keyed), every ``step`` frames."""
    out = {}
    for b, (keys, at_keys) in keyed.items():
        times = np.unique(np.concatenate(
            [np.arange(keys[0], keys[-1] + 1e-9, step), keys]))
        played = _played(arm, scene, [b], times)[b]
        err = np.degrees((Slerp(keys, at_keys)(times).inv() * played).magnitude())
        out[b] = (float(err.max()), float(times[err.argmax()]))
    return out


def _reported(arm, bones) -> dict:
    """bone -> (the report's largest figure, its analysis), made as ``report`` makes it: a
    baked bone's keys measured against the bake's path (core.analysis.after_bake)."""
    from quatbake.addon import record
    from quatbake.core import analysis as core_analysis

    found = [transform.AnimatedTransform(arm, b) for b in bones]
    baked = [record.is_baked(t) for t in found]
    results = addon_analyze.analyze_many(
        [(t, None, False) for t in found] + [(t, None, True) for t, b in zip(found, baked) if b],
        "slerp")
    befores = iter(results[len(found):])
    out = {}
    for b, t, result, was_baked in zip(bones, found, results, baked):
        if was_baked:
            core_analysis.after_bake(next(befores), result)
        out[b] = (max(result.max_deviation_deg, result.max_between_deviation_deg), result)
    return out


def test_a_bezier_bake_of_a_walk_is_reported_as_far_off_as_it_plays_between_the_frames(
        monkeypatch):
    """CMU walk, a 0.05 deg Bezier Key Tolerance bake of three limbs: every quarter frame
    within 0.05 deg, but an aligned handle carries the first frame's 82 deg turn into the
    quarter-frame span after it: the right arm plays 1.5 deg off slerp at frame 2.0625
    and the report said 0.05 deg, "within tolerance ... nothing to do". The bake no
    longer makes those keys (a recording's corners, and its check between samples:
    test_a_bezier_bake_of_captures_plays_within_the_tolerance_at_every_64th_frame);
    both are switched off here to make them again, so that the report has a stray to
    find."""
    from quatbake.core import bezier_keys, findings

    monkeypatch.setattr(bezier_keys, "RECORDED_CORNER_SHARE", np.inf)
    monkeypatch.setattr(bezier_keys, "FINE_PARTS", 1)
    bones = ["LeftArm", "RightArm", "RightLeg"]
    _clip, arm, scene = import_bvh("cmu_12_01_walk.bvh")
    quatbake.register()
    try:
        keyed = _keyed(arm, scene, bones)           # a key on every frame
        bake.bake_objects([transform.AnimatedTransform(arm, b) for b in bones],
                          bake.BakeSettings(method='SLERP', tolerance_deg=0.05,
                                            key_interpolation='BEZIER'))
        truth = _truth(arm, scene, keyed)
        assert truth["RightArm"][0] > 1.0          # the stray is there to be seen
        for b, (figure, result) in _reported(arm, bones).items():
            assert figure >= truth[b][0] - TOLERANCE_DEG, (
                f"{b}: report {figure:.3f} deg, Blender plays {truth[b][0]:.3f} deg off "
                f"slerp at frame {truth[b][1]}")
            if truth[b][0] > 0.05 + TOLERANCE_DEG:
                assert findings.verdict(result) not in (findings.VERDICT_FINE,
                                                        findings.VERDICT_WITHIN), b
    finally:
        quatbake.unregister()


def test_an_unbaked_capture_is_reported_as_far_off_as_it_plays_between_the_frames():
    """Mocap keyed on every frame (Euler Bezier channels): between two frames the channels
    bow off their chord. A knee 0.25 deg off slerp at frame 136.5 was reported 0.0 deg
    between the frames, a wrist 0.13 deg off "fine ... nothing to do"."""
    bones = ["LeftWrist", "LeftKnee", "RightWrist"]
    _clip, arm, scene = import_bvh("test_mocapbank.bvh")
    quatbake.register()
    try:
        truth = _truth(arm, scene, _keyed(arm, scene, bones))
        for b, (figure, _result) in _reported(arm, bones).items():
            assert figure >= truth[b][0] - TOLERANCE_DEG, (
                f"{b}: report {figure:.3f} deg, Blender plays {truth[b][0]:.3f} deg off "
                f"slerp at frame {truth[b][1]}")
    finally:
        quatbake.unregister()


# How far past the tolerance a Bezier bake of a capture may play between quarter frames,
# as a multiple of it. Slerp: not past it (the final check plays a recording's slerp at
# sixteenths). Squad and nlerp, whose path the final check plays only at the bake's
# samples: a smooth span's error still peaks a little past it between two of them
# (pybvh_test1 at 0.01 deg: Squad 0.0122 deg at frame 17.89, nlerp 0.0118 deg at 21.59,
# as before bending_gaps), where the forearm played 2.0 and 0.41 deg off before it.
# Slerp with Timing: Keyed likewise (its path between two samples is not the slerp of
# the two): 0.0111 deg at frame 21.59, where it played 0.92 deg off (the right forearm,
# frame 58.91) before Keyed timing sampled between quarter frames.
BETWEEN = {'SLERP': 1.0, 'SQUAD': 1.25, 'NLERP': 1.25, 'SLERP KEYED': 1.25}


@pytest.mark.parametrize("name, tolerance, method, timing, output", [
    ("cmu_12_01_walk.bvh", 0.05, 'SLERP', 'EVEN', 'KEEP'),
    ("test_freebvh.bvh", 0.01, 'SLERP', 'EVEN', 'KEEP'),
    ("test_mocapbank.bvh", 1.0, 'SLERP', 'EVEN', 'KEEP'),
    ("pybvh_test1.bvh", 0.01, 'SLERP', 'EVEN', 'KEEP'),
    ("pybvh_test1.bvh", 0.01, 'SQUAD', 'EVEN', 'KEEP'),
    ("pybvh_test1.bvh", 0.01, 'NLERP', 'EVEN', 'KEEP'),
    ("pybvh_test1.bvh", 0.01, 'SLERP', 'KEYED', 'KEEP'),
    ("pybvh_test1.bvh", 0.01, 'SQUAD', 'EVEN', 'QUATERNION')])
def test_a_bezier_bake_of_captures_plays_within_the_tolerance_at_every_64th_frame(
        name, tolerance, method, timing, output):
    """A Bezier Key Tolerance bake of Blender's BVH import, every bone: Blender's playback
    (frame_set with subframes, matrix_basis) at every 1/64 frame within the tolerance
    (less float32's 1e-3 deg) of the method's path through what Blender played at the file's keys.
    The bake checks its keys at quarter frames; between them, on the CMU walk at 0.05
    deg, an aligned handle at frame 2 carried the 82 deg/frame turn of frames 1 to 2
    into a quarter-frame span (17 bones past the tolerance, the right arm 1.68 deg at
    frame 2.09375), and elsewhere the error of a span over several frames peaked
    between two quarter frames (0.057 deg). On test_mocapbank at 1 deg a span's handles
    were 1/12 and 7/12 of it long, which Blender's time solve misses near the span's first
    key: the channel played 0, 88 deg off at frame 1.016. On pybvh_test1 at 0.01 deg the
    right forearm turns 103 deg in frame 58, keyed at every quarter frame of it, where no
    sample lies inside a span to split it: with slopes from the samples it played
    0.31 deg off at frame 58.078 (with the target's own slopes and a third of the span
    for handles, 0.0148 deg at frame 58.625). A Squad (nlerp) bake there was within the
    tolerance at every quarter frame and 2.0 (0.41) deg off at frame 58.09 (58.08), where
    the forearm's Euler angles swing 1 rad in half a frame between two of them: the bake
    samples the method's path between quarter frames too where Euler angles bend fast
    (core.bezier_keys.bending_gaps). The reference is the method's path through what
    Blender played at the file's keys (tests/oracles/method_paths.py), with Timing: Keyed
    travelled with Blender's own ease (method_paths.slerp_keyed_timing, from Blender's
    playback before the bake at the same times). The bake promises the tolerance at
    every quarter frame; between them, see BETWEEN. With quaternion output the
    quaternion channels bend as fast there: a Squad bake played 0.27 deg off at frame
    58.09 before they were sampled between quarter frames too."""
    _clip, arm, scene = import_bvh(name)
    quatbake.register()
    try:
        bones = [pb.name for pb in arm.pose.bones]
        action_keys = _keyed(arm, scene, bones[:1])[bones[0]][0]
        frames = np.arange(action_keys[0], action_keys[-1] + 1e-9)
        before = _played(arm, scene, bones, frames)
        times = np.arange(frames[0] * 64, frames[-1] * 64 + 1) / 64
        eased = _played(arm, scene, bones, times) if timing == 'KEYED' else None
        bake.bake_objects([arm], bake.BakeSettings(method=method, tolerance_deg=tolerance,
                                                   key_interpolation='BEZIER', timing=timing,
                                                   output_mode=output))
        after = _played(arm, scene, bones, times)
        worst = []
        for b in bones:
            keys = before[b].as_quat()[:, [3, 0, 1, 2]]
            path = method_paths.path(method, frames, keys, times) if eased is None else \
                method_paths.slerp_keyed_timing(frames, keys,
                                                eased[b].as_quat()[:, [3, 0, 1, 2]], times)
            err = np.degrees((Rotation.from_quat(path[:, [1, 2, 3, 0]]).inv()
                              * after[b]).magnitude())
            quarter = err[::16]
            worst.append((float(err.max()), b, float(times[err.argmax()]),
                          float(quarter.max())))
        assert max(w[3] for w in worst) <= tolerance + 1e-3, sorted(worst)[-3:]
        between = BETWEEN[method + (" KEYED" if timing == 'KEYED' else "")]
        assert max(worst)[0] <= tolerance * between + 1e-3, sorted(worst)[-3:]
    finally:
        quatbake.unregister()


def test_the_bound_takes_the_keys_the_caller_read(clean_blender):
    """The bake hands far_turn_subframes the keyframe arrays its reading read (a capture's
    93 curves read again for the bound cost a tenth of the command line's bake): the
    bound is made from those, not from the curves read again. Euler keys a frame apart,
    Linear and turning 0.1 deg a frame (bound 0: nothing sampled); the same keys handed
    over as Bezier with a handle 0.1 rad off the chord bow 5.7 deg there (sampled)."""
    import scenes

    frames = np.arange(1.0, 5.0)
    values = np.radians(0.1) * np.stack([frames, 0 * frames, 0 * frames], axis=1)
    obj = scenes.make_animated_object("Straight", 'XYZ', frames, values, 'LINEAR')
    curves = animdata.rotation_fcurves(obj, 'XYZ')
    assert animdata.far_turn_subframes(obj, frames, 'XYZ').size == 0
    known = {fc.as_pointer(): dict(animdata.read_keyframe_arrays(fc, animdata.KEY_FIELDS))
             for fc in curves}
    assert animdata.far_turn_subframes(obj, frames, 'XYZ', known=known).size == 0
    bowed = known[curves[1].as_pointer()]
    bowed["interpolation"] = np.full(frames.size, scenes._enum("interpolation", 'BEZIER'), np.int32)
    bowed["handle_right"] = bowed["handle_right"] + [0.25, 0.1]
    bowed["handle_left"] = bowed["handle_left"] + [-0.25, 0.1]
    found = animdata.far_turn_subframes(obj, frames, 'XYZ', known=known)
    assert found.size == (frames.size - 1) * (animdata.subframes.STRAY_SUBSTEPS - 1), found

