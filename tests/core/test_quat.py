"""Quaternion array operations (quatbake.core.quat): oracles, accuracy, properties, errors."""
import mpmath
import numpy as np
import pytest
import quaternion as npq  # numpy-quaternion, test oracle
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from quatbake.core import quat

RNG_SEED = 20261129
PROPERTY = settings(derandomize=True, max_examples=200, deadline=None)

# A handful of float64 roundings on O(1) values (2.2e-16 each), 10x margin.
ULPS = 1e-14


def random_unit(n, seed=RNG_SEED):
    q = np.random.default_rng(seed).normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def to_scipy(q):
    """Blender (w, x, y, z) -> scipy's scalar-last (x, y, z, w)."""
    return Rotation.from_quat(np.asarray(q)[..., [1, 2, 3, 0]])


component = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False)
quats = st.tuples(component, component, component, component).map(np.array).filter(
    lambda q: np.linalg.norm(q) > 0.1
)


# --------------------------------------------------------------------------
# oracles


def test_multiply_matches_numpy_quaternion_and_composes_like_scipy():
    a = random_unit(500, RNG_SEED)
    b = random_unit(500, RNG_SEED + 1)
    ours = quat.multiply(a, b)
    theirs = npq.as_float_array(npq.as_quat_array(a) * npq.as_quat_array(b))
    assert np.abs(ours - theirs).max() < ULPS
    # a*b applies b first, then a: scipy's (A * B).apply(v) == A.apply(B.apply(v)).
    v = np.random.default_rng(RNG_SEED).normal(size=(500, 3))
    assert np.abs(quat.rotate_vectors(ours, v) - (to_scipy(a) * to_scipy(b)).apply(v)).max() < ULPS


def test_rotate_vectors_matches_scipy():
    q = random_unit(500)
    v = np.random.default_rng(RNG_SEED).normal(size=(500, 3))
    assert np.abs(quat.rotate_vectors(q, v) - to_scipy(q).apply(v)).max() < ULPS


def test_log_and_exp_match_numpy_quaternion():
    q = quat.make_continuous(random_unit(500))
    q[q[:, 0] < 0] *= -1.0  # principal logs, w >= 0, are the same for both
    ours = quat.log(q)
    theirs = npq.as_float_array(np.log(npq.as_quat_array(q)))
    assert np.abs(ours - theirs).max() < ULPS
    v = np.random.default_rng(RNG_SEED).normal(size=(500, 3))
    ours = quat.exp(v)
    theirs = npq.as_float_array(np.exp(npq.as_quat_array(np.column_stack([np.zeros(500), v]))))
    assert np.abs(ours - theirs).max() < ULPS
    # a pure quaternion (0, u) and the 3-vector u give the same exp
    # Two calls on differently laid-out arrays: equal to rounding, not bit for bit.
    assert np.abs(quat.exp(np.column_stack([np.zeros(500), v])) - ours).max() < ULPS


def test_rotation_vector_is_scipys_short_rotation_vector_of_either_sign():
    """Either sign of a quaternion, batched (b, n, 4), and near the identity (the series
    branch) and a half turn (w = +-0): scipy's as_rotvec, whose angle is in [0, pi]."""
    q = random_unit(600).reshape(3, 200, 4)
    signs = np.where(np.random.default_rng(RNG_SEED).random((3, 200, 1)) < 0.5, -1.0, 1.0)
    ours = quat.rotation_vector(q * signs)
    theirs = to_scipy(q.reshape(-1, 4)).as_rotvec().reshape(3, 200, 3)
    assert np.abs(ours - theirs).max() < ULPS
    tiny = np.array([[1.0, 3e-9, -2e-9, 1e-12], [-1.0, 3e-9, -2e-9, 1e-12],
                     [1.0, 0.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 0.0]])
    tiny /= np.linalg.norm(tiny, axis=1, keepdims=True)
    # Near the identity the vector is 2 v / w, to well under a ulp of the angle.
    assert np.abs(quat.rotation_vector(tiny) - to_scipy(tiny).as_rotvec()).max() < 1e-20
    half_turn = np.array([[0.0, 0.0, 0.6, 0.8], [-0.0, 0.0, 0.6, 0.8]])
    found = quat.rotation_vector(half_turn)
    assert np.abs(found - np.pi * half_turn[:, 1:]).max() < ULPS
    # One quaternion, not an array of them.
    assert np.abs(quat.rotation_vector(-q[0, 0]) - theirs[0, 0]).max() < ULPS


def test_angle_between_matches_scipy_magnitude():
    a = random_unit(1000, RNG_SEED)
    b = random_unit(1000, RNG_SEED + 2)
    expected = (to_scipy(a).inv() * to_scipy(b)).magnitude()
    assert np.abs(quat.angle_between(a, b) - expected).max() < ULPS


@pytest.mark.parametrize("shape", [
    (quat.BLOCK + 3,),                 # one long row: a short last block
    (5, quat.BLOCK // 2 + 1),          # rows longer than half a block: one row a block
    (7, 3, quat.BLOCK + 5),            # rows longer than a block: cut inside a row
    (41, 999),                         # short rows, taken several at a time
])
@pytest.mark.parametrize("layout", ["contiguous", "gathered", "reversed"])
def test_multiply_and_angle_between_in_blocks_match_scipy_everywhere(shape, layout):
    # Past quat.BLOCK quaternions the kernels run block by block: a run written to the
    # wrong place, or a row left out, would show here against scipy, element by
    # element, whatever the arrays' memory layout (a gather along axis 1 is laid out
    # transposed, a reversed view has negative strides).
    n = int(np.prod(shape))
    a = random_unit(n, RNG_SEED + 10).reshape(shape + (4,))
    b = random_unit(n, RNG_SEED + 11).reshape(shape + (4,))
    if layout == "gathered" and len(shape) > 1:
        order = np.random.default_rng(RNG_SEED).permutation(shape[1])
        a, b = a[:, order], b[:, order]
        assert not a.flags.c_contiguous
    elif layout == "reversed":
        a, b = a[::-1], b[::-1]
    flat_a, flat_b = to_scipy(a.reshape(-1, 4)), to_scipy(b.reshape(-1, 4))
    product = quat.multiply(a, b).reshape(-1, 4)
    expected = (flat_a * flat_b).as_quat()[:, [3, 0, 1, 2]]
    sign = np.where(np.sum(product * expected, axis=1) < 0.0, -1.0, 1.0)[:, None]
    assert np.abs(product - sign * expected).max() < ULPS
    angle = quat.angle_between(a, b)
    assert angle.shape == shape
    assert np.abs(angle.ravel() - (flat_a.inv() * flat_b).magnitude()).max() < ULPS


@pytest.mark.parametrize("a_shape, b_shape", [
    ((3,), (3, 3)), ((3, 3), (3,)), ((1, 5), (3, 5)), ((3, 1), (3, 5)), ((5,), (3, 5)),
], ids=str)
def test_multiply_and_angle_between_in_blocks_broadcast_as_numpy_does(a_shape, b_shape,
                                                                      monkeypatch):
    # Blocks of 2 quaternions, so that every shape here is cut: operands of different
    # leading shapes broadcast, element by element against scipy, as numpy pairs them.
    monkeypatch.setattr(quat, "BLOCK", 2)
    a = random_unit(int(np.prod(a_shape)), RNG_SEED + 12).reshape(a_shape + (4,))
    b = random_unit(int(np.prod(b_shape)), RNG_SEED + 13).reshape(b_shape + (4,))
    wide_a, wide_b = np.broadcast_arrays(a, b)
    flat_a, flat_b = to_scipy(wide_a.reshape(-1, 4)), to_scipy(wide_b.reshape(-1, 4))
    product = quat.multiply(a, b)
    assert product.shape == wide_a.shape
    product = product.reshape(-1, 4)
    expected = (flat_a * flat_b).as_quat()[:, [3, 0, 1, 2]]
    sign = np.where(np.sum(product * expected, axis=1) < 0.0, -1.0, 1.0)[:, None]
    assert np.abs(product - sign * expected).max() < ULPS
    angle = quat.angle_between(a, b)
    assert angle.shape == wide_a.shape[:-1]
    assert np.abs(angle.ravel() - (flat_a.inv() * flat_b).magnitude()).max() < ULPS


# --------------------------------------------------------------------------
# accuracy at the edges (50-digit reference)


def _rotation(axis, angle):
    axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    return np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * axis])


def _mp_angle(a, b):
    with mpmath.workdps(50):
        a = [mpmath.mpf(float(x)) for x in a]
        b = [mpmath.mpf(float(x)) for x in b]
        w = sum(x * y for x, y in zip(a, b))
        x = a[0] * b[1] - a[1] * b[0] - a[2] * b[3] + a[3] * b[2]
        y = a[0] * b[2] + a[1] * b[3] - a[2] * b[0] - a[3] * b[1]
        z = a[0] * b[3] - a[1] * b[2] + a[2] * b[1] - a[3] * b[0]
        return float(2 * mpmath.atan2(mpmath.sqrt(x * x + y * y + z * z), abs(w)))


@pytest.mark.parametrize("angle", [0.0, 1e-15, 1e-12, 1e-8, 1.0, np.pi - 1e-6, np.radians(179.9999), np.pi])
def test_angle_between_is_accurate_near_zero_and_pi(angle):
    a = random_unit(1, RNG_SEED + 4)[0]
    b = quat.multiply(a, _rotation([0.2, -0.9, 0.4], angle))
    # Compared with the exact angle between the two float64 inputs: the
    # atan2 form keeps every digit (arccos(|dot|) would be off by ~1e-8 rad
    # at 1e-12 rad and near pi).
    assert abs(float(quat.angle_between(a, b)) - _mp_angle(a, b)) < ULPS
    assert abs(float(quat.angle_between(a, -b)) - _mp_angle(a, b)) < ULPS


@pytest.mark.parametrize("scale_a", [1e-200, 1.0, 1e200])
@pytest.mark.parametrize("scale_b", [1e-200, 1e200])
def test_angle_between_of_huge_and_tiny_non_unit_inputs(scale_a, scale_b):
    # Documented to accept non-unit input: squares of 1e200 overflow to inf
    # (the angle came out pi) and squares of 1e-200 underflow to 0 (it came out
    # 0), so the inputs must be scaled before the product.
    a = random_unit(1, RNG_SEED + 6)[0]
    b = quat.multiply(a, _rotation([0.2, -0.9, 0.4], 1.0))
    expected = _mp_angle(a, b)
    assert abs(expected - 1.0) < ULPS
    assert abs(float(quat.angle_between(scale_a * a, scale_b * b)) - expected) < ULPS
    assert abs(float(quat.angle_between(scale_b * b, -scale_a * a)) - expected) < ULPS


@pytest.mark.parametrize("half_angle", [0.0, 1e-300, 1e-15, 1e-9, 1e-7, 0.3, np.pi / 2 - 1e-9])
def test_log_exp_round_trip_at_small_and_large_angles(half_angle):
    axis = np.array([0.48, 0.6, -0.64])
    q = np.concatenate([[np.cos(half_angle)], np.sin(half_angle) * axis])
    log_q = quat.log(q)
    assert log_q[0] == 0.0
    # the log is the half-angle vector, to the last few ulps
    assert np.abs(log_q[1:] - half_angle * axis).max() <= 4e-16 * max(half_angle, 1e-300)
    assert quat.angle_between(quat.exp(log_q), q) < ULPS


# --------------------------------------------------------------------------
# properties


@PROPERTY
@given(quats)
def test_normalize_gives_unit_and_keeps_direction(q):
    u = quat.normalize(q)
    assert abs(quat.norm(u) - 1.0) < 4.5e-16  # two roundings
    assert quat.angle_between(u, q) < ULPS


@PROPERTY
@given(quats, quats, quats)
def test_multiply_is_associative_and_inverse_undoes_it(a, b, c):
    left = quat.multiply(quat.multiply(a, b), c)
    right = quat.multiply(a, quat.multiply(b, c))
    scale = np.linalg.norm(a) * np.linalg.norm(b) * np.linalg.norm(c)
    assert np.abs(left - right).max() < ULPS * scale
    ident = quat.multiply(quat.inverse(a), a)
    assert np.abs(ident - [1.0, 0, 0, 0]).max() < ULPS


@PROPERTY
@given(quats, quats)
def test_angle_between_is_sign_agnostic_symmetric_and_in_range(a, b):
    angle = quat.angle_between(a, b)
    assert 0.0 <= angle <= np.pi
    # -a is another array: SIMD kernels may round it differently (not ==).
    assert abs(quat.angle_between(-a, b) - angle) < ULPS
    assert abs(quat.angle_between(b, a) - angle) < ULPS
    assert quat.angle_between(a, 2.5 * a) < ULPS


@PROPERTY
@given(st.lists(quats, min_size=1, max_size=12))
def test_make_continuous_keeps_rotations_and_makes_dots_non_negative(keys):
    keys = np.array(keys)
    before = keys.copy()
    out = quat.make_continuous(keys)
    assert np.array_equal(keys, before)  # input untouched
    assert (quat.dot(out[1:], out[:-1]) >= 0.0).all()
    assert np.array_equal(np.abs(out), np.abs(keys))  # only signs change
    assert np.array_equal(out[0], keys[0])  # the first key anchors the signs


def test_make_continuous_flips_only_on_negative_dot():
    # Exactly 180 degrees apart (dot == 0) both signs are equally short; the
    # key keeps its sign, the deterministic choice interp.slerp documents too.
    keys = np.array([[1.0, 0, 0, 0], [0.0, 0, 0, 1], [0.0, 0, 0, -1], [-1e-300, 0, 0, -1]])
    out = quat.make_continuous(keys)
    assert np.array_equal(out, [[1.0, 0, 0, 0], [0.0, 0, 0, 1], [0.0, 0, 0, 1], [1e-300, 0, 0, 1]])


def test_make_continuous_of_one_quaternion_returns_it():
    q = np.array([-0.5, 0.5, 0.5, 0.5])
    assert np.array_equal(quat.make_continuous(q), q)
    assert np.array_equal(quat.make_continuous(q[None]), q[None])


def test_conjugate_and_inverse_never_mutate():
    q = np.array([[2.0, 0.0, 1.0, 0.0]])
    before = q.copy()
    assert np.allclose(quat.inverse(q), [[0.4, 0.0, -0.2, 0.0]], rtol=0, atol=ULPS)
    assert np.array_equal(quat.conjugate(q), [[2.0, -0.0, -1.0, -0.0]])
    quat.normalize(q)
    quat.log(quat.normalize(q))
    assert np.array_equal(q, before)


def test_normalize_huge_and_tiny_but_valid_quaternions():
    q = np.array([[1e300, 1e300, 0, 0], [3e-12, 0, 4e-12, 0]])
    u = quat.normalize(q)
    assert np.allclose(u, [[np.sqrt(0.5), np.sqrt(0.5), 0, 0], [0.6, 0, 0.8, 0]], rtol=0, atol=ULPS)


# --------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    "q, message",
    [
        ([[1.0, 0, 0, 0], [0, 0, 0, 0]], r"key 1 has norm 0, too close to zero to be a rotation"),
        ([0.0, 0, 0, 1e-13], r"the quaternion has norm 1e-13"),
        ([[1.0, 0, 0, 0], [0, 1, 0, 0], [np.nan, 0, 0, 0]], r"key 2 has a NaN or infinite component"),
        ([[1.0, 0, np.inf, 0]], r"key 0 has a NaN or infinite component"),
        ([[1.0, 0, 0]], r"expected quaternions of shape \(\.\.\., 4\).*got shape \(1, 3\)"),
        (1.0, r"got shape \(\)"),
    ],
)
def test_normalize_refuses_bad_input_naming_the_key(q, message):
    with pytest.raises(ValueError, match=message):
        quat.normalize(q)


def test_inverse_of_zero_raises_naming_the_key():
    with pytest.raises(ValueError, match=r"inverse: key 1 has norm 0, too close to zero"):
        quat.inverse([[1.0, 0, 0, 0], [0.0, 0, 0, 0]])


def test_inverse_of_huge_and_tiny_quaternions():
    # |q|^2 overflows at |q| ~ 1e154: the inverse must not come back as zero.
    q = np.array([[1e200, 0, 0, 0], [0, 3e-12, 4e-12, 0], [0, 0, -3e250, 4e250]])
    inv = quat.inverse(q)
    expected = [[1e-200, 0, 0, 0], [0, -1.2e11, -1.6e11, 0], [0, 0, 1.2e-251, -1.6e-251]]
    assert np.allclose(inv, expected, rtol=1e-15, atol=0)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_make_continuous_on_a_batch_matches_numpy_quaternion_unflip_rotors(axis):
    # Issue 10: shape (n, m, 4) with m > 1 raised IndexError (a cumsum without
    # an axis). Sequences run along `axis` of the leading dimensions; oracle:
    # numpy-quaternion's unflip_rotors along the same axis of the same batch.
    rng = np.random.default_rng(RNG_SEED)
    base = quat.make_continuous(random_unit(7 * 5).reshape(7, 5, 4), axis=axis)
    signs = rng.choice([-1.0, 1.0], size=(7, 5, 1))
    batch = base * signs
    before = batch.copy()
    out = quat.make_continuous(batch, axis=axis)
    theirs = npq.as_float_array(npq.unflip_rotors(npq.as_quat_array(batch), axis=axis))
    # Both only negate whole keys (exact), so equality is exact; the first key
    # of every sequence anchors its signs in both.
    assert np.array_equal(out, theirs)
    assert np.array_equal(batch, before)                     # input untouched
    seq = np.moveaxis(out, axis % 2, 0)
    assert (quat.dot(seq[1:], seq[:-1]) >= 0.0).all()
    # Each sequence alone gives the same as the batch.
    for b in range(batch.shape[1 - axis % 2]):
        one = np.take(batch, b, axis=1 - axis % 2)
        assert np.array_equal(quat.make_continuous(one), np.take(out, b, axis=1 - axis % 2))


def test_make_continuous_names_a_bad_axis():
    with pytest.raises(ValueError, match="axis 2 is outside"):
        quat.make_continuous(random_unit(6).reshape(3, 2, 4), axis=2)


def test_step_angles_are_each_samples_turn_from_the_last_as_scipy_measures_it():
    q = random_unit(200)
    q[50] = q[49]                      # zero step
    q[80] = -q[79]                     # same rotation, other sign: zero step
    tiny = Rotation.from_rotvec([0.0, 0.0, 1e-8]).as_quat()   # x, y, z, w
    q[120] = quat.multiply(q[119], np.roll(tiny, 1))          # 1e-8 rad about z
    steps = quat.step_angles(q)
    xyzw = np.roll(q, -1, axis=1)
    scipy_steps = (Rotation.from_quat(xyzw[:-1]).inv() * Rotation.from_quat(xyzw[1:])).magnitude()
    assert steps.shape == (200,) and steps[0] == 0.0
    # two float64 computations of the same angle: ~1e-15 rad apart, a few ulps of pi
    np.testing.assert_allclose(steps[1:], scipy_steps, atol=1e-12)
    assert steps[50] < 1e-15 and steps[80] < 1e-15
    assert steps[120] == pytest.approx(1e-8, rel=1e-6)
    assert quat.step_angles(q[:1]).tolist() == [0.0]


def _same_angle(radians):
    """Bit for bit on the CPU it was written on; within 1e-12 (relative and rad) here,
    since numpy may take another arctangent path for a part of an array than for the whole
    on other CPUs."""
    return pytest.approx(float(radians), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("scale", [1e-9, 1e-4, 0.01, 1.0, 3.14])
def test_largest_angle_between_is_angle_betweens_max_to_the_bit(scale):
    """quat.largest_angle_between measures the angle only near the largest: the number is
    angle_between(a, b).max() bit for bit, at angles from 1e-9 rad (every cosine rounds
    to 1: all pairs measured) to a half turn, with ties at the largest, scaled and
    sign-flipped quaternions, and a zero one (no cosine: all pairs measured)."""
    rng = np.random.default_rng(int(scale * 1e9) % 2**32)
    a = rng.normal(size=(2000, 4))
    a /= np.linalg.norm(a, axis=1)[:, None]
    axis = rng.normal(size=(2000, 3))
    axis /= np.linalg.norm(axis, axis=1)[:, None]
    half = 0.5 * scale * rng.uniform(0.0, 1.0, 2000)
    turn = np.column_stack((np.cos(half), np.sin(half)[:, None] * axis))
    b = quat.multiply(a, turn)
    b[::7] *= -3.0
    b[rng.integers(0, 2000, 4)] = b[int(np.argmax(half))]
    a[rng.integers(0, 2000, 4)] = a[int(np.argmax(half))]
    for x, y in ((a, b), (a[:1], b[:1]), (a, a)):
        assert quat.largest_angle_between(x, y) == _same_angle(quat.angle_between(x, y).max())
    b[5] = 0.0
    assert quat.largest_angle_between(a, b) == _same_angle(quat.angle_between(a, b).max())


@pytest.mark.parametrize("scale", [1e-160, 1e-100, 1e100, 1e154, 1e170])
def test_largest_angle_between_holds_at_norms_angle_between_rescales(scale):
    """angle_between measures any finite non-zero norms (rescaling pairs past ~1e77 and
    under ~1e-77); largest_angle_between's cosines overflowed there: one quaternion of
    norm 1e154 had cosine 0, so that pair alone was measured (0 rad where the largest
    angle was 3 rad)."""
    rng = np.random.default_rng(7)
    for _ in range(50):
        a = rng.normal(size=(6, 4))
        b = a + rng.normal(size=(6, 4))
        a[0] = b[0] * scale
        assert quat.largest_angle_between(a, b) == _same_angle(quat.angle_between(a, b).max())
