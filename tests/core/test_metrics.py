"""Report metrics (quatbake.core.metrics) against known answers."""
import numpy as np
import pytest

from quatbake.core import metrics, pitfalls, quat, rotation

DEG = np.pi / 180.0
# Angles built from a few trig calls on float64: exact to ~1e-15 rad.
TIGHT = 1e-12


def spin(axis, rate, times, start=(1.0, 0.0, 0.0, 0.0)):
    """Unit quaternions turning at `rate` rad/frame about the world `axis`."""
    axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    turn = quat.exp(np.outer(np.asarray(times) * rate / 2.0, axis))
    return quat.multiply(turn, np.asarray(start, dtype=float))


def blender_linear_channels(key_times, key_values, frames):
    """What Blender does with LINEAR quaternion channels: each component on its
    own (then normalised for the matrix)."""
    return np.stack([np.interp(frames, key_times, key_values[:, c]) for c in range(4)], axis=1)


def test_angular_speed_is_sign_agnostic_and_starts_at_zero():
    frames = np.arange(10.0)
    q = spin([0, 0, 1], 2.0 * DEG, frames)
    q[3] *= -1.0
    q[7] *= -1.0
    before = q.copy()
    speed = metrics.angular_speed(q)
    assert speed[0] == 0.0
    assert np.abs(speed[1:] - 2.0 * DEG).max() < TIGHT
    assert np.array_equal(q, before)


def test_deviation_is_geodesic_and_sign_agnostic():
    a = np.tile([1.0, 0.0, 0.0, 0.0], (3, 1))
    b = np.array([spin([1, 1, 0], 30.0 * DEG, [1.0])[0], -spin([0, 0, 1], 179.0 * DEG, [1.0])[0], [2.0, 0, 0, 0]])
    assert np.allclose(metrics.deviation(a, b), [30.0 * DEG, 179.0 * DEG, 0.0], atol=TIGHT)
    with pytest.raises(ValueError, match="differ in shape"):
        metrics.deviation(a, b[:2])
    with pytest.raises(ValueError, match="key 1"):
        metrics.deviation(a, np.array([[1.0, 0, 0, 0], [0.0, 0, 0, 0], [1.0, 0, 0, 0]]))


def test_angular_velocity_world_and_body():
    times = np.array([0.0, 1.0, 3.0, 3.5, 6.0])  # uneven steps: rad per frame still
    start = rotation.euler_to_quat([0.0, 0.0, np.pi / 2.0], "XYZ")  # 90 deg about Z
    body_axis = np.array([1.0, 0.0, 0.0])
    # Spin about the object's own X axis: world X rotated 90 deg about Z = world Y.
    q = quat.multiply(start, quat.exp(np.outer(times * 0.1 / 2.0, body_axis)))
    assert np.allclose(metrics.angular_velocity(times, q, "body"), [0.1, 0.0, 0.0], atol=TIGHT)
    assert np.allclose(metrics.angular_velocity(times, q, "world"), [0.0, 0.1, 0.0], atol=TIGHT)
    # The short way even when a sample's sign flips.
    q[2] *= -1.0
    assert np.allclose(metrics.angular_velocity(times, q), [0.0, 0.1, 0.0], atol=TIGHT)
    with pytest.raises(ValueError, match="strictly increasing"):
        metrics.angular_velocity([0.0, 1.0, 1.0, 2.0, 3.0], q)
    with pytest.raises(ValueError, match="one per time"):
        metrics.angular_velocity(times[:4], q)


def test_a_sample_step_too_short_for_a_velocity_is_refused_by_name():
    # The CI's fuzz case: 5e-324 frames between two samples overflowed the velocity.
    q = np.array([[0.18651688, -0.19597346, 0.9500471, 0.15561606],
                  [-0.18651588, 0.19597446, -0.9500461, -0.15561506]])
    with pytest.raises(ValueError, match=r"frames 0.0 and 5e-324 are only 4.94066e-324 frames apart; .* at least 1e-09 frames"):
        metrics.angular_velocity([0.0, 5e-324], q)
    frames = np.array([0.0, 1.0, 1.0 + 1e-10, 2.0, 3.0])
    track = spin([0, 0, 1], 1.0 * DEG, frames)
    with pytest.raises(ValueError, match="frames 1.0 and 1.0000000001 are only 1e-10 frames apart"):
        metrics.velocity_jumps(frames, track, [0.0, 1.0, 3.0])
    # velocity_jumps measures only the steps beside its keys: the short step is named by
    # its frames, not by where it sits among the steps measured.
    frames = np.array([0.0, 1.0, 2.0, 3.0, 3.0 + 1e-10, 4.0])
    track = spin([0, 0, 1], 1.0 * DEG, frames)
    with pytest.raises(ValueError, match=r"frames 3\.0 and 3\.0000000001 are only 1e-10"):
        metrics.velocity_jumps(frames, track, [0.0, 3.0, 4.0])
    with pytest.raises(ValueError, match="frames 0.0 and 5e-324 are only"):
        metrics.speed_unevenness([0.0, 5e-324], [0.0, 3.3e-6], [0.0, 5e-324])
    # At the limit itself the velocity is measured, and finite.
    assert np.isfinite(metrics.angular_velocity([0.0, metrics.MIN_VELOCITY_STEP], q)).all()


def test_velocity_jumps_measure_the_kink_at_a_key():
    frames = np.arange(0.0, 21.0)
    first = spin([0, 0, 1], 1.0 * DEG, frames[:11])
    second = spin([1, 0, 0], 2.0 * DEG, frames[1:11], start=first[-1])
    q = np.concatenate((first, second))
    jumps = metrics.velocity_jumps(frames, q, [0.0, 10.0, 20.0])
    assert jumps[0] == 0.0 and jumps[2] == 0.0
    assert jumps[1] == pytest.approx(np.hypot(1.0, 2.0) * DEG, abs=TIGHT)
    # A steady spin has no jump, at a key on a sample or between two samples.
    steady = spin([0, 1, 1], 3.0 * DEG, frames)
    assert np.abs(metrics.velocity_jumps(frames, steady, [0.0, 4.0, 9.5, 20.0])).max() < TIGHT


def test_speed_unevenness_zero_for_slerp_positive_for_blender_linear():
    keys = np.array([0.0, 20.0, 40.0, 60.0])
    key_q = np.array([[1.0, 0.0, 0.0, 0.0], spin([0, 0, 1], 170.0 * DEG, [1.0])[0], spin([0, 0, 1], 170.0 * DEG, [1.0])[0], [1.0, 0, 0, 0]])
    frames = np.arange(0.0, 61.0)
    # Slerp at constant speed on the first interval, still on the second, back on the third.
    slerp = np.concatenate((spin([0, 0, 1], 8.5 * DEG, frames[:21]), np.tile(key_q[1], (20, 1)), spin([0, 0, 1], -8.5 * DEG, frames[1:21], start=key_q[2])))
    cv = metrics.speed_unevenness(frames, metrics.angular_speed(slerp), keys)
    assert cv.shape == (3,)
    assert np.abs(cv).max() < 1e-9
    assert np.isfinite(cv).all() and cv[1] == 0.0  # the still interval: 0, not NaN
    # Blender's component-wise (n)lerp over 170 degrees speeds up mid-way:
    # the per-frame angle runs from ~6.0 (ends) to ~10.5 degrees (middle), CV ~0.18.
    raw = blender_linear_channels(keys, key_q, frames)
    speed = metrics.angular_speed(raw)
    assert speed[10] / speed[1] > 1.7
    cv = metrics.speed_unevenness(frames, speed, keys)
    assert cv[0] > 0.15 and cv[2] > 0.15 and cv[1] == 0.0


def test_norm_drift_of_a_raw_lerp():
    a = np.array([1.0, 0.0, 0.0, 0.0])
    b = spin([0, 0, 1], 90.0 * DEG, [1.0])[0]
    raw = blender_linear_channels(np.array([0.0, 2.0]), np.stack((a, b)), [0.0, 1.0, 2.0])
    # The midpoint of two unit quaternions 45 degrees apart in 4-D has length cos(22.5 deg).
    assert np.allclose(metrics.norm_drift(raw), [0.0, 1.0 - np.cos(22.5 * DEG), 0.0], atol=TIGHT)
    assert metrics.norm_drift([[0.0, 0.0, 0.0, 0.0]])[0] == 1.0
    with pytest.raises(ValueError, match="NaN"):
        metrics.norm_drift([[np.nan, 0.0, 0.0, 0.0]])


def test_float32_spacing_and_risk():
    assert metrics.float32_spacing(10_000.0) == pytest.approx(0.00098, abs=1e-5)
    assert metrics.float32_spacing(10_000.0) == 2.0**-10
    assert np.allclose(metrics.float32_spacing([1.0, -1.0, 0.0]), [2.0**-23, 2.0**-23, np.spacing(np.float32(0))])
    frames = np.arange(6.0)
    far = np.column_stack((10_000.0 + 0.0005 * frames, np.full(6, 5.0), np.zeros(6)))
    near = far - [10_000.0, 0.0, 0.0]
    risk = metrics.float32_risk(far)
    assert not risk[0] and risk[1:].all()
    assert not metrics.float32_risk(near).any()  # same motion at the origin is fine
    assert not metrics.float32_risk(np.tile([10_000.0, 0.0, 0.0], (4, 1))).any()  # standing still
    fast = far.copy()
    fast[:, 0] = 10_000.0 + 0.5 * frames
    assert not metrics.float32_risk(fast).any()


def test_float32_risk_matches_its_definition_near_and_far_from_the_origin():
    """Tracks at the origin and far from it, still or moving in float32's steps, each as
    the definition has it: a move above 0 and below the float32 spacing of the larger of
    its two coordinates, computed here from numpy's float32 np.spacing."""
    rng = np.random.default_rng(4)
    for scale, base in ((1e-3, 0.0), (1e-4, 1e4), (1.0, 1e4), (1e-6, 30.0), (0.0, 5.0)):
        p = base + np.cumsum(rng.normal(scale=scale, size=(300, 3)), axis=0)
        p[100:110] = p[99]                                     # standing still a while
        step = np.abs(np.diff(p, axis=0))
        spacing = np.spacing(np.maximum(np.abs(p[1:]), np.abs(p[:-1])).astype(np.float32))
        want = np.concatenate(([False], ((step > 0.0) & (step < spacing)).any(axis=1)))
        np.testing.assert_array_equal(metrics.float32_risk(p), want, err_msg=str((scale, base)))
    with pytest.raises(ValueError, match="float32"):
        metrics.float32_risk(np.array([[0.0, 0.0, 0.0], [1e39, 0.0, 0.0]]))


def test_long_arc_flipped_sign_key_is_listed_clean_turn_is_not():
    keys = np.array([1.0, 40.0, 120.0])
    key_q = np.stack((np.array([1.0, 0, 0, 0]), spin([0, 0, 1], 60.0 * DEG, [1.0])[0], spin([0, 0, 1], 100.0 * DEG, [1.0])[0]))
    frames = np.arange(1.0, 121.0)
    clean = blender_linear_channels(keys, key_q, frames)
    assert metrics.long_arc_segments(keys, frames, clean, key_q) == []
    flipped = key_q.copy()
    flipped[1] *= -1.0  # same orientation, but the channels now run the long way
    raw = blender_linear_channels(keys, flipped, frames)
    assert metrics.long_arc_segments(keys, frames, raw, flipped) == [(1.0, 40.0), (40.0, 120.0)]


def test_long_arc_euler_wrap_is_listed_and_a_continued_turn_is_not():
    keys = np.array([0.0, 30.0])
    frames = np.arange(0.0, 31.0)
    for end_deg, expected in ((-170.0, [(0.0, 30.0)]), (190.0, [])):
        z = np.interp(frames, keys, [170.0 * DEG, end_deg * DEG])
        track = rotation.euler_to_quat(np.column_stack((np.zeros(31), np.zeros(31), z)), "XYZ")
        key_q = track[[0, -1]]
        assert metrics.long_arc_segments(keys, frames, track, key_q) == expected


def test_long_arc_tolerance_for_a_legitimate_half_turn():
    # Exactly 180 deg turned the only way possible is not "long" (not > 180).
    keys = np.array([0.0, 10.0])
    frames = np.arange(0.0, 11.0)
    track = spin([0, 1, 0], 18.0 * DEG, frames)
    assert metrics.long_arc_segments(keys, frames, track, track[[0, -1]]) == []
    # 200 deg turned where the keys are 160 deg apart the short way: long.
    track = spin([0, 1, 0], 20.0 * DEG, frames)
    assert metrics.long_arc_segments(keys, frames, track, track[[0, -1]]) == [(0.0, 10.0)]


def test_euler_wraps():
    keys = [1.0, 20.0, 40.0, 60.0]
    e = np.radians([[0.0, 10.0, 170.0], [0.0, 10.0, -170.0], [0.0, 10.0, -150.0], [200.0, 10.0, -150.0]])
    wraps = metrics.euler_wraps(keys, e)
    assert [w[:3] for w in wraps] == [(1.0, 20.0, 2), (40.0, 60.0, 0)]
    assert wraps[0][3] == pytest.approx(-340.0 * DEG)
    assert wraps[1][3] == pytest.approx(200.0 * DEG)
    assert metrics.euler_wraps(keys[:2], np.radians([[0.0, 0.0, 170.0], [0.0, 0.0, 190.0]])) == []
    with pytest.raises(ValueError, match="one per key"):
        metrics.euler_wraps(keys, e[:3])


def test_gimbal_proximity_uses_the_orders_middle_axis():
    y = np.array([0.0, 80.0, 86.0, 90.0, 94.0, -88.0, 270.0, 180.0, 449.0])
    e = np.column_stack((np.zeros_like(y), np.radians(y), np.zeros_like(y)))
    expected = [False, False, True, True, True, True, True, False, True]
    assert metrics.gimbal_proximity(e, "XYZ").tolist() == expected
    assert metrics.gimbal_proximity(e, "ZYX").tolist() == expected
    # For ZXY the middle axis is X: a Y angle of 90 is harmless there.
    assert not metrics.gimbal_proximity(e, "ZXY").any()
    assert metrics.gimbal_proximity(e[:, [1, 0, 2]], "ZXY").tolist() == expected
    assert metrics.gimbal_proximity(e, "XYZ", threshold_deg=1.0).tolist() == [False, False, False, True, False, False, True, False, True]
    with pytest.raises(ValueError, match="Euler order"):
        metrics.gimbal_proximity(e, "QUATERNION")


def test_bad_input_sentences():
    with pytest.raises(ValueError, match="one per sample"):
        metrics.speed_unevenness([0.0, 1.0, 2.0], [0.0, 1.0], [0.0, 2.0])
    with pytest.raises(ValueError, match="key_times must be strictly increasing"):
        metrics.velocity_jumps([0.0, 1.0, 2.0], np.tile([1.0, 0, 0, 0], (3, 1)), [0.0, 2.0, 1.0])
    with pytest.raises(ValueError, match=r"shape \(n, 3\)"):
        metrics.float32_risk(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="tolerance_deg"):
        metrics.long_arc_segments([0.0, 1.0], [0.0, 1.0], np.tile([1.0, 0, 0, 0], (2, 1)), np.tile([1.0, 0, 0, 0], (2, 1)), -1.0)


def test_velocity_jumps_on_keys_at_every_frame_match_scipy():
    """A dense bake's group: keys on every frame, so every step is measured (the steps
    are taken as views, and ``unit`` skips the normalising copy). Oracle: scipy's
    rotation vector of each step, R(i+1) R(i)^-1, differenced across each key."""
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(3)
    frames = np.arange(1.0, 41.0)
    rotvec = np.cumsum(rng.normal(scale=0.2, size=(3, frames.size, 3)), axis=1)
    xyzw = np.stack([Rotation.from_rotvec(r).as_quat() for r in rotvec])
    q = np.concatenate((xyzw[..., 3:], xyzw[..., :3]), axis=-1)       # (w, x, y, z)
    q[:, ::3] *= -1.0                                                  # either sign
    expected = np.zeros((3, frames.size))
    for b in range(3):
        r = Rotation.from_rotvec(rotvec[b])
        w = (r[1:] * r[:-1].inv()).as_rotvec()                          # per frame
        expected[b, 1:-1] = np.linalg.norm(w[1:] - w[:-1], axis=1)
    np.testing.assert_allclose(metrics.velocity_jumps(frames, q, frames, unit=True), expected,
                               atol=1e-12)
    np.testing.assert_allclose(metrics.velocity_jumps(frames, 3.0 * q, frames), expected,
                               atol=1e-12)
    _, jumps = pitfalls.velocity_jumps(frames, frames, q, unit=True)
    np.testing.assert_allclose(jumps, np.degrees(expected[:, 1:-1]), atol=1e-10)
    # Keys on a run of consecutive frames in the middle (steps 9..21, not from 0), and on
    # a few frames (pitfalls gathers the samples beside them): the same oracle there.
    for keys in (frames[10:21], frames[[0, 7, 8, 20, 39]]):
        rows = np.searchsorted(frames, keys[1:-1])
        want = np.linalg.norm(
            np.stack([(Rotation.from_rotvec(rotvec[b][rows + 1])
                       * Rotation.from_rotvec(rotvec[b][rows]).inv()).as_rotvec()
                      - (Rotation.from_rotvec(rotvec[b][rows])
                         * Rotation.from_rotvec(rotvec[b][rows - 1]).inv()).as_rotvec()
                      for b in range(3)]), axis=-1)
        got = metrics.velocity_jumps(frames, q, keys, unit=True)
        np.testing.assert_allclose(got[:, 1:-1], want, atol=1e-12)
        _, jumps = pitfalls.velocity_jumps(frames, keys, q, unit=True)
        np.testing.assert_allclose(jumps, np.degrees(want), atol=1e-10)


def test_percentile_is_numpys_linear_percentile():
    """The bake's p99 figure comes from two order statistics (np.partition); numpy's
    np.percentile (default linear method) is the reference, on sizes from one value
    up, ties, and both ends."""
    rng = np.random.default_rng(7)
    for trial in range(300):
        n = int(rng.integers(1, 2_000))
        values = rng.normal(size=n) * 10.0 ** rng.uniform(-6, 6)
        if trial % 3 == 0:
            values = np.round(values, 1)        # ties
        for q in (0.0, 1.0, 37.3, 50.0, 99.0, 99.9, 100.0):
            assert metrics.percentile(values, q) == pytest.approx(
                float(np.percentile(values, q)), rel=1e-12, abs=0.0)
    with pytest.raises(ValueError, match="no values"):
        metrics.percentile(np.zeros(0), 99.0)


def _closeness_stats_in_full(close, tolerance_deg, q=99.0):
    """What a measurement took from every sample's angle before closeness_stats."""
    err = np.degrees(2.0 * np.arccos(np.minimum(close, 1.0)))
    return (float(err.max()), metrics.percentile(err, q),
            int(np.count_nonzero(err <= tolerance_deg)), int(np.argmax(err)))


@pytest.mark.parametrize("seed", range(6))
def test_closeness_stats_are_the_full_angles_figures_to_the_bit(seed):
    """metrics.closeness_stats takes the arccos near its order statistics only: its max,
    99th percentile, count within the tolerance and first worst index are those of every
    sample's angle, bit for bit, on fits' closenesses (angles near the tolerance), with
    ties, values at and past 1 (a rounding), one sample, and the tolerance itself among
    the angles."""
    rng = np.random.default_rng(seed)
    tol = 0.01
    angles = np.radians(rng.uniform(0.0, tol * 1.02, 8000))
    close = np.cos(angles / 2.0)
    close[rng.integers(0, close.size, 40)] = 1.0
    close[rng.integers(0, close.size, 10)] = 1.0 + 2e-16
    close[rng.integers(0, close.size, 5)] = close.min()             # ties at the worst
    close[rng.integers(0, close.size, 5)] = np.cos(np.radians(tol) / 2.0)
    cases = [close, close[:1], np.ones(300), np.cos(np.radians(rng.uniform(0, 179, 500)) / 2)]
    # Bit for bit on the CPU it was written on; compared here within 1e-12 deg (relative
    # 1e-12), since numpy may take another arccos path for a part of an array than for the
    # whole on other CPUs. A count may then differ by the samples within 1e-9 deg of the
    # tolerance, and the worst index name another sample as far off.
    for c in cases:
        err = np.degrees(2.0 * np.arccos(np.minimum(c, 1.0)))
        for t in (tol, 0.5, 1e-6, 179.9):
            worst, p99, within, at = metrics.closeness_stats(c, t)
            f_worst, f_p99, f_within, _f_at = _closeness_stats_in_full(c, t)
            assert worst == pytest.approx(f_worst, rel=1e-12, abs=1e-12), (seed, t)
            assert p99 == pytest.approx(f_p99, rel=1e-12, abs=1e-12), (seed, t)
            edge = int(np.count_nonzero(np.abs(err - t) <= 1e-9))
            assert abs(within - f_within) <= edge, (seed, t)
            assert err[at] == pytest.approx(f_worst, rel=1e-12, abs=1e-12), (seed, t)
