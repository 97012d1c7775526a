"""core.keyreduce: the kept keys play within the tolerance in both players.

Both players are re-implemented here with scipy: Blender's LINEAR keys as
per-channel np.interp of the kept values turned into rotations with
``Rotation.from_euler('xyz')`` (extrinsic x, y, z = Blender's 'XYZ', X
applied first) or normalised quaternion channels, and a glTF player as
``scipy.spatial.transform.Slerp`` of the kept keys' rotations.
"""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from quatbake.core import interp, keyreduce, rotation

TOL = 0.01  # degrees, the tolerance
# The selection aims FLOAT32_MARGIN_DEG under the tolerance; float64 players
# here add only ~1e-12 deg, so the tolerance itself must hold.
SLACK = 1e-9


def _blender_linear(frames, keep, values, mode):
    kf = frames[keep]
    cols = [np.interp(frames, kf, values[keep, c]) for c in range(values.shape[1])]
    v = np.column_stack(cols)
    if mode == "QUATERNION":
        v = v / np.linalg.norm(v, axis=1, keepdims=True)
        return Rotation.from_quat(v[:, [1, 2, 3, 0]])
    assert mode == "XYZ"
    return Rotation.from_euler("xyz", v)


def _player(frames, keep, values, mode):
    kv = values[keep]
    if mode == "QUATERNION":
        keys = Rotation.from_quat(kv[:, [1, 2, 3, 0]])
    else:
        keys = Rotation.from_euler("xyz", kv)
    return Slerp(frames[keep], keys)(frames)


def _target(quats):
    return Rotation.from_quat(np.asarray(quats)[:, [1, 2, 3, 0]])


def _errors_deg(frames, keep, values, quats, mode):
    t = _target(quats)
    b = np.degrees((_blender_linear(frames, keep, values, mode).inv() * t).magnitude())
    p = np.degrees((_player(frames, keep, values, mode).inv() * t).magnitude())
    return b, p


def _dense(key_frames, key_angles_deg, frames, method, mode):
    kq = rotation.euler_to_quat(np.radians(key_angles_deg), "XYZ")
    q = interp.interpolate(key_frames, kq, frames, method)
    return q, rotation.quat_to_mode_values_continuous(q, mode)


FRAMES = np.arange(1.0, 62.0)


def _swing_keys():
    """A pendulum about Z: 0 -> 140 -> 0 -> 140 deg, 420 deg of turning in 60 frames."""
    kf = np.arange(1.0, 62.0, 5)
    z = 70.0 - 70.0 * np.cos(np.pi * (kf - 1) / 20)
    return kf, np.column_stack([0 * kf, 0 * kf, z])


def test_single_axis_swing_keeps_few_keys_within_tolerance():
    kf, ang = _swing_keys()
    q, values = _dense(kf, ang, FRAMES, "slerp", "XYZ")
    keep = keyreduce.select_keys(FRAMES, q, values, "XYZ", TOL)
    assert keep[0] == 0 and keep[-1] == len(FRAMES) - 1 and np.all(np.diff(keep) > 0)
    assert len(keep) <= 0.4 * len(FRAMES)
    b, p = _errors_deg(FRAMES, keep, values, q, "XYZ")
    assert b.max() <= TOL + SLACK and p.max() <= TOL + SLACK


@pytest.mark.parametrize("method", ["slerp", "squad"])
def test_multi_axis_quaternion_output_meets_tolerance_in_both_players(method):
    kf = np.arange(1.0, 62.0, 10)
    ang = np.column_stack([30 * np.sin(kf / 7), 10 * np.cos(kf / 5), np.linspace(0, 420, len(kf))])
    q, values = _dense(kf, ang, FRAMES, method, "QUATERNION")
    keep = keyreduce.select_keys(FRAMES, q, values, "QUATERNION", TOL)
    b, p = _errors_deg(FRAMES, keep, values, q, "QUATERNION")
    assert b.max() <= TOL + SLACK and p.max() <= TOL + SLACK
    if method == "slerp":
        assert len(keep) < 0.6 * len(FRAMES)  # 420 deg of slerp: about 30 keys


def test_multi_axis_euler_output_meets_tolerance():
    # Per-channel Euler is not slerp when two axes move: most keys must stay.
    kf = np.arange(1.0, 62.0, 10)
    ang = np.column_stack([30 * np.sin(kf / 7), 10 * np.cos(kf / 5), np.linspace(0, 420, len(kf))])
    q, values = _dense(kf, ang, FRAMES, "slerp", "XYZ")
    keep = keyreduce.select_keys(FRAMES, q, values, "XYZ", TOL)
    b, p = _errors_deg(FRAMES, keep, values, q, "XYZ")
    assert b.max() <= TOL + SLACK and p.max() <= TOL + SLACK


def test_no_interval_turns_180_degrees_or_more():
    # A steady spin of 340 deg over 20 frames: per-channel Euler would play it with
    # two keys, a slerp could not; the kept keys split it below 180 deg each.
    frames = np.arange(1.0, 22.0)
    z = np.radians(np.linspace(0.0, 340.0, 21))
    values = np.column_stack([0 * z, 0 * z, z])
    q = rotation.euler_to_quat(values, "XYZ")
    keep = keyreduce.select_keys(frames, q, values, "XYZ", TOL)
    turns = np.diff(np.degrees(z[keep]))
    assert len(keep) >= 3 and turns.max() < 180.0
    b, p = _errors_deg(frames, keep, values, q, "XYZ")
    assert b.max() <= TOL + SLACK and p.max() <= TOL + SLACK


def test_location_kink_is_kept_and_tracks_are_independent():
    frames = np.arange(0.0, 41.0)
    still = np.tile([1.0, 0.0, 0.0, 0.0], (41, 1))
    loc = np.column_stack([np.minimum(frames, 20.0), 0 * frames, 0 * frames])  # kink at 20
    a = keyreduce.Track(frames, still, still.copy(), "QUATERNION", loc)
    b = keyreduce.Track(frames[:5], still[:5], still[:5].copy(), "QUATERNION")
    keep_a, keep_b = keyreduce.select_keys_many([a, b], TOL)
    assert keep_a.tolist() == [0, 20, 40]
    assert keep_b.tolist() == [0, 4]


def test_bad_tolerance_and_shapes():
    q = np.tile([1.0, 0, 0, 0], (3, 1))
    with pytest.raises(ValueError, match="finite angle above 0"):
        keyreduce.select_keys([0, 1, 2], q, q, "QUATERNION", 0.0)
    with pytest.raises(ValueError, match="3 frames but 2"):
        keyreduce.select_keys([0, 1, 2], q[:2], q, "QUATERNION", 0.1)


def test_fixed_keys_stay():
    kf, ang = _swing_keys()
    q, values = _dense(kf, ang, FRAMES, "slerp", "XYZ")
    fixed = np.zeros(len(FRAMES), dtype=bool)
    fixed[[7, 8, 33]] = True
    (keep,) = keyreduce.select_keys_many(
        [keyreduce.Track(FRAMES, q, values, "XYZ", fixed=fixed)], TOL)
    assert {7, 8, 33} <= set(keep.tolist())
    b, p = _errors_deg(FRAMES, keep, values, q, "XYZ")
    assert b.max() <= TOL + SLACK and p.max() <= TOL + SLACK
