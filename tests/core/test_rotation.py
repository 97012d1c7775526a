"""Conversions between Blender's rotation modes (quatbake.core.rotation)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from quatbake.core import quat, rotation

RNG_SEED = 20261129

# float64 conversions chain a few trig calls and products: errors of a few
# ulps (1e-16) add up to well under 1e-12.
TIGHT = 1e-12


def scipy_quat(order, euler_xyz):
    """Oracle: Blender's order 'ABC' (A applied first, values stored per axis
    x, y, z) equals scipy's EXTRINSIC (lowercase) sequence "abc" with the angles
    listed in that sequence. E.g. Blender ('ZYX', (x, y, z)) is
    scipy from_euler("zyx", [z, y, x]). Checked numerically in
    test_euler_to_quat_matches_scipy_extrinsic and, against mathutils, in
    tests/blender/test_rotation_vs_mathutils.py."""
    seq = order.lower()
    cols = ["xyz".index(c) for c in seq]
    xyzw = Rotation.from_euler(seq, euler_xyz[..., cols]).as_quat()
    return xyzw[..., [3, 0, 1, 2]]


def random_quats(n, seed=RNG_SEED):
    q = np.random.default_rng(seed).normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


@pytest.mark.parametrize("order", rotation.EULER_ORDERS)
def test_euler_to_quat_matches_scipy_extrinsic(order):
    euler = np.random.default_rng(RNG_SEED).uniform(-7.0, 7.0, size=(500, 3))
    ours = rotation.euler_to_quat(euler, order)
    assert np.allclose(np.linalg.norm(ours, axis=-1), 1.0, atol=TIGHT)
    assert quat.angle_between(ours, scipy_quat(order, euler)).max() < TIGHT


@pytest.mark.parametrize("order", rotation.EULER_ORDERS)
def test_euler_to_quat_parts_match_scipy_far_out_and_at_the_tangents_pole(order):
    # The parts take each half angle's sine and cosine from tan(angle / 4), whose pole
    # is at angle = 2 pi (mod 4 pi): unrolled Euler channels pass there all the time.
    rng = np.random.default_rng(RNG_SEED)
    pole = 2.0 * np.pi * np.array([-3.0, -1.0, 1.0, 3.0])
    near = (rng.choice(pole, size=(300, 3))
            + rng.choice([0.0, 1e-15, -1e-12, 1e-9, 1e-6], size=(300, 3)))
    euler = np.concatenate((rng.uniform(-40.0, 40.0, size=(500, 3)), near))
    parts = np.stack(rotation.euler_to_quat_parts(euler[:, 0], euler[:, 1], euler[:, 2], order),
                     axis=-1)
    assert np.abs(np.linalg.norm(parts, axis=-1) - 1.0).max() < TIGHT
    assert quat.angle_between(parts, scipy_quat(order, euler)).max() < TIGHT


def test_euler_order_names_the_axis_applied_first():
    # 'XYZ' (90, 0, 90 deg): X first sends +Y to +Z, then Z leaves +Z alone.
    # 'ZYX' with the same values: Z first sends +Y to -X, then X leaves -X alone.
    e = np.radians([90.0, 0.0, 90.0])
    y = np.array([0.0, 1.0, 0.0])
    assert np.allclose(quat.rotate_vectors(rotation.euler_to_quat(e, "XYZ"), y), [0, 0, 1], atol=TIGHT)
    assert np.allclose(quat.rotate_vectors(rotation.euler_to_quat(e, "ZYX"), y), [-1, 0, 0], atol=TIGHT)


@pytest.mark.parametrize("order", rotation.EULER_ORDERS)
def test_quat_to_euler_round_trip_and_range(order):
    q = random_quats(2000)
    euler = rotation.quat_to_euler(q, order)
    assert euler.shape == (2000, 3)
    assert np.all(np.abs(euler) <= np.pi + TIGHT)
    assert quat.angle_between(rotation.euler_to_quat(euler, order), q).max() < TIGHT
    # Of the two solutions, the smaller total angle (Blender's quat_to_eulO).
    # The other solution is (first + pi, pi - middle, last + pi) modulo whole
    # turns (for odd orders the signs flip, which is the same modulo 2*pi).
    (i, j, k) = ["XYZ".index(c) for c in order]
    other = euler.copy()
    other[:, i] += np.pi
    other[:, j] = np.pi - other[:, j]
    other[:, k] += np.pi
    other = (other + np.pi) % (2 * np.pi) - np.pi
    assert quat.angle_between(rotation.euler_to_quat(other, order), q).max() < TIGHT
    assert np.all(np.abs(euler).sum(axis=1) <= np.abs(other).sum(axis=1) + TIGHT)


@pytest.mark.parametrize("order", rotation.EULER_ORDERS)
def test_quat_to_euler_at_exact_gimbal_lock_puts_zero_on_last_axis(order):
    i, j, k = ["XYZ".index(c) for c in order]
    e = np.zeros((2, 3))
    e[:, i] = [0.7, -0.4]
    e[:, j] = [np.pi / 2, -np.pi / 2]
    e[:, k] = [0.3, 1.1]
    q = rotation.euler_to_quat(e, order)
    out = rotation.quat_to_euler(q, order)
    assert np.all(out[:, k] == 0.0)
    assert quat.angle_between(rotation.euler_to_quat(out, order), q).max() < 1e-9


@pytest.mark.parametrize("order", rotation.EULER_ORDERS)
@pytest.mark.parametrize("side", [1.0, -1.0])
def test_euler_round_trip_near_gimbal_lock_within_1e12_rad(order, side):
    # Issue 10: XYZ (0.5, pi/2 - 9.9e-7, 2.5) came back 1.9e-6 rad off (the
    # matrix formula's gimbal branch, first order in cos(middle)). Now every
    # order round-trips within 1e-12 rad for a middle angle anywhere in
    # [pi/2 - 1e-3, pi/2] and the mirrored range. Oracle: scipy builds the
    # quaternions, ours only extracts the angles, scipy rebuilds them.
    i, j, k = ["XYZ".index(c) for c in order]
    rng = np.random.default_rng(RNG_SEED)
    n = 3000
    gap = np.concatenate([[0.0, 9.9e-7, 1e-6, 1.01e-6, 1e-14, 1e-15, 1e-13, 1e-3],
                          10.0 ** rng.uniform(-16, -3, n)])
    e = np.zeros((gap.size, 3))
    e[:, i] = np.concatenate([[0.5] * 8, rng.uniform(-np.pi, np.pi, n)])
    e[:, j] = side * (np.pi / 2 - gap)
    e[:, k] = np.concatenate([[2.5] * 8, rng.uniform(-np.pi, np.pi, n)])
    q = scipy_quat(order, e)
    back = rotation.quat_to_euler(q, order)
    assert quat.angle_between(scipy_quat(order, back), q).max() < 1e-12
    cont = rotation.quat_to_euler_continuous(q, order)
    assert quat.angle_between(scipy_quat(order, cont), q).max() < 1e-12


def test_quat_to_matrix_is_orthogonal_with_det_one_and_matches_scipy():
    q = random_quats(1000) * np.random.default_rng(1).uniform(0.1, 10.0, size=(1000, 1))
    m = rotation.quat_to_matrix(q)
    eye = np.broadcast_to(np.eye(3), m.shape)
    assert np.abs(m @ np.swapaxes(m, -1, -2) - eye).max() < TIGHT
    assert np.abs(np.linalg.det(m) - 1.0).max() < TIGHT
    scipy_m = Rotation.from_quat(q[:, [1, 2, 3, 0]]).as_matrix()
    assert np.abs(m - scipy_m).max() < TIGHT


def test_matrix_to_quat_round_trip_including_half_turns():
    q = random_quats(1000)
    # Half turns (w = 0, trace = -1) and near-half turns stress the branches
    # that divide by a diagonal term instead of the trace.
    half = np.array([[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0.6, 0.8, 0], [1e-9, 0.6, 0, 0.8]])
    q = np.concatenate((q, half / np.linalg.norm(half, axis=1, keepdims=True)))
    m = rotation.quat_to_matrix(q)
    back = rotation.matrix_to_quat(m)
    assert np.all(back[:, 0] >= 0.0)
    assert np.allclose(np.linalg.norm(back, axis=1), 1.0, atol=TIGHT)
    assert quat.angle_between(back, q).max() < TIGHT
    assert np.abs(rotation.quat_to_matrix(back) - m).max() < TIGHT


def test_matrix_to_quat_removes_scale_and_refuses_mirrors():
    m = rotation.quat_to_matrix(random_quats(3))
    scaled = m * np.array([2.0, 0.5, 7.0])  # scales the columns, like an object's scale
    assert quat.angle_between(rotation.matrix_to_quat(scaled), rotation.matrix_to_quat(m)).max() < TIGHT
    with pytest.raises(ValueError, match="determinant"):
        rotation.matrix_to_quat(np.diag([1.0, 1.0, -1.0]))
    with pytest.raises(ValueError, match="zero column"):
        rotation.matrix_to_quat(np.diag([1.0, 0.0, 1.0]))
    with pytest.raises(ValueError, match="shape"):
        rotation.matrix_to_quat(np.eye(4))


def _assert_continuous(values, limit):
    steps = np.abs(np.diff(values, axis=0))
    assert steps.max() < limit, f"largest step {steps.max()} rad at frame {np.unravel_index(steps.argmax(), steps.shape)}"


@pytest.mark.parametrize("order", rotation.EULER_ORDERS)
def test_euler_continuous_spins_several_turns_through_gimbal_lock(order):
    # A spin about the middle axis passes through gimbal lock (+-90 deg) twice
    # a turn, three turns in all; the other axes wobble.
    t = np.linspace(0.0, 6.0 * np.pi, 601)  # step 0.0314 rad; frame 50 is exactly at 90 deg
    i, j, k = ["XYZ".index(c) for c in order]
    e = np.zeros((t.size, 3))
    e[:, i] = 0.3 + 0.2 * np.sin(t)
    e[:, j] = t
    e[:, k] = -0.5 + 0.1 * np.cos(2.0 * t)
    q = rotation.euler_to_quat(e, order)
    out = rotation.quat_to_euler_continuous(q, order)
    assert quat.angle_between(rotation.euler_to_quat(out, order), q).max() < 1e-9
    # The input steps at most ~0.04 rad per frame on any axis: the output
    # follows it (no +-360 jump, no flip to the other solution). At the exact
    # gimbal frame the outer angles are not unique, so allow some slack there.
    _assert_continuous(out, 0.1)
    # Three whole turns on the middle axis are kept, not folded back.
    assert out[-1, j] - out[0, j] == pytest.approx(6.0 * np.pi, abs=1e-9)
    assert np.abs(out - e).max() < 1e-3


@pytest.mark.parametrize("order", rotation.EULER_ORDERS)
def test_euler_continuous_tumbling_on_all_axes(order):
    t = np.linspace(0.0, 4.0 * np.pi, 801)
    e = np.stack((1.1 * t, 0.7 * t, -1.3 * t), axis=1)
    q = rotation.euler_to_quat(e, order)
    out = rotation.quat_to_euler_continuous(q, order)
    assert quat.angle_between(rotation.euler_to_quat(out, order), q).max() < 1e-9
    _assert_continuous(out, np.pi)
    # It is the input's own Euler path (which never comes within a frame of
    # exact gimbal lock), not just an equivalent one.
    assert np.abs(out - e).max() < 1e-9
    # The plain conversion jumps (to the other solution or by a whole turn);
    # that is what the continuous one is for.
    assert np.abs(np.diff(rotation.quat_to_euler(q, order), axis=0)).max() > 3.0


# Rows and single sequences agree within this (radians): a few roundings of angles up to
# about 20 rad (whole turns added), far below any solution or turn apart.
ROWS_SAME = 1e-12


@pytest.mark.parametrize("order", rotation.EULER_ORDERS)
@pytest.mark.parametrize("lock_tolerance", [None, rotation.BLENDER_GIMBAL_TOLERANCE])
def test_euler_continuous_rows_are_each_sequence_on_its_own(order, lock_tolerance):
    """Rows (b, n, 4) with references (b, 3) give each row converted alone with its
    reference, through gimbal lock and whole turns too: rows tumbling on all axes, rows
    spinning through +-90 deg of the middle axis (some exactly at it), rows with
    references whole turns and the other solution away. The same operations in the same
    order (bit for bit on the machines measured), compared within ROWS_SAME: another
    CPU's vector loops may round a transcendental's last bit apart between array
    lengths, never a branch or a turn (those are whole pi or 2 pi apart)."""
    rng = np.random.default_rng(RNG_SEED)
    t = np.linspace(0.0, 2.0 * np.pi, 9)
    j = "XYZ".index(order[1])
    rows, refs = [], []
    for b in range(24):
        e = rng.uniform(-3.0, 3.0, 3) + np.outer(t, rng.uniform(-1.5, 1.5, 3))
        if b % 3 == 0:
            e[:, j] = np.pi / 2.0 + 0.25 * np.pi * np.arange(-4, 5)   # through the lock
        rows.append(rotation.euler_to_quat(e, order))
        ref = e[0] + 2.0 * np.pi * rng.integers(-2, 3, 3)
        if b % 4 == 1:
            ref = np.array([ref[0] + np.pi, np.pi - ref[1], ref[2] + np.pi])
        refs.append(ref)
    q, refs = np.stack(rows), np.stack(refs)
    together = rotation.quat_to_euler_continuous(q, order, refs, lock_tolerance)
    alone = np.stack([rotation.quat_to_euler_continuous(row, order, ref, lock_tolerance)
                      for row, ref in zip(q, refs)])
    assert np.abs(together - alone).max() <= ROWS_SAME
    no_refs = np.stack([rotation.quat_to_euler_continuous(row, order, None, lock_tolerance)
                        for row in q])
    assert np.abs(rotation.quat_to_mode_values_continuous_many(
        q, order, None, lock_tolerance) - no_refs).max() <= ROWS_SAME
    with pytest.raises(ValueError, match="reference must have shape"):
        rotation.quat_to_euler_continuous(q, order, refs[0])


def test_euler_continuous_follows_reference_winding():
    e = np.radians([[10.0, 20.0, 30.0], [12.0, 21.0, 35.0]])
    q = rotation.euler_to_quat(e, "XYZ")
    reference = e[0] + np.array([2.0, -4.0, 0.0]) * np.pi  # one turn on X, two back on Y
    out = rotation.quat_to_euler_continuous(q, "XYZ", reference=reference)
    assert np.allclose(out, e + np.array([2.0, -4.0, 0.0]) * np.pi, atol=TIGHT)
    # A reference on the other Euler solution makes the output take that one.
    other = np.array([e[0, 0] + np.pi, np.pi - e[0, 1], e[0, 2] + np.pi])
    out2 = rotation.quat_to_euler_continuous(q, "XYZ", reference=other)
    assert np.allclose(out2[0], other, atol=TIGHT)
    assert quat.angle_between(rotation.euler_to_quat(out2, "XYZ"), q).max() < TIGHT


def test_euler_wrap_170_to_minus_170_continues_past_180():
    deg = np.array([150.0, 170.0, -170.0, -150.0])
    e = np.stack((np.zeros(4), np.zeros(4), np.radians(deg)), axis=1)
    out = rotation.quat_to_euler_continuous(rotation.euler_to_quat(e, "XYZ"), "XYZ")
    assert np.allclose(np.degrees(out[:, 2]), [150.0, 170.0, 190.0, 210.0], atol=1e-9)
    assert np.allclose(out[:, :2], 0.0, atol=TIGHT)


def test_axis_angle_conversions():
    assert np.array_equal(rotation.axis_angle_to_quat([1.3, 0.0, 0.0, 0.0]), [1.0, 0.0, 0.0, 0.0])
    q = rotation.axis_angle_to_quat([np.pi / 2, 0.0, 0.0, 5.0])  # axis need not be unit
    assert np.allclose(q, [np.cos(np.pi / 4), 0, 0, np.sin(np.pi / 4)], atol=TIGHT)
    qs = random_quats(1000)
    aa = rotation.quat_to_axis_angle(qs)
    assert np.all((aa[:, 0] >= 0.0) & (aa[:, 0] <= 2.0 * np.pi))
    assert np.allclose(np.linalg.norm(aa[:, 1:], axis=1), 1.0, atol=TIGHT)
    assert quat.angle_between(rotation.axis_angle_to_quat(aa), qs).max() < TIGHT
    # Identity gets Blender's default axis, Y.
    assert np.array_equal(rotation.quat_to_axis_angle([1.0, 0.0, 0.0, 0.0]), [0.0, 0.0, 1.0, 0.0])


def test_axis_angle_continuous_unwraps_angle_and_keeps_axis_sign():
    t = np.linspace(0.0, 6.0 * np.pi, 601)
    aa = np.stack((t, np.cos(t / 5.0), np.sin(t / 5.0), np.full_like(t, 0.2)), axis=1)
    q = rotation.axis_angle_to_quat(aa)
    out = rotation.quat_to_axis_angle_continuous(q)
    assert quat.angle_between(rotation.axis_angle_to_quat(out), q).max() < TIGHT
    _assert_continuous(out, 0.05)  # input steps: 0.0314 rad angle, <0.02 axis
    assert out[-1, 0] == pytest.approx(6.0 * np.pi, abs=1e-9)
    # Same axis as the input, except on the identity frames (angle 0, 2pi, ...)
    # where any axis is right and the neighbouring frame's is used.
    unit = aa[:, 1:] / np.linalg.norm(aa[:, 1:], axis=1, keepdims=True)
    identity = np.isclose(np.sin(t / 2.0), 0.0, atol=1e-12)
    assert identity.sum() == 4
    assert np.allclose(out[~identity, 1:], unit[~identity], atol=1e-9)
    assert np.allclose(out[identity, 1:], unit[np.nonzero(identity)[0] + [1, -1, -1, -1]], atol=1e-9)


def test_axis_angle_continuous_through_identity_goes_negative():
    t = np.linspace(1.0, -1.0, 21)  # frame 10 is exactly the identity
    aa = np.stack((t, np.zeros_like(t), np.zeros_like(t), np.ones_like(t)), axis=1)
    out = rotation.quat_to_axis_angle_continuous(rotation.axis_angle_to_quat(aa))
    assert np.allclose(out, aa, atol=TIGHT)
    # With a reference pointing the other way and two turns wound up.
    ref = np.array([4.0 * np.pi - 1.0, 0.0, 0.0, -2.0])
    out = rotation.quat_to_axis_angle_continuous(rotation.axis_angle_to_quat(aa), reference=ref)
    assert np.allclose(out[:, 1:], [0.0, 0.0, -1.0], atol=TIGHT)
    assert np.allclose(out[:, 0], 4.0 * np.pi - t, atol=1e-9)


def test_mode_values_to_quat_for_every_mode():
    e = np.radians([[30.0, -45.0, 120.0]])
    for order in rotation.EULER_ORDERS:
        assert quat.angle_between(rotation.mode_values_to_quat(e, order), scipy_quat(order, e)).max() < TIGHT
    raw = np.array([[2.0, 0.0, 0.0, 2.0]])  # Blender channels need not be unit
    assert np.allclose(rotation.mode_values_to_quat(raw, "QUATERNION"), [[np.sqrt(0.5), 0, 0, np.sqrt(0.5)]])
    aa = np.array([[np.pi, 1.0, 0.0, 0.0]])
    assert np.allclose(rotation.mode_values_to_quat(aa, "AXIS_ANGLE"), [[0.0, 1.0, 0.0, 0.0]], atol=TIGHT)


def test_bad_input_raises_sentences():
    with pytest.raises(ValueError, match="norm"):
        rotation.mode_values_to_quat([[1.0, 0, 0, 0], [0.0, 0, 0, 0]], "QUATERNION")
    with pytest.raises(ValueError, match="not one of Blender's modes"):
        rotation.mode_values_to_quat([0.0, 0.0, 0.0], "xyz")
    with pytest.raises(ValueError, match="not one of Blender's orders"):
        rotation.euler_to_quat([0.0, 0.0, 0.0], "XXY")
    with pytest.raises(ValueError, match=r"shape \(\.\.\., 3\)"):
        rotation.mode_values_to_quat([[0.0, 0.0, 0.0, 1.0]], "XYZ")
    with pytest.raises(ValueError, match="key 1 has a NaN"):
        rotation.euler_to_quat([[0.0, 0.0, 0.0], [np.nan, 0.0, 0.0]], "XYZ")
    with pytest.raises(ValueError, match="reference"):
        rotation.quat_to_euler_continuous([[1.0, 0, 0, 0]], "XYZ", reference=[0.0, 0.0])


@pytest.mark.parametrize("mode", rotation.ROTATION_MODES)
def test_mode_values_continuous_round_trip_without_mutation(mode):
    # A smooth path: small random steps from a random start.
    start = random_quats(1, seed=3)
    steps = np.random.default_rng(4).normal(scale=0.05, size=(50, 3))
    q = quat.multiply(start, quat.exp(np.cumsum(steps, axis=0)))
    q[::7] *= -1.0  # flipped signs must not matter
    before = q.copy()
    values = rotation.quat_to_mode_values_continuous(q, mode)
    assert np.array_equal(q, before)
    assert quat.angle_between(rotation.mode_values_to_quat(values, mode), q).max() < 1e-9
    if mode == "QUATERNION":
        assert np.all(np.einsum("ij,ij->i", values[1:], values[:-1]) >= 0.0)
    else:
        # Near gimbal lock (or the identity for axis-angle) channels may move
        # fast, but never by the half turn or more of a flip or a wrap.
        _assert_continuous(values, np.pi)


def test_quaternion_mode_values_start_in_reference_hemisphere():
    q = random_quats(5, seed=9)
    out = rotation.quat_to_mode_values_continuous(q, "QUATERNION", reference=-q[0])
    assert np.dot(out[0], -q[0]) > 0.0
    assert np.all(np.einsum("ij,ij->i", out[1:], out[:-1]) >= 0.0)
    assert quat.angle_between(out, q).max() < TIGHT


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 40),
    mode=st.sampled_from(rotation.ROTATION_MODES),
    with_reference=st.booleans(),
)
def test_property_continuous_values_reproduce_any_sequence(seed, n, mode, with_reference):
    # Arbitrary (not smooth) sequences: the values must still be the same
    # rotations, and no channel ever steps by more than half a turn.
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, 4))
    reference = None
    if with_reference:
        width = 4 if mode in ("QUATERNION", "AXIS_ANGLE") else 3
        reference = rng.uniform(-10.0, 10.0, size=width)
    values = rotation.quat_to_mode_values_continuous(q, mode, reference)
    assert values.shape == (n, 3 if mode in rotation.EULER_ORDERS else 4)
    assert quat.angle_between(rotation.mode_values_to_quat(values, mode), q).max() < 1e-9
    if mode in rotation.EULER_ORDERS:
        assert np.all(np.abs(np.diff(values, axis=0)) <= np.pi + TIGHT)
        if reference is not None:
            assert np.all(np.abs(values[0] - reference) <= np.pi + TIGHT)
    elif mode == "AXIS_ANGLE":
        assert np.all(np.abs(np.diff(values[:, 0])) <= np.pi + TIGHT)
        assert np.all(np.einsum("ij,ij->i", values[1:, 1:], values[:-1, 1:]) >= -TIGHT)


@pytest.mark.parametrize("mode", ["QUATERNION", "XYZ"])
def test_continuous_values_many_equal_one_sequence_at_a_time(mode):
    rng = np.random.default_rng(11)
    q = rng.normal(size=(5, 40, 4))
    refs = rng.normal(size=(5, 4 if mode == "QUATERNION" else 3))   # the channels' values
    together = rotation.quat_to_mode_values_continuous_many(q, mode, refs)
    for k in range(q.shape[0]):
        alone = rotation.quat_to_mode_values_continuous(q[k], mode, refs[k])
        # The same float64 operations: equal to rounding.
        np.testing.assert_allclose(together[k], alone, rtol=0, atol=1e-12)


@pytest.mark.parametrize("order", rotation.EULER_ORDERS)
def test_quat_to_euler_of_one_quaternion_is_its_row_of_a_batch(order):
    """quat_to_euler takes (..., 4), one quaternion (4,) too: the in-place wrap of the
    Euler solutions (e40db9d, 91069b6) raised TypeError there ("return arrays must be of
    ArrayType": one quaternion's angles are numpy scalars, which no out= takes)."""
    q = random_quats(5)
    batch = rotation.quat_to_euler(q, order)
    for row, want in zip(q, batch):
        one = rotation.quat_to_euler(row, order)
        assert one.shape == (3,)
        # The same arithmetic; within 1e-12 rad, as numpy's scalar and array paths may
        # round a last bit differently on other CPUs.
        np.testing.assert_allclose(one, want, rtol=0, atol=1e-12)
