"""Overlay geometry in core: triads, speed colours, long-arc highlight, ghosts."""
import numpy as np
import pytest

from quatbake.core import quat, triads

RNG_SEED = 20261129


def _about(axis, degrees):
    axis = np.asarray(axis, dtype=float)
    axis = axis / np.linalg.norm(axis)
    half = np.radians(degrees) / 2.0
    return np.concatenate([[np.cos(half)], np.sin(half) * axis])


def _random_quats(rng, n):
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def test_identity_triad_is_red_x_green_y_blue_z():
    points, colors = triads.triad_lines([[1.0, 0, 0, 0]], [[1.0, 2.0, 3.0]], size=2.0)
    assert points.shape == (6, 3) and colors.shape == (6, 4)
    base = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(points[0::2], [base] * 3)
    np.testing.assert_allclose(points[1::2] - base, 2.0 * np.eye(3), atol=1e-15)
    np.testing.assert_array_equal(colors[0:2], [[1, 0, 0, 1]] * 2)
    np.testing.assert_array_equal(colors[2:4], [[0, 1, 0, 1]] * 2)
    np.testing.assert_array_equal(colors[4:6], [[0, 0, 1, 1]] * 2)


def test_quarter_turn_about_z_points_x_along_y_and_y_along_minus_x():
    points, _ = triads.triad_lines([_about([0, 0, 1], 90)], [[0.0, 0, 0]], size=1.0)
    tips = points[1::2]
    # float64 rotation of unit vectors: error ~1e-16.
    np.testing.assert_allclose(tips, [[0, 1, 0], [-1, 0, 0], [0, 0, 1]], atol=1e-15)


def test_sign_of_quaternion_does_not_change_the_triad():
    rng = np.random.default_rng(RNG_SEED)
    q = _random_quats(rng, 20)
    p = rng.normal(size=(20, 3))
    a, _ = triads.triad_lines(q, p, 0.3)
    b, _ = triads.triad_lines(-q, p, 0.3)
    np.testing.assert_allclose(a, b, atol=1e-14)


def test_axes_are_orthonormal_and_sized_per_triad():
    rng = np.random.default_rng(RNG_SEED)
    q = _random_quats(rng, 50)
    p = rng.normal(size=(50, 3)) * 10
    sizes = rng.uniform(0.1, 3.0, size=50)
    points, _ = triads.triad_lines(q, p, sizes)
    vec = (points[1::2] - points[0::2]).reshape(50, 3, 3) / sizes[:, None, None]
    gram = np.einsum("nij,nkj->nik", vec, vec)
    # positions of size 10 leave ~1e-15 absolute error after the subtraction.
    np.testing.assert_allclose(gram, np.broadcast_to(np.eye(3), gram.shape), atol=1e-12)
    # right-handed: X cross Y = Z
    np.testing.assert_allclose(np.cross(vec[:, 0], vec[:, 1]), vec[:, 2], atol=1e-12)


def _loop_triads(q, p, size):
    """The obvious per-triad loop, the reference the vectorised code must match."""
    points, colors = [], []
    for qi, pi in zip(q, p):
        for a in range(3):
            axis = quat.rotate_vectors(qi / np.linalg.norm(qi), np.eye(3)[a])
            points += [pi, pi + size * axis]
            colors += [triads.AXIS_COLORS[a]] * 2
    return np.array(points), np.array(colors)


def test_vectorised_triads_match_a_plain_loop():
    rng = np.random.default_rng(RNG_SEED)
    q = rng.normal(size=(40, 4))  # not unit: triad_lines normalises
    p = rng.normal(size=(40, 3))
    points, colors = triads.triad_lines(q, p, 0.7)
    ref_points, ref_colors = _loop_triads(q, p, 0.7)
    np.testing.assert_allclose(points, ref_points, atol=1e-14)
    np.testing.assert_array_equal(colors, ref_colors)


def test_inputs_are_not_mutated():
    rng = np.random.default_rng(RNG_SEED)
    q = rng.normal(size=(5, 4))
    p = rng.normal(size=(5, 3))
    q0, p0 = q.copy(), p.copy()
    triads.build_overlay(np.arange(5.0), q, p, [0.0, 4.0], step=2, ghost_quats=-q)
    np.testing.assert_array_equal(q, q0)
    np.testing.assert_array_equal(p, p0)


@pytest.mark.parametrize(
    "quats, positions, message",
    [
        ([[0.0, 0, 0, 0]], [[0.0, 0, 0]], "norm"),
        ([[1.0, 0, 0, 0]], [[np.nan, 0, 0]], "NaN"),
        ([[1.0, 0, 0, 0]], [[0.0, 0]], "shape"),
        ([[1.0, 0, 0, 0], [1.0, 0, 0, 0]], [[0.0, 0, 0]], "expected 1"),
    ],
)
def test_bad_input_raises_value_error(quats, positions, message):
    with pytest.raises(ValueError, match=message):
        triads.triad_lines(quats, positions, 1.0)


def test_negative_size_is_refused():
    with pytest.raises(ValueError, match="size"):
        triads.triad_lines([[1.0, 0, 0, 0]], [[0.0, 0, 0]], -1.0)


def test_speed_colour_ramp_stops_and_clipping():
    vmax = 12.0
    c = triads.speed_colors([0.0, 4.0, 8.0, 12.0, 50.0, -1.0], vmax)
    np.testing.assert_allclose(c[0], triads.SPEED_COLORS[0])
    np.testing.assert_allclose(c[1], triads.SPEED_COLORS[1])
    np.testing.assert_allclose(c[2], triads.SPEED_COLORS[2])
    np.testing.assert_allclose(c[3], triads.SPEED_COLORS[3])
    np.testing.assert_allclose(c[4], triads.SPEED_COLORS[3])  # above the legend: last colour
    np.testing.assert_allclose(c[5], triads.SPEED_COLORS[0])
    mid = triads.speed_colors([2.0], vmax)[0]  # half-way between stop 0 and stop 1
    np.testing.assert_allclose(mid, 0.5 * (triads.SPEED_COLORS[0] + triads.SPEED_COLORS[1]))
    with pytest.raises(ValueError, match="positive"):
        triads.speed_colors([1.0], 0.0)


def test_speed_ramp_never_looks_like_an_axis_colour():
    """The GUI test finds axes by pure red/green/blue pixels; the path must not be one."""
    c = triads.speed_colors(np.linspace(0, 1, 1001), 1.0)[:, :3]
    for axis in range(3):
        others = [i for i in range(3) if i != axis]
        looks_like_axis = (c[:, axis] > 0.7) & (c[:, others] < 0.3).all(axis=1)
        assert not looks_like_axis.any()


def test_angular_speed_of_a_steady_spin_in_degrees_per_frame():
    frames = np.arange(0.0, 11.0)
    q = np.array([_about([0, 0, 1], 3.0 * f) for f in frames])
    speed = triads.angular_speed(q * np.where(frames % 2, -1, 1)[:, None], frames)  # signs flipped
    # 3 degrees per frame; float64 atan2 angle good to ~1e-13 degrees here.
    np.testing.assert_allclose(speed, 3.0, atol=1e-12)
    with pytest.raises(ValueError, match="increase"):
        triads.angular_speed(q[:3], [0.0, 2.0, 1.0])


def test_path_lines_are_coloured_by_speed():
    frames = np.arange(0.0, 4.0)
    q = np.array([_about([0, 0, 1], a) for a in (0.0, 0.0, 10.0, 40.0)])  # speeds 0, 10, 30
    pos = np.c_[frames, np.zeros(4), np.zeros(4)]
    speed = triads.angular_speed(q, frames)
    points, colors = triads.path_lines(pos, speed, triads.legend_max(speed))
    assert points.shape == (6, 3)
    np.testing.assert_allclose(points[0::2], pos[:-1])
    np.testing.assert_allclose(points[1::2], pos[1:])
    np.testing.assert_allclose(colors[0], triads.SPEED_COLORS[0])  # still
    np.testing.assert_allclose(colors[1], triads.SPEED_COLORS[0])
    np.testing.assert_allclose(colors[4], triads.SPEED_COLORS[-1], atol=1e-12)  # fastest
    np.testing.assert_allclose(colors[2], triads.speed_colors([10.0], 30.0)[0])


def _componentwise(key_q, frames, key_frames):
    """Blender's own quaternion playback with Linear keys: per-channel lerp, then normalise."""
    comps = np.stack([np.interp(frames, key_frames, key_q[:, i]) for i in range(4)], axis=1)
    return comps / np.linalg.norm(comps, axis=1, keepdims=True)


def test_long_arc_interval_found_when_a_key_sign_is_flipped():
    key_frames = np.array([0.0, 10.0, 20.0, 30.0])
    keys = np.array([_about([0, 0, 1], a) for a in (0.0, 30.0, 60.0, 90.0)])
    keys[2] *= -1.0  # same rotation, other hemisphere: Blender goes the long way twice
    frames = np.arange(0.0, 31.0)
    blender = _componentwise(keys, frames, key_frames)
    flagged = triads.long_arc_intervals(frames, blender, key_frames)
    np.testing.assert_array_equal(flagged, [False, True, True])
    # after the shortest-arc fix nothing is flagged
    fixed = _componentwise(quat.make_continuous(keys), frames, key_frames)
    assert not triads.long_arc_intervals(frames, fixed, key_frames).any()


def test_long_arc_segments_are_highlighted_on_the_path():
    key_frames = np.array([0.0, 10.0, 20.0])
    keys = np.array([_about([1, 0, 0], 0.0), -_about([1, 0, 0], 40.0), -_about([1, 0, 0], 80.0)])
    frames = np.arange(0.0, 21.0)
    blender = _componentwise(keys, frames, key_frames)
    ours = _componentwise(quat.make_continuous(keys), frames, key_frames)
    pos = np.c_[frames, np.zeros(21), np.zeros(21)]
    geo = triads.build_overlay(frames, ours, pos, key_frames, step=5, ghost_quats=blender)
    assert geo.long_arc_count == 1
    # segments 0..9 (frames 0-10) highlighted, in the long-arc colour
    assert geo.long_arc.points.shape == (20, 3)
    np.testing.assert_allclose(geo.long_arc.points[0::2, 0], np.arange(0.0, 10.0))
    np.testing.assert_array_equal(geo.long_arc.colors, [triads.LONG_ARC_COLOR] * 20)


def test_interval_segments_maps_key_intervals_to_frame_segments():
    mask = triads.interval_segments(np.arange(0.0, 7.0), [0.0, 2.0, 6.0], [False, True])
    np.testing.assert_array_equal(mask, [False, False, True, True, True, True])


def test_triads_every_step_plus_keys_and_keys_are_larger():
    frames = np.arange(1.0, 12.0)
    q = np.tile([1.0, 0, 0, 0], (11, 1))
    pos = np.zeros((11, 3))
    geo = triads.build_overlay(frames, q, pos, [1.0, 4.0, 11.0], step=5, size=1.0)
    # samples 0, 5, 10 (frames 1, 6, 11) + key frame 4 -> frames 1, 4, 6, 11
    assert geo.triads.points.shape == (4 * 6, 3)
    lengths = np.linalg.norm(geo.triads.points[1::2] - geo.triads.points[0::2], axis=1)
    expected = np.repeat([triads.KEY_SCALE, triads.KEY_SCALE, 1.0, triads.KEY_SCALE], 3)
    np.testing.assert_allclose(lengths, expected)
    assert geo.ghosts.points.shape == (0, 3)


def test_ghosts_share_positions_and_are_faded():
    rng = np.random.default_rng(RNG_SEED)
    frames = np.arange(0.0, 10.0)
    q = _random_quats(rng, 10)
    g = _random_quats(rng, 10)
    pos = rng.normal(size=(10, 3))
    geo = triads.build_overlay(frames, q, pos, [0.0, 9.0], step=3, ghost_quats=g)
    np.testing.assert_allclose(geo.ghosts.points[0::2], geo.triads.points[0::2])
    assert (geo.ghosts.colors[:, 3] == triads.GHOST_ALPHA).all()
    # each axis still recognisable: its own channel is the largest
    for axis in range(3):
        c = geo.ghosts.colors[2 * axis :: 6, :3]
        assert (c.argmax(axis=1) == axis).all()
        assert (c.max(axis=1) - c.min(axis=1) <= 0.5 + 1e-12).all()


def test_current_triad_is_the_nearest_sample_and_larger():
    frames = np.arange(0.0, 5.0)
    q = np.array([_about([0, 0, 1], 20.0 * f) for f in frames])
    pos = np.c_[frames, np.zeros(5), np.zeros(5)]
    cur = triads.current_triad(frames, q, pos, 2.2, size=1.0)
    np.testing.assert_allclose(cur.points[0], [2.0, 0, 0])
    np.testing.assert_allclose(
        cur.points[1] - cur.points[0],
        triads.CURRENT_SCALE * quat.rotate_vectors(q[2], [1.0, 0, 0]),
        atol=1e-15,
    )
    assert triads.current_triad(frames, q, pos, 9.0, size=1.0).points.shape == (0, 3)


def test_transformed_applies_an_affine_matrix():
    m = np.eye(4)
    m[:3, :3] *= 2.0
    m[:3, 3] = [1.0, 2.0, 3.0]
    lines = triads.LineSet(np.array([[1.0, 0, 0], [0, 1.0, 0]]), np.ones((2, 4)))
    np.testing.assert_allclose(lines.transformed(m).points, [[3.0, 2, 3], [1.0, 4, 3]])


def test_ten_thousand_triads_geometry_shapes():
    rng = np.random.default_rng(RNG_SEED)
    n = 10_000
    frames = np.arange(float(n))
    geo = triads.build_overlay(
        frames, _random_quats(rng, n), rng.normal(size=(n, 3)), frames[::100], step=1,
        ghost_quats=_random_quats(rng, n),
    )
    assert geo.triads.points.shape == (n * 6, 3) == geo.ghosts.points.shape
    assert geo.path.points.shape == ((n - 1) * 2, 3)
    assert np.isfinite(geo.triads.points).all() and np.isfinite(geo.path.colors).all()


def test_interval_kinds_keep_the_long_arc_band_for_defects_only():
    # One interval that turns 360 deg about Z between identical key orientations.
    frames = np.arange(0.0, 21.0)
    half = np.radians(18.0 * frames) / 2
    q = np.column_stack([np.cos(half), 0 * half, 0 * half, np.sin(half)])
    pos = np.zeros((21, 3))
    keys = [0.0, 20.0]
    plain = triads.build_overlay(frames, q, pos, keys, ghost_quats=q)
    assert plain.long_arc_count == 1            # without kinds: the long way round
    for kind, long_count, spins, steps in (("spin", 0, 1, 0), ("wrap", 1, 0, 0),
                                           ("step", 0, 0, 1)):
        g = triads.build_overlay(frames, q, pos, keys, ghost_quats=q, interval_kinds=[kind])
        assert (g.long_arc_count, g.spin_count, g.step_count) == (long_count, spins, steps)
        assert g.long_arc.points.shape == (2 * 20 * long_count, 3)
        assert g.kept.points.shape == (2 * 20 * (spins + steps), 3)


def test_lod_level_thins_until_triads_are_far_enough_apart():
    assert triads.lod_level(30.0) == 1
    assert triads.lod_level(triads.MIN_TRIAD_SPACING_PX) == 1
    assert triads.lod_level(triads.MIN_TRIAD_SPACING_PX / 2) == 2
    assert triads.lod_level(triads.MIN_TRIAD_SPACING_PX / 3) == 4     # 2x is not enough
    assert triads.lod_level(0.01) == triads.LOD_LEVELS[-1]              # as thin as it goes
    assert triads.lod_level(float("nan")) == 1 and triads.lod_level(0.0) == 1


def test_thinned_triads_keep_every_key_pose_and_drop_in_betweens():
    frames = np.arange(1.0, 41.0)
    n = frames.size
    rng = np.random.default_rng(3)
    quats = quat.normalize(rng.normal(size=(n, 4)))
    ghosts = quat.normalize(rng.normal(size=(n, 4)))
    positions = np.c_[frames, np.zeros(n), np.zeros(n)]     # one unit per frame along X
    keys = np.array([1.0, 13.0, 40.0])
    full = triads.build_overlay(frames, quats, positions, keys, step=2, size=0.5,
                                ghost_quats=ghosts)
    chosen, is_key = triads.triad_frames(frames, 2, keys)
    mask = triads.thinned_mask(chosen, is_key, 2, 4)
    thin = full.triads.select_triads(mask)
    bases = thin.points[0::6, 0]                  # each triad's origin x = its frame
    # every 8th sample (frames 1, 9, 17, 25, 33) plus the keys 13 and 40
    np.testing.assert_allclose(bases, [1, 9, 13, 17, 25, 33, 40])
    assert full.triads.points.shape[0] == 6 * (20 + 1)   # frames 1, 3, ..., 39 + key 40
    # the same triads as drawing every 8th sample from scratch (which keeps the keys too)
    direct = triads.build_overlay(frames, quats, positions, keys, step=8, size=0.5,
                                  ghost_quats=ghosts)
    np.testing.assert_array_equal(thin.points, direct.triads.points)
    np.testing.assert_array_equal(full.ghosts.select_triads(mask).points, direct.ghosts.points)
    np.testing.assert_array_equal(full.ghost_halo.select_triads(mask).colors,
                                  direct.ghost_halo.colors)
    # the median spacing between drawn triads at step 2: 2 units (1 per frame)
    assert triads.triad_spacing(positions, chosen) == pytest.approx(2.0, abs=1e-12)


def test_key_marks_join_the_three_axes_and_view_lines_point_down_minus_z():
    q = np.array([[1.0, 0.0, 0.0, 0.0]])
    p = np.array([[1.0, 2.0, 3.0]])
    points, colors = triads.key_marks(q, p, 2.0)
    corners = p + triads.KEY_MARK_AT * 2.0 * np.eye(3)
    np.testing.assert_allclose(points, [corners[0], corners[1], corners[1], corners[2],
                                        corners[2], corners[0]], atol=1e-15)
    assert (colors == triads.KEY_MARK_COLOR).all()
    points, _ = triads.view_lines(q, p, 1.0)
    assert points.shape == (2 * triads.VIEW_DASHES, 3)
    # identity rotation: -Z, from the camera to VIEW_LENGTH below it, half of it drawn
    np.testing.assert_allclose(points[:, :2], np.broadcast_to(p[0, :2], (points.shape[0], 2)))
    z = points[:, 2] - p[0, 2]
    assert z.max() == pytest.approx(0.0) and z.min() > -triads.VIEW_LENGTH
    drawn = np.sum(z[0::2] - z[1::2])
    assert drawn == pytest.approx(triads.VIEW_LENGTH / 2, abs=1e-12)


def test_key_marks_have_a_dark_halo_underneath():
    frames = np.arange(1.0, 11.0)
    n = frames.size
    quats = np.tile([1.0, 0.0, 0.0, 0.0], (n, 1))
    positions = np.c_[frames, np.zeros(n), np.zeros(n)]
    geo = triads.build_overlay(frames, quats, positions, [1.0, 10.0], step=3, size=1.0,
                               view_axis=True)
    # two key poses: a triangle (3 segments) and 4 view dashes each
    assert geo.marks.points.shape == (2 * (6 + 2 * triads.VIEW_DASHES), 3)
    np.testing.assert_array_equal(geo.marks_halo.points, geo.marks.points)
    assert (geo.marks_halo.colors == triads.GHOST_HALO_COLOR).all()
