"""core.fcurve: numpy evaluation of Blender F-curves (Blender's own agreement is
checked in tests/blender/test_analyze.py, test_numpy_fcurve_evaluation_agrees_with_fc_evaluate)."""
import numpy as np
import pytest

from quatbake.core import fcurve


def _keys(xs, ys, ipo=fcurve.BEZIER, handle=1.0 / 3.0):
    """Keys with handles placed `handle` of the way to the neighbours (flat slope 0 if not linear)."""
    xs = np.asarray(xs, float)
    ys = np.asarray(ys, float)
    co = np.stack([xs, ys], axis=1)
    gaps = np.diff(xs)
    left_gap = np.concatenate([[gaps[0] if len(gaps) else 1.0], gaps])
    right_gap = np.concatenate([gaps, [gaps[-1] if len(gaps) else 1.0]])
    hl = co - np.stack([left_gap * handle, np.zeros_like(xs)], axis=1)
    hr = co + np.stack([right_gap * handle, np.zeros_like(xs)], axis=1)
    return co, hl, hr, np.full(len(xs), ipo)


def _oracle_bezier(p0, p1, p2, p3, x):
    """Independent: np.roots on the x cubic per sample, then y at the root in [0, 1]."""
    out = []
    for xi in x:
        c = [p3[0] - p0[0] + 3 * (p1[0] - p2[0]), 3 * (p0[0] - 2 * p1[0] + p2[0]),
             3 * (p1[0] - p0[0]), p0[0] - xi]
        roots = np.roots(c) if abs(c[0]) > 1e-14 else np.roots(c[1:])
        real = [r.real for r in roots if abs(r.imag) < 1e-9 and -1e-9 <= r.real <= 1 + 1e-9]
        t = min(max(real[0], 0.0), 1.0)
        u = 1 - t
        out.append(u**3 * p0[1] + 3 * u * u * t * p1[1] + 3 * u * t * t * p2[1] + t**3 * p3[1])
    return np.array(out)


def test_keys_are_reproduced_at_their_frames_for_every_interpolation():
    rng = np.random.default_rng(1)
    xs = np.cumsum(rng.uniform(1, 10, 8))
    ys = rng.normal(size=8)
    for ipo in fcurve.SUPPORTED_INTERPOLATIONS:
        co, hl, hr, ip = _keys(xs, ys, ipo)
        hl[:, 1] += rng.normal(size=8)  # sloped handles
        hr[:, 1] += rng.normal(size=8)
        got = fcurve.evaluate(co, hl, hr, ip, xs)
        np.testing.assert_allclose(got, ys, rtol=0, atol=1e-12)


def test_linear_matches_np_interp_and_constant_holds_the_left_key():
    rng = np.random.default_rng(2)
    xs = np.cumsum(rng.uniform(0.5, 5, 10))
    ys = rng.normal(size=10)
    frames = np.linspace(xs[0] - 3, xs[-1] + 3, 500)
    co, hl, hr, ip = _keys(xs, ys, fcurve.LINEAR)
    np.testing.assert_allclose(fcurve.evaluate(co, hl, hr, ip, frames), np.interp(frames, xs, ys),
                               atol=1e-12)
    co, hl, hr, ip = _keys(xs, ys, fcurve.CONSTANT)
    idx = np.clip(np.searchsorted(xs, frames, side="right") - 1, 0, 9)
    np.testing.assert_array_equal(fcurve.evaluate(co, hl, hr, ip, frames), ys[idx])


def test_bezier_with_one_third_handles_on_a_line_is_that_line():
    xs = np.array([0.0, 3.0, 10.0])
    ys = 2.0 * xs + 1.0
    co, hl, hr, ip = _keys(xs, ys)
    hl[:, 1] = 2.0 * hl[:, 0] + 1.0
    hr[:, 1] = 2.0 * hr[:, 0] + 1.0
    frames = np.linspace(0, 10, 101)
    np.testing.assert_allclose(fcurve.evaluate(co, hl, hr, ip, frames), 2 * frames + 1, atol=1e-12)


def test_bezier_matches_an_independent_root_finder_on_random_curves():
    rng = np.random.default_rng(3)
    for _ in range(20):
        xs = np.cumsum(rng.uniform(0.5, 20, 6))
        ys = rng.normal(scale=3, size=6)
        co, hl, hr, ip = _keys(xs, ys, handle=rng.uniform(0.05, 1.5))  # >1: Blender corrects them
        hl[:, 1] += rng.normal(size=6)
        hr[:, 1] += rng.normal(size=6)
        frames = rng.uniform(xs[0], xs[-1], 200)
        got = fcurve.evaluate(co, hl, hr, ip, frames)
        seg = np.clip(np.searchsorted(xs, frames, side="right") - 1, 0, 4)
        want = np.empty_like(frames)
        for s in range(5):
            m = seg == s
            v1, v2, v3, v4 = (a[0] for a in fcurve._bezier_controls(co, hl, hr, np.array([s])))
            want[m] = _oracle_bezier(v1, v2, v3, v4, frames[m])
        # np.roots (companion-matrix eigenvalues) is accurate to ~1e-9 here.
        np.testing.assert_allclose(got, want, atol=1e-7)


def test_long_handles_are_shortened_like_blender_so_x_never_turns_back():
    co = np.array([[0.0, 0.0], [10.0, 1.0]])
    hl = np.array([[-5.0, 0.0], [-20.0, 3.0]])     # second key's left handle reaches 30 frames back
    hr = np.array([[25.0, -2.0], [15.0, 1.0]])     # first key's right handle 25 frames ahead
    ip = np.array([fcurve.BEZIER, fcurve.BEZIER])
    v1, v2, v3, v4 = fcurve._bezier_controls(co, hl, hr, np.array([0]))
    # Each handle scaled along its own direction to the segment length (10 frames).
    np.testing.assert_allclose(v2[0], [10.0, -0.8])
    np.testing.assert_allclose(v3[0], [0.0, 1.0 - (1.0 - 3.0) / 3.0])
    frames = np.linspace(0, 10, 1001)
    y = fcurve.evaluate(co, hl, hr, ip, frames)
    assert np.isfinite(y).all()
    # Compare against a dense parametric sampling of the corrected curve.
    t = np.linspace(0, 1, 200001)
    u = 1 - t
    bx = u**3 * v1[0, 0] + 3 * u * u * t * v2[0, 0] + 3 * u * t * t * v3[0, 0] + t**3 * v4[0, 0]
    by = u**3 * v1[0, 1] + 3 * u * u * t * v2[0, 1] + 3 * u * t * t * v3[0, 1] + t**3 * v4[0, 1]
    assert np.all(np.diff(bx) >= 0)
    # Dense sampling step: both handles at full length flatten x'(t) mid-way, so
    # linear interpolation of the samples is good to ~1e-4 there.
    np.testing.assert_allclose(y, np.interp(frames, bx, by), atol=2e-4)


def test_extrapolation_constant_and_linear():
    xs = np.array([0.0, 10.0])
    ys = np.array([1.0, 3.0])
    co, hl, hr, ip = _keys(xs, ys, fcurve.BEZIER)
    hl[0, 1] = 0.0   # left handle rises 1 over 10/3 frames into the first key
    hr[1, 1] = 4.0   # right handle rises 1 over 10/3 frames out of the last key
    frames = np.array([-10.0, 20.0])
    np.testing.assert_allclose(fcurve.evaluate(co, hl, hr, ip, frames, "CONSTANT"), [1.0, 3.0])
    np.testing.assert_allclose(fcurve.evaluate(co, hl, hr, ip, frames, "LINEAR"),
                               [1.0 - 10 * 0.3, 3.0 + 10 * 0.3])
    co, hl, hr, ip = _keys(xs, ys, fcurve.LINEAR)
    np.testing.assert_allclose(fcurve.evaluate(co, hl, hr, ip, frames, "LINEAR"), [-1.0, 5.0])
    co, hl, hr, ip = _keys(xs, ys, fcurve.CONSTANT)
    np.testing.assert_allclose(fcurve.evaluate(co, hl, hr, ip, frames, "LINEAR"), [1.0, 3.0])


def test_single_key_is_constant():
    co, hl, hr, ip = _keys([5.0], [2.5], fcurve.LINEAR)
    np.testing.assert_array_equal(fcurve.evaluate(co, hl, hr, ip, [0.0, 5.0, 9.0], "LINEAR"), 2.5)


@pytest.mark.parametrize("change, words", [
    (lambda c, l, r, i: i.__setitem__(0, 3), "easing"),
    (lambda c, l, r, i: r.__setitem__((0, 0), -1.0), "backwards"),
    (lambda c, l, r, i: c.__setitem__((1, 0), -5.0), "sorted"),
])
def test_unsupported_curves_are_named_and_refused(change, words):
    co, hl, hr, ip = _keys([0.0, 10.0, 20.0], [0.0, 1.0, 0.0])
    assert fcurve.unsupported_reason(co, hl, hr, ip) is None
    change(co, hl, hr, ip)
    reason = fcurve.unsupported_reason(co, hl, hr, ip)
    assert reason is not None and words in reason
    with pytest.raises(ValueError, match=words):
        fcurve.evaluate(co, hl, hr, ip, [1.0])
    assert "extrapolation" in fcurve.unsupported_reason(*_keys([0.0, 1.0], [0.0, 1.0]), "CYCLIC")


def test_inputs_are_not_mutated():
    co, hl, hr, ip = _keys([0.0, 1.0, 5.0], [0.0, 10.0, -3.0], handle=2.0)
    copies = [a.copy() for a in (co, hl, hr, ip)]
    fcurve.evaluate(co, hl, hr, ip, np.linspace(-1, 6, 50), "LINEAR")
    for a, b in zip((co, hl, hr, ip), copies):
        np.testing.assert_array_equal(a, b)


def test_flat_bezier_segment_is_exactly_flat_like_blender():
    # All four control values equal: Blender returns the key value itself, so a
    # held location does not wobble by float rounding (which would look like
    # motion below float32 resolution to the report).
    co = np.array([[1.0, 1.6], [40.0, 1.6], [80.0, 1.8]])
    hl = co - [[5.0, 0.0], [13.0, 0.0], [13.0, 0.0]]
    hr = co + [[13.0, 0.0], [13.0, 0.0], [5.0, 0.0]]
    frames = np.linspace(1.0, 40.0, 391)
    y = fcurve.evaluate(co, hl, hr, np.full(3, fcurve.BEZIER), frames)
    assert np.all(y == 1.6)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st

_finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(gaps=st.lists(st.floats(0.01, 100.0), min_size=1, max_size=6),
       data=st.data())
def test_bezier_stays_in_its_control_hull_and_hits_its_keys(gaps, data):
    """Any handles on the correct sides (any length, any slope): the solve
    converges (x(t) = frame to float64), keys come back exactly, and every
    value lies within the segment's corrected control values (convex hull)."""
    xs = np.concatenate([[0.0], np.cumsum(gaps)])
    n = xs.size
    ys = np.array(data.draw(st.lists(_finite, min_size=n, max_size=n)))
    left = np.array(data.draw(st.lists(st.floats(0.0, 200.0), min_size=n, max_size=n)))
    right = np.array(data.draw(st.lists(st.floats(0.0, 200.0), min_size=n, max_size=n)))
    slopes = np.array(data.draw(st.lists(_finite, min_size=2 * n, max_size=2 * n)))
    co = np.stack([xs, ys], axis=1)
    hl = np.stack([xs - left, ys + slopes[:n]], axis=1)
    hr = np.stack([xs + right, ys + slopes[n:]], axis=1)
    ipo = np.full(n, fcurve.BEZIER)
    frames = np.concatenate([xs, np.linspace(xs[0], xs[-1], 97)])
    y = fcurve.evaluate(co, hl, hr, ipo, frames)
    np.testing.assert_allclose(y[:n], ys, rtol=0, atol=1e-9 * (1 + np.abs(ys).max()))
    seg = np.clip(np.searchsorted(xs, frames, side="right") - 1, 0, n - 2)
    v1, v2, v3, v4 = fcurve._bezier_controls(co, hl, hr, np.arange(n - 1))
    ctrl = np.stack([v1[:, 1], v2[:, 1], v3[:, 1], v4[:, 1]], axis=1)[seg]
    scale = 1e-9 * (1 + np.abs(ctrl).max(axis=1))
    assert np.all(y >= ctrl.min(axis=1) - scale) and np.all(y <= ctrl.max(axis=1) + scale)
    # The x solve itself: x(t) hits each frame to float64 accuracy.
    inside = (frames > xs[0]) & (frames < xs[-1])
    s, f = seg[inside], frames[inside]
    x0, x1, x2, x3 = v1[s, 0], v2[s, 0], v3[s, 0], v4[s, 0]
    t = fcurve._solve_monotonic_cubic(x0, x1, x2, x3, f)
    u = 1 - t
    x = u**3 * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t**3 * x3
    assert np.all((t >= 0) & (t <= 1))
    np.testing.assert_allclose(x, f, rtol=0, atol=1e-9 * (1 + xs[-1]))


def test_curves_on_the_same_frames_evaluated_together_equal_one_by_one():
    """evaluate_many's group path (a rig's channels keyed together) against evaluate per
    curve: the same float64 operations in another order, so 1e-12 (float64 rounding)."""
    rng = np.random.default_rng(3)
    xs = np.array([1.0, 4.0, 5.0, 20.0, 21.0])
    frames = np.linspace(-2.0, 25.0, 301)
    curves = []
    for _ in range(7):
        co, hl, hr, ip = _keys(xs, rng.normal(size=xs.size), handle=1.4)  # some too long
        ip = ip.copy()
        ip[1] = fcurve.LINEAR
        ip[3] = fcurve.CONSTANT
        hl[:, 1] += rng.normal(size=xs.size)       # values differ, frames are shared
        hr[:, 1] += rng.normal(size=xs.size)
        curves.append((co, hl, hr, ip, "CONSTANT"))
    together = fcurve.evaluate_many(curves, frames)
    for column, curve in enumerate(curves):
        alone = fcurve.evaluate(*curve[:4], frames, curve[4])
        np.testing.assert_allclose(together[:, column], alone, rtol=0, atol=1e-12)


def test_supported_many_flags_each_defective_curve_of_a_batch():
    """A rig's curves are checked together (supported_many): each curve with a
    defect built into it is flagged, its neighbours of the same length are not.
    The expectation is the construction: which curve got which defect."""
    def easing(c, l, r, i):
        i[0] = 3

    def backwards(c, l, r, i):
        r[0, 0] = -1.0

    def unsorted(c, l, r, i):
        c[1, 0] = -5.0

    def not_finite(c, l, r, i):
        l[2, 1] = np.nan

    defects = [None, easing, None, backwards, unsorted, None, not_finite]
    curves, expected = [], []
    for defect in defects:
        co, hl, hr, ip = _keys([0.0, 10.0, 20.0], [0.0, 1.0, 0.0])
        if defect is not None:
            defect(co, hl, hr, ip)
        curves.append((co, hl, hr, ip, "CONSTANT"))
        expected.append(defect is None)
    # Other lengths and extrapolations in the same call.
    curves.append((*_keys([0.0, 5.0], [1.0, 2.0], fcurve.LINEAR), "LINEAR"))
    expected.append(True)
    curves.append((*_keys([0.0, 5.0], [1.0, 2.0]), "CYCLIC"))
    expected.append(False)
    curves.append((*_keys([4.0], [1.0]), "CONSTANT"))
    expected.append(True)
    curves.append((np.zeros((0, 2)), np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0), "CONSTANT"))
    expected.append(False)
    np.testing.assert_array_equal(fcurve.supported_many(curves), expected)


def test_group_evaluation_is_the_same_in_runs_and_in_one_gather():
    """A rig's curves keyed on the same frames are evaluated together; sorted
    frames go a key interval at a time, shuffled frames through one gather.
    _power_basis_rows promises the same Horner steps in the same order either
    way, so the two must agree bit for bit (and keep agreeing with the
    one-curve path within float64 rounding)."""
    rng = np.random.default_rng(3)
    xs = [0.0, 40.0, 100.0, 130.0]
    curves = []
    for _ in range(12):
        co, hl, hr, ip = _keys(xs, rng.normal(size=4))
        ip[1] = fcurve.LINEAR                      # one LINEAR segment among the Bezier ones
        curves.append((co, hl, hr, ip, "CONSTANT"))
    frames = np.linspace(-5.0, 135.0, 600)
    order = rng.permutation(frames.size)
    in_runs = fcurve.evaluate_many(curves, frames, check=False)
    gathered = fcurve.evaluate_many(curves, frames[order], check=False)
    np.testing.assert_array_equal(gathered, in_runs[order])
    for column, curve in enumerate(curves):
        # Same arithmetic, other array shapes: float64 rounding at most (values ~1).
        np.testing.assert_allclose(in_runs[:, column], fcurve.evaluate(*curve[:4], frames),
                                   rtol=0, atol=1e-12)
