"""Euler extraction at gimbal lock: the outer split closest to the reference.

At a middle angle of +-90 deg only the sum or difference of the first and last
angles is defined. quat_to_euler_continuous must then pick, of all the splits,
the one closest (sum of absolute differences) to the reference / previous frame,
never farther than Blender's own ``Matrix.to_euler(order, compat)``.

Two bands: exact lock (float64 pi/2) by default, with the rotation reproduced
within 1e-12 rad; and float32's "90 deg" (4.4e-8 rad past pi/2, what Blender
stores), where only the two exact, possibly far, splits reproduce the rotation
that closely, so matching Blender needs ``lock_tolerance`` (and costs ~2 x the
distance from the lock in orientation, as Blender's own pick does).
"""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from quatbake.core import quat, rotation

SEED = 20260311
F32_90 = float(np.float32(np.pi / 2))    # 1.5707963705062866: 4.37e-8 rad past pi/2
TOL = rotation.BLENDER_GIMBAL_TOLERANCE
# Blender keeps angles (its result and its copy of the reference) in float32: at
# angles up to ~5 pi the spacing is 1.9e-6 rad, so its summed distance over three
# axes can come out a few 1e-6 rad smaller than the float64 optimum.
FLOAT32_SLACK = 1e-5


def scipy_quat(order, euler_xyz):
    """Oracle: Blender's order 'ABC' with values stored per axis is scipy's
    extrinsic "abc" with the angles in that sequence (see test_rotation.py)."""
    seq = order.lower()
    cols = ["xyz".index(c) for c in seq]
    xyzw = Rotation.from_euler(seq, np.asarray(euler_xyz)[..., cols]).as_quat()
    return xyzw[..., [3, 0, 1, 2]]


def axes(order):
    return ["XYZ".index(c) for c in order]


def wrap(x):
    return (x + np.pi) % (2.0 * np.pi) - np.pi


def locked_samples(order, n, pitch, rng):
    """n Euler triples with the middle angle +-pitch, random outer angles, and
    random references up to two turns (+-4 pi) away on each axis."""
    i, j, k = axes(order)
    e = rng.uniform(-np.pi, np.pi, size=(n, 3))
    e[:, j] = rng.choice([-1.0, 1.0], size=n) * pitch
    ref = rng.uniform(-np.pi, np.pi, size=(n, 3)) + rng.choice([-4.0, 0.0, 4.0], size=(n, 3)) * np.pi
    return e, ref


def family_sign(order, e):
    """+1 where (first + t, middle, last + t) is the same rotation as e (the
    difference is defined), -1 where (first + t, middle, last - t) is (the sum is),
    decided by scipy alone."""
    i, j, k = axes(order)
    q = scipy_quat(order, e)
    moved = e.copy()
    moved[:, i] += 0.7
    moved[:, k] += 0.7
    same = quat.angle_between(scipy_quat(order, moved), q) < 1e-6
    moved[:, k] -= 1.4
    other = quat.angle_between(scipy_quat(order, moved), q) < 1e-6
    assert np.all(same ^ other)
    return np.where(same, 1.0, -1.0)


def closest_split_distance(order, e, ref):
    """The smallest sum of absolute differences to ref over every Euler triple
    (first + t + 2 pi m, middle + 2 pi n, last + s t + 2 pi l) of the lock family:
    with t = s (ref_last - last) the last axis matches and the first is off by
    wrap(first - ref_first - s (last - ref_last))."""
    i, j, k = axes(order)
    s = family_sign(order, e)
    outer = np.abs(wrap(e[:, i] - ref[:, i] - s * (e[:, k] - ref[:, k])))
    return outer + np.abs(wrap(e[:, j] - ref[:, j]))


def one_frame_each(q, order, ref, **kw):
    return np.array([rotation.quat_to_euler_continuous(q[n:n + 1], order, reference=ref[n], **kw)[0]
                     for n in range(len(q))])


@pytest.mark.parametrize("order", rotation.EULER_ORDERS)
def test_exact_lock_takes_the_split_closest_to_the_reference(order):
    e, ref = locked_samples(order, 400, np.pi / 2, np.random.default_rng(SEED))
    q = scipy_quat(order, e)
    out = one_frame_each(q, order, ref)
    assert quat.angle_between(scipy_quat(order, out), q).max() < 1e-12
    dist = np.abs(out - ref).sum(axis=1)
    # No split is closer, and this one is as close as any (to rounding).
    np.testing.assert_allclose(dist, closest_split_distance(order, e, ref), rtol=0, atol=1e-9)


@pytest.mark.parametrize("order", rotation.EULER_ORDERS)
def test_float32_lock_with_lock_tolerance_takes_the_closest_split(order):
    rng = np.random.default_rng(SEED + 1)
    # float32's 90 deg and its neighbours a few float32 steps either side.
    steps = rng.integers(-3, 4, size=400) * np.spacing(np.float32(F32_90))
    e, ref = locked_samples(order, 400, F32_90 + steps, rng)
    q = scipy_quat(order, e)
    gap = np.abs(np.pi / 2 - np.abs(e[:, axes(order)[1]]))
    assert gap.max() < 4.1e-7 and gap.min() > 4e-8
    out = one_frame_each(q, order, ref, lock_tolerance=TOL)
    # The orientation moves by at most ~2 x the distance from the lock.
    assert np.all(quat.angle_between(scipy_quat(order, out), q) <= 2.0 * gap + 1e-12)
    dist = np.abs(out - ref).sum(axis=1)
    assert np.all(dist <= closest_split_distance(order, e, ref) + 2.0 * gap + 1e-12)
    # Without it, the extraction stays exact (1e-12 rad) and so keeps one of the
    # two exact splits, however far from the reference (the 1e-12 promise of
    # test_rotation.py's near-gimbal round trip).
    exact = one_frame_each(q, order, ref)
    assert quat.angle_between(scipy_quat(order, exact), q).max() < 1e-12


def test_lock_tolerance_none_changes_nothing_and_passes_through():
    rng = np.random.default_rng(SEED + 2)
    q = rng.normal(size=(200, 4))
    ref = rng.uniform(-10.0, 10.0, size=3)
    for order in rotation.EULER_ORDERS:
        plain = rotation.quat_to_euler_continuous(q, order, ref)
        assert np.array_equal(rotation.quat_to_euler_continuous(q, order, ref, lock_tolerance=None), plain)
        assert np.array_equal(rotation.quat_to_mode_values_continuous(q, order, ref), plain)
        wide = rotation.quat_to_mode_values_continuous(q, order, ref, lock_tolerance=TOL)
        assert np.array_equal(wide, rotation.quat_to_euler_continuous(q, order, ref, lock_tolerance=TOL))
        many = rotation.quat_to_mode_values_continuous_many(q[None], order, ref[None], lock_tolerance=TOL)
        assert np.array_equal(many[0], wide)
    # Other modes ignore it.
    assert np.array_equal(rotation.quat_to_mode_values_continuous(q, "QUATERNION", lock_tolerance=TOL),
                          rotation.quat_to_mode_values_continuous(q, "QUATERNION"))
    for bad in (-1e-6, 0.5, float("nan")):
        with pytest.raises(ValueError, match="lock_tolerance"):
            rotation.quat_to_euler_continuous(q, "XYZ", lock_tolerance=bad)


# --------------------------------------------------------------- against Blender


def _mathutils():
    pytest.importorskip("bpy")     # the bpy wheel provides mathutils once bpy is imported
    return pytest.importorskip("mathutils")


def blender_compat(mathutils, q, order, ref):
    """Blender's Matrix.to_euler(order, compat) on q's matrix, one sample at a time."""
    return np.array([list(mathutils.Quaternion(x.tolist()).to_matrix().to_euler(
        order, mathutils.Euler(r.tolist(), order))) for x, r in zip(q, ref)])


@pytest.mark.bpy
@pytest.mark.parametrize("order", rotation.EULER_ORDERS)
@pytest.mark.parametrize("band", ["exact", "float32"])
def test_never_farther_from_the_reference_than_blender(order, band):
    mathutils = _mathutils()
    rng = np.random.default_rng(SEED + 3 + (band == "float32"))
    pitch = np.pi / 2 if band == "exact" else F32_90
    e, ref = locked_samples(order, 300, pitch, rng)
    q = rotation.euler_to_quat(e, order)
    theirs = blender_compat(mathutils, q, order, ref)
    blender_dist = np.abs(theirs - ref).sum(axis=1)
    kw = {} if band == "exact" else {"lock_tolerance": TOL}
    ours = one_frame_each(q, order, ref, **kw)
    ours_dist = np.abs(ours - ref).sum(axis=1)
    assert np.all(ours_dist <= blender_dist + FLOAT32_SLACK), np.max(ours_dist - blender_dist)
    err = quat.angle_between(rotation.euler_to_quat(ours, order), q)
    if band == "exact":
        assert err.max() < 1e-12
    else:
        # 2 x 4.37e-8 rad at most; Blender's own pick is as far off the rotation.
        assert err.max() < 2.0 * 4.4e-8
        assert quat.angle_between(rotation.euler_to_quat(theirs, order), q).max() > 1e-8


@pytest.mark.bpy
@pytest.mark.parametrize("order", rotation.EULER_ORDERS)
def test_baked_curve_through_the_lock_never_jumps_farther_than_blender(order):
    # A curve keyed in Blender: the middle axis rises through 90 deg and back,
    # passing exactly through the lock (float64) and float32's 90 deg, while the
    # outer axes turn. Each frame's reference is the previous output, as when
    # baking; Blender gets the same reference.
    mathutils = _mathutils()
    i, j, k = axes(order)
    t = np.linspace(0.0, 1.0, 41)
    e = np.zeros((t.size, 3))
    e[:, i] = 0.4 + 2.5 * t
    e[:, j] = np.pi / 2 - 0.3 * np.cos(2.0 * np.pi * t)
    e[:, k] = -1.0 + 3.0 * t
    e[[5, 35], j] = np.pi / 2
    e[[15, 25], j] = F32_90
    e[20, j] = -F32_90 + 2.0 * np.pi      # the same pitch another turn round
    q = rotation.euler_to_quat(e, order)
    start = e[0] + np.array([4.0, -4.0, 2.0]) * np.pi
    out = rotation.quat_to_euler_continuous(q, order, reference=start, lock_tolerance=TOL)
    assert quat.angle_between(rotation.euler_to_quat(out, order), q).max() < 2.0 * 4.4e-8
    theirs = blender_compat(mathutils, q[1:], order, out[:-1])
    step_ours = np.abs(out[1:] - out[:-1]).sum(axis=1)
    step_blender = np.abs(theirs - out[:-1]).sum(axis=1)
    assert np.all(step_ours <= step_blender + FLOAT32_SLACK), np.max(step_ours - step_blender)
