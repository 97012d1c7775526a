"""Dense keys (mocap, sampled exports): no timing advice on recorded motion.

A key every frame or closer is a recording: its ease, its slowdowns and its float
noise are the motion. "Re-bake with constant speed" or "key the start and the end"
would throw the capture away, so that advice is for keyed motion only; defects of
the keys themselves (a flipped sign, an Euler wrap) are still found.
"""
import numpy as np
import pytest

from quatbake.core import analysis, pitfalls

TIMING_WORDS = ("constant speed", "speeds", "creep", "filter", "uneven", "velocity")


def _axis_quat(axis, deg):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    half = np.radians(np.asarray(deg, float)) / 2
    return np.concatenate([np.cos(half)[..., None], np.sin(half)[..., None] * axis], axis=-1)


def _timing_findings(a):
    # Case-blind: the location advice names the setting, "Constant Speed".
    return [f for f in a.findings if any(w in f.lower() for w in TIMING_WORDS)]


def _analyze(frames, kq, positions=None, **kw):
    """Keys on every sample, rotation and location alike (a sampled export)."""
    return analysis.analyze_object("Root", "QUATERNION", frames, kq, frames, kq, "slerp",
                                   raw_values=kq, positions=positions, key_positions=positions,
                                   location_key_frames=None if positions is None else frames, **kw)


def _hand_ratio(positions, moving):
    """Fastest / slowest segment speed, keys one frame apart, over the segments
    the caller says move."""
    lengths = np.linalg.norm(np.diff(positions, axis=0), axis=1)[moving]
    return lengths.max() / lengths.min()


def test_dense_means_median_key_spacing_of_one_frame_or_less():
    assert pitfalls.keys_are_dense(np.arange(1.0, 50.0))
    assert pitfalls.keys_are_dense(np.arange(0.0, 10.0, 0.2))          # 120 fps keys at 24 fps
    assert pitfalls.keys_are_dense(np.r_[np.arange(1.0, 40.0), 60.0])  # a gap or two
    assert not pitfalls.keys_are_dense(np.arange(1.0, 50.0, 2.0))      # keyed on twos
    assert not pitfalls.keys_are_dense([1.0, 21.0, 41.0])
    assert not pitfalls.keys_are_dense([1.0])


def test_sampled_ease_out_gets_no_speed_advice():
    # A 2 m move and a 90 deg turn, both with a quadratic ease-out, sampled every
    # frame (128 frames), as a sampled export has them.
    frames = np.arange(1.0, 130.0)
    t = (frames - 1.0) / 128.0
    ease = 1.0 - (1.0 - t) ** 2
    positions = np.stack([2.0 * ease, np.zeros_like(t), np.zeros_like(t)], axis=1)
    a = _analyze(frames, _axis_quat([0, 0, 1], 90.0 * ease), positions)
    assert a.dense_keys and a.dense_location_keys
    # The measurement stays: fastest / slowest step, (2N - 1) : 1 for N = 128 steps.
    hand = _hand_ratio(positions, slice(None))
    assert hand == pytest.approx(255.0)
    assert a.location_speed_ratio == pytest.approx(hand, rel=1e-9)
    assert _timing_findings(a) == []
    # The same ease keyed every 8 frames is keyed motion: the advice is back.
    keyed = frames[::8]
    b = analysis.analyze_object("Root", "QUATERNION", frames, a.blender_quats, keyed,
                                a.blender_quats[::8], key_positions=positions[::8],
                                location_key_frames=keyed)
    assert not b.dense_location_keys
    assert any("Constant Speed" in f for f in b.findings)


def test_mocap_root_with_float_noise_gets_no_speed_advice():
    # A root that walks (speeding up from 0.02 to 0.08 units/frame), then stands
    # still for 60 frames with 1e-6 of float noise on every coordinate, turning
    # slowly with noise too.
    rng = np.random.default_rng(20260311)
    frames = np.arange(1.0, 181.0)
    speed = np.where(frames <= 120, 0.02 + 0.06 * (frames - 1.0) / 119.0, 0.0)
    clean = np.stack([np.cumsum(speed), np.zeros_like(frames), np.full_like(frames, 0.9)], axis=1)
    positions = clean + rng.uniform(-1e-6, 1e-6, size=clean.shape)
    kq = _axis_quat([0, 0, 1], 0.3 * frames) + rng.uniform(-1e-6, 1e-6, size=(frames.size, 4))
    a = _analyze(frames, kq, positions)
    # The noise no longer sets the ratio (it was 2,958,830x-like): the slowest moving
    # segment is a step of the walk, the still ones are noise-level and left out.
    walking = np.linalg.norm(np.diff(clean, axis=0), axis=1) > 0.0
    hand = _hand_ratio(positions, walking)
    assert 3.5 < hand < 4.5
    assert a.location_speed_ratio == pytest.approx(hand, rel=1e-9)
    assert a.dense_location_keys
    assert _timing_findings(a) == []


def test_keyed_dolly_still_gets_the_constant_speed_advice():
    # Four keys: 1 m in 20 frames, 10 m in 20 frames, a hold whose keys differ by
    # 1e-6 (float noise from copied keys), and the second segment is 10x faster.
    key_frames = np.array([1.0, 21.0, 41.0, 61.0])
    key_positions = np.array([[0, 0, 0], [1, 0, 0], [11, 0, 0], [11 + 1e-6, 0, 0]], float)
    frames = np.arange(1.0, 62.0)
    kq = _axis_quat([0, 0, 1], [0.0, 10.0])
    bq = _axis_quat([0, 0, 1], np.interp(frames, [1.0, 61.0], [0.0, 10.0]))
    a = analysis.analyze_object("Dolly", "QUATERNION", frames, bq, [1.0, 61.0], kq,
                                key_positions=key_positions, location_key_frames=key_frames)
    assert not a.dense_location_keys
    speeds = np.linalg.norm(np.diff(key_positions, axis=0), axis=1) / np.diff(key_frames)
    assert a.location_speed_ratio == pytest.approx(speeds[1] / speeds[0]) == pytest.approx(10.0)
    assert any("10.0x apart" in f and "Constant Speed" in f for f in a.findings)


def test_flipped_sign_key_on_dense_keys_is_still_a_long_arc():
    # Mocap-like: a key every frame turning 2 deg/frame, one key with its sign
    # flipped. Blender's LINEAR quaternion channels then swing the long way between
    # that key and its neighbours, seen at the subframe samples the add-on adds.
    keys = np.arange(1.0, 42.0)
    kq = _axis_quat([0, 0, 1], 2.0 * (keys - 1.0))
    kq[20] *= -1.0                                   # key 21
    sub = np.concatenate([20.0 + np.arange(1, 16) / 16.0, 21.0 + np.arange(1, 16) / 16.0])
    sub_raw = np.stack([np.interp(sub, keys, kq[:, c]) for c in range(4)], axis=1)
    a = analysis.analyze_object("Hips", "QUATERNION", keys, kq, keys, kq, "slerp",
                                raw_values=kq, extra_frames=sub, extra_quats=sub_raw)
    assert a.dense_keys
    assert a.long_arc_segments == [[20.0, 21.0], [21.0, 22.0]]
    assert a.advice == "keys 20-21 take the long way: re-bake with SLERP"


def test_sampled_exponential_ease_gets_no_filter_advice():
    # Each frame turns 80% of the previous frame's turn: a sampled exponential
    # ease-out (Blender's EXPO easing baked, or a per-frame filter recorded) is
    # the motion on dense keys, not something to re-key.
    frames = np.arange(1.0, 41.0)
    kq = _axis_quat([0, 0, 1], 90.0 * (1.0 - 0.8 ** np.arange(frames.size)))
    assert pitfalls.exponential_approach(frames, kq)      # the signature is there
    a = _analyze(frames, kq)
    assert a.dense_keys
    assert a.exponential_approach == []
    assert _timing_findings(a) == []
    # Keyed every other frame, the same creep is keyed motion and gets the advice.
    keyed = frames[::2]
    b = analysis.analyze_object("Follow", "QUATERNION", keyed, kq[::2], keyed, kq[::2])
    assert not b.dense_keys and b.exponential_approach
    assert "filter" in b.advice
