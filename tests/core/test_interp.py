"""Rotation interpolation (quatbake.core.interp): properties, oracles, accuracy, errors.

Rotations are compared sign-agnostically (quat.angle_between), never by
components, because q and -q are the same rotation.
"""
import mpmath
import numpy as np
import pytest
import quaternion as npq  # numpy-quaternion, test oracle for squad
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation, Slerp

from quatbake.core import interp, quat

RNG_SEED = 20261129

# Properties are checked on a fixed, reproducible set of examples.
PROPERTY = settings(derandomize=True, max_examples=200, deadline=None)

# A result built from a few dozen float64 operations on unit quaternions is
# off by a few ulps (2.2e-16 each): 1e-14 leaves a 10x margin above that and
# still catches any real formula error (those show up at 1e-8 or worse).
ULPS = 1e-14
# Unit-norm check: |q|^2 sums four products of rounded values, cos^2 + sin^2
# adds a couple more roundings: a handful of ulps.
NORM_TOL = 2e-15


def random_unit(n, seed=RNG_SEED):
    q = np.random.default_rng(seed).normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def random_walk(n, step, seed=RNG_SEED):
    """Keys that turn by random rotations of up to ``step`` radians each."""
    rng = np.random.default_rng(seed)
    axes = rng.normal(size=(n - 1, 3))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    angles = rng.uniform(0.0, step, size=n - 1)
    steps = np.concatenate([np.cos(angles / 2)[:, None], np.sin(angles / 2)[:, None] * axes], axis=1)
    q = np.empty((n, 4))
    q[0] = random_unit(1, seed + 1)[0]
    for i in range(1, n):  # test data only: building keys one by one is fine
        q[i] = quat.multiply(q[i - 1], steps[i - 1])
    return q


def to_scipy(q):
    """Blender (w, x, y, z) -> scipy's scalar-last (x, y, z, w)."""
    return Rotation.from_quat(np.asarray(q)[..., [1, 2, 3, 0]])


def from_scipy(rot):
    return rot.as_quat()[..., [3, 0, 1, 2]]


def uneven_times(n, seed=RNG_SEED):
    return 1.0 + np.cumsum(np.random.default_rng(seed).uniform(0.3, 4.0, size=n))


# --------------------------------------------------------------------------
# hypothesis strategies

component = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False)
quats = st.tuples(component, component, component, component).map(np.array).filter(
    lambda q: np.linalg.norm(q) > 0.1
)
fractions = st.floats(0.0, 1.0)


# --------------------------------------------------------------------------
# oracles


def test_slerp_matches_scipy_slerp_on_uneven_keys():
    times = uneven_times(60)
    keys = quat.make_continuous(random_unit(60))
    samples = np.linspace(times[0], times[-1], 20001)
    ours = interp.interpolate(times, keys, samples, "slerp")
    theirs = from_scipy(Slerp(times, to_scipy(keys))(samples))
    assert quat.angle_between(ours, theirs).max() < ULPS


def test_pairwise_slerp_matches_scipy_on_random_pairs():
    a = random_unit(2000, RNG_SEED)
    b = random_unit(2000, RNG_SEED + 7)
    t = np.random.default_rng(RNG_SEED).uniform(0.0, 1.0, 2000)
    ours = interp.slerp(a, b, t)
    theirs = np.array([from_scipy(Slerp([0.0, 1.0], to_scipy(np.stack([x, y])))(ti))
                       for x, y, ti in zip(a[:200], b[:200], t[:200])])
    assert quat.angle_between(ours[:200], theirs).max() < ULPS


def _squad_oracle(times, keys, samples):
    """numpy-quaternion's squad: same key times, absolute sample times.

    Its end conventions equal ours inside [t_0, t_n] (first segment starts
    with control point q_0, last one ends with q_n); outside it extrapolates
    where we hold, so only samples inside the key range are compared.
    """
    out = npq.squad(npq.as_quat_array(keys), times, samples)
    return npq.as_float_array(out)


def test_squad_matches_numpy_quaternion_for_even_spacing():
    times = 10.0 + 2.5 * np.arange(40)
    keys = random_walk(40, step=1.2)
    # numpy-quaternion's slerp takes the shortest-arc flip between control
    # points (s_i, s_i+1) on its own; with keys this close no control-point
    # pair has a negative dot product, so both define the same curve.
    s = interp.squad_control_points(times, keys)
    assert (quat.dot(s[:-1], s[1:]) > 0.0).all()
    samples = np.linspace(times[0], times[-1], 20001)
    ours = interp.interpolate(times, keys, samples, "squad")
    assert quat.angle_between(ours, _squad_oracle(times, keys, samples)).max() < ULPS


def test_squad_does_not_flip_control_point_arcs_where_numpy_quaternion_does():
    # Wild keys (up to 170 degrees per step): here numpy-quaternion's squad
    # flips s_i+1 when dot(s_i, s_i+1) < 0, which reverses the tangent at the
    # key. We match it exactly on every segment where it does not flip, and
    # keep angular velocity continuous at the keys where it does.
    times = 2.0 * np.arange(50)
    keys = quat.make_continuous(random_unit(50))
    s = interp.squad_control_points(times, keys)
    flipped = quat.dot(s[:-1], s[1:]) < 0.0
    assert flipped.any() and not flipped.all()  # the data exercises both cases
    samples = np.linspace(times[0], times[-1], 49 * 200 + 1)
    index, _ = interp.segment_params(times, samples)
    ours = interp.interpolate(times, keys, samples, "squad")
    err = quat.angle_between(ours, _squad_oracle(times, keys, samples))
    assert err[~flipped[index]].max() < ULPS
    assert err[flipped[index]].max() > 0.1  # a genuinely different curve there
    jumps = velocity_jumps(times, keys, "squad")
    speeds = np.linalg.norm(angular_velocity(times, keys, "squad", times[1:-1], +1), axis=1)
    assert (jumps < 1e-6 * np.maximum(speeds, 1.0)).all()


# --------------------------------------------------------------------------
# accuracy against a 50-digit reference

MP_DIGITS = 50


def _mp_slerp(q0, q1, t):
    """slerp in 50-digit arithmetic from the exact float64 inputs."""
    with mpmath.workdps(MP_DIGITS):
        a = [mpmath.mpf(float(x)) for x in q0]
        b = [mpmath.mpf(float(x)) for x in q1]
        na = mpmath.sqrt(sum(x * x for x in a))
        nb = mpmath.sqrt(sum(x * x for x in b))
        a = [x / na for x in a]
        b = [x / nb for x in b]
        if sum(x * y for x, y in zip(a, b)) < 0:
            b = [-x for x in b]
        diff = mpmath.sqrt(sum((y - x) ** 2 for x, y in zip(a, b)))
        summ = mpmath.sqrt(sum((y + x) ** 2 for x, y in zip(a, b)))
        omega = 2 * mpmath.atan2(diff, summ)
        tt = mpmath.mpf(float(t))
        if omega == 0:
            return a
        wa = mpmath.sin((1 - tt) * omega) / mpmath.sin(omega)
        wb = mpmath.sin(tt * omega) / mpmath.sin(omega)
        return [wa * x + wb * y for x, y in zip(a, b)]


def _mp_angle(q_float, q_ref):
    """Geodesic angle (radians) between a float64 result and the mp reference."""
    with mpmath.workdps(MP_DIGITS):
        a = [mpmath.mpf(float(x)) for x in q_float]
        b = q_ref
        # conj(a) * b
        w = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
        x = a[0] * b[1] - a[1] * b[0] - a[2] * b[3] + a[3] * b[2]
        y = a[0] * b[2] + a[1] * b[3] - a[2] * b[0] - a[3] * b[1]
        z = a[0] * b[3] - a[1] * b[2] + a[2] * b[1] - a[3] * b[0]
        return float(2 * mpmath.atan2(mpmath.sqrt(x * x + y * y + z * z), abs(w)))


def _rotation(axis, angle):
    axis = np.asarray(axis, dtype=float)
    axis = axis / np.linalg.norm(axis)
    return np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * axis])


def _adversarial_pairs():
    base = random_unit(3, RNG_SEED + 3)
    axis = np.array([0.3, -0.8, 0.5])
    pairs = {}
    for k, q in enumerate(base):
        pairs[f"identical-{k}"] = (q, q.copy())
        pairs[f"1e-12rad-{k}"] = (q, quat.multiply(q, _rotation(axis, 1e-12)))
        pairs[f"1e-15rad-{k}"] = (q, quat.multiply(q, _rotation(axis, 1e-15)))
        pairs[f"179.9999deg-{k}"] = (q, quat.multiply(q, _rotation(axis, np.radians(179.9999))))
        pairs[f"179.9999deg-other-sign-{k}"] = (q, -quat.multiply(q, _rotation(axis, np.radians(179.9999))))
        pairs[f"non-unit-{k}"] = (3.7 * q, 1e-3 * quat.multiply(q, _rotation(axis, 2.0)))
        pairs[f"non-unit-1e-12rad-{k}"] = (5.0 * q, 0.25 * quat.multiply(q, _rotation(axis, 1e-12)))
    # Exactly 180 degrees needs an exactly zero dot product, which only
    # exactly representable pairs have (a computed q*(0, axis) is off by 1e-17).
    pairs["180deg-identity-z"] = (np.array([1.0, 0, 0, 0]), np.array([0.0, 0, 0, 1]))
    pairs["180deg-halves"] = (np.array([0.5, 0.5, 0.5, 0.5]), np.array([0.5, -0.5, 0.5, -0.5]))
    pairs["180deg-3-4-5"] = (np.array([0.6, 0.8, 0, 0]), np.array([0.0, 0, 0.6, 0.8]))
    pairs["180deg-non-unit"] = (np.array([3.0, 4.0, 0, 0]), np.array([0.0, 0, -1.2, 1.6]))
    return pairs


ADVERSARIAL = _adversarial_pairs()
FRACTIONS = [0.0, 1e-9, 0.25, 1.0 / 3.0, 0.5, 0.9, 1.0 - 1e-9, 1.0]


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_slerp_within_1e14_rad_of_50_digit_reference(name):
    q0, q1 = ADVERSARIAL[name]
    out = interp.slerp(q0, q1, np.array(FRACTIONS))
    assert np.isfinite(out).all()
    assert np.abs(quat.norm(out) - 1.0).max() < NORM_TOL
    errors = [_mp_angle(o, _mp_slerp(q0, q1, t)) for o, t in zip(out, FRACTIONS)]
    assert max(errors) < 1e-14, dict(zip(FRACTIONS, errors))


def _mp_quat(q):
    return [mpmath.mpf(float(x)) for x in q]


def _mp_mul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return [aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw]


def _mp_log_rel(a, b):
    """log(a^-1 b) as a 3-vector (half-angle times axis)."""
    rel = _mp_mul([a[0], -a[1], -a[2], -a[3]], b)
    vn = mpmath.sqrt(rel[1] ** 2 + rel[2] ** 2 + rel[3] ** 2)
    half = mpmath.atan2(vn, rel[0])
    return [x * half / vn if vn > 0 else mpmath.mpf(0) for x in rel[1:]]


def _mp_exp(v):
    a = mpmath.sqrt(sum(x * x for x in v))
    return [mpmath.cos(a)] + [x * mpmath.sin(a) / a if a > 0 else mpmath.mpf(0) for x in v]


def _mp_arc(a, b, t):
    """Great-circle interpolation from a to b as given (no sign flip)."""
    omega = 2 * mpmath.atan2(mpmath.sqrt(sum((y - x) ** 2 for x, y in zip(a, b))),
                             mpmath.sqrt(sum((y + x) ** 2 for x, y in zip(a, b))))
    if omega == 0:
        return a
    wa = mpmath.sin((1 - t) * omega) / mpmath.sin(omega)
    wb = mpmath.sin(t * omega) / mpmath.sin(omega)
    return [wa * x + wb * y for x, y in zip(a, b)]


def _mp_squad(times, keys, sample):
    """The documented squad, in 50-digit arithmetic from the float64 keys.

    s_i = q_i exp(-(h_{i-1} L+ + h_i L-) / (2 (h_{i-1} + h_i))), s_0 = q_0, s_n = q_n.
    """
    q = [_mp_quat(k) for k in keys]
    n = len(q)
    t = [mpmath.mpf(float(x)) for x in times]
    s = [q[0]]
    for i in range(1, n - 1):
        h_prev, h_next = t[i] - t[i - 1], t[i + 1] - t[i]
        l_next = _mp_log_rel(q[i], q[i + 1])
        l_prev = _mp_log_rel(q[i], q[i - 1])
        tangent = [-(h_prev * a + h_next * b) / (2 * (h_prev + h_next)) for a, b in zip(l_next, l_prev)]
        s.append(_mp_mul(q[i], _mp_exp(tangent)))
    s.append(q[-1])
    x = mpmath.mpf(float(sample))
    i = max(k for k in range(n - 1) if t[k] <= x)
    u = (x - t[i]) / (t[i + 1] - t[i])
    return _mp_arc(_mp_arc(q[i], q[i + 1], u), _mp_arc(s[i], s[i + 1], u), 2 * u * (1 - u))


@pytest.mark.parametrize("step", [1e-12, 1e-6, 0.5, 1.5])
@pytest.mark.parametrize("spacing", ["even", "uneven"])
def test_squad_within_1e14_rad_of_50_digit_reference(step, spacing):
    # Keys 1e-12 rad apart are where accuracy is hard: numpy-quaternion's
    # squad is off by ~1.6e-14 rad there, ours stays at a few 1e-16.
    n = 6
    times = 2.0 * np.arange(n) if spacing == "even" else uneven_times(n)
    keys = quat.normalize(random_walk(n, step))  # unit in float64, as interpolate sees them
    samples = np.linspace(times[0] + 0.01, times[-1] - 0.01, 23)
    out = interp.interpolate(times, keys, samples, "squad")
    with mpmath.workdps(MP_DIGITS):
        errors = [_mp_angle(o, _mp_squad(times, keys, x)) for o, x in zip(out, samples)]
    assert max(errors) < ULPS


def test_exact_180_degrees_takes_the_documented_great_circle():
    # dot == 0: both arcs are equally short; slerp turns from q0 towards q1
    # as given (q1's sign is kept), so halfway is (q0 + q1)/sqrt(2), not (q0 - q1)/sqrt(2).
    q0 = np.array([1.0, 0.0, 0.0, 0.0])
    q1 = np.array([0.0, 0.0, 0.0, 1.0])
    mid = interp.slerp(q0, q1, 0.5)
    assert np.allclose(mid, [np.sqrt(0.5), 0, 0, np.sqrt(0.5)], atol=ULPS, rtol=0)
    mid_neg = interp.slerp(q0, -q1, 0.5)
    assert np.allclose(mid_neg, [np.sqrt(0.5), 0, 0, -np.sqrt(0.5)], atol=ULPS, rtol=0)
    # The same choice through interpolate (make_continuous keeps dot == 0 keys).
    out = interp.interpolate([0.0, 2.0], [q0, q1], [1.0])
    assert np.allclose(out[0], [np.sqrt(0.5), 0, 0, np.sqrt(0.5)], atol=ULPS, rtol=0)


# --------------------------------------------------------------------------
# properties (hypothesis)


@PROPERTY
@given(quats, quats, fractions)
def test_slerp_and_nlerp_are_unit(a, b, t):
    assert abs(quat.norm(interp.slerp(a, b, t)) - 1.0) < NORM_TOL
    assert abs(quat.norm(interp.nlerp(a, b, t)) - 1.0) < NORM_TOL


@PROPERTY
@given(quats, quats, quats)
def test_slerp_is_left_invariant(r, a, b):
    # Near exactly 180 degrees (dot ~ 0) rounding in r*a, r*b may pick the
    # other, equally short arc; away from it the arc is unique.
    assume(abs(quat.dot(a, b)) > 1e-6 * np.linalg.norm(a) * np.linalg.norm(b))
    t = np.linspace(0.0, 1.0, 11)
    lhs = interp.slerp(quat.multiply(r, a), quat.multiply(r, b), t)
    rhs = quat.multiply(r, interp.slerp(a, b, t))
    assert quat.angle_between(lhs, rhs).max() < ULPS


@PROPERTY
@given(quats, quats)
def test_slerp_angle_is_linear_in_t(a, b):
    # Constant angular velocity: the rotation from a grows as t times the total.
    t = np.linspace(0.0, 1.0, 17)
    out = interp.slerp(a, b, t)
    total = quat.angle_between(a, b)
    assert np.abs(quat.angle_between(a, out) - t * total).max() < ULPS
    assert np.abs(quat.angle_between(out, b) - (1.0 - t) * total).max() < ULPS


@PROPERTY
@given(st.lists(quats, min_size=2, max_size=8), st.lists(st.floats(0.1, 5.0), min_size=8, max_size=8),
       st.sampled_from(interp.METHODS))
def test_interpolate_reproduces_keys_and_stays_unit(keys, gaps, method):
    keys = np.array(keys)
    times = np.concatenate([[-3.0], -3.0 + np.cumsum(gaps[: len(keys) - 1])])
    out = interp.interpolate(times, keys, times, method)
    assert quat.angle_between(out, keys).max() < ULPS
    if method == "lerp":
        # raw keys come back as given (up to the shortest-arc sign)
        assert np.allclose(np.abs(quat.dot(out, keys)), quat.dot(keys, keys), rtol=1e-15, atol=0)
    else:
        dense = interp.interpolate(times, keys, np.linspace(times[0] - 1, times[-1] + 1, 301), method)
        assert np.abs(quat.norm(dense) - 1.0).max() < NORM_TOL


@PROPERTY
@given(st.lists(quats, min_size=2, max_size=6), st.sampled_from(["lerp", "nlerp", "slerp"]))
def test_interpolate_takes_the_short_way(keys, method):
    # Keys with arbitrary signs: per segment the turn summed over dense
    # samples must not exceed the short rotation between its two keys.
    keys = np.array(keys)
    times = np.arange(len(keys), dtype=float)
    samples = np.linspace(0.0, times[-1], 200 * (len(keys) - 1) + 1)
    out = interp.interpolate(times, keys, samples, method)
    steps = quat.angle_between(out[:-1], out[1:])
    per_segment = steps.reshape(len(keys) - 1, 200).sum(axis=1)
    short = quat.angle_between(keys[:-1], keys[1:])
    assert (per_segment <= short + 1e-12).all()  # sum of 200 rounded angles


@PROPERTY
@given(st.lists(quats, min_size=2, max_size=7), st.lists(st.booleans(), min_size=7, max_size=7),
       st.sampled_from(interp.METHODS))
def test_key_signs_do_not_matter_with_shortest(keys, flips, method):
    # q and -q are the same rotation: with shortest=True (hemisphere
    # continuity first) flipping any key's sign changes nothing, for Squad's
    # control points and tangents too. (dot == 0 exactly is the documented
    # tie, decided by the sign as given, so it is left out.)
    keys = np.array(keys)
    assume((quat.dot(keys[1:], keys[:-1]) != 0.0).all())
    flipped = keys * np.where(flips[: len(keys)], -1.0, 1.0)[:, None]
    times = np.arange(len(keys), dtype=float) * 1.5
    samples = np.linspace(-1.0, times[-1] + 1.0, 157)
    a = interp.interpolate(times, keys, samples, method)
    b = interp.interpolate(times, flipped, samples, method)
    if method == "lerp":
        # raw values: the same up to one global sign (the first key's)
        sign = -1.0 if flips[0] else 1.0
        # two computations on different arrays: equal to rounding (1 ulp of a unit value)
        assert np.abs(b - sign * a).max() < 4.5e-16
    else:
        assert quat.angle_between(a, b).max() < ULPS


@PROPERTY
@given(quats, st.floats(0.01, 1.5), st.floats(0.2, 3.0), st.integers(3, 9), st.booleans())
def test_squad_equals_slerp_on_one_great_circle(q0, omega, h, n, scramble_signs):
    # Keys q0 * exp(k * omega * axis / 2), evenly spaced: a rotation at constant
    # speed about a fixed axis. Shoemake's control points coincide with the
    # keys and squad reduces to slerp.
    q0 = q0 / np.linalg.norm(q0)
    axis = np.array([0.48, -0.6, 0.64])
    keys = np.array([quat.multiply(q0, _rotation(axis, k * omega)) for k in range(n)])
    if scramble_signs:
        keys[1::2] *= -1.0
    times = h * np.arange(n)
    samples = np.linspace(0.0, times[-1], 97)
    sq = interp.interpolate(times, keys, samples, "squad")
    sl = interp.interpolate(times, keys, samples, "slerp")
    assert quat.angle_between(sq, sl).max() < ULPS


def test_squad_equals_slerp_for_uneven_keys_of_a_uniform_rotation():
    # The interval weighting reproduces a constant-speed rotation however
    # unevenly it is keyed; unweighted Shoemake (the same keys at even
    # spacing, then mapped back per segment) would not.
    times = uneven_times(12)
    axis = np.array([0.0, 0.6, 0.8])
    keys = np.array([_rotation(axis, 0.2 * t) for t in times])
    samples = np.linspace(times[0], times[-1], 1001)
    sq = interp.interpolate(times, keys, samples, "squad")
    truth = np.array([_rotation(axis, 0.2 * t) for t in samples])
    assert quat.angle_between(sq, truth).max() < ULPS
    index, u = interp.segment_params(times, samples)
    unweighted = interp.interpolate(np.arange(12.0), keys, index + u, "squad")
    assert quat.angle_between(unweighted, truth).max() > 1e-3


# --------------------------------------------------------------------------
# continuity of squad


def angular_velocity(times, keys, method, at, side, delta=1e-4):
    """One-sided angular velocity (rad/frame, body frame) at times ``at``.

    Second-order one-sided difference of v(d) = rotation vector from q(at) to
    q(at + side*d): omega ~ side * (4 v(d) - v(2d)) / (2d). Truncation is
    O(d^2) ~ 1e-8 and rounding ~1e-16/d ~ 1e-12 rad/frame.
    """
    at = np.asarray(at, dtype=float)
    base = interp.interpolate(times, keys, at, method)
    v = []
    for k in (1, 2):
        q = interp.interpolate(times, keys, at + side * k * delta, method)
        v.append(2.0 * quat.log(quat.multiply(quat.conjugate(base), q))[:, 1:])
    return side * (4.0 * v[0] - v[1]) / (2.0 * delta)


def velocity_jumps(times, keys, method):
    inner = times[1:-1]
    left = angular_velocity(times, keys, method, inner, -1)
    right = angular_velocity(times, keys, method, inner, +1)
    return np.linalg.norm(right - left, axis=1)


def test_squad_angular_velocity_is_continuous_for_even_spacing():
    times = 4.0 * np.arange(12)
    keys = random_walk(12, step=1.5)
    jumps = velocity_jumps(times, keys, "squad")
    speed = np.linalg.norm(angular_velocity(times, keys, "squad", times[1:-1], +1), axis=1)
    assert (speed > 1e-3).all()  # the keys really turn
    assert jumps.max() < 1e-6  # finite-difference noise, see angular_velocity
    # slerp, for contrast, has a corner at every key
    assert velocity_jumps(times, keys, "slerp").min() > 1e-3


def test_squad_weighted_tangents_beat_unweighted_for_uneven_spacing():
    times = uneven_times(12, RNG_SEED + 5)
    keys = random_walk(12, step=1.0, seed=RNG_SEED + 5)
    weighted = velocity_jumps(times, keys, "squad")
    assert weighted.max() < 1e-6
    # Unweighted Shoemake: the same keys at even spacing, mapped back to the
    # real times per segment (velocity in frames = velocity in u / h).
    even = np.arange(12.0)
    h = np.diff(times)
    left = angular_velocity(even, keys, "squad", even[1:-1], -1) / h[:-1, None]
    right = angular_velocity(even, keys, "squad", even[1:-1], +1) / h[1:, None]
    unweighted = np.linalg.norm(right - left, axis=1)
    assert unweighted.max() > 100.0 * max(weighted.max(), 1e-9)
    assert np.median(unweighted) > 1e-3


# --------------------------------------------------------------------------
# the seeds' pitfall: raw lerp leaves the unit sphere


def test_lerp_norm_really_drifts_below_one_midway():
    q0 = _rotation([0, 0, 1], 0.0)
    q1 = _rotation([0, 0, 1], np.radians(120.0))
    mid = interp.lerp(q0, q1, 0.5)
    # |(q0 + q1)/2| = cos(omega/2), omega = 60 deg (half the rotation angle)
    assert abs(quat.norm(mid) - np.cos(np.radians(30.0))) < NORM_TOL
    assert quat.norm(mid) < 0.87
    out = interp.interpolate([0.0, 10.0], [q0, q1], np.linspace(0, 10, 11), "lerp")
    norms = quat.norm(out)
    assert norms[0] == 1.0 and norms[-1] == 1.0
    assert norms.min() == pytest.approx(np.cos(np.radians(30.0)), abs=NORM_TOL)
    # nlerp and slerp, through the same call, stay on the unit sphere
    for method in ("nlerp", "slerp", "squad"):
        out = interp.interpolate([0.0, 10.0], [q0, q1], np.linspace(0, 10, 11), method)
        assert np.abs(quat.norm(out) - 1.0).max() < NORM_TOL


def test_lerp_is_raw_but_shortest_fixed_through_interpolate():
    q0 = np.array([1.0, 0, 0, 0])
    q1 = -_rotation([1, 0, 0], 0.5)  # same rotation as +, stored with a flipped sign
    raw = interp.lerp(q0, q1, 0.5)  # no sign fix: passes near zero
    assert quat.norm(raw) < 0.2
    fixed = interp.interpolate([0.0, 1.0], [q0, q1], [0.5], "lerp")[0]
    assert quat.norm(fixed) > 0.99
    unfixed = interp.interpolate([0.0, 1.0], [q0, q1], [0.5], "lerp", shortest=False)[0]
    assert np.allclose(unfixed, raw, rtol=0, atol=ULPS)


# --------------------------------------------------------------------------
# holding, single keys, segment lookup


@pytest.mark.parametrize("method", interp.METHODS)
def test_samples_outside_the_keys_hold_the_end_keys(method):
    times = np.array([5.0, 7.0, 12.0])
    keys = quat.make_continuous(random_unit(3))
    out = interp.interpolate(times, keys, [-100.0, 4.999, 5.0, 12.0, 12.001, 1e9], method)
    # lerp holds the raw keys bit for bit (a copy); the others hold the keys
    # normalised inside interpolate, which this test's own normalize() call, on
    # another array, matches to 1 ulp of a unit value (nlerp divides even a held
    # key by its norm, 1 +- 1 ulp).
    reference = keys if method == "lerp" else quat.normalize(keys)
    expected = np.repeat(reference[[0, 2]], 3, axis=0)
    if method == "lerp":
        assert np.array_equal(out, expected)
    else:
        assert np.allclose(out, expected, rtol=0, atol=2.3e-16)


@pytest.mark.parametrize("method", interp.METHODS)
def test_a_single_key_holds_everywhere(method):
    key = np.array([[0.0, 0.0, 2.0, 0.0]])
    out = interp.interpolate([3.0], key, [-1.0, 3.0, 50.0], method)
    assert out.shape == (3, 4)
    expected = key[0] if method == "lerp" else key[0] / 2.0
    assert np.array_equal(out, np.repeat(expected[None], 3, axis=0))


def test_segment_params():
    times = [0.0, 1.0, 3.0, 4.0]
    index, u = interp.segment_params(times, [-1.0, 0.0, 0.5, 1.0, 2.0, 3.999, 4.0, 9.0])
    assert index.tolist() == [0, 0, 0, 1, 1, 2, 2, 2]
    assert np.allclose(u, [0.0, 0.0, 0.5, 0.0, 0.5, 0.999, 1.0, 1.0], rtol=0, atol=1e-15)
    index, u = interp.segment_params([2.0], [0.0, 5.0])
    assert index.tolist() == [0, 0] and u.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("method", interp.METHODS)
def test_sample_order_and_block_size_do_not_change_results(method, monkeypatch):
    # Sorted samples take a faster segment lookup than unsorted ones, and
    # samples are evaluated in blocks of interp.BLOCK: neither may show.
    times = uneven_times(30)
    keys = random_unit(30)
    samples = np.linspace(times[0] - 3.0, times[-1] + 3.0, 5001)
    reference = interp.interpolate(times, keys, samples, method)
    order = np.random.default_rng(RNG_SEED).permutation(samples.shape[0])
    # Not bit for bit: a sample's SIMD lane (and so its last digit in numpy's
    # vectorised sin/cos/arctan) depends on where it sits in the array. 1e-15 is
    # a few ulps of a unit quaternion; a wrong lookup or block seam is >1e-3 off.
    shuffled = interp.interpolate(times, keys, samples[order], method)
    assert np.abs(shuffled - reference[order]).max() < 1e-15
    monkeypatch.setattr(interp, "BLOCK", 7)
    assert np.abs(interp.interpolate(times, keys, samples, method) - reference).max() < 1e-15
    index, u = interp.segment_params(times, samples)
    index_s, u_s = interp.segment_params(times, samples[order])
    assert np.array_equal(index_s, index[order])          # integers: the same segments
    assert np.abs(u_s - u[order]).max() < 1e-15


@pytest.mark.parametrize("method", ["slerp", "squad"])
def test_shortest_false_follows_the_signs_the_long_way(method):
    short = _rotation([0, 0, 1], np.radians(60.0))
    keys = np.array([[1.0, 0, 0, 0], -short])  # -short is the same rotation
    samples = np.linspace(0.0, 1.0, 2001)
    out = interp.interpolate([0.0, 1.0], keys, samples, method, shortest=False)
    turned = quat.angle_between(out[:-1], out[1:]).sum()
    assert turned == pytest.approx(np.radians(300.0), abs=1e-9)  # 2000 summed steps
    assert quat.angle_between(out[-1], short) < ULPS
    out = interp.interpolate([0.0, 1.0], keys, samples, method)
    assert quat.angle_between(out[:-1], out[1:]).sum() == pytest.approx(np.radians(60.0), abs=1e-9)


@pytest.mark.parametrize("method", ["slerp", "squad"])
@pytest.mark.parametrize("gap", [0.0, 1e-15, 1e-12, 1e-9, 1e-6])
def test_shortest_false_across_antipodal_keys_is_unit_and_a_full_turn(method, gap):
    # q then (almost) -q: a 4D arc of pi (a full turn of rotation), where
    # sin(omega) -> 0 made the arc tangent lose digits (slerp came out 6e-7
    # off unit at gap 1e-9, squad's outer arc up to 1e147 at gap 1e-12).
    rng = np.random.default_rng(RNG_SEED + 40)
    q = random_unit(1, RNG_SEED + 41)[0]
    nudge = rng.normal(size=4)
    far = -q + gap * nudge / np.linalg.norm(nudge)
    before, after = random_unit(2, RNG_SEED + 42)
    keys = np.array([before, q, 1.7 * far, 0.3 * after])  # odd norms on purpose
    samples = np.linspace(-0.5, 3.5, 4001)
    out = interp.interpolate([0.0, 1.0, 2.0, 3.0], keys, samples, method, shortest=False)
    assert np.abs(np.linalg.norm(out, axis=1) - 1.0).max() < NORM_TOL
    # The q -> -q segment (frames 1..2, samples 1500..2500) goes the long way:
    # (almost) a full turn of rotation, 2 pi less the short angle to `far`.
    # Slerp follows the great circle exactly; Squad's control points bend its
    # path, which can only make it longer. 1e-9: 1000 summed steps.
    segment = out[1500:2501]
    turned = quat.angle_between(segment[:-1], segment[1:]).sum()
    long_way = 2.0 * np.pi - float(quat.angle_between(q, far))
    if method == "slerp":
        assert turned == pytest.approx(long_way, abs=1e-9)
    else:
        assert turned > long_way - 1e-9
    assert quat.angle_between(segment[0], q) < ULPS
    assert quat.angle_between(segment[-1], far) < ULPS


def test_output_shape_and_empty_samples():
    keys = random_unit(4)
    out = interp.interpolate(np.arange(4.0), keys, np.arange(7.0))
    assert out.shape == (7, 4) and out.dtype == np.float64 and out.flags.c_contiguous
    assert interp.interpolate(np.arange(4.0), keys, []).shape == (0, 4)


# --------------------------------------------------------------------------
# inputs are never mutated


@pytest.mark.parametrize("method", interp.METHODS)
@pytest.mark.parametrize("shortest", [True, False])
def test_inputs_are_never_mutated(method, shortest):
    times = uneven_times(6)
    keys = random_unit(6) * np.array([[1.0], [-2.0], [0.5], [-1.0], [3.0], [1.0]])
    samples = np.linspace(0.0, 30.0, 50)
    copies = [times.copy(), keys.copy(), samples.copy()]
    interp.interpolate(times, keys, samples, method, shortest=shortest)
    interp.squad_control_points(times, keys)
    interp.segment_params(times, samples)
    for fn in (interp.lerp, interp.nlerp, interp.slerp):
        fn(keys[:-1], keys[1:], samples[:5])
    for original, copy in zip((times, keys, samples), copies):
        assert np.array_equal(original, copy)


# --------------------------------------------------------------------------
# bad input: ValueError sentences


GOOD_T = [0.0, 1.0, 2.0]
GOOD_Q = [[1.0, 0, 0, 0], [0.0, 1, 0, 0], [0.0, 0, 1, 0]]


@pytest.mark.parametrize(
    "times, keys, samples, method, message",
    [
        ([0.0, 1.0, 1.0], GOOD_Q, [0.5], "slerp",
         r"key 2 at frame 1 .*key 1 at frame 1 \(duplicate key time\)"),
        ([0.0, 2.0, 1.0], GOOD_Q, [0.5], "slerp",
         r"strictly increasing: key 2 .*earlier than the key before"),
        ([], np.zeros((0, 4)), [0.5], "slerp", r"No keys"),
        (GOOD_T, GOOD_Q[:2], [0.5], "slerp", r"key_quats has shape \(2, 4\), expected \(3, 4\)"),
        (GOOD_T, [[1.0, 0, 0], [0, 1, 0], [0, 0, 1]], [0.5], "nlerp", r"shape \(3, 3\), expected \(3, 4\)"),
        ([[0.0, 1.0, 2.0]], GOOD_Q, [0.5], "slerp", r"key_times: expected a 1-D array"),
        ([0.0, np.nan, 2.0], GOOD_Q, [0.5], "slerp", r"key_times: key 1 .*not a finite frame"),
        ([0.0, 1.0, np.inf], GOOD_Q, [0.5], "squad", r"key_times: key 2 .*not a finite frame"),
        (GOOD_T, [[1.0, 0, 0, 0], [0, np.nan, 0, 0], [0, 0, 1, 0]], [0.5], "slerp",
         r"key_quats: key 1 has a NaN or infinite component"),
        (GOOD_T, [[1.0, 0, 0, 0], [0, 1, 0, 0], [np.inf, 0, 1, 0]], [0.5], "lerp",
         r"key_quats: key 2 has a NaN or infinite component"),
        (GOOD_T, [[1.0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 1, 0]], [0.5], "lerp",
         r"key_quats: key 1 has norm 0, too close to zero"),
        (GOOD_T, [[1.0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1e-13, 0]], [0.5], "squad",
         r"key_quats: key 2 has norm 1e-13"),
        (GOOD_T, GOOD_Q, [0.5, np.nan], "slerp", r"sample_times: entry 1 is nan"),
        (GOOD_T, GOOD_Q, [[0.5]], "slerp", r"sample_times: expected a 1-D array"),
        (GOOD_T, GOOD_Q, [0.5], "cubic", r"Unknown interpolation method 'cubic'"),
        ([-1.5e308, -1e308, 1e308], GOOD_Q, [0.5], "slerp", r"keys 1 and 2 .*further apart than float64"),
    ],
)
def test_bad_input_raises_a_sentence(times, keys, samples, method, message):
    with pytest.raises(ValueError, match=message):
        interp.interpolate(times, keys, samples, method)


def test_nlerp_through_opposite_keys_without_shortest_raises():
    q = np.array([[1.0, 0, 0, 0], [-1.0, 0, 0, 0]])
    with pytest.raises(ValueError, match=r"keys 0 and 1 are opposite quaternions"):
        interp.interpolate([0.0, 1.0], q, [0.5], "nlerp", shortest=False)


def test_pairwise_far_extrapolation_stays_unit_or_refuses():
    a, b = np.array([1.0, 0, 0, 0]), np.array([0.8, 0.6, 0, 0])
    for t in (1e17, 1e200, -1e300):
        assert abs(quat.norm(interp.nlerp(a, b, t)) - 1.0) < NORM_TOL
        assert abs(quat.norm(interp.slerp(a, b, t)) - 1.0) < NORM_TOL
    # the nlerp direction at t -> inf is b - a
    assert quat.angle_between(interp.nlerp(a, b, 1e200), b - a) < ULPS
    with pytest.raises(ValueError, match=r"slerp: t is too large to extrapolate"):
        interp.slerp(a, [0.0, 1, 0, 0], 1.7e308)  # 1.7e308 * pi/2 overflows


def test_pairwise_bad_input_raises():
    with pytest.raises(ValueError, match=r"slerp q1: the quaternion has norm 0"):
        interp.slerp([1.0, 0, 0, 0], [0.0, 0, 0, 0], 0.5)
    with pytest.raises(ValueError, match=r"nlerp q0: key 1 has a NaN"):
        interp.nlerp([[1.0, 0, 0, 0], [np.nan, 0, 0, 0]], [1.0, 0, 0, 0], 0.5)
    with pytest.raises(ValueError, match=r"t: interpolation fractions must be finite"):
        interp.slerp([1.0, 0, 0, 0], [0.0, 1, 0, 0], np.inf)
    with pytest.raises(ValueError, match=r"lerp q1: the quaternion has norm 0"):
        interp.lerp([1.0, 0, 0, 0], [0.0, 0, 0, 0], 0.5)
    with pytest.raises(ValueError, match=r"No keys"):
        interp.segment_params([], [0.0])
    with pytest.raises(ValueError, match=r"strictly increasing: key 1"):
        interp.segment_params([1.0, 1.0], [0.0])


@pytest.mark.parametrize("method", interp.METHODS)
def test_extreme_frame_numbers_never_give_nan(method):
    # Keys a subnormal 5e-324 frames apart (1/h overflows) and samples ~1e308
    # frames from the keys (s - t overflows): u saturates to the segment ends.
    keys = np.array([[1.0, 0, 0, 0], [0.0, 1, 0, 0]])
    with np.errstate(all="raise"):  # and no floating-point warnings either
        out = interp.interpolate([0.0, 5e-324], keys, [0.0, 1e-324, 5e-324, 1.0], method)
        assert np.array_equal(out, keys[[0, 0, 1, 1]])
        out = interp.interpolate([-1e300, 1.0], keys, [1.7e308, -1.7e308], method)
        assert np.array_equal(out, keys[[1, 0]])


@pytest.mark.parametrize("method", ["slerp", "nlerp", "lerp", "squad"])
def test_interpolate_many_equals_interpolate_per_sequence(method):
    """A rig's bones keyed on the same frames, interpolated together, against one call per
    bone: the same formulas in another order of operations (float64, 1e-13)."""
    rng = np.random.default_rng(5)
    times = np.array([0.0, 3.0, 4.0, 10.0, 25.0])
    keys = rng.normal(size=(9, times.size, 4))
    keys[2, 3] = -keys[2, 2]                   # a sign-flipped key: the short arc
    keys[4, 1] = keys[4, 0]                    # identical neighbours: no arc at all
    samples = np.linspace(-5.0, 30.0, 211)
    together = interp.interpolate_many(times, keys, samples, method)
    for k in range(keys.shape[0]):
        alone = interp.interpolate(times, keys[k], samples, method)
        np.testing.assert_allclose(together[k], alone, rtol=0, atol=1e-13)


def test_nlerp_stays_unit_and_on_the_chord_next_to_the_antipode():
    """The closed-form norm of nlerp, (1-2u)^2 + u(1-u)|a+b|^2, keeps its digits where
    the keys are nearly opposite (shortest=False): there 1 - 2u(1-u)(1 - a.b) would
    cancel to ~1e-16 absolute out of ~1e-10, and the result would leave the unit
    sphere by ~1e-6. Checked against the chord point normalised in extended precision."""
    eps = 1e-5                                   # half-angle off the antipode, radians
    a = np.array([1.0, 0.0, 0.0, 0.0])
    b = np.array([-np.cos(eps), np.sin(eps), 0.0, 0.0])
    u = np.linspace(0.0, 1.0, 101)
    got = interp.interpolate([0.0, 1.0], [a, b], u, "nlerp", shortest=False)
    la, lb = a.astype(np.longdouble), b.astype(np.longdouble)
    chord = la[None, :] + u.astype(np.longdouble)[:, None] * (lb - la)[None, :]
    want = (chord / np.sqrt((chord * chord).sum(axis=1))[:, None]).astype(np.float64)
    # float64 rounding of the keys' difference, amplified by 1/|chord| (>= sin(eps)).
    assert np.abs(np.linalg.norm(got, axis=1) - 1.0).max() < 1e-12
    assert np.abs(got - want).max() < 1e-9
