"""Issue 24's overlay on real scenes, the pure geometry (no Blender, no GPU): rotation
in place drawn as a turn arc, dense keys thinned, the speed legend's round numbers.

Oracles: scipy's Rotation and Slerp (scalar-last quaternions, converted here) and
numpy's percentile, never core.triads itself.
"""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from quatbake.core import triads


def _scipy(q):
    """Blender's (w, x, y, z) -> scipy's Rotation (x, y, z, w)."""
    q = np.asarray(q, dtype=float)
    return Rotation.from_quat(np.c_[q[:, 1:], q[:, :1]])


def _blender(r: Rotation) -> np.ndarray:
    xyzw = r.as_quat()
    return np.c_[xyzw[:, 3:], xyzw[:, :3]]


def _turntable(degrees, n=41, flip_at=None):
    """n frames turning about Z from 0 to ``degrees`` (quaternions, Blender order)."""
    frames = np.arange(1.0, n + 1.0)
    q = _blender(Rotation.from_euler("z", np.linspace(0.0, degrees, n)[:, None], degrees=True))
    if flip_at is not None:
        q[flip_at:] *= -1.0      # same rotations: the sign alone does not move a triad
    return frames, q


# float64 rotations of unit vectors and a few products: ~1e-15; 1e-12 leaves room.
TOL = 1e-12


def test_a_turn_in_place_is_detected_and_a_moving_or_still_one_is_not():
    frames, q = _turntable(270.0)
    still = np.zeros((frames.size, 3))
    assert triads.is_in_place(still, q, 0.5)
    # moving 3 units while turning: a path, not a turn in place
    moving = np.c_[np.linspace(0, 3, frames.size), np.zeros((frames.size, 2))]
    assert not triads.is_in_place(moving, q, 0.5)
    # neither moving nor turning: its triads coincide, nothing to spread out
    assert not triads.is_in_place(still, np.tile([1.0, 0, 0, 0], (frames.size, 1)), 0.5)


def test_in_place_triads_sit_on_the_turn_arc_at_their_own_x_tip():
    """A turntable about Z: X's tip travels furthest (Z's not at all), so every triad sits
    ARC_RADIUS triad lengths out along its own X axis (scipy rotates (1, 0, 0)); the path
    is that arc, and a white spoke joins the object to each key pose."""
    frames, q = _turntable(270.0)
    centre = np.array([1.0, 2.0, 3.0])
    pos = np.tile(centre, (frames.size, 1))
    keys = np.array([1.0, 21.0, 41.0])
    size = 0.5
    geo = triads.build_overlay(frames, q, pos, keys, step=5, size=size, in_place=True)
    assert geo.in_place
    x_dirs = _scipy(q).apply([1.0, 0.0, 0.0])
    arc = centre + triads.ARC_RADIUS * size * x_dirs
    np.testing.assert_allclose(geo.triad_positions, arc, atol=TOL)
    bases = geo.triads.points[0::6]
    np.testing.assert_allclose(bases, arc[geo.chosen], atol=TOL)
    # no two drawn triads share a point any more: the starburst is spread out
    gaps = np.linalg.norm(np.diff(bases, axis=0), axis=1)
    assert gaps.min() > 0.5 * size
    # the path follows the arc (segment j joins arc points j and j+1)
    np.testing.assert_allclose(geo.path.points[0::2], arc[:-1], atol=TOL)
    np.testing.assert_allclose(geo.path.points[1::2], arc[1:], atol=TOL)
    # spokes: centre -> each key pose, white
    rows = np.searchsorted(frames, keys)
    np.testing.assert_allclose(geo.spokes.points[0::2], np.tile(centre, (3, 1)), atol=TOL)
    np.testing.assert_allclose(geo.spokes.points[1::2], arc[rows], atol=TOL)
    assert (geo.spokes.colors == triads.KEY_MARK_COLOR).all()
    np.testing.assert_array_equal(geo.spokes_halo.points, geo.spokes.points)
    # the name goes at the arc's end
    np.testing.assert_allclose(geo.label_at, arc[-1], atol=TOL)


def test_a_long_turn_in_place_gets_the_long_way_band_on_the_arc():
    """Blender's curves turn 300 deg one way between two keys whose shortest arc is
    60 deg the other: the cyan band lies on the arc (ARC_RADIUS triad lengths from
    the object), where before it lay on a path of zero length."""
    frames = np.arange(1.0, 22.0)
    playing = _blender(Rotation.from_euler("z", np.linspace(0.0, 300.0, frames.size)[:, None],
                                           degrees=True))
    pos = np.zeros((frames.size, 3))
    keys = np.array([1.0, 21.0])
    size = 1.0
    geo = triads.build_overlay(frames, playing, pos, keys, step=5, size=size,
                               long_arc_quats=playing, in_place=True)
    assert geo.long_arc_count == 1
    band = geo.long_arc.points
    assert band.shape == (2 * 20, 3)          # every frame's segment of the interval
    radius = np.linalg.norm(band, axis=1)
    np.testing.assert_allclose(radius, triads.ARC_RADIUS * size, atol=TOL)
    # it sweeps the whole 300 deg around the object, not a dot at the centre
    angles = np.degrees(np.unwrap(np.arctan2(band[0::2, 1], band[0::2, 0])))
    assert angles[-1] - angles[0] == pytest.approx(300.0 - 15.0, abs=1e-9)
    # the same turn on a moving path keeps its band on the path
    moving = np.c_[frames, np.zeros((frames.size, 2))]
    geo = triads.build_overlay(frames, playing, moving, keys, step=5, size=size,
                               long_arc_quats=playing)
    assert not geo.in_place
    np.testing.assert_allclose(geo.long_arc.points[0::2], moving[:-1], atol=TOL)


def test_a_camera_turning_in_place_traces_where_it_looks():
    frames, q = _turntable(90.0, n=21)
    pos = np.zeros((frames.size, 3))
    geo = triads.build_overlay(frames, q, pos, [1.0, 21.0], size=1.0, view_axis=True,
                               in_place=True)
    look = _scipy(q).apply([0.0, 0.0, -1.0])
    np.testing.assert_allclose(geo.triad_positions, triads.ARC_RADIUS * look, atol=TOL)


def _swing(n=525, glitch=300):
    """A capture: a key on every frame, a leg swinging +-30 deg about X with a period
    of 60 frames, plus a 1-frame 40 deg glitch about Y at frame ``glitch``."""
    frames = np.arange(1.0, n + 1.0)
    angle = 30.0 * np.sin(2 * np.pi * frames / 60.0)
    rot = Rotation.from_euler("x", angle[:, None], degrees=True)
    bump = np.zeros(n)
    bump[int(glitch) - 1] = 40.0
    rot = Rotation.from_euler("y", bump[:, None], degrees=True) * rot
    return frames, _blender(rot)


def test_key_change_is_the_swerve_from_the_slerp_of_the_neighbours():
    frames, q = _swing()
    window = 5.0
    scores = triads.key_change(frames, q, frames, window)
    r = _scipy(q)
    for k in (100, 150, 299, 400):        # sample rows
        a, b = k - 5, k + 5
        mid = Slerp([frames[a], frames[b]], r[[a, b]])([frames[k]])
        expected = (mid.inv() * r[k]).magnitude()[0]
        assert scores[k] == pytest.approx(expected, abs=1e-9)
    # an even swing through zero changes course less than its turning points
    through_zero = int(np.argmin(np.abs(np.sin(2 * np.pi * frames / 60.0))[30:90])) + 30
    turning = int(np.argmax(np.sin(2 * np.pi * frames / 60.0)[30:90])) + 30
    assert scores[turning] > 10 * scores[through_zero]


def test_dense_keys_are_thinned_to_one_per_window_keeping_the_biggest_change():
    frames, q = _swing()
    scores = triads.key_change(frames, q, frames, 5.0)
    spacing = 80.0
    forced = np.zeros(frames.size, dtype=bool)
    forced[200] = True
    keep = triads.thin_keys(frames, scores, spacing, forced)
    window = np.floor((frames - frames[0]) / spacing)
    assert keep[0] and keep[-1] and keep[200]
    for w in np.unique(window):
        inside = np.flatnonzero(window == w)
        chosen = set(inside[keep[inside]]) - {0, frames.size - 1, 200}
        # one key per window: the one that changes course most (a pure numpy argmax)
        assert chosen == {inside[np.argmax(scores[inside])]}
    # the glitch (frame 300) is the biggest change of its window, so it is one of them
    assert keep[299]
    assert keep.sum() <= np.unique(window).size + 3
    # a coarser window keeps a subset of a finer one (the LOD levels nest)
    fine = triads.thin_keys(frames, scores, 40.0, forced)
    assert not (keep & ~fine).any()
    # keys further apart than the window are all kept
    sparse = frames[::100]
    assert triads.thin_keys(sparse, np.zeros(sparse.size), 80.0).all()


def test_build_overlay_thins_dense_key_poses_when_zoomed_out_and_keeps_long_way_keys():
    """The BVH wall: a key on every frame. Full detail draws every key; each thinned
    level one key pose per step * level frames, plus both keys of a long-way interval."""
    frames, q = _swing()
    playing = q.copy()
    # Blender plays a full extra turn between keys 250 and 251: the long way round
    sweep = _blender(Rotation.from_euler("x", np.linspace(0, 360, 9)[1:-1, None],
                                         degrees=True))
    t = np.r_[frames[:250], 250 + np.arange(1, 8) / 8.0, frames[250:]]
    playing = np.r_[playing[:250], _blender(_scipy(sweep) * _scipy(q[249:250])),
                    playing[250:]]
    ours = np.r_[q[:250], np.repeat(q[249:250], 7, axis=0), q[250:]]
    pos = np.c_[t * 0.01, np.zeros((t.size, 2))]
    geo = triads.build_overlay(t, ours, pos, frames, step=5, size=0.1,
                               long_arc_quats=playing)
    assert geo.long_arc_count == 1
    key_total = frames.size
    assert geo.marks.points.shape[0] == 6 * key_total          # level 1: every key
    for level in triads.LOD_LEVELS[1:]:
        thinned = geo.thinned(level)
        poses = thinned["marks"].points.shape[0] // 6
        windows = int(np.ceil((frames[-1] - frames[0] + 1) / (5 * level)))
        assert poses <= windows + 4, (level, poses)
        # the long-way interval's two keys are still drawn (a triad's base x = 0.01 * frame)
        drawn = set(np.round(thinned["triads"].points[0::6, 0] / 0.01))
        assert {250.0, 251.0} <= drawn, level
        assert poses <= len(drawn)
    # zoomed out 16x: 525 keys -> under 12 key poses on the path
    assert geo.thinned(16)["marks"].points.shape[0] // 6 < 12


def test_the_legend_top_is_a_round_number_above_the_98th_percentile():
    rng = np.random.default_rng(24)
    walk = [rng.uniform(0.0, 5.6, 500), np.array([85.05])]      # one spike of 85 deg/frame
    top = triads.legend_scale(walk)
    p98 = np.percentile(np.concatenate(walk), 98.0)
    assert top >= p98
    assert top == 6.0                # the round number just above ~5.5
    assert triads.legend_labels(top) == ["0\u00b0", "2\u00b0", "4\u00b0", "6\u00b0+"]
    assert triads.legend_labels(1.5) == ["0\u00b0", "0.5\u00b0", "1\u00b0", "1.5\u00b0+"]
    assert triads.legend_scale([np.array([40.0])]) == 60.0
    assert triads.legend_scale([np.array([9.0])]) == 9.0
    assert triads.legend_scale([np.array([9.1])]) == 15.0
    # a still object: the floor, not a ramp stretched over nothing
    assert triads.legend_scale([np.zeros(10)]) == triads.LEGEND_FLOOR
    assert triads.legend_scale([]) == triads.LEGEND_FLOOR


def test_an_even_turns_keys_tie_whatever_the_float32_rounding():
    """The Blender 3.4 CI failure: an even turn's middle key scored 1.6e-8 in one build
    and 0 in another (float32 curves), so a zoomed-out build drew its triad or not by
    chance. Rounded like float32 curves, every middle key of an even turn scores 0 and
    the thinning keeps the same keys, the first of each window."""
    frames = np.arange(1.0, 42.0)
    exact = _blender(Rotation.from_euler("x", np.linspace(0.0, 80.0, 41)[:, None],
                                         degrees=True))
    rounded = exact.astype(np.float32).astype(np.float64)
    keys = frames[::5]
    for q in (exact, rounded):
        scores = triads.key_change(frames, q, keys, 5.0)
        assert np.all(scores == 0.0), scores
        keep = triads.thin_keys(keys, scores, 20.0)
        window = np.floor((keys - keys[0]) / 20.0)
        first = np.r_[True, window[1:] != window[:-1]]
        first[-1] = True
        np.testing.assert_array_equal(keep, first)
    # a swerve a view can show still scores: 0.01 deg off the turn at frame 21
    bent = exact.copy()
    bent[20] = _blender(Rotation.from_euler("y", [0.01], degrees=True)
                        * _scipy(exact[20:21]))[0]
    scores = triads.key_change(frames, bent, keys, 5.0)
    assert scores[4] == pytest.approx(np.radians(0.01), rel=1e-3)
