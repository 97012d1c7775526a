# SPDX-License-Identifier: GPL-3.0-or-later
"""Keyed turns (issue 11): tracking Blender's playback, the AUTO rule and the
interpolation along whole turns, checked against scipy's Rotation built from
the expected angle (an independent construction: rotation vectors and Euler
angles, never our quaternion code)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation, Slerp

from quatbake.core import interp, quat, turn_interp, turns

# Float64 throughout: composing a handful of exp/multiply calls stays ~1e-13
# rad off the scipy construction; 1e-9 deg leaves room without hiding errors.
TOL_DEG = 1e-9


def _wxyz(rot: Rotation) -> np.ndarray:
    return np.roll(rot.as_quat(), 1, axis=-1)


def _euler(deg) -> np.ndarray:
    """Blender XYZ Euler (R = Rz Ry Rx) = scipy extrinsic 'xyz'."""
    return _wxyz(Rotation.from_euler("xyz", np.asarray(deg, dtype=float), degrees=True))


def _linear_euler_playback(keys, key_deg, frames):
    """Blender's LINEAR playback of Euler channels: each channel linear in time."""
    vals = np.column_stack([np.interp(frames, keys, np.asarray(key_deg)[:, c])
                            for c in range(3)])
    return _euler(vals)


def _angle_deg(a, b):
    return np.degrees(quat.angle_between(a, b))


def _setup_euler(keys, key_deg, density=8):
    keys = np.asarray(keys, dtype=float)
    dense = np.linspace(keys[0], keys[-1], int(density * (keys[-1] - keys[0])) + 1)
    kq = _euler(key_deg)
    tr = turns.track(keys, kq, dense, _linear_euler_playback(keys, key_deg, dense))
    kinds = turns.classify("XYZ", np.radians(key_deg), tr.differs)
    return keys, kq, tr, kinds


@pytest.mark.parametrize("method", ["slerp", "squad"])
def test_turntable_two_turns_kept_by_auto(method):
    key_deg = [[0, 0, 0], [0, 0, 360], [0, 0, 720]]
    keys, kq, tr, kinds = _setup_euler([1, 51, 101], key_deg)
    assert kinds == ["spin", "spin"]
    assert list(tr.whole) == [1, 1] or list(tr.whole) == [-1, -1]
    np.testing.assert_allclose(tr.keyed_deg, 360.0, atol=1e-9)
    frames = np.arange(1.0, 102.0)
    out = turn_interp.interpolate_keys(keys, kq, tr, kinds, "AUTO", method, frames)
    expected = _wxyz(Rotation.from_rotvec(
        np.outer(np.radians(np.interp(frames, keys, [0, 360, 720])), [0, 0, 1])))
    assert _angle_deg(out, expected).max() < TOL_DEG


@pytest.mark.parametrize("turn_deg, most_deg", [(340.0, 0.7714), (360.0, 0.9189)])
def test_nlerp_along_a_kept_turn_is_within_the_documented_speed_up(turn_deg, most_deg):
    """docs/turns.md: each part (at most 90 deg) is nlerped, at most 0.92 deg from a
    constant-speed turn (0.77 for a 340 deg turn's four 85 deg parts; a walk measured
    0.767 where the page said "under 0.5"). The bound is nlerp's on one part's half-angle
    arc, 2 max|atan2(t sin a, 1 - t + t cos a) - t a|, computed on its own below."""
    keys, kq, tr, kinds = _setup_euler([1, 101], [[0, 0, 0], [0, 0, turn_deg]], density=4)
    frames = np.linspace(1.0, 101.0, 4001)
    out = turn_interp.interpolate_keys(keys, kq, tr, kinds, "KEYED", "nlerp", frames)
    even = _wxyz(Rotation.from_rotvec(np.outer(np.radians(np.interp(
        frames, keys, [0.0, turn_deg])), [0, 0, 1])))
    part = np.radians(turn_deg / np.ceil(turn_deg / 90.0)) / 2.0
    t = np.linspace(0.0, 1.0, 100001)
    bound = 2.0 * np.degrees(np.abs(np.arctan2(t * np.sin(part), 1.0 - t + t * np.cos(part))
                                    - t * part).max())
    assert abs(bound - most_deg) < 1e-3
    assert abs(_angle_deg(out, even).max() - bound) < 2e-3


def test_wheel_ten_turns_in_one_interval():
    keys, kq, tr, kinds = _setup_euler([1, 101], [[0, 0, 0], [0, 0, 3600]], density=4)
    assert kinds == ["spin"] and abs(int(tr.whole[0])) == 10
    frames = np.arange(1.0, 102.0)
    out = turn_interp.interpolate_keys(keys, kq, tr, kinds, "AUTO", "slerp", frames)
    expected = _wxyz(Rotation.from_rotvec(np.outer(np.radians(36.0 * (frames - 1)), [0, 0, 1])))
    assert _angle_deg(out, expected).max() < TOL_DEG
    # SHORTEST: the old behaviour, no rotation at all (the keys are the same pose).
    flat = turn_interp.interpolate_keys(keys, kq, tr, kinds, "SHORTEST", "slerp", frames)
    assert _angle_deg(flat, kq[:1]).max() < 1e-6


@pytest.mark.parametrize("short_y, axis", [
    (5e-7, [0.0, 0.0, 1.0]),
    (0.3, [0.0, 0.0, 1.0]),
    (0.3, [0.0, np.cos(1e-7), np.sin(1e-7)]),
], ids=["tiny-short-arc", "caller-axis", "axis-1e-7-off"])
def test_a_whole_turn_about_another_axis_than_the_short_arc_is_the_product(short_y, axis):
    # Keys short_y rad apart about Y, one whole turn kept about another axis: a short
    # arc too small to give the turn an axis (under SHORT_AXIS_EPS; the playback's axis,
    # as core.turns takes it), or an axis of interpolate_turns' caller that is not the
    # short arc's. Two rotations about two axes do not add up into one: the path is the
    # product q_i E(s short) E(s 2 pi whole axis), built here with scipy, and it ends
    # on the key.
    short = np.array([[0.0, short_y, 0.0]])
    axis = np.array([axis])
    keys = np.array([1.0, 101.0])
    start = Rotation.from_rotvec([0.3, -0.2, 0.9])
    kq = _wxyz(Rotation.concatenate([start, start * Rotation.from_rotvec(short[0])]))
    frames = np.arange(1.0, 102.0)
    out = turn_interp.interpolate_turns(keys, kq, short, axis, [1.0], frames, "slerp")
    s = (frames - 1.0) / 100.0
    expected = _wxyz(start * Rotation.from_rotvec(np.outer(s, short[0]))
                     * Rotation.from_rotvec(np.outer(s * 2.0 * np.pi, axis[0])))
    assert _angle_deg(out, expected).max() < TOL_DEG
    assert _angle_deg(out[-1], kq[1]) < TOL_DEG


def test_propeller_270_kept_and_shortest_goes_back():
    key_deg = [[0, 0, 0], [0, 0, 270], [0, 0, 540]]
    keys, kq, tr, kinds = _setup_euler([1, 31, 61], key_deg)
    assert kinds == ["spin", "spin"]
    np.testing.assert_allclose(tr.keyed_deg, 270.0, atol=1e-9)
    np.testing.assert_allclose(tr.short_deg, 90.0, atol=1e-9)
    frames = np.arange(1.0, 62.0)
    out = turn_interp.interpolate_keys(keys, kq, tr, kinds, "AUTO", "slerp", frames)
    assert _angle_deg(out, _linear_euler_playback(keys, key_deg, frames)).max() < TOL_DEG
    short = turn_interp.interpolate_keys(keys, kq, tr, kinds, "SHORTEST", "slerp", frames)
    # Frame 16 is half-way: the short arc is at -45 deg, the keyed turn at 135.
    assert _angle_deg(short[15:16], _euler([[0, 0, -45]]))[0] < TOL_DEG


def test_axis_angle_400_is_a_spin():
    keys = np.array([0.0, 40.0])
    raw = np.array([[0.0, 0, 0, 1], [np.radians(400.0), 0, 0, 1]])
    dense = np.linspace(0, 40, 321)
    play = _wxyz(Rotation.from_rotvec(np.outer(np.radians(10.0 * dense), [0, 0, 1])))
    kq = play[[0, -1]]
    tr = turns.track(keys, kq, dense, play)
    kinds = turns.classify("AXIS_ANGLE", raw, tr.differs)
    assert kinds == ["spin"]
    np.testing.assert_allclose(tr.keyed_deg, 400.0, atol=1e-9)
    out = turn_interp.interpolate_keys(keys, kq, tr, kinds, "AUTO", "squad", dense)
    assert _angle_deg(out, play).max() < TOL_DEG


@pytest.mark.parametrize("a,b", [(170, -170), (179, -179), (-175, 178)])
def test_euler_wraps_inside_180_get_the_short_arc(a, b):
    key_deg = [[0, 0, a], [0, 0, b]]
    keys, kq, tr, kinds = _setup_euler([1, 41], key_deg)
    assert kinds == ["wrap"]
    np.testing.assert_allclose(tr.keyed_deg, abs(b - a), atol=1e-9)
    frames = np.arange(1.0, 42.0)
    out = turn_interp.interpolate_keys(keys, kq, tr, kinds, "AUTO", "slerp", frames)
    ref = interp.interpolate(keys, kq, frames, "slerp")
    assert _angle_deg(out, ref).max() < TOL_DEG
    # KEYED keeps the long way: Blender's own LINEAR playback.
    kept = turn_interp.interpolate_keys(keys, kq, tr, kinds, "KEYED", "slerp", frames)
    assert _angle_deg(kept, _linear_euler_playback(keys, key_deg, frames)).max() < TOL_DEG


def test_mocap_wraps_on_several_channels_are_wraps():
    key_deg = [[10, 179, -20], [12, -179, -22], [15, -178, -170], [14, -177, 179]]
    *_, kinds = _setup_euler([1, 2, 3, 4], key_deg, density=64)
    assert kinds == ["wrap", "short", "wrap"]
    assert not turns.choose("AUTO", kinds).any()


def test_flipped_quaternion_sign_is_a_flip():
    keys = np.array([1.0, 21.0])
    q0 = _wxyz(Rotation.from_euler("z", 10, degrees=True))
    q1 = -_wxyz(Rotation.from_euler("z", 50, degrees=True))       # stored negated
    dense = np.linspace(1, 21, 161)
    t = ((dense - 1) / 20)[:, None]
    play = quat.normalize((1 - t) * q0 + t * q1)                  # LINEAR channels
    tr = turns.track(keys, np.array([q0, q1]), dense, play)
    kinds = turns.classify("QUATERNION", np.array([q0, q1]), tr.differs)
    assert kinds == ["flip"]
    np.testing.assert_allclose(tr.keyed_deg, 320.0, atol=1e-9)    # the long way round
    frames = np.arange(1.0, 22.0)
    auto = turn_interp.interpolate_keys(keys, np.array([q0, q1]), tr, kinds, "AUTO", "slerp",
                                        frames)
    expected = _wxyz(Rotation.from_euler("z", (10 + 2.0 * (frames - 1))[:, None], degrees=True))
    assert _angle_deg(auto, expected).max() < TOL_DEG
    keyed = turn_interp.interpolate_keys(keys, np.array([q0, q1]), tr, kinds, "KEYED",
                                         "slerp", frames)
    expected = _wxyz(Rotation.from_euler("z", (10 - 16.0 * (frames - 1))[:, None], degrees=True))
    assert _angle_deg(keyed, expected).max() < TOL_DEG


def _body_velocity(q, f, frames_step=1e-4):
    """Angular velocity (rad/frame, body frame) by central difference of a callable."""
    a, b = q(f - frames_step), q(f + frames_step)
    rel = quat.multiply(quat.conjugate(a), b)
    rel = np.where(rel[..., :1] < 0, -rel, rel)
    return 2.0 * quat.log(rel)[..., 1:] / (2 * frames_step)


def test_squad_with_turns_is_c1_at_keys():
    key_deg = [[0, 0, 0], [0, 0, 360], [40, 0, 450], [40, 30, 800]]
    keys, kq, tr, kinds = _setup_euler([0, 20, 35, 60], key_deg)
    assert kinds[0] == "spin" and kinds[2] == "spin"

    def curve(f):
        return turn_interp.interpolate_keys(keys, kq, tr, kinds, "KEYED", "squad",
                                            np.atleast_1d(f))

    for key in keys[1:-1]:
        left = _body_velocity(curve, key - 1e-3)
        right = _body_velocity(curve, key + 1e-3)
        # 1e-3 frames either side: the velocity's own slope times 2e-3 frames.
        assert np.linalg.norm(left - right) < 1e-3 * np.linalg.norm(left)
    # Whole turns kept: summed per-frame steps over the first interval ~ 360 deg.
    f = np.linspace(0, 20, 2001)
    steps = _angle_deg(curve(f)[:-1], curve(f)[1:]).sum()
    assert 359.0 < steps < 400.0


@pytest.mark.parametrize("method", ["nlerp", "lerp"])
def test_chord_methods_split_long_turns(method):
    keys, kq, tr, kinds = _setup_euler([1, 101], [[0, 0, 0], [0, 0, 720]], density=4)
    frames = np.linspace(1, 101, 2001)
    out = turn_interp.interpolate_keys(keys, kq, tr, kinds, "AUTO", method, frames)
    norms = quat.norm(out)
    steps = _angle_deg(out[:-1], out[1:]).sum()
    np.testing.assert_allclose(steps, 720.0, atol=1e-6)
    # Part boundaries (every 90 deg: 8 parts) are the slerp points.
    at = np.linspace(1, 101, 9)
    got = turn_interp.interpolate_keys(keys, kq, tr, kinds, "AUTO", method, at)
    expected = _wxyz(Rotation.from_rotvec(np.outer(np.radians(90.0 * np.arange(9)), [0, 0, 1])))
    assert _angle_deg(got, expected).max() < TOL_DEG
    if method == "nlerp":
        np.testing.assert_allclose(norms, 1.0, atol=1e-15)
    else:
        assert norms.min() < 0.95      # lerp shrinks mid-part, as it does between keys


def test_keyed_timing_follows_the_ease_of_the_keys():
    keys = np.array([1.0, 41.0])
    dense = np.linspace(1, 41, 321)
    x = (dense - 1) / 40
    eased = 200.0 * x * x * (3 - 2 * x)                # smoothstep over a 200 deg turn
    axis = np.array([1.0, 2.0, 2.0]) / 3.0
    play = _wxyz(Rotation.from_rotvec(np.outer(np.radians(eased), axis)))
    tr = turns.track(keys, play[[0, -1]], dense, play)
    kinds = ["spin"]                                  # keep the 200 deg turn
    frames = dense[::8]
    out = turn_interp.interpolate_keys(keys, play[[0, -1]], tr, kinds, "AUTO", "slerp",
                                       frames, timing="KEYED")
    assert _angle_deg(out, play[::8]).max() < TOL_DEG
    for method in ("nlerp", "squad"):
        got = turn_interp.interpolate_keys(keys, play[[0, -1]], tr, kinds, "AUTO", method,
                                           frames, timing="KEYED")
        # nlerp parts and Squad (no neighbours: slerp) on one axis follow the
        # angle fraction exactly.
        assert _angle_deg(got, play[::8]).max() < 1e-7


def test_steps_hold_then_jump_on_the_key_frame():
    keys = np.array([1.0, 11.0, 21.0])
    kq = _euler([[0, 0, 0], [0, 0, 90], [0, 0, 100]])
    frames = np.arange(1.0, 22.0)
    tr = turns.track(keys, kq, frames, interp.interpolate(keys, kq, frames, "slerp"))
    kinds = turns.classify("XYZ", np.radians([[0, 0, 0], [0, 0, 90], [0, 0, 100]]),
                           tr.differs, stepped=[True, False])
    assert kinds == ["step", "short"]
    out = turn_interp.interpolate_keys(keys, kq, tr, kinds, "AUTO", "slerp", frames)
    assert _angle_deg(out[:10], kq[:1]).max() < TOL_DEG     # frames 1-10 hold
    assert _angle_deg(out[10:11], kq[1:2])[0] < TOL_DEG      # frame 11 jumps
    expected = _euler(np.column_stack([0 * frames[10:], 0 * frames[10:],
                                       90 + (frames[10:] - 11)]))
    assert _angle_deg(out[10:], expected).max() < TOL_DEG


def test_plain_keys_are_the_old_path():
    rng = np.random.default_rng(3)
    kq = quat.normalize(rng.normal(size=(6, 4)))
    keys = np.array([0.0, 5, 9, 20, 21, 30])
    frames = np.linspace(-2, 33, 300)
    dense = np.linspace(0, 30, 3001)
    tr = turns.track(keys, kq, dense, interp.interpolate(keys, kq, dense, "slerp"))
    kinds = turns.classify("QUATERNION", kq, tr.differs)
    assert kinds == ["short"] * 5
    for method in interp.METHODS:
        got = turn_interp.interpolate_keys(keys, kq, tr, kinds, "AUTO", method, frames)
        # Same code path as interp.interpolate: identical to float64 rounding.
        np.testing.assert_allclose(got, interp.interpolate(keys, kq, frames, method),
                                   rtol=0, atol=1e-15)
        # The turns evaluator agrees with interp's short-arc methods too.
        whole = np.zeros(5)
        mine = turn_interp.interpolate_turns(keys, kq, tr.short, tr.axis, whole, frames, method)
        if method in ("slerp", "nlerp"):
            assert _angle_deg(mine, interp.interpolate(keys, kq, frames, method)).max() < 1e-10


def test_describe_names_the_cause_and_the_setting():
    keys, _, tr, kinds = _setup_euler([60, 100], [[0, 0, 170], [0, 0, -170]])
    text = turns.describe(keys, kinds, tr, turns.choose("AUTO", kinds), "AUTO")
    assert text == [("keys 60-100: Blender turns 340 deg (an Euler wrap); baked the 20 deg "
                     "short way instead (Turns: Keyed would keep Blender's 340 deg turn)")]
    keys, _, tr, kinds = _setup_euler([1, 51], [[0, 0, 0], [0, 0, 360]])
    text = turns.describe(keys, kinds, tr, turns.choose("AUTO", kinds), "AUTO")
    assert text == [("keys 1-51: Blender turns 360 deg (a keyed spin); baked as keyed, "
                     "because Turns is Auto (Turns: Shortest would take the 0 deg short way)")]


def _flip():
    """A quaternion key stored with its sign flipped: Blender turns 320 deg, not 40."""
    keys = np.array([1.0, 21.0])
    q = np.array([_wxyz(Rotation.from_euler("z", 10, degrees=True)),
                  -_wxyz(Rotation.from_euler("z", 50, degrees=True))])
    dense = np.linspace(1, 21, 161)
    t = ((dense - 1) / 20)[:, None]
    tr = turns.track(keys, q, dense, quat.normalize((1 - t) * q[0] + t * q[1]))
    return keys, q, tr, turns.classify("QUATERNION", q, tr.differs)


def _patterns(phrase) -> list:
    """Every pattern a Phrase (core.words) is made of, its arguments' included."""
    from quatbake.core.words import Phrase

    return [phrase.pattern] + [p for a in phrase.args if isinstance(a, Phrase)
                               for p in _patterns(a)]


@pytest.mark.parametrize("setting", turns.TURN_SETTINGS)
def test_describe_says_phrases_of_its_own_patterns(setting):
    """Each sentence is a Phrase (the English, as before, and its patterns): the add-on
    says it in the interface's language. Made again from its patterns it is itself."""
    from quatbake.core.words import Phrase

    known = {turns.HEAD, *turns.CAUSES.values(), *turns.SENTENCES.values(),
             "Auto", "Shortest", "Keyed"}

    def again(p):
        return p.pattern.format(*(again(a) if isinstance(a, Phrase) else a for a in p.args)) \
            if p.args else p.pattern

    said = []
    for keys, _, tr, kinds in (_flip(), _setup_euler([60, 100], [[0, 0, 170], [0, 0, -170]]),
                               _setup_euler([1, 51], [[0, 0, 0], [0, 0, 360]]),
                               _setup_euler([0, 10], [[45, 88, 10], [-30, 0, 175]])):
        said += turns.describe(keys, kinds, tr, turns.choose(setting, kinds), setting)
    assert len(said) == 4 and {s.args[0].args[2] for s in said} == set(turns.CAUSES.values())
    for sentence in said:
        assert isinstance(sentence, Phrase) and again(sentence) == sentence
        assert set(_patterns(sentence)) <= known, _patterns(sentence)


def test_bad_input_is_a_sentence():
    with pytest.raises(ValueError, match="two or more"):
        turns.track([1.0], [[1, 0, 0, 0]], [1.0], [[1, 0, 0, 0]])
    with pytest.raises(ValueError, match="turns setting"):
        turns.choose("LONGEST", ["short"])


# --------------------------------------------------------------------------
# Fuzz: random key poses, whole turns and samples give unit, finite paths
# that pass through every key (hypothesis; the profile sets the examples).
# --------------------------------------------------------------------------



@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 6),
       method=st.sampled_from(interp.METHODS), keyed_timing=st.booleans())
def test_fuzz_turn_paths_are_unit_and_hit_the_keys(seed, n, method, keyed_timing):
    rng = np.random.default_rng(seed)
    times = np.cumsum(rng.uniform(0.5, 30.0, n))
    kq = quat.normalize(rng.normal(size=(n, 4)))
    # Blender-like playback: random extra whole turns about each interval's axis.
    whole = rng.integers(-3, 4, n - 1)
    rel = quat.multiply(quat.conjugate(kq[:-1]), kq[1:])
    rel = np.where(rel[:, :1] < 0, -rel, rel)
    short = 2 * quat.log(rel)[:, 1:]
    axis = short / np.maximum(np.linalg.norm(short, axis=1, keepdims=True), 1e-300)
    turn = short + 2 * np.pi * whole[:, None] * axis

    def play(t):
        i, u = interp.segment_params(times, t)
        return quat.multiply(kq[i], quat.exp(0.5 * u[:, None] * turn[i]))

    samples = np.concatenate([times, rng.uniform(times[0] - 5, times[-1] + 5, 50)])
    dense = np.concatenate([np.linspace(times[0], times[-1], 400 * n), samples])
    tr = turns.track(times, kq, dense, play(dense))
    kinds = ["spin"] * (n - 1)
    out = turn_interp.interpolate_keys(times, kq, tr, kinds, "KEYED", method, samples,
                                       timing="KEYED" if keyed_timing else "EVEN")
    assert np.isfinite(out).all()
    if method != "lerp":
        np.testing.assert_allclose(quat.norm(out), 1.0, atol=1e-12)
    # Keys are reproduced (sign-agnostic) at their own times.
    assert _angle_deg(out[:n], kq).max() < 1e-7
    if method == "slerp":
        # The playback is a constant-speed turn per interval: slerp along the
        # keyed turns is that playback (keyed timing included: same fractions).
        assert _angle_deg(out, play(samples)).max() < 1e-6


def test_path_deviation_is_the_distance_to_the_slerp_arc():
    """The report's path deviation for slerp (the method's point at Blender's
    progress) equals the smallest angle to the arc, found by brute force over
    40,001 points of the arc built by scipy."""
    from quatbake.core import analysis

    keys = np.array([1.0, 41.0])
    axis = np.array([0.0, 0.6, 0.8])
    frames = np.arange(1.0, 42.0)
    x = (frames - 1) / 40
    wobble = np.column_stack([np.sin(np.pi * x) * 0.2, 0 * x, 0 * x])   # off-axis, ~11 deg
    eased = np.radians(250.0) * x * x * (3 - 2 * x)
    play = Rotation.from_rotvec(wobble) * Rotation.from_rotvec(np.outer(eased, axis))
    bq = _wxyz(play)
    key_raw = np.array([[0.0, 0, 0, 1], [np.radians(250.0), 0, 0.6, 0.8]])
    a = analysis.analyze_object("W", "AXIS_ANGLE", frames, bq, keys, bq[[0, -1]], "slerp",
                                key_raw=key_raw)
    assert a.kinds == ["spin"]
    arc = Rotation.from_rotvec(np.outer(np.linspace(-0.2, 1.2, 40001) * np.radians(250.0),
                                        axis))
    brute = np.array([np.degrees((arc.inv() * play[i]).magnitude()).min()
                      for i in range(frames.size)])
    # The grid is 1.4 * 250 / 40,000 = 0.00875 deg apart: the brute force is at most
    # half of that above the true minimum (and never below it).
    np.testing.assert_allclose(a.path_deviation_deg, brute, atol=0.0045)
    assert (a.path_deviation_deg <= brute + 1e-9).all()
    assert a.max_path_deviation_deg > 5.0


@pytest.mark.parametrize("method", ["slerp", "nlerp"])
@pytest.mark.parametrize("timing", ["EVEN", "KEYED"])
def test_path_deviation_of_the_long_way_round_is_the_distance_to_the_short_arc(method,
                                                                                timing):
    """A flipped key's sign: Blender turns 216 deg the long way, the method (Turns: Auto)
    the 144 deg short arc. The path deviation is the distance to that arc, found by brute
    force over 20,001 of its points built by scipy: 108 deg at most, where the method's
    point at Blender's progress is 180 deg away (the report said 180)."""
    from quatbake.core import analysis

    keys = np.array([1.0, 21.0])
    axis = np.array([0.6, 0.0, 0.8])
    frames = np.arange(1.0, 22.0)
    x = (frames - 1) / 20
    wobble = np.column_stack([0 * x, np.sin(np.pi * x) * 0.1, 0 * x])    # off-plane, ~6 deg
    play = Rotation.from_rotvec(wobble) * Rotation.from_rotvec(
        np.outer(-np.radians(216.0) * x, axis))
    bq = _wxyz(play)
    a = analysis.analyze_object("F", "QUATERNION", frames, bq, keys, bq[[0, -1]], method,
                                timing=timing)
    short = Rotation.from_rotvec(np.outer(np.linspace(0.0, 1.0, 20001) * np.radians(144.0),
                                          axis))
    brute = np.array([np.degrees((short.inv() * play[i]).magnitude()).min()
                      for i in range(frames.size)])
    # The grid is 144 / 20,000 = 0.0072 deg apart: the brute force is at most half of
    # that above the true minimum, never below it.
    np.testing.assert_allclose(a.path_deviation_deg, brute, atol=0.0036)
    assert (a.path_deviation_deg <= brute + 1e-9).all()
    assert 105.0 < a.max_path_deviation_deg < 110.0
    assert a.max_deviation_deg > 170.0


def test_arc_distances_are_the_nearest_point_of_each_short_arc():
    """turn_interp.arc_distances against brute force: random key orientations, random
    rotations at random times between them (anywhere, not near the path), and each one's
    smallest angle to its interval's short arc sampled at 4,001 points by scipy's Slerp.
    Covers samples whose nearest point is inside the arc and at either end, with either
    sign of the quaternions."""
    rng = np.random.default_rng(23)
    keys = np.array([0.0, 10.0, 20.0, 30.0])
    kq = quat.normalize(rng.normal(size=(2, keys.size, 4)))
    times = np.sort(rng.uniform(keys[0], keys[-1], 300))
    tracked = turns.track_many(keys, kq, keys, kq)            # short arcs only
    kinds = [["short"] * (keys.size - 1)] * 2
    samples = quat.normalize(rng.normal(size=(2, times.size, 4)))
    got = np.degrees(turn_interp.arc_distances(keys, kq, tracked, kinds, "AUTO", times,
                                               samples))
    grid = np.linspace(0.0, 1.0, 4001)
    for b in range(2):
        for j, t in enumerate(times):
            i = min(int(np.searchsorted(keys, t, side="right")) - 1, keys.size - 2)
            ends = Rotation.from_quat(kq[b, [i, i + 1]][:, [1, 2, 3, 0]])
            arc = Slerp([0.0, 1.0], ends)(grid)
            sample = Rotation.from_quat(samples[b, j, [1, 2, 3, 0]])
            brute = np.degrees((arc.inv() * sample).magnitude()).min()
            # Grid steps of at most 180 / 4,000 deg: brute force is up to half of one above.
            assert brute - 0.0225 - 1e-6 <= got[b, j] <= brute + 1e-6, (b, j, got[b, j], brute)


def test_keys_only_tracking_equals_the_general_path():
    rng = np.random.default_rng(9)
    kq = quat.normalize(rng.normal(size=(7, 4)))
    keys = np.array([0.0, 3, 4, 10, 11, 20, 22])
    fast = turns.track(keys, kq, keys, kq)                     # no sample between keys
    # The general path, with one sample per interval on the short arc's start.
    mid = keys[:-1] + 1e-9
    slow = turns.track(keys, kq, mid, interp.interpolate(keys, kq, mid, "slerp"))
    np.testing.assert_allclose(fast.short, slow.short, atol=1e-12)
    np.testing.assert_array_equal(fast.whole, slow.whole)
    np.testing.assert_array_equal(fast.differs, slow.differs)
    np.testing.assert_allclose(fast.keyed_deg, slow.keyed_deg, atol=1e-9)
    np.testing.assert_allclose(fast.progress_at(keys), slow.progress_at(keys), atol=1e-12)


def test_keys_only_tracking_of_a_batch_is_each_ones_general_path():
    """A dense bake's rig is tracked keys-only in one pass: each member, one holding
    still among them, as the general path tracks it alone."""
    rng = np.random.default_rng(11)
    keys = np.array([0.0, 1, 2, 5, 6])
    kq = quat.normalize(rng.normal(size=(4, keys.size, 4)))
    kq[2] = kq[2, :1]                                   # a bone that holds still
    fast = turns.track_many(keys, kq, keys, kq)
    mid = keys[:-1] + 1e-9
    for row, tracking in zip(kq, fast):
        slow = turns.track(keys, row, mid, interp.interpolate(keys, row, mid, "slerp"))
        np.testing.assert_allclose(tracking.short, slow.short, atol=1e-12)
        np.testing.assert_array_equal(tracking.whole, slow.whole)
        np.testing.assert_array_equal(tracking.differs, slow.differs)
        np.testing.assert_allclose(tracking.keyed_deg, slow.keyed_deg, atol=1e-9)
        np.testing.assert_allclose(tracking.axis[tracking.short_deg > 1e-4],
                                   slow.axis[slow.short_deg > 1e-4], atol=1e-9)
        np.testing.assert_allclose(tracking.progress_at(keys), slow.progress_at(keys),
                                   atol=1e-12)


def test_track_many_follows_each_rotation_of_a_batch_on_its_own():
    """A rig's bones are tracked in one call (turns.track_many): every member of
    the batch gets the whole turns it was built with, its own constant-speed
    progress, and a member that holds still (undefined axis) or turns less than
    the margin does not borrow from its neighbours. The oracle is the
    construction: playback = key_i * exp(u * turn_i / 2), turn_i = the short arc
    plus a known number of whole turns about its axis."""
    rng = np.random.default_rng(7)
    times = np.array([1.0, 11.0, 31.0, 36.0, 60.0])
    n = times.size
    batch = 5
    kq = quat.normalize(rng.normal(size=(batch, n, 4)))
    kq[3] = kq[3, :1]                                   # a bone that holds still
    whole = rng.integers(-2, 3, (batch, n - 1))
    whole[3] = 0
    rel = quat.multiply(quat.conjugate(kq[:, :-1]), kq[:, 1:])
    rel = np.where(rel[..., :1] < 0, -rel, rel)
    short = 2 * quat.log(rel)[..., 1:]
    length = np.linalg.norm(short, axis=-1, keepdims=True)
    axis = np.divide(short, length, out=np.zeros_like(short), where=length > 0)
    turn = short + 2 * np.pi * whole[..., None] * axis
    dense = np.linspace(times[0], times[-1], 2_000)
    i, u = interp.segment_params(times, dense)
    play = np.stack([quat.multiply(kq[b, i], quat.exp(0.5 * u[:, None] * turn[b, i]))
                     for b in range(batch)])
    # Each sample's own sign at random: the tracking works at rotation level.
    play *= rng.choice([-1.0, 1.0], size=(batch, dense.size, 1))

    tracked = turns.track_many(times, kq, dense, play)

    assert len(tracked) == batch
    for b, tr in enumerate(tracked):
        np.testing.assert_array_equal(tr.whole, whole[b])
        # float64 tracking of a constructed turn: ~1e-12 rad; 1e-9 leaves room.
        np.testing.assert_allclose(tr.keyed(), turn[b], atol=1e-9)
        if b == 3:
            assert not tr.differs.any() and np.isnan(tr.progress).all()
            continue
        at = np.searchsorted(tr.sample_times, dense)
        moving = np.linalg.norm(turn[b, i], axis=-1) > 1e-9
        np.testing.assert_allclose(tr.progress[at][moving], u[moving], atol=1e-9)


@pytest.mark.parametrize("turning", [True, False])
@pytest.mark.parametrize("timing", ["EVEN", "KEYED"])
def test_slerp_many_follows_each_bones_keyed_turn_and_ease(timing, turning):
    """The report's slerp path of a rig's bones in one call (turn_interp.slerp_many):
    each bone keeps its own whole turns and, with Timing: Keyed, its own ease. The
    oracle is the construction, as above: playback = key_i * exp(e(u) turn_i / 2) with
    e(u) a smoothstep, and what Even timing makes of it, e(u) = u."""
    rng = np.random.default_rng(11)
    times = np.array([1.0, 21.0, 41.0, 47.0, 80.0])
    batch, n = 4, times.size
    kq = quat.normalize(rng.normal(size=(batch, n, 4)))
    # Without whole turns every interval is its short arc (slerp_many's other path).
    whole = rng.integers(-2, 3, (batch, n - 1)) if turning else np.zeros((batch, n - 1), int)
    rel = quat.multiply(quat.conjugate(kq[:, :-1]), kq[:, 1:])
    rel = np.where(rel[..., :1] < 0, -rel, rel)
    short = 2 * quat.log(rel)[..., 1:]
    axis = short / np.linalg.norm(short, axis=-1, keepdims=True)
    turn = short + 2 * np.pi * whole[..., None] * axis
    dense = np.linspace(times[0], times[-1], 4_000)
    i, u = interp.segment_params(times, dense)
    ease = u * u * (3 - 2 * u)
    play = np.stack([quat.multiply(kq[b, i], quat.exp(0.5 * ease[:, None] * turn[b, i]))
                     for b in range(batch)])
    tracked = turns.track_many(times, kq, dense, play)
    kinds = [["spin" if turning else "short"] * (n - 1)] * batch   # every keyed turn kept
    frames = dense[::7]
    got = turn_interp.slerp_many(times, kq, tracked, kinds, "AUTO", frames, timing)
    fi, fu = interp.segment_params(times, frames)
    along = fu * fu * (3 - 2 * fu) if timing == "KEYED" else fu
    for b in range(batch):
        expected = _wxyz(Rotation.from_quat(np.roll(kq[b, fi], -1, axis=-1))
                         * Rotation.from_rotvec(along[:, None] * turn[b, fi]))
        assert _angle_deg(got[b], expected).max() < TOL_DEG, b


def test_track_many_refuses_mismatched_shapes_with_a_sentence():
    keys = np.array([1.0, 2.0])
    with pytest.raises(ValueError, match=r"key_quats must be \(b, 2, 4\)"):
        turns.track_many(keys, np.zeros((2, 4)), keys, np.zeros((1, 2, 4)))
    with pytest.raises(ValueError, match="3 sample times for 1 rotation"):
        turns.track_many(keys, [[[1, 0, 0, 0], [1, 0, 0, 0]]], [1.0, 1.5, 2.0],
                         np.ones((1, 2, 4)))


def test_euler_channels_that_turn_the_long_way_without_a_wrap_are_kind_euler():
    """A report walk: keys (45, 88, 10) -> (-30, 0, 175) deg turn the long way (scipy: the
    channels' straight lines sum to 236 deg of turn against a 140 deg short arc), though no
    channel moves 180 deg; the JSON called it an "Euler wrap". Its own kind, a defect."""
    key_deg = [[45.0, 88.0, 10.0], [-30.0, 0.0, 175.0]]
    along = Rotation.from_euler("xyz", np.linspace(*np.array(key_deg), 2001), degrees=True)
    turned = np.degrees((along[1:] * along[:-1].inv()).magnitude().sum())
    short = np.degrees((along[-1] * along[0].inv()).magnitude())
    assert turned > 180.0 > short and (np.abs(np.diff(key_deg, axis=0)) < 180.0).all()
    _keys, _kq, _tr, kinds = _setup_euler([1.0, 21.0], key_deg)
    assert kinds == ["euler"]
    assert not turns.choose("AUTO", kinds).any()        # baked the short arc, as a wrap is
