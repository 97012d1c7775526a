"""Hostile fuzzing of every core entry point (issue 7).

Each property feeds key sequences a user's scene or a pipeline could produce,
and worse: random times (unsorted, near-duplicate, huge), random signs,
near-antipodal neighbours, exact duplicates, NaN and infinity, zero
quaternions and norms from 1e-300 to 1e300. The contract for every call is
the same: either a ValueError whose message is a sentence, or a finite result
(unit-norm where the result is a rotation). Never NaN, never another
exception type, never a numpy warning turned silent garbage.

The number of examples comes from the hypothesis profile chosen in
tests/conftest.py: a few hundred by default, >= 10,000 with QUATBAKE_SLOW=1
(`make test-slow`).
"""
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quatbake.core import interp, metrics, path, quat, rotation

# Profile-driven example counts; only the health checks are relaxed here
# (the composite strategies are large on purpose).
FUZZ = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])

# Unit results: float64 normalisation and cos^2 + sin^2 on unit arcs are good
# to a few ulps (2.2e-16 each); 1e-14 leaves a margin (1,000 examples per
# property passed at it). It used to be 1e-8 while slerp and squad with
# shortest=False across antipodal key pairs lost digits in the arc tangent
# (fixed in interp: LONG_ARC); a real normalisation bug is off by 1e-3 or more.
UNIT_TOL = 1e-14

NORMS = [0.0, 1e-300, 1e-20, 1e-13, 1e-12, 1e-6, 1.0, 1e6, 1e18, 1e20, 1e150, 1e300]
SPECIALS = [np.nan, np.inf, -np.inf]


# --------------------------------------------------------------------------
# The contract
# --------------------------------------------------------------------------

def _is_sentence(message: str) -> bool:
    """A sentence a user can read: words, not a bare repr or a numpy message."""
    return len(message) >= 15 and " " in message and message.rstrip()[-1] in ".)!?"


def outcome(fn, *args, **kwargs):
    """Run ``fn``; return its result or None after a ValueError with a sentence.

    Any other exception type, and any numpy RuntimeWarning (overflow, invalid
    value: the precursors of a silent NaN), fails the test.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        try:
            return fn(*args, **kwargs)
        except ValueError as exc:
            assert _is_sentence(str(exc)), f"{fn.__name__}: unclear message {str(exc)!r}"
            return None


def assert_finite(result, what: str) -> None:
    arr = np.asarray(result, dtype=np.float64)
    assert np.isfinite(arr).all(), f"{what} returned a non-finite value: {arr[~np.isfinite(arr)][:4]}"


def assert_unit(result, what: str) -> None:
    assert_finite(result, what)
    lengths = quat.norm(np.asarray(result))
    assert np.abs(lengths - 1.0).max(initial=0.0) < UNIT_TOL, f"{what}: norms {lengths}"


# --------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------



# Each strategy draws the hostile CHOICES (how many keys, which pathology)
# from hypothesis and the bulk numbers from a numpy generator seeded by a
# drawn seed: ~10x cheaper per example than drawing every float, which is what
# makes 10,000 examples per property affordable. The failing case is printed
# in full by hypothesis either way.
seeds = st.integers(0, 2**32 - 1)


def _rng(draw) -> np.random.Generator:
    return np.random.default_rng(draw(seeds))


@st.composite
def key_times(draw, min_size=1, max_size=8):
    """Mostly valid strictly increasing frames, with near-duplicates, huge gaps and garbage."""
    n = draw(st.integers(min_size, max_size))
    kind = draw(st.sampled_from(["sorted", "sorted", "near_dup", "huge", "unsorted", "garbage"]))
    rng = _rng(draw)
    if kind == "garbage":
        # Finite garbage stays within float32's range: F-curve frames are float32,
        # so no scene holds a key at frame 1e300 (its spans would overflow float64).
        pool = np.array([np.nan, np.inf, -np.inf, 3e38, -3e38, 0.0, 1.0, 5e-324])
        return np.where(rng.random(n) < 0.5, rng.choice(pool, n), rng.normal(0, 1e6, n))
    start = draw(st.sampled_from([0.0, 1.0, -250.0, 1e6, -1e7, 16_777_217.0])) + rng.normal()
    gaps = rng.choice([1.0, 0.5, 7.0, 1e-9, 1e-12, 1e6, 1e-300, 0.0], n)
    if kind == "huge":
        gaps = gaps * 1e6
    times = start + np.cumsum(gaps)
    if kind == "near_dup" and n > 1:
        i = int(rng.integers(0, n - 1))
        times[i + 1] = np.nextafter(times[i], np.inf)
    if kind == "unsorted":
        times = rng.permutation(times)
    return times


@st.composite
def key_quats(draw, n):
    """(n, 4): random rotations with flipped signs, near-antipodes, duplicates,
    odd norms, zero keys and NaN/inf components."""
    rng = _rng(draw)
    q = rng.normal(size=(n, 4))
    q /= np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-3)
    relations = rng.choice(["free", "free", "flip", "antipode", "same", "near"], n)
    eps = rng.choice([0.0, 1e-15, 1e-9, 1e-6], n)
    for i in range(1, n):
        if relations[i] == "flip":
            q[i] = -q[i]
        elif relations[i] == "antipode":
            q[i] = -q[i - 1] + eps[i]
        elif relations[i] == "same":
            q[i] = q[i - 1]
        elif relations[i] == "near":
            q[i] = q[i - 1] + eps[i]
    norms = draw(st.sampled_from(["unit", "unit", "mixed", "all_tiny", "all_huge"]))
    if norms == "mixed":
        q = q * rng.choice(NORMS, n)[:, None]
    elif norms != "unit":
        q = q * draw(st.sampled_from(NORMS[:4] if norms == "all_tiny" else NORMS[-4:]))
    if draw(st.integers(0, 5)) == 0:
        q[rng.integers(0, n), rng.integers(0, 4)] = draw(st.sampled_from(SPECIALS))
    return q


@st.composite
def interp_case(draw):
    times = draw(key_times())
    n = times.shape[0]
    # Sometimes one key too many or too few: a shape mismatch must be a sentence too.
    n_quats = n if draw(st.integers(0, 9)) else max(1, n + draw(st.sampled_from([-1, 1])))
    quats = draw(key_quats(n_quats))
    rng = _rng(draw)
    m = draw(st.integers(0, 12))
    finite = times[np.isfinite(times)]
    lo, hi = (finite.min() - 5.0, finite.max() + 5.0) if finite.size else (-10.0, 10.0)
    samples = np.where(rng.random(m) < 0.3, rng.choice(times, m), rng.uniform(lo, hi, m))
    if draw(st.integers(0, 9)) == 0:
        samples = np.append(samples, draw(st.sampled_from(SPECIALS)))
    return times, quats, samples


@st.composite
def points(draw, n):
    # Up to 1e30: Blender stores locations as float32 (max 3.4e38), and 1e30
    # squared is still a normal float64 (unlike the 1e300 quaternion norms).
    scale = draw(st.sampled_from([1e-9, 1.0, 1e3, 1e7, 1e30]))
    rng = _rng(draw)
    p = rng.uniform(-1, 1, size=(n, 3)) * scale
    holds = rng.random(n) < 0.25
    for i in range(1, n):
        if holds[i]:
            p[i] = p[i - 1]           # a hold: two keys at the same place
    if draw(st.integers(0, 7)) == 0:
        p[rng.integers(0, n), rng.integers(0, 3)] = draw(st.sampled_from(SPECIALS))
    return p


# --------------------------------------------------------------------------
# interp
# --------------------------------------------------------------------------

@pytest.mark.parametrize("method", interp.METHODS)
@pytest.mark.parametrize("shortest", [True, False])
@FUZZ
@given(case=interp_case())
def test_interpolate_is_unit_or_refuses(method, shortest, case):
    times, quats, samples = case
    # Antipodal key pairs with shortest=False (an arc of pi) are included:
    # interp re-orthogonalises arcs past LONG_ARC (they were 1e-8 off unit).
    result = outcome(interp.interpolate, times, quats, samples, method, shortest)
    if result is None:
        return
    assert result.shape == (samples.shape[0], 4)
    if method == "lerp":
        # The naive baseline is deliberately not normalised, but never NaN.
        assert_finite(result, "interpolate(lerp)")
    else:
        assert_unit(result, f"interpolate({method})")


@pytest.mark.parametrize("fn", [interp.slerp, interp.nlerp, interp.lerp])
@FUZZ
@given(q=key_quats(2), t=st.one_of(st.floats(-2, 3), st.sampled_from(SPECIALS)))
def test_pairwise_is_unit_or_refuses(fn, q, t):
    result = outcome(fn, q[0], q[1], t)
    if result is None:
        return
    if fn is interp.lerp:
        assert_finite(result, "lerp")
    else:
        assert_unit(result, fn.__name__)


# --------------------------------------------------------------------------
# path
# --------------------------------------------------------------------------

@st.composite
def path_case(draw):
    times = draw(key_times(max_size=6))
    n = times.shape[0]
    p = draw(points(n if draw(st.integers(0, 9)) else n + 1))
    rng = _rng(draw)
    samples = rng.uniform(-20.0, 20.0, draw(st.integers(0, 10))) + rng.choice(times)
    if draw(st.integers(0, 9)) == 0:
        samples = np.append(samples, np.nan)
    return times, p, samples


@pytest.mark.parametrize("method", path.PATH_METHODS)
@FUZZ
@given(case=path_case(), constant_speed=st.booleans())
def test_interpolate_positions_is_finite_or_refuses(method, case, constant_speed):
    times, p, samples = case
    result = outcome(path.interpolate_positions, times, p, samples, method, constant_speed)
    if result is None:
        return
    assert result.shape == (samples.shape[0], 3)
    assert_finite(result, f"interpolate_positions({method}, constant_speed={constant_speed})")


@pytest.mark.parametrize("method", path.PATH_METHODS)
@FUZZ
@given(case=path_case())
def test_constant_speed_times_stay_in_the_keyed_range(method, case):
    times, p, samples = case
    tau = outcome(path.constant_speed_times, times, p, samples, method)
    if tau is None:
        return
    assert_finite(tau, "constant_speed_times")
    # The time map never leaves the keys' span (the rotation is evaluated there too).
    assert (tau >= times[0]).all() and (tau <= times[-1]).all()


# --------------------------------------------------------------------------
# rotation
# --------------------------------------------------------------------------

angles = st.one_of(st.floats(-10, 10), st.floats(-1e6, 1e6), st.sampled_from(SPECIALS + [1e300]))


@st.composite
def angle_rows(draw, width, max_rows=6):
    """(n, width) angles (radians) or raw channel values: ordinary turns, 1e6 rad
    windings, norms from NORMS, and an occasional NaN/inf/1e300."""
    n = draw(st.integers(1, max_rows))
    rng = _rng(draw)
    scale = draw(st.sampled_from([1.0, 10.0, 1e6] + NORMS))
    values = rng.uniform(-1, 1, size=(n, width)) * scale
    if draw(st.integers(0, 5)) == 0:
        values[rng.integers(0, n), rng.integers(0, width)] = draw(
            st.sampled_from(SPECIALS + [1e300, 0.0]))
    return values
orders = st.sampled_from(rotation.EULER_ORDERS)
modes = st.sampled_from(rotation.ROTATION_MODES + ("BOGUS",))


@FUZZ
@given(e=angle_rows(3), order=orders)
def test_euler_to_quat_is_unit_or_refuses(e, order):
    q = outcome(rotation.euler_to_quat, e, order)
    if q is not None:
        assert_unit(q, "euler_to_quat")


@FUZZ
@given(data=st.data(), order=orders)
def test_quat_to_euler_is_finite_and_round_trips(data, order):
    q = data.draw(key_quats(data.draw(st.integers(1, 6))))
    e = outcome(rotation.quat_to_euler, q, order)
    if e is None:
        return
    assert_finite(e, "quat_to_euler")
    assert np.abs(e).max() <= np.pi + 1e-12
    back = rotation.euler_to_quat(e, order)
    # Gimbal lock makes the Euler triple ill-conditioned: 1e-6 rad covers the
    # float64 loss there (sqrt of 1e-16 relative), far below any real error.
    # (angle_between scales nothing: compare with the normalised keys, since a
    # key of norm 1e300 squared overflows.)
    assert quat.angle_between(back, quat.normalize(q)).max() < 1e-6


@FUZZ
@given(aa=angle_rows(4))
def test_axis_angle_to_quat_is_unit_or_refuses(aa):
    q = outcome(rotation.axis_angle_to_quat, aa)
    if q is not None:
        assert_unit(q, "axis_angle_to_quat")


@FUZZ
@given(data=st.data())
def test_quat_to_axis_angle_is_finite_with_unit_axis(data):
    q = data.draw(key_quats(data.draw(st.integers(1, 6))))
    aa = outcome(rotation.quat_to_axis_angle, q)
    if aa is None:
        return
    assert_finite(aa, "quat_to_axis_angle")
    assert np.abs(np.linalg.norm(aa[:, 1:], axis=1) - 1.0).max() < UNIT_TOL


@FUZZ
@given(data=st.data(), mode=modes, with_reference=st.booleans())
def test_mode_values_round_trip_through_continuous_write_back(data, mode, with_reference):
    """quat -> values to write (continuous, optional reference) -> quat: same rotations."""
    q = data.draw(key_quats(data.draw(st.integers(1, 6))))
    reference = None
    if with_reference:
        width = 3 if mode in rotation.EULER_ORDERS else 4
        reference = np.array(data.draw(st.lists(angles, min_size=width, max_size=width)))
    values = outcome(rotation.quat_to_mode_values_continuous, q, mode, reference)
    if values is None:
        return
    assert_finite(values, "quat_to_mode_values_continuous")
    back = outcome(rotation.mode_values_to_quat, values, mode)
    assert back is not None, "write-back values were refused on the way back"
    assert_unit(back, "mode_values_to_quat")
    # A reference of up to 1e6 rad makes the written angles that large: their
    # float64 spacing (1e-10) times a few operations bounds the round trip.
    tol = 1e-9 + 1e-14 * float(np.abs(values).max())
    assert quat.angle_between(back, quat.normalize(q)).max() < tol


@FUZZ
@given(data=st.data(), mode=modes)
def test_mode_values_to_quat_is_unit_or_refuses(data, mode):
    values = data.draw(angle_rows(data.draw(st.sampled_from([3, 4, 2]))))
    q = outcome(rotation.mode_values_to_quat, values, mode)
    if q is not None:
        assert_unit(q, "mode_values_to_quat")


@FUZZ
@given(data=st.data())
def test_matrix_round_trip_or_refusal(data):
    q = data.draw(key_quats(data.draw(st.integers(1, 4))))
    m = outcome(rotation.quat_to_matrix, q)
    if m is None:
        return
    assert_finite(m, "quat_to_matrix")
    back = outcome(rotation.matrix_to_quat, m)
    if back is not None:
        assert_unit(back, "matrix_to_quat")
    # Arbitrary 3x3 garbage: refused or a unit quaternion.
    junk = np.array(data.draw(st.lists(st.one_of(st.floats(-1e3, 1e3), st.sampled_from(SPECIALS)),
                                       min_size=9, max_size=9))).reshape(3, 3)
    r = outcome(rotation.matrix_to_quat, junk)
    if r is not None:
        assert_unit(r, "matrix_to_quat(junk)")


# --------------------------------------------------------------------------
# quat
# --------------------------------------------------------------------------

@FUZZ
@given(data=st.data())
def test_quat_ops_are_finite_or_refuse(data):
    n = data.draw(st.integers(1, 6))
    a = data.draw(key_quats(n))
    b = data.draw(key_quats(n))
    for fn in (quat.normalize, quat.inverse):
        r = outcome(fn, a)
        if r is not None:
            assert_finite(r, fn.__name__)
    u = outcome(quat.normalize, a)
    v = outcome(quat.normalize, b)
    if u is None or v is None:
        return
    for what, value in (("angle_between", quat.angle_between(u, v)),
                        ("log", quat.log(quat.make_continuous(u))),
                        ("exp(log)", quat.exp(quat.log(u))),
                        ("multiply", quat.multiply(u, v)),
                        ("rotate_vectors", quat.rotate_vectors(u, np.ones((n, 3))))):
        assert_finite(value, what)
    assert_unit(quat.make_continuous(u), "make_continuous")
    assert (quat.angle_between(u, v) <= np.pi + 1e-12).all()


# --------------------------------------------------------------------------
# metrics
# --------------------------------------------------------------------------

@FUZZ
@given(data=st.data())
def test_rotation_metrics_are_finite_or_refuse(data):
    times = data.draw(key_times(min_size=1, max_size=10))
    n = times.shape[0]
    q = data.draw(key_quats(n))
    keys = times[:: data.draw(st.integers(1, 3))]
    checks = [
        ("angular_speed", lambda: metrics.angular_speed(q)),
        ("deviation", lambda: metrics.deviation(q, q[::-1])),
        ("angular_velocity", lambda: metrics.angular_velocity(times, q)),
        ("angular_velocity body", lambda: metrics.angular_velocity(times, q, "body")),
        ("velocity_jumps", lambda: metrics.velocity_jumps(times, q, keys)),
        ("norm_drift", lambda: metrics.norm_drift(q)),
    ]
    for what, call in checks:
        r = outcome(call)
        if r is not None:
            assert_finite(r, what)
    speeds = outcome(metrics.angular_speed, q)
    if speeds is not None:
        r = outcome(metrics.speed_unevenness, times, speeds, keys)
        if r is not None:
            assert_finite(r, "speed_unevenness")
        assert (speeds >= 0).all() and (speeds <= np.pi + 1e-12).all()
    arcs = outcome(metrics.long_arc_segments, keys, times, q, q[:: max(1, n // max(1, keys.size))][:keys.size])
    if arcs is not None:
        assert all(np.isfinite(a) and np.isfinite(b) and a < b for a, b in arcs)


@FUZZ
@given(data=st.data(), order=orders)
def test_euler_metrics_are_finite_or_refuse(data, order):
    times = data.draw(key_times(min_size=1, max_size=8))
    e = data.draw(angle_rows(3, max_rows=8))
    if data.draw(st.integers(0, 9)):
        e = np.resize(e, (times.size, 3))   # mostly one row per key; else a mismatch
    wraps = outcome(metrics.euler_wraps, times, e)
    if wraps is not None:
        assert all(np.isfinite(w[3]) and abs(w[3]) > np.pi for w in wraps)
    near = outcome(metrics.gimbal_proximity, e, order,
                   data.draw(st.one_of(st.floats(0, 90), st.sampled_from([-1.0, np.nan]))))
    if near is not None:
        assert near.dtype == bool and near.shape == (e.shape[0],)


@FUZZ
@given(p=angle_rows(3, max_rows=8), huge=st.sampled_from([1.0, 1e30, 1e39]))
def test_float32_metrics_are_finite_or_refuse(p, huge):
    with np.errstate(over="ignore"):   # 1e300 * 1e39 = inf on purpose: refused below
        arr = p * huge
    risk = outcome(metrics.float32_risk, arr)
    if risk is not None:
        assert risk.dtype == bool and risk.shape == (arr.shape[0],)
    spacing = outcome(metrics.float32_spacing, arr)
    if spacing is not None:
        # float32 overflows at 3.4e38: beyond that a magnitude has no float32
        # spacing, which must be refused rather than returned as inf or NaN.
        assert_finite(spacing, "float32_spacing")
