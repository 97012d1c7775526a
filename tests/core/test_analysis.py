"""core.analysis on arrays: known answers for each pitfall the report shows."""
import json

import numpy as np
import pytest

from quatbake.core import analysis, findings, interp, pitfalls, quat, rotation
from quatbake.report import json_report

from report_schema import validate_report


def _axis_quat(axis, deg):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    half = np.radians(np.asarray(deg, float)) / 2
    return np.concatenate([np.cos(half)[..., None], np.sin(half)[..., None] * axis], axis=-1)


def _linear_channels(key_frames, key_values, frames):
    """Blender's LINEAR F-curves: each channel interpolated on its own."""
    key_values = np.asarray(key_values, float)
    return np.stack([np.interp(frames, key_frames, key_values[:, c])
                     for c in range(key_values.shape[1])], axis=1)


def _quat_object(key_frames, key_q, method="slerp", **kw):
    frames = np.arange(key_frames[0], key_frames[-1] + 1, dtype=float)
    raw = _linear_channels(key_frames, key_q, frames)
    return analysis.analyze_object("Cam", "QUATERNION", frames, raw, key_frames,
                                   np.asarray(key_q, float), method, raw_values=raw, **kw)


def test_blender_equal_to_slerp_has_zero_deviation_and_even_speed():
    keys = np.array([1.0, 21.0, 61.0])
    kq = _axis_quat([0, 0, 1], [0, 60, 150])
    frames = np.arange(1, 62, dtype=float)
    blender = interp.interpolate(keys, kq, frames, "slerp")
    a = analysis.analyze_object("Obj", "QUATERNION", frames, blender, keys, kq, "slerp")
    assert a.max_deviation_deg < 1e-9
    assert a.long_arc_segments == []
    assert all(iv["custom_speed_cv"] < 1e-9 for iv in a.intervals)
    np.testing.assert_allclose(a.blender_speed_deg[1:21], 3.0)   # 60 deg over 20 frames
    assert "nothing to do" in a.advice


def test_flipped_sign_key_is_a_long_arc_on_both_sides_and_the_advice_says_so():
    kq = _axis_quat([0, 0, 1], [0, 40, 80])
    kq[1] *= -1.0                                  # same orientation, opposite sign
    a = _quat_object(np.array([1.0, 41.0, 81.0]), kq)
    assert a.long_arc_segments == [[1.0, 41.0], [41.0, 81.0]]
    turned = a.intervals[0]["blender_turn_deg"]
    assert 300 < turned < 330                       # 360 - 40 the long way (frame sums)
    assert a.advice == "keys 1-41 take the long way: re-bake with SLERP"
    assert a.max_deviation_deg > 90
    # The per-component lerp from q0 to -q1 (160 deg apart in 4D) is shortest
    # mid-way: length cos(80 deg).
    assert a.norm["min_norm"] == pytest.approx(np.cos(np.radians(80)), abs=1e-3)


def test_clean_short_turn_is_not_a_long_arc_but_shows_uneven_speed_and_shrinking():
    kq = _axis_quat([0, 1, 0], [0, 90])
    a = _quat_object(np.array([1.0, 31.0]), kq)
    assert a.long_arc_segments == []
    assert a.euler_wraps == []
    # LINEAR quaternion channels = nlerp: a 90 deg turn is 45 deg apart in 4D,
    # so the chord is cos(22.5 deg) long mid-way.
    assert a.norm["min_norm"] == pytest.approx(np.cos(np.radians(22.5)), abs=1e-3)
    assert a.intervals[0]["blender_speed_cv"] > findings.UNEVEN_CV
    assert a.intervals[0]["custom_speed_cv"] < 1e-9
    assert 0.5 < a.max_deviation_deg < 5
    assert any("shrink" in f for f in a.findings)


def test_channels_that_grow_are_said_to_grow():
    """A walk: W of the middle key raised by hand, so the raw channels reach length 1.3
    there; the sentence read "shrink to length 1.000". The length named is the largest,
    computed here with numpy from the linear channels, and the frame is its key's."""
    kq = _axis_quat([0, 0, 1], [0, 10, 20])
    kq[1] *= 1.3
    a = _quat_object(np.array([1.0, 11.0, 21.0]), kq)
    frames = np.arange(1.0, 22.0)
    longest = np.linalg.norm(_linear_channels([1.0, 11.0, 21.0], kq, frames), axis=1).max()
    said = [f for f in a.findings if "quaternion channels" in f]
    assert any(f"grow to length {longest:.3f} near frame 11" in f for f in said), said
    assert not any("shrink" in f for f in said), said


def _euler_wrap(turns: str = "AUTO"):
    """Z keyed 170 -> -170 deg over frames 1-25 on Linear channels (Blender turns 340)."""
    key_frames = np.array([1.0, 25.0])
    key_raw = np.radians([[0, 0, 170], [0, 0, -170]])
    frames = np.arange(1, 26, dtype=float)
    raw = _linear_channels(key_frames, key_raw, frames)
    return analysis.analyze_object("EulerCam", "XYZ", frames, rotation.euler_to_quat(raw, "XYZ"),
                                   key_frames, rotation.euler_to_quat(key_raw, "XYZ"), "slerp",
                                   raw_values=raw, key_raw=key_raw, turns_setting=turns)


def test_euler_wrap_170_to_minus_170_is_a_long_arc_and_a_wrap():
    a = _euler_wrap()
    assert a.long_arc_segments == [[1.0, 25.0]]
    assert a.intervals[0]["blender_turn_deg"] == pytest.approx(340, abs=1e-6)
    assert a.intervals[0]["shortest_deg"] == pytest.approx(20, abs=1e-9)
    (wrap,) = a.euler_wraps
    assert wrap["channel"] == "rotation_euler[2]"
    assert wrap["short_turn_deg"] == pytest.approx(20)


def test_a_wrap_turns_keyed_keeps_is_named_with_the_setting_that_fixes_it():
    """A report walk: with Turns: Keyed the method's path takes the wrap's 340 deg with
    Blender (no difference), yet the verdict read "long way round" and the advice
    "re-bake with SLERP", a bake that keeps the 340 deg. The advice now names Turns: Auto
    and the verdict asks to check; with Turns: Auto the wrap is a difference, as before."""
    keyed, auto = _euler_wrap("KEYED"), _euler_wrap("AUTO")
    assert keyed.max_deviation_deg < 1e-6 and keyed.long_arc_segments == [[1.0, 25.0]]
    assert keyed.advice == ("keys 1-25 take the long way (an Euler wrap), and Turns: Keyed "
                            "keeps it: re-bake with Turns: Auto for the short arc")
    assert not any("SLERP" in f for f in keyed.findings), keyed.findings
    assert findings.verdict(keyed) == findings.VERDICT_CHECK
    # Blender's 340 deg against the 20 deg short arc: 180 deg apart half-way.
    assert auto.max_deviation_deg == pytest.approx(180.0, abs=1e-6)
    assert auto.advice == "keys 1-25 take the long way: re-bake with SLERP"
    assert findings.verdict(auto) == findings.VERDICT_LONG_WAY


def test_an_eased_kept_spin_is_timing_only():
    """A report walk: Z keyed 0 -> 720 deg with Bezier ease differs from slerp by 69 deg,
    all of it timing, and the only finding was the kept spin: nothing said what to change.
    Blender's side here is a smoothstep ease along the spin (on its path at every frame)."""
    key_frames = np.array([1.0, 41.0])
    key_raw = np.radians([[0, 0, 0], [0, 0, 720]])
    frames = np.arange(1, 42, dtype=float)
    u = (frames - 1.0) / 40.0
    raw = np.zeros((frames.size, 3))
    raw[:, 2] = np.radians(720.0) * (3 * u ** 2 - 2 * u ** 3)
    a = analysis.analyze_object("Spin", "XYZ", frames, rotation.euler_to_quat(raw, "XYZ"),
                                key_frames, rotation.euler_to_quat(key_raw, "XYZ"), "slerp",
                                raw_values=raw, key_raw=key_raw)
    assert a.kinds == ["spin"] and a.max_path_deviation_deg < 1e-6
    # Even speed turns 18 deg a frame; the ease's largest lag, folded to an angle.
    lag = np.abs(np.degrees(raw[:, 2]) - 18.0 * (frames - 1.0))
    assert a.max_deviation_deg == pytest.approx(np.minimum(lag % 360, 360 - lag % 360).max(),
                                                abs=1e-6)
    assert "is timing only" in a.advice and "Timing: Keyed" in a.advice, a.findings
    assert any("spin 720 deg as keyed" in f for f in a.findings)


def test_a_recordings_samples_get_no_timing_advice_whatever_their_spacing():
    """A triage: a 24 Hz Alembic dolly eased in and out, imported at 30 fps (samples 1.25
    frames apart), was told its location segments move at speeds thousands of times
    apart, "re-bake with Constant Speed"; at 24 fps (a sample a frame) it was not. A
    recording's samples (``recorded``) are its motion at any spacing."""
    keys = 1.0 + 1.25 * np.arange(33)
    frames = np.arange(1.0, keys[-1] + 1.0)
    u = (frames - 1.0) / (frames[-1] - 1.0)
    positions = np.zeros((frames.size, 3))
    positions[:, 0] = 10.0 * (3 * u ** 2 - 2 * u ** 3)        # eased in and out
    key_positions = np.zeros((keys.size, 3))
    uk = (keys - 1.0) / (keys[-1] - 1.0)
    key_positions[:, 0] = 10.0 * (3 * uk ** 2 - 2 * uk ** 3)
    q = np.tile([1.0, 0.0, 0.0, 0.0], (frames.size, 1))
    qk = np.tile([1.0, 0.0, 0.0, 0.0], (keys.size, 1))
    runs = {recorded: analysis.analyze_object(
        "Dolly", "XYZ", frames, q, keys, qk, "slerp", positions=positions,
        key_positions=key_positions, location_key_frames=keys, recorded=recorded)
        for recorded in (False, True)}
    # The segments' speeds: the first and the middle of the ease, from the samples.
    steps = np.linalg.norm(np.diff(key_positions, axis=0), axis=1)
    assert steps.max() / steps[steps > 0].min() > 3.0
    assert any("location segments move at speeds" in f for f in runs[False].findings)
    assert not any("location segments" in f for f in runs[True].findings), runs[True].findings
    assert runs[True].dense_keys and runs[True].dense_location_keys


def test_gimbal_proximity_uses_the_middle_axis_of_the_order():
    key_frames = np.array([1.0, 11.0])
    key_raw = np.radians([[0, 80, 0], [0, 89, 10]])        # Y is XYZ's middle axis
    frames = np.arange(1, 12, dtype=float)
    raw = _linear_channels(key_frames, key_raw, frames)
    for mode, expect in (("XYZ", True), ("YXZ", False)):
        bq = rotation.euler_to_quat(raw, mode)
        kq = rotation.euler_to_quat(key_raw, mode)
        a = analysis.analyze_object("G", mode, frames, bq, key_frames, kq, raw_values=raw,
                                    key_raw=key_raw)
        assert bool(a.gimbal_frames) is expect
    assert a.gimbal_min_margin_deg == pytest.approx(90.0)   # YXZ's middle is X, always 0


def test_lerp_used_as_a_filter_is_flagged_and_even_keys_are_not():
    # Keyed every other frame: on dense keys (every frame or closer, a recording)
    # the creep is the motion and gets no advice (test_analysis_dense.py).
    key_frames = np.arange(1.0, 25.0, 2.0)
    angles = 90.0 * (1.0 - 0.75 ** np.arange(12))          # current += (target-current)*0.25
    kq = _axis_quat([0, 0, 1], angles)
    frames = key_frames.copy()
    bq = interp.interpolate(key_frames, kq, frames, "slerp")
    a = analysis.analyze_object("Follow", "QUATERNION", frames, bq, key_frames, kq)
    (run,) = a.exponential_approach
    assert run["frames"] == [1.0, 23.0]
    assert run["ratio"] == pytest.approx(0.75, abs=1e-9)
    assert run["remaining_deg"] == pytest.approx(90 - angles[-1], rel=1e-6)
    assert "filter" in a.advice
    even = _axis_quat([0, 0, 1], np.linspace(0, 90, 12))
    assert pitfalls.exponential_approach(key_frames, even) == []


def test_a_group_analysed_together_finds_the_filter_only_where_it_is():
    """analyze_group looks for the creep of all its members in one pass: the filter keys
    give their run (the known answer above) beside even keys and a flipped-sign copy."""
    key_frames = np.arange(1.0, 25.0, 2.0)
    angles = 90.0 * (1.0 - 0.75 ** np.arange(12))
    follow = _axis_quat([0, 0, 1], angles)
    flipped = follow.copy()
    flipped[5] *= -1.0                                      # the same orientations
    even = _axis_quat([1, 0, 0], np.linspace(0, 90, 12))
    items = [analysis.Sampled(name, "QUATERNION", q, q) for name, q in
             (("Follow", follow), ("Even", even), ("Flipped", flipped))]
    found = analysis.analyze_group(key_frames, key_frames, items)
    for a in (found[0], found[2]):
        (run,) = a.exponential_approach
        assert run["frames"] == [1.0, 23.0]
        assert run["ratio"] == pytest.approx(0.75, abs=1e-9)
        assert run["remaining_deg"] == pytest.approx(90 - angles[-1], rel=1e-6)
    assert found[1].exponential_approach == []


def test_float32_risk_at_large_coordinates_only():
    kq = _axis_quat([0, 0, 1], [0, 10])
    frames = np.arange(1, 101, dtype=float)
    bq = interp.interpolate([1, 100], kq, frames, "slerp")
    slow_far = np.stack([10000 + 1e-4 * frames, np.zeros(100), np.zeros(100)], axis=1)
    slow_near = np.stack([1 + 1e-4 * frames, np.zeros(100), np.zeros(100)], axis=1)
    far = analysis.analyze_object("F", "QUATERNION", frames, bq, [1, 100], kq, positions=slow_far)
    near = analysis.analyze_object("N", "QUATERNION", frames, bq, [1, 100], kq, positions=slow_near)
    assert len(far.float32_risk["frames"]) == 99
    assert far.float32_risk["float32_step"] == pytest.approx(2 ** -10)   # float32 ulp at 10000
    assert near.float32_risk["frames"] == []
    assert any("float32" in f for f in far.findings)


def test_location_timed_by_frame_count_not_distance():
    kq = _axis_quat([0, 0, 1], [0, 10])
    frames = np.arange(1, 101, dtype=float)
    bq = interp.interpolate([1, 100], kq, frames, "slerp")
    a = analysis.analyze_object("Dolly", "QUATERNION", frames, bq, [1, 100], kq,
                                key_positions=[[0, 0, 0], [1, 0, 0], [11, 0, 0]],
                                location_key_frames=[1, 50, 100])
    assert a.location_speed_ratio == pytest.approx((10 / 50) / (1 / 49))
    # Issue 24: it says how (Constant Speed is greyed out while Location is Keep).
    assert any("re-bake with Location set to Linear or Catmull-Rom and Constant Speed on"
               in f for f in a.findings), a.findings
    assert findings.verdict(a) == findings.VERDICT_CHECK


def test_velocity_jump_at_a_key_for_slerp_but_not_for_a_smooth_path():
    keys = np.array([1.0, 11.0, 21.0])
    kq = np.stack([_axis_quat([0, 0, 1], 0), _axis_quat([0, 0, 1], 30),
                   quat.multiply(_axis_quat([1, 0, 0], 30), _axis_quat([0, 0, 1], 30))])
    frames = np.arange(1, 22, dtype=float)
    bq = interp.interpolate(keys, kq, frames, "slerp")
    a = analysis.analyze_object("J", "QUATERNION", frames, bq, keys, kq, "slerp")
    assert a.velocity_jumps["frames"].tolist() == [11.0]
    # 3 deg/frame about Z, then 3 deg/frame about (world) X: |difference| = 3*sqrt(2).
    assert a.velocity_jumps["blender_deg"][0] == pytest.approx(3 * np.sqrt(2), rel=1e-6)


def test_jitter_small_back_and_forth_turns():
    frames = np.arange(1, 21, dtype=float)
    angles = 0.1 * (-1.0) ** np.arange(20)
    bq = _axis_quat([0, 0, 1], angles)
    a = analysis.analyze_object("Shaky", "QUATERNION", frames, bq, frames, bq)
    assert len(a.jitter_frames) == 18
    assert any("jitter" in f for f in a.findings)


@pytest.mark.parametrize("sparse", [0.0, 1.0], ids=["every-step", "small-steps-only"])
def test_jitter_is_each_transforms_own_in_a_group(sparse, monkeypatch):
    """A rig's bones are analysed together: the shaking bone's frames are its own, and
    a steady bone beside it, or one that shakes only from frame 11, gets its own. Both
    ways of finding the reversals (pitfalls.JITTER_SPARSE) find the same frames."""
    monkeypatch.setattr(pitfalls, "JITTER_SPARSE", sparse)
    frames = np.arange(1, 21, dtype=float)
    shaky = _axis_quat([0, 0, 1], 0.1 * (-1.0) ** np.arange(20))
    steady = _axis_quat([1, 0, 0], np.linspace(0, 30, 20))
    late = _axis_quat([0, 1, 0], np.where(np.arange(20) < 10, 2.0 * np.arange(20),
                                          18.0 + 0.1 * (-1.0) ** np.arange(20)))
    items = [analysis.Sampled(name, "QUATERNION", q, q) for name, q in
             (("Steady", steady), ("Shaky", shaky), ("Late", late))]
    got = analysis.analyze_group(frames, frames, items)
    assert got[0].jitter_frames == []
    assert got[1].jitter_frames == frames[2:].tolist()
    # from frame 11 the steps reverse; the first reversal is at frame 12's step
    assert got[2].jitter_frames and got[2].jitter_frames[0] >= 11.0
    assert got[2].jitter_frames == [f for f in frames[2:].tolist() if f >= got[2].jitter_frames[0]]


def _scipy_jitter_frames(frames, q):
    """The jitter frames by the definition (pitfalls.JITTER_*), from scipy's rotation
    vectors of each step: a step under JITTER_MAX_DEG whose turn points against the
    previous one's, both moving, JITTER_MIN_RUN or more such steps in a row; each named
    by the frame it ends on."""
    from scipy.spatial.transform import Rotation

    r = Rotation.from_quat(np.asarray(q)[:, [1, 2, 3, 0]])
    step = (r[1:] * r[:-1].inv()).as_rotvec()           # world frame, the short way
    size = np.degrees(np.linalg.norm(step, axis=1))
    hits = [bool(size[k + 1] < pitfalls.JITTER_MAX_DEG and size[k + 1] > 1e-6
                 and size[k] > 1e-6 and step[k] @ step[k + 1] < 0.0)
            for k in range(len(step) - 1)]
    out, run = [], []
    for k, hit in enumerate(hits + [False]):
        if hit:
            run.append(float(frames[k + 2]))
            continue
        if len(run) >= pitfalls.JITTER_MIN_RUN:
            out += run
        run = []
    return out


@pytest.mark.parametrize("sparse", [0.0, 1.0], ids=["every-step", "small-steps-only"])
def test_jitter_is_a_reversal_of_small_turns_as_scipy_measures_it(sparse, monkeypatch):
    """A slow turn one way is no jitter (every step small, none reversing); shakes about
    a tilted axis on top of a slow pan, with fast steps beside them and some keys stored
    as -q, are found on the frames scipy's step rotation vectors give, by both ways of
    finding the reversals."""
    pytest.importorskip("scipy")
    monkeypatch.setattr(pitfalls, "JITTER_SPARSE", sparse)
    rng = np.random.default_rng(7)
    n = 120
    frames = np.arange(1, n + 1, dtype=float)
    slow = _axis_quat([0, 0, 1], 0.2 * np.arange(n))
    pan = np.where(np.arange(n) < 60, 0.05 * np.arange(n), 3.0 + 4.0 * (np.arange(n) - 60))
    shake = np.where((np.arange(n) > 20) & (np.arange(n) < 45),
                     0.1 * (-1.0) ** np.arange(n) + rng.normal(0.0, 0.02, n), 0.0)
    shaky = quat.multiply(_axis_quat([1, 1, 0], shake), _axis_quat([0, 0, 1], pan))
    shaky[rng.random(n) < 0.3] *= -1.0
    items = [analysis.Sampled(name, "QUATERNION", q, q) for name, q in
             (("Slow", slow), ("Shaky", shaky))]
    got = analysis.analyze_group(frames, frames, items)
    assert got[0].jitter_frames == []
    expected = _scipy_jitter_frames(frames, shaky)
    assert len(expected) > 10, expected
    assert got[1].jitter_frames == expected


def test_lerp_method_shrinks_and_says_so():
    kq = _axis_quat([0, 0, 1], [0, 120])
    frames = np.arange(1, 31, dtype=float)
    bq = interp.interpolate([1, 30], kq, frames, "slerp")
    a = analysis.analyze_object("L", "QUATERNION", frames, bq, [1, 30], kq, "lerp")
    # 120 deg turn: 60 deg apart in 4D, chord cos(30 deg) mid-way (frame 15.5 is
    # between samples, so within 1e-3).
    assert a.custom_norm_min == pytest.approx(np.cos(np.radians(30)), abs=1e-3)
    assert any("not normalised" in f for f in a.findings)


@pytest.mark.parametrize("kwargs, words", [
    (dict(key_frames=[]), "no rotation keys"),
    (dict(method="spline"), "Method"),
    (dict(blender_quats=np.zeros((3, 4))), "norm"),
    (dict(frames=[1.0, 3.0, 2.0]), "increasing"),
])
def test_bad_input_raises_a_sentence(kwargs, words):
    args = dict(name="X", rotation_mode="QUATERNION", frames=[1.0, 2.0, 3.0],
                blender_quats=np.tile([1.0, 0, 0, 0], (3, 1)), key_frames=[1.0],
                key_quats=[[1.0, 0, 0, 0]], method="slerp")
    args.update(kwargs)
    if "key_frames" in kwargs:
        args["key_quats"] = np.zeros((0, 4))
    with pytest.raises(ValueError, match=words):
        analysis.analyze_object(**args)


def test_report_json_is_strict_and_has_the_contract_fields():
    kq = _axis_quat([0, 0, 1], [0, 40, 80])
    kq[1] *= -1.0
    a = _quat_object(np.array([1.0, 41.0, 81.0]), kq)
    report = json_report.build_report([a], blender_version="5.0.1", file="x.blend", method="slerp",
                                      errors=[("Empty", 'Object "Empty" has no rotation keys.')])
    text = json_report.dumps(report)
    back = validate_report(json.loads(text))
    assert back["schema"] == "quatbake.report/1"
    (obj,) = back["objects"]
    assert obj["frames"] == [1, 81] and obj["keys"] == [1, 41, 81]
    assert obj["long_arc_segments"] == [[1, 41], [41, 81]]
    assert set(obj["per_frame"]) >= {"frame", "deviation_deg", "blender_speed_deg", "custom_speed_deg"}
    assert len(obj["per_frame"]["deviation_deg"]) == 81
    assert obj["max_deviation_deg"] == pytest.approx(max(obj["per_frame"]["deviation_deg"]), abs=1e-6)
    assert back["errors"][0]["object"] == "Empty"
    assert "NaN" not in text and "Infinity" not in text
    # NaN anywhere becomes null, never invalid JSON.
    assert json.loads(json_report.dumps({"x": [float("nan"), np.float64(np.inf), 1.5]})) == {
        "x": [None, None, 1.5]}


def test_steps_count_no_deviation_and_get_no_advice():
    keys = np.array([1.0, 11.0, 21.0, 31.0])
    kq = _axis_quat([0, 0, 1], [0, 75, -40, 10])
    frames = np.arange(1.0, 32.0)
    held = kq[np.searchsorted(keys, frames, side="right") - 1]       # CONSTANT keys
    for method in ("slerp", "squad"):
        a = analysis.analyze_object("Step", "QUATERNION", frames, held, keys, kq, method,
                                    raw_values=held, stepped=[True, True, True])
        assert [iv["kind"] for iv in a.intervals] == ["step"] * 3
        assert a.max_deviation_deg < 1e-9 and a.max_path_deviation_deg < 1e-9
        assert a.findings == [] and "nothing to do" in a.advice


def test_euler_channels_off_the_arc_are_a_path_defect_and_the_advice_says_so():
    key_frames = np.array([1.0, 31.0])
    key_raw = np.radians([[0, 0, 0], [90, 60, 0]])
    frames = np.arange(1, 32, dtype=float)
    raw = _linear_channels(key_frames, key_raw, frames)
    a = analysis.analyze_object("Wobble", "XYZ", frames, rotation.euler_to_quat(raw, "XYZ"),
                                key_frames, rotation.euler_to_quat(key_raw, "XYZ"), "slerp",
                                raw_values=raw, key_raw=key_raw)
    assert a.kinds == ["short"]
    # Two channels turning together leave the single slerp arc (a few degrees).
    assert a.max_path_deviation_deg > 1.0
    assert "off the slerp path (the Euler channels" in a.advice


def _steps_to_angles(steps):
    return np.concatenate([[0.0], np.cumsum(steps)])


def test_filter_signature_needs_decay_and_a_held_target_not_a_slowdown():
    """Issue 12: mocap joints slowing from 3.7 to 3.0 deg/frame (and speeding up again)
    were flagged as lerp-as-a-filter. Only a constant fraction of the remaining
    rotation over many steps, ending short of a held target, counts."""
    def runs(steps):
        angles = _steps_to_angles(steps)
        return pitfalls.exponential_approach(np.arange(1.0, angles.size + 1),
                                             _axis_quat([0, 0, 1], angles))

    slowdown = [3.7 * 0.95 ** k for k in range(5)]                  # 3.7 -> 3.0 deg/frame
    assert runs([4.0] * 5 + slowdown + [3.2, 3.6, 3.9, 4.0]) == []  # then speeds up again
    assert runs([4.0] * 5 + slowdown) == []                         # ends: decayed to 0.81 only
    picks_up = [8.0 * 0.8 ** k for k in range(10)] + [5.0, 5.0, 5.0]
    assert runs(picks_up) == []                                     # no held target
    filtered = [8.0 * 0.8 ** k for k in range(10)]
    (run,) = runs([2.0, 2.0] + filtered + [0.0] * 6)                # then held still
    assert run["frames"] == [3.0, 13.0]
    assert run["ratio"] == pytest.approx(0.8, abs=1e-9)
    assert run["remaining_deg"] == pytest.approx(filtered[-1] * 0.8 / 0.2, rel=1e-9)
    assert len(runs(filtered)) == 1                                 # or the keys end first
    assert runs(filtered[:4]) == []                                 # too few steps


def test_a_spin_between_neighbouring_keys_is_a_long_arc_with_in_between_samples():
    """Two keys one frame apart, an Euler channel wrapping 179.95 -> -179.95 deg: at the
    whole frames Blender's orientation barely moves (0.1 deg), but in between it spins
    the long way. The in-between samples (extra_frames) make the interval a long arc."""
    keys = np.array([1.0, 2.0, 3.0])
    key_raw = np.radians([[0.0, 0.0, 179.0], [0.0, 0.0, 179.95], [0.0, 0.0, -179.95]])
    kq = rotation.euler_to_quat(key_raw, "XYZ")
    plain = analysis.analyze_object("Joint", "XYZ", keys, kq, keys, kq, raw_values=key_raw,
                                    key_raw=key_raw)
    assert plain.long_arc_segments == []                            # invisible at frames
    assert [w["frames"] for w in plain.euler_wraps] == [[2.0, 3.0]]
    sub = 2.0 + np.arange(1, 16) / 16.0
    # Blender's LINEAR channels between the keys, composed as Euler XYZ: the spin.
    sub_raw = _linear_channels(keys, key_raw, sub)
    a = analysis.analyze_object("Joint", "XYZ", keys, kq, keys, kq, raw_values=key_raw,
                                key_raw=key_raw, extra_frames=sub,
                                extra_quats=rotation.euler_to_quat(sub_raw, "XYZ"))
    assert a.long_arc_segments == [[2.0, 3.0]]
    assert a.intervals[1]["blender_turn_deg"] == pytest.approx(359.9, abs=1e-6)
    assert a.frames.size == 3                                      # per-frame arrays: frames
    assert any("long way" in f for f in a.findings)


def test_the_panel_gets_the_first_clause_of_long_advice():
    # Issue 24: advice boxes ran to 13 lines. The sidebar's default width shows ~32
    # characters a line; four lines are ~130.
    long = ("keys 1-59 creep towards a target and stop 8.0 deg short (by 8% of what is left "
            "per step: lerp(current, target, dt) used as a filter): key the start and the end "
            "and interpolate once")
    assert findings.brief(long) == ("keys 1-59 creep towards a target and stop 8.0 deg short: "
                                    "key the start and the end and interpolate once")
    timing = ("Blender stays within 0.00 deg of the slerp path; the 6.76 deg difference at "
              "frame 46 is timing only (the keys' ease in and out): re-bake with Timing: Keyed "
              "to keep that timing, or Timing: Even for constant speed")
    assert findings.brief(timing) == ("the 6.76 deg difference at frame 46 is timing only: "
                                      "re-bake with Timing: Keyed to keep that timing")


def test_a_bake_with_the_compared_method_is_never_advised_again():
    # A 170 -> -170 Euler wrap: the long way, "re-bake with SLERP" until a SLERP bake
    # replaced these keys.
    frames = np.arange(1.0, 41.0)
    raw = np.zeros((frames.size, 3))
    raw[:, 2] = np.radians(np.interp(frames, [1.0, 40.0], [170.0, -170.0]))
    bq = rotation.euler_to_quat(raw, "XYZ")
    keys = np.array([1.0, 40.0])
    a = analysis.analyze_object("Wrap", "XYZ", frames, bq, keys, bq[[0, -1]],
                                raw_values=raw, key_raw=raw[[0, -1]])
    assert any("re-bake with SLERP" in f for f in a.findings)
    analysis.set_bake(a, "before", "slerp")
    assert not any("re-bake with SLERP" in f for f in a.findings), a.findings
    assert findings.verdict(a) == findings.VERDICT_LONG_WAY     # what the keys were


@pytest.mark.parametrize("method", interp.METHODS)
@pytest.mark.parametrize("turns_setting,timing", [("AUTO", "EVEN"), ("KEYED", "KEYED"),
                                                   ("SHORTEST", "EVEN")])
def test_on_keys_only_the_path_is_the_keys_as_computed_in_full(method, turns_setting, timing):
    """A dense bake's analysis (every frame a key) takes the keys as the method's path:
    checked against scipy's slerp of the keys at the same frames and against the path
    analyze_group builds in full, with a wrap (a whole turn kept by Keyed) and a step."""
    from scipy.spatial.transform import Rotation, Slerp

    from quatbake.core import turns

    frames = np.arange(1.0, 41.0)
    rng = np.random.default_rng(7)
    angles = np.cumsum(rng.uniform(-20.0, 20.0, (frames.size, 3)), axis=0)
    angles[20:, 2] += 360.0                         # a wrap between frames 20 and 21
    raw = np.radians(angles)
    q = rotation.euler_to_quat(raw, "XYZ")
    stepped = np.zeros(frames.size - 1, dtype=bool)
    stepped[30] = True
    a = analysis.analyze_object("Baked", "XYZ", frames, q, frames, q, method, raw_values=raw,
                                key_raw=raw, turns_setting=turns_setting, timing=timing,
                                stepped=stepped)
    scipy_path = Slerp(frames, Rotation.from_quat(q[:, [1, 2, 3, 0]]))(frames).as_quat()
    assert np.degrees(quat.angle_between(a.custom_quats, scipy_path[:, [3, 0, 1, 2]])).max() \
        < 1e-6
    unit = quat.normalize(q)[None]
    tracking = analysis._track_group(frames, unit, frames, unit, [analysis.Sampled(
        "Baked", "XYZ", q, q, raw, raw, stepped=stepped)])
    kinds = [turns.classify("XYZ", raw, tracking[0].differs, stepped)]
    for t in (timing, "KEYED"):
        full = analysis._method_paths(frames, unit, tracking, kinds, turns_setting, method,
                                      frames, t, unit)[0]
        assert np.degrees(quat.angle_between(a.custom_quats, full)).max() < 1e-6
    assert a.max_timing_deviation_deg == 0.0
    assert a.max_path_deviation_deg == a.max_deviation_deg < 1e-6


def _about_z(deg) -> np.ndarray:
    half = np.radians(np.asarray(deg, dtype=np.float64)) / 2.0
    return np.stack([np.cos(half), np.zeros_like(half), np.zeros_like(half), np.sin(half)],
                    axis=-1)


def test_between_frames_the_deviation_is_measured_at_the_transforms_own_subframes():
    """Blender's orientation at subframes against the method there: scipy's slerp of the
    keys. A group's union of subframes (a neighbour's jumps) is not measured for it."""
    from scipy.spatial.transform import Rotation, Slerp

    keys = np.array([1.0, 2.0, 11.0])
    key_deg = np.array([0.0, 40.0, 130.0])
    frames = np.arange(1.0, 12.0)
    extra = np.array([1.5, 10.5])
    slerp = Slerp(keys, Rotation.from_quat(_about_z(key_deg)[:, [1, 2, 3, 0]]))

    def expected(t):
        return slerp(t).as_quat()[..., [3, 0, 1, 2]]

    # Blender 30 deg past the slerp half-way through its own jump, 80 deg at 10.5.
    blender_extra = _about_z(np.array([20.0 + 30.0, 125.0 + 80.0]))
    item = analysis.Sampled("A", "QUATERNION", expected(frames), _about_z(key_deg),
                            extra_frames=extra, extra_quats=blender_extra)
    alone = analysis.analyze_group(frames, keys, [item])[0]
    np.testing.assert_allclose(np.degrees(quat.angle_between(expected(extra), blender_extra)),
                               [30.0, 80.0], atol=1e-9)       # the scene as meant
    assert abs(alone.max_between_deviation_deg - 80.0) < 1e-9
    assert alone.worst_between_frame == 10.5
    item.own_extra_frames = np.array([1.5])      # 10.5 is a neighbour's jump
    own = analysis.analyze_group(frames, keys, [item])[0]
    assert abs(own.max_between_deviation_deg - 30.0) < 1e-9 and own.worst_between_frame == 1.5
    assert own.max_deviation_deg < 1e-9       # at whole frames Blender plays the slerp
    nothing = analysis.analyze_group(frames, keys, [analysis.Sampled(
        "B", "QUATERNION", expected(frames), _about_z(key_deg))])[0]
    assert nothing.max_between_deviation_deg == 0.0 and nothing.worst_between_frame is None
    # The advice: a Key Tolerance bake, unless it was that bake (a tolerance walk: after a
    # Bezier bake of a capture, whose keys overshoot between the quarter frames it holds,
    # the report advised the very bake).
    near = analysis.analyze_group(frames, keys, [analysis.Sampled(
        "C", "QUATERNION", expected(frames), _about_z(key_deg), extra_frames=extra[:1],
        extra_quats=blender_extra[:1])])[0]
    assert near.long_arc_segments == [] and near.max_between_deviation_deg > 29.0
    assert "bake with a Key Tolerance and Keys: Bezier" in near.advice, near.advice
    # A review: after Linear keys of a Key Tolerance bake (held at whole frames), Keys:
    # Bezier is the fix; after Bezier ones, nothing QuatBake bakes holds more.
    analysis.set_bake(near, "after", "slerp", tolerance_deg=0.05, keys=3,
                      interpolation="LINEAR")
    assert "bake with a Key Tolerance and Keys: Bezier" in near.advice, near.advice
    analysis.set_bake(near, "after", "slerp", tolerance_deg=0.05, keys=3,
                      interpolation="BEZIER")
    said = " ".join(near.findings)
    assert "the Bezier keys of its Key Tolerance bake, held at every quarter frame, stray " \
        "between them" in said and "Keys: Bezier" not in said, said


SIXTEENTHS = 1.0 + np.arange(1, 16) / 16.0


def _between(mode, key_raw, extra_deg, turns="AUTO", timing="EVEN", stepped=None):
    """max_between_deviation_deg of one interval, frames 1 and 2, Blender playing
    ``extra_deg`` about Z at SIXTEENTHS (its keys: ``key_raw`` Euler about Z, deg)."""
    key_raw = np.radians(np.array([[0.0, 0.0, z] for z in key_raw]))
    keys = np.array([1.0, 2.0])
    at_keys = rotation.euler_to_quat(key_raw, mode)
    item = analysis.Sampled("A", mode, at_keys, at_keys, raw_values=key_raw, key_raw=key_raw,
                            extra_frames=SIXTEENTHS, extra_quats=_about_z(extra_deg),
                            stepped=stepped)
    return analysis.analyze_group(keys, keys, [item], "slerp", turns, timing)[0]


def test_between_frames_a_kept_spin_is_not_a_deviation_and_a_short_bake_of_it_is():
    """Keys 0 -> 360 deg about Z one frame apart, played as keyed: Turns Auto keeps the
    spin (no deviation between the frames), Shortest bakes it still (180 deg half-way)."""
    spin = 360.0 * (SIXTEENTHS - 1.0)
    kept = _between('XYZ', [0.0, 360.0], spin)
    assert kept.max_between_deviation_deg < 1e-6, kept.max_between_deviation_deg
    short = _between('XYZ', [0.0, 360.0], spin, turns="SHORTEST")
    assert abs(short.max_between_deviation_deg - 180.0) < 1e-6
    assert short.worst_between_frame == 1.5


def test_between_frames_a_step_holds_and_keyed_timing_follows_blenders():
    # CONSTANT: Blender holds the first key until the next frame; so does the method.
    held = _between('XYZ', [0.0, 90.0], np.zeros(SIXTEENTHS.size), stepped=np.array([True]))
    assert held.max_between_deviation_deg < 1e-9
    moving = _between('XYZ', [0.0, 90.0], np.zeros(SIXTEENTHS.size))
    # Not stepped, the method turns where Blender holds: scipy's slerp at the worst sample.
    from scipy.spatial.transform import Rotation, Slerp

    slerp = Slerp([1.0, 2.0], Rotation.from_euler("z", [[0.0], [90.0]], degrees=True))
    expected = np.degrees(slerp(SIXTEENTHS).magnitude()).max()
    assert abs(moving.max_between_deviation_deg - expected) < 1e-9
    # An eased turn (90 t^2 deg): 22.5 deg off an even slerp half-way, nothing with
    # Blender's own timing.
    t = SIXTEENTHS - 1.0
    eased = 90.0 * t ** 2
    even = _between('XYZ', [0.0, 90.0], eased)
    assert abs(even.max_between_deviation_deg - 22.5) < 1e-9 and even.worst_between_frame == 1.5
    keyed = _between('XYZ', [0.0, 90.0], eased, timing="KEYED")
    assert keyed.max_between_deviation_deg < 1e-6, keyed.max_between_deviation_deg


def test_squad_is_asked_for_only_where_its_own_path_jumps_less_than_blenders():
    """Squad is smooth in its parameter, not in frames: between unevenly spaced keys its
    path's angular velocity jumps at a key too. Blender playing linear channels jumps
    more there, which Squad would smooth; Blender playing the Squad path itself (a Squad
    bake) jumps as much as Squad does, and Squad is not asked for again."""
    from scipy.spatial.transform import Rotation

    keys = np.array([1.0, 31.0, 37.0, 61.0])
    kq = quat.normalize(np.array([_axis_quat([0, 0, 1], 0.0), _axis_quat([1, 0, 1], 90.0),
                                  _axis_quat([0, 1, 1], 120.0), _axis_quat([1, 1, 0], 200.0)]))
    frames = np.arange(1, 62, dtype=float)
    path = interp.interpolate(keys, kq, frames, "squad")
    # Independently (scipy): the path's per-frame turn changes at key 31 by more than
    # 1 deg/frame, a lower bound of its angular velocity jump there.
    r = Rotation.from_quat(path[:, [1, 2, 3, 0]])
    steps = np.degrees((r[:-1].inv() * r[1:]).magnitude())
    assert abs(steps[30] - steps[29]) > 1.0, steps[28:32]
    baked = analysis.analyze_object("Obj", "QUATERNION", frames, path, keys, kq, "squad")
    assert not [f for f in baked.findings if "angular velocity jumps" in f], baked.findings
    linear = _quat_object(keys, kq, method="squad")
    found = [f for f in linear.findings if "angular velocity jumps" in f]
    assert found and "SQUAD" in found[0], linear.findings


def test_gimbal_lock_is_counted_in_frames_not_samples():
    """A walk: a cache camera sampled at quarter frames read "103 frames pass within 5 deg
    of gimbal lock" for 103 samples over 26 frames. The count is of whole frames, here
    from numpy's own test of the middle angle."""
    frames = np.arange(1.0, 11.0, 0.25)
    raw = np.radians(np.column_stack([np.zeros(frames.size), np.linspace(80.0, 95.0, frames.size),
                                      np.zeros(frames.size)]))
    quats = rotation.euler_to_quat(raw, "XYZ")
    key_frames = frames[[0, -1]]
    a = analysis.analyze_object("Cam", "XYZ", frames, quats, key_frames, quats[[0, -1]],
                                "slerp", raw_values=raw, key_raw=raw[[0, -1]])
    near = frames[np.abs(np.degrees(raw[:, 1]) - 90.0) < 5.0]
    expected = np.unique(np.floor(near)).size
    said = [f for f in a.findings if "gimbal lock" in f]
    assert said and said[0].startswith(f"{expected} frames pass within 5 deg"), said
    assert expected < near.size


def test_one_frame_near_gimbal_lock_is_said_in_the_singular():
    """A report walk: "1 frame pass within 5 deg of gimbal lock". One whole frame within
    the margin (numpy's own test of the middle angle) passes; the verb agrees."""
    frames = np.arange(1.0, 22.0)
    middle = np.r_[np.linspace(60.0, 86.0, 11), np.linspace(80.0, 60.0, 10)]
    raw = np.radians(np.column_stack([np.zeros(frames.size), middle, np.zeros(frames.size)]))
    quats = rotation.euler_to_quat(raw, "XYZ")
    a = analysis.analyze_object("Cam", "XYZ", frames, quats, frames[[0, -1]], quats[[0, -1]],
                                "slerp", raw_values=raw, key_raw=raw[[0, -1]])
    assert (np.abs(middle - 90.0) < 5.0).sum() == 1
    said = [f for f in a.findings if "gimbal lock" in f]
    assert said and said[0].startswith("1 frame passes within 5 deg"), said


def test_an_axis_reversal_is_named_only_for_the_interval_it_is_in():
    """A review: a small axis reversal at keys 1-3 was named as the cause of a deviation at
    keys 21-41. Blender's playback of axis-angle keys made independently (each channel
    interpolated linearly, the axis normalised, scipy's rotation vectors)."""
    from scipy.spatial.transform import Rotation

    keys = np.array([1.0, 3.0, 21.0, 41.0])
    raw = np.array([[0.05, 0.0, 0.0, 1.0], [0.05, 0.0, 0.0, -1.0],       # reversed, tiny
                    [0.3, 0.0, 0.0, -1.0], [2.6, 1.0, 0.0, 0.0]])        # a far swing
    frames = np.arange(1.0, 42.0)
    channels = np.column_stack([np.interp(frames, keys, raw[:, c]) for c in range(4)])
    lengths = np.linalg.norm(channels[:, 1:], axis=1)
    vectors = channels[:, :1] * channels[:, 1:] / np.where(lengths > 0, lengths, 1.0)[:, None]
    played = Rotation.from_rotvec(vectors).as_quat()[:, [3, 0, 1, 2]]
    at_keys = played[np.searchsorted(frames, keys)]
    a = analysis.analyze_object("Axis", "AXIS_ANGLE", frames, played, keys, at_keys, "slerp",
                                key_raw=raw)
    assert 21.0 < a.worst_frame < 41.0
    assert [r["frames"] for r in a.axis_reversals] == [[1.0, 3.0]]
    said = " ".join(a.findings)
    assert "axis turns" not in said and "bend off the arc" in said, said


def test_far_intervals_are_the_long_way_in_each_mode():
    """The intervals Blender's channels turn the long way (or through no rotation), key by
    key, in each mode: known answers built with scipy, one far and one near interval each."""
    from scipy.spatial.transform import Rotation

    q = Rotation.from_euler("xyz", [[10, 20, 30], [15, 25, 35], [20, 30, 40]], degrees=True)
    wxyz = q.as_quat()[:, [3, 0, 1, 2]]
    wxyz[2] *= -1.0                                   # the same rotation, its sign flipped
    assert pitfalls.far_intervals("QUATERNION", wxyz).tolist() == [False, True]
    euler = np.radians([[0, 0, 170], [0, 0, -170], [0, 0, -150]])  # a wrap, then 20 deg
    assert pitfalls.far_intervals("XYZ", euler).tolist() == [True, False]
    # 40 deg about +Z, -50 deg about -Z (the same side, the axis reversed), then 60 about -Z.
    axis_angle = np.array([[np.radians(40), 0, 0, 1], [np.radians(-50), 0, 0, -1],
                           [np.radians(60), 0, 0, -1]])
    assert pitfalls.far_intervals("AXIS_ANGLE", axis_angle).tolist() == [True, False]
    assert pitfalls.far_intervals("AXIS_ANGLE", [[0, 0, 0, 1], [3.5, 0, 0, 1]]).tolist() == [True]


@pytest.mark.parametrize("timing", ["EVEN", "KEYED"])
@pytest.mark.parametrize("turns_setting", ["AUTO", "KEYED"])
def test_the_turns_are_followed_at_their_own_subframes_and_find_the_same(turns_setting,
                                                                          timing):
    """Mocap keyed every frame, sampled at sixteenths of every interval (where the stray
    bound sends the report) and with a wrap between frames 3 and 4: the keyed turns
    followed at the wrap's subframes alone (turn_extra_frames, a capture's report 16 times
    fewer samples to track) find what following them at every sixteenth finds, and every
    figure of the analysis is the same, bit for bit: the turn at the keys and the deviation
    between the frames are still measured at every sixteenth."""
    keys = np.arange(1.0, 7.0)
    key_raw = np.radians([[0.0, 10.0, 170.0], [12.0, 25.0, 176.0], [20.0, 31.0, 179.95],
                          [31.0, 40.0, -179.95], [38.0, 52.0, -172.0], [50.0, 60.0, -165.0]])
    kq = rotation.euler_to_quat(key_raw, "ZYX")
    every = np.concatenate([k + np.arange(1, 16) / 16.0 for k in keys[:-1]])
    wrap = 3.0 + np.arange(1, 16) / 16.0
    extra_quats = rotation.euler_to_quat(_linear_channels(keys, key_raw, every), "ZYX")

    def item(turn_extra):
        return analysis.Sampled("Knee", "ZYX", kq, kq, raw_values=key_raw, key_raw=key_raw,
                                extra_frames=every, extra_quats=extra_quats,
                                turn_extra_frames=turn_extra)

    def analysed(turn_extra):
        return analysis.analyze_group(keys, keys, [item(turn_extra)], "slerp", turns_setting,
                                      timing)[0]

    def figures(a):
        return (list(a.intervals), a.long_arc_segments, a.kinds, a.findings, a.advice,
                a.max_between_deviation_deg, a.worst_between_frame, a.max_deviation_deg,
                a.max_path_deviation_deg, a.max_timing_deviation_deg, a.euler_wraps)

    everywhere, at_the_wrap = analysed(None), analysed(wrap)
    assert everywhere.long_arc_segments == [[3.0, 4.0]] or turns_setting == "KEYED"
    assert everywhere.max_between_deviation_deg > 0.1        # the channels bow in between
    assert figures(at_the_wrap) == figures(everywhere)
    # Timing: Keyed travels the path at every sixteenth with the playback's progress there:
    # followed at all of them.
    unit = quat.normalize(kq)[None]
    (tracked,) = analysis._track_group(keys, unit, keys, unit, [item(wrap)], timing)
    np.testing.assert_array_equal(tracked.sample_times,
                                  np.union1d(keys, wrap if timing == "EVEN" else every))


def test_members_of_a_group_with_their_own_subframes_are_each_measured_as_alone():
    """A capture's bones are sampled at the union of their subframes and each measured at
    its own only (those with the same together): each one's figure and subframe as its
    analysis alone gives them, bit for bit, whoever is beside it."""
    keys = np.arange(1.0, 6.0)
    rng = np.random.default_rng(11)
    union = np.concatenate([k + np.arange(1, 16) / 16.0 for k in keys[:-1]])
    owns = [union[:15], union[15:45], union[:15], union, union[45:]]
    items = []
    for n, own in enumerate(owns):
        key_raw = np.cumsum(rng.uniform(-0.3, 0.3, (keys.size, 3)), axis=0)
        kq = rotation.euler_to_quat(key_raw, "XYZ")
        eq = rotation.euler_to_quat(_linear_channels(keys, key_raw, union), "XYZ")
        items.append(analysis.Sampled(f"Bone{n}", "XYZ", kq, kq, raw_values=key_raw,
                                      key_raw=key_raw, extra_frames=union, extra_quats=eq,
                                      own_extra_frames=own))
    together = analysis.analyze_group(keys, keys, items)
    for item, own, a in zip(items, owns, together):
        alone = analysis.analyze_group(keys, keys, [item])[0]
        # Measured apart (its own subframes against the group's): within 1e-9 deg.
        assert a.max_between_deviation_deg == pytest.approx(alone.max_between_deviation_deg,
                                                            rel=0, abs=1e-9)
        assert a.worst_between_frame == alone.worst_between_frame
        assert a.worst_between_frame in own and a.max_between_deviation_deg > 0.0
