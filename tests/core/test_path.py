"""Position paths (quatbake.core.path): linear, centripetal Catmull-Rom, constant speed."""
import numpy as np
import pytest

from quatbake.core import path

METHODS = path.PATH_METHODS


def random_keys(n, seed):
    rng = np.random.default_rng(seed)
    times = np.cumsum(rng.uniform(1.0, 20.0, n))
    points = rng.normal(scale=5.0, size=(n, 3))
    return times, points


def speeds(points, times):
    return np.linalg.norm(np.diff(points, axis=0), axis=1) / np.diff(times)


@pytest.mark.parametrize("method", METHODS)
def test_keys_reached_and_ends_held(method):
    times, points = random_keys(12, seed=1)
    before = (times.copy(), points.copy())
    at_keys = path.interpolate_positions(times, points, times, method)
    # Exact: each key is the start of its segment (x = 0: c0 = P) or the end key.
    assert np.array_equal(at_keys, points)
    outside = path.interpolate_positions(times, points, [times[0] - 50.0, times[-1] + 50.0], method)
    assert np.array_equal(outside, points[[0, -1]])
    assert np.array_equal(times, before[0]) and np.array_equal(points, before[1])


@pytest.mark.parametrize("method", METHODS)
def test_one_metre_then_ten_metres_at_one_speed(method):
    times = np.array([1.0, 25.0, 49.0])
    points = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 10.0, 0.0]])
    samples = np.linspace(1.0, 49.0, 4801)
    # Without retiming the second segment is travelled about ten times faster.
    plain = path.interpolate_positions(times, points, samples, method)
    mid = samples.size // 2
    v = speeds(plain, samples)
    assert v[mid:].mean() / v[:mid].mean() > 5.0
    retimed = path.interpolate_positions(times, points, samples, method, constant_speed=True)
    v = speeds(retimed, samples)
    total = np.linalg.norm(np.diff(path.interpolate_positions(times, points, np.linspace(1, 49, 200001), method), axis=0), axis=1).sum()
    # Mean speed on the 1 m stretch and on the 10 m stretch: the same.
    first = np.linalg.norm(retimed - points[1], axis=1).argmin()
    assert v[:first].mean() / v[first:].mean() == pytest.approx(1.0, abs=0.01)
    # Every frame-to-frame speed is the mean speed to within 1%, except the
    # one step that cuts the linear path's sharp corner (its chord is shorter
    # than the path between its ends).
    steps = np.diff(retimed, axis=0)
    unit = steps / np.linalg.norm(steps, axis=1, keepdims=True)
    straight = np.ones(v.size, dtype=bool)
    straight[1:] &= np.einsum("ij,ij->i", unit[1:], unit[:-1]) > 0.999
    straight[:-1] &= straight[1:].copy()
    assert straight.sum() > v.size - 4
    assert np.abs(v[straight] / (total / 48.0) - 1.0).max() < 0.01
    assert np.array_equal(retimed[[0, -1]], points[[0, -1]])
    # The path still passes through the middle key: where the arc length says.
    length_first = np.linalg.norm(np.diff(path.interpolate_positions(times, points, np.linspace(1, 25, 100001), method), axis=0), axis=1).sum()
    t_key = 1.0 + 48.0 * length_first / total
    tau = path.constant_speed_times(times, points, [t_key], method)
    assert tau[0] == pytest.approx(25.0, abs=1e-3)


def test_linear_constant_speed_is_exact():
    times = np.array([0.0, 10.0, 20.0])
    points = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [11.0, 0.0, 0.0]])
    samples = np.linspace(0.0, 20.0, 2001)
    out = path.interpolate_positions(times, points, samples, "linear", constant_speed=True)
    assert np.allclose(out[:, 0], samples * 11.0 / 20.0, atol=1e-12)


def test_catmull_rom_constant_speed_on_a_random_path():
    times, points = random_keys(20, seed=1)
    samples = np.linspace(times[0], times[-1], 20001)
    out = path.interpolate_positions(times, points, samples, "catmull_rom", constant_speed=True)
    v = speeds(out, samples)
    # 0.5%: the arc-length table's error is ~1e-3 here; chord-vs-arc of the
    # measuring samples adds a little at the tightest turns.
    assert np.abs(v / v.mean() - 1.0).max() < 0.005
    tau = path.constant_speed_times(times, points, samples, "catmull_rom")
    assert np.all(np.diff(tau) >= 0.0)
    assert tau[0] == times[0] and tau[-1] == times[-1]


def velocity_at(times, points, t, h, side):
    a, b = (t - h, t) if side < 0 else (t, t + h)
    p = path.interpolate_positions(times, points, [a, b], "catmull_rom")
    return (p[1] - p[0]) / h


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_catmull_rom_is_c1_in_frames_at_interior_keys(seed):
    times, points = random_keys(8, seed)
    for t in times[1:-1]:
        left = [velocity_at(times, points, t, h, -1) for h in (1e-3, 5e-4)]
        right = [velocity_at(times, points, t, h, +1) for h in (1e-3, 5e-4)]
        # Richardson-extrapolate the one-sided differences (error O(h)) to h = 0.
        vl = 2.0 * left[1] - left[0]
        vr = 2.0 * right[1] - right[0]
        scale = np.linalg.norm(vl) + np.linalg.norm(vr)
        assert np.linalg.norm(vl - vr) < 1e-4 * scale


def test_catmull_rom_with_knot_proportional_times_is_plain_centripetal():
    # When key intervals are proportional to sqrt(chord), the time map is
    # linear: speed at a key is the centripetal derivative times a constant.
    points = np.array([[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [4.0, 1.0, 0.0], [0.0, 10.0, 0.0]])
    chords = np.linalg.norm(np.diff(points, axis=0), axis=1)
    times = np.concatenate(([0.0], np.cumsum(np.sqrt(chords)))) * 10.0
    samples = np.linspace(times[0], times[-1], 50)
    out = path.interpolate_positions(times, points, samples, "catmull_rom")
    # Independent reference: Barry-Goldman pyramid with the same reflected phantoms.
    padded = np.concatenate(([2 * points[0] - points[1]], points, [2 * points[-1] - points[-2]]))
    knots = np.concatenate(([0.0], np.cumsum(np.linalg.norm(np.diff(padded, axis=0), axis=1) ** 0.5)))
    expected = []
    for s in samples:
        u = s / 10.0 + knots[1]
        i = min(np.searchsorted(knots[1:-1], u, side="right") - 1, 2)
        p0, p1, p2, p3 = padded[i : i + 4]
        t0, t1, t2, t3 = knots[i : i + 4]
        a1 = (t1 - u) / (t1 - t0) * p0 + (u - t0) / (t1 - t0) * p1
        a2 = (t2 - u) / (t2 - t1) * p1 + (u - t1) / (t2 - t1) * p2
        a3 = (t3 - u) / (t3 - t2) * p2 + (u - t2) / (t3 - t2) * p3
        b1 = (t2 - u) / (t2 - t0) * a1 + (u - t0) / (t2 - t0) * a2
        b2 = (t3 - u) / (t3 - t1) * a2 + (u - t1) / (t3 - t1) * a3
        expected.append((t2 - u) / (t2 - t1) * b1 + (u - t1) / (t2 - t1) * b2)
    assert np.abs(out - np.array(expected)).max() < 1e-12


def segments_intersect(poly):
    """True if any two non-adjacent edges of a 2-D polyline cross."""
    a, b = poly[:-1, None, :], poly[1:, None, :]
    c, d = poly[None, :-1, :], poly[None, 1:, :]

    def cross(o, p, q):
        return (p[..., 0] - o[..., 0]) * (q[..., 1] - o[..., 1]) - (p[..., 1] - o[..., 1]) * (q[..., 0] - o[..., 0])

    hit = (cross(a, b, c) * cross(a, b, d) < 0) & (cross(c, d, a) * cross(c, d, b) < 0)
    n = poly.shape[0] - 1
    idx = np.arange(n)
    hit &= np.abs(idx[:, None] - idx[None, :]) > 1
    return bool(hit.any())


def test_centripetal_has_no_loop_or_cusp_where_uniform_catmull_rom_loops():
    # Classic example (Yuksel et al. 2011, fig. 1): a short segment between far
    # neighbours; uniform Catmull-Rom's long tangents (P2 - P0)/2 and
    # (P3 - P1)/2 overshoot and the segment loops over itself.
    points = np.array([[-9.0, -10.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [10.0, -10.0, 0.0]])
    times = np.array([0.0, 1.0, 2.0, 3.0])
    x = np.linspace(0.0, 1.0, 801)[:, None]
    m1, m2 = (points[2] - points[0]) / 2.0, (points[3] - points[1]) / 2.0
    uniform = ((2 * x**3 - 3 * x**2 + 1) * points[1] + (x**3 - 2 * x**2 + x) * m1
               + (-2 * x**3 + 3 * x**2) * points[2] + (x**3 - x**2) * m2)
    assert segments_intersect(uniform[:, :2])  # the example really is a trap
    ours = path.interpolate_positions(times, points, np.linspace(1.0, 2.0, 801), "catmull_rom")
    assert not segments_intersect(ours[:, :2])
    steps = np.diff(ours, axis=0)
    # No cusp: the direction of travel never reverses and the speed never stops.
    assert np.einsum("ij,ij->i", steps[1:], steps[:-1]).min() > 0.0
    assert np.linalg.norm(steps, axis=1).min() > 0.1 * np.linalg.norm(steps, axis=1).mean()


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("constant_speed", [False, True])
def test_collinear_evenly_spaced_keys_give_a_straight_even_line(method, constant_speed):
    times = np.arange(6, dtype=float) * 10.0
    points = np.outer(np.arange(6), [1.0, 2.0, -0.5]) + [5.0, 0.0, 1.0]
    samples = np.linspace(0.0, 50.0, 501)
    out = path.interpolate_positions(times, points, samples, method, constant_speed)
    expected = [5.0, 0.0, 1.0] + np.outer(samples / 10.0, [1.0, 2.0, -0.5])
    assert np.abs(out - expected).max() < 1e-9


def test_two_keys_catmull_rom_is_the_straight_line():
    times, points = np.array([3.0, 9.0]), np.array([[0.0, 0.0, 0.0], [6.0, -3.0, 2.0]])
    samples = np.linspace(3.0, 9.0, 61)
    cr = path.interpolate_positions(times, points, samples, "catmull_rom")
    assert np.abs(cr - path.interpolate_positions(times, points, samples, "linear")).max() < 1e-12


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("constant_speed", [False, True])
def test_zero_length_path_holds_still(method, constant_speed):
    times = np.array([1.0, 5.0, 9.0])
    points = np.tile([2.0, -1.0, 7.0], (3, 1))
    out = path.interpolate_positions(times, points, np.linspace(0.0, 10.0, 101), method, constant_speed)
    assert np.isfinite(out).all()
    assert np.array_equal(out, np.tile(points[0], (101, 1)))


@pytest.mark.parametrize("method", METHODS)
def test_coincident_keys_hold_without_nan(method):
    times = np.array([0.0, 10.0, 20.0, 30.0, 40.0])
    points = np.array([[0.0, 0.0, 0.0], [3.0, 1.0, 0.0], [3.0, 1.0, 0.0], [3.0, 1.0, 0.0], [6.0, 5.0, 0.0]])
    samples = np.linspace(-5.0, 45.0, 1001)
    out = path.interpolate_positions(times, points, samples, method)
    assert np.isfinite(out).all()
    hold = (samples >= 10.0) & (samples <= 30.0)
    assert np.array_equal(out[hold], np.tile(points[1], (hold.sum(), 1)))
    tau = path.constant_speed_times(times, points, samples, method)
    assert np.isfinite(tau).all() and np.all(np.diff(tau) >= 0.0)


@pytest.mark.parametrize("method", METHODS)
def test_constant_speed_keeps_holds_and_shares_the_rest_at_one_speed(method):
    # Move 3 m, stand still for 20 frames (a camera panning, say), move 12 m.
    times = np.array([0.0, 10.0, 30.0, 40.0])
    points = np.array([[0.0, 0.0, 0.0], [3.0, 0.0, 0.0], [3.0, 0.0, 0.0], [15.0, 0.0, 0.0]])
    samples = np.linspace(0.0, 40.0, 4001)
    tau = path.constant_speed_times(times, points, samples, method)
    out = path.interpolate_positions(times, points, samples, method, constant_speed=True)
    # 15 m in the 20 moving frames: 0.75 m/frame, so the hold starts at frame
    # 4 and ends at frame 24, and inside it the original frames 10..30 play at
    # their own pace (whatever the rotation does there is kept, not skipped).
    in_hold = (samples >= 4.0) & (samples <= 24.0)
    assert np.allclose(tau[in_hold], samples[in_hold] + 6.0, atol=1e-9)
    assert np.allclose(out[in_hold], [3.0, 0.0, 0.0], atol=1e-9)
    moving = ~in_hold
    v = np.abs(np.diff(out[:, 0]))[moving[1:] & moving[:-1]] / np.diff(samples)[0]
    assert np.abs(v / 0.75 - 1.0).max() < 0.01
    assert np.all(np.diff(tau) >= 0.0)


@pytest.mark.parametrize("method", METHODS)
def test_constant_speed_key_times_are_where_the_retimed_path_reaches_each_key(method):
    """The scene above: 3 m in 10 frames, a 20-frame hold, 12 m in 10 frames; 15 m in
    the 20 moving frames, so the keys are reached at frames 0, 4, 24 (the hold keeps its
    20 frames) and 40, by hand. There the retimed path stands on each key's point
    (interpolate_positions with constant speed), and constant_speed_times gives the keys'
    own frames."""
    times = np.array([0.0, 10.0, 30.0, 40.0])
    points = np.array([[0.0, 0.0, 0.0], [3.0, 0.0, 0.0], [3.0, 0.0, 0.0], [15.0, 0.0, 0.0]])
    reached = path.constant_speed_key_times(times, points, method)
    assert reached == pytest.approx([0.0, 4.0, 24.0, 40.0], abs=1e-9)
    assert path.constant_speed_times(times, points, reached, method) == pytest.approx(
        times, abs=1e-9)
    out = path.interpolate_positions(times, points, reached, method, constant_speed=True)
    assert np.allclose(out, points, atol=1e-9)
    # No movement, or a single key: the keys' own frames.
    assert np.array_equal(path.constant_speed_key_times(times, np.zeros((4, 3)), method), times)
    assert np.array_equal(path.constant_speed_key_times([7.0], [[1.0, 2.0, 3.0]], method), [7.0])


def test_single_key_holds():
    out = path.interpolate_positions([4.0], [[1.0, 2.0, 3.0]], [0.0, 4.0, 9.0], "catmull_rom", True)
    assert np.array_equal(out, np.tile([1.0, 2.0, 3.0], (3, 1)))


@pytest.mark.parametrize(
    "times, points, samples, method, message",
    [
        ([0.0, 1.0, 1.0], np.zeros((3, 3)), [0.5], "linear", "strictly increasing: key 2"),
        ([0.0, 2.0, 1.0], np.zeros((3, 3)), [0.5], "linear", "strictly increasing: key 2"),
        ([0.0, 1.0], np.zeros((3, 3)), [0.5], "linear", r"shape \(2, 3\)"),
        ([0.0, 1.0], np.zeros((2, 2)), [0.5], "linear", r"shape \(2, 3\)"),
        ([], np.zeros((0, 3)), [0.5], "linear", "at least one key"),
        ([0.0, np.nan], np.zeros((2, 3)), [0.5], "linear", "entry 1"),
        ([0.0, 1.0], [[0, 0, 0], [np.inf, 0, 0]], [0.5], "linear", "key 1"),
        ([0.0, 1.0], np.zeros((2, 3)), [np.nan], "linear", "sample_times"),
        ([0.0, 1.0], np.zeros((2, 3)), [0.5], "bezier", "not one of"),
    ],
)
def test_bad_input_raises_sentences(times, points, samples, method, message):
    with pytest.raises(ValueError, match=message):
        path.interpolate_positions(times, points, samples, method)
