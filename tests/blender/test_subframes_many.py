"""Where a group is sampled between frames is where each of its transforms alone is.

The analysis finds the subframes of a rig's bones (or of any transforms keyed on the same
frames) in one pass over all of them (animdata.subframes_many). Each transform's answer
must be the one subframes_to_sample gives it alone, which the capture tests check against
Blender's own playback (test_between_bound.py): the same subframes, bit for bit, and the
same error for a transform whose values are no rotation, the others answered.
"""
import numpy as np
import pytest

from quatbake.addon import animdata, transform

import scenes

pytestmark = pytest.mark.bpy

# Keys a frame apart over frames 1-24, then two intervals wider than a frame.
FRAMES = np.concatenate([np.arange(1.0, 25.0), [30.0, 40.0]])


def _quats_about(axis, degrees) -> np.ndarray:
    half = np.radians(np.asarray(degrees, dtype=np.float64)) / 2.0
    axis = np.asarray(axis, dtype=np.float64) / np.linalg.norm(axis)
    return np.column_stack([np.cos(half), np.sin(half)[:, None] * axis[None, :]])


def _rig(clean_blender):
    """Bones keyed on FRAMES, each showing one reason to sample (or none), and one whose
    keys are no rotation."""
    n = FRAMES.size
    names = ["Bowed", "Flipped", "Fast", "Still", "Wrapped", "Gimbal", "Axis", "Broken",
             "BowedToo"]
    rig = scenes.make_rig("Rig", [(b, None, (i, 0, 0), (i, 0, 1)) for i, b in enumerate(names)])
    steps = np.linspace(0.0, 1.0, n)
    # Bezier keys turning unevenly: their auto handles bow the channels between frames.
    bowed = _quats_about((1, 2, 3), 40.0 * np.sin(7.0 * steps) + 3.0 * np.arange(n) % 11)
    scenes.key_bone(rig, "Bowed", "rotation_quaternion", FRAMES, bowed, 'QUATERNION')
    # Straight (Bezier keys on a line: their handles on it) for 12 frames, then bowed.
    half = np.where(np.arange(n) < 12, 0.5 * np.arange(n), 40.0 * np.sin(7.0 * steps))
    scenes.key_bone(rig, "BowedToo", "rotation_quaternion", FRAMES, _quats_about((1, 2, 3), half),
                    'QUATERNION')
    flipped = _quats_about((0, 0, 1), 2.0 * np.arange(n))
    flipped[5::4] *= -1.0                      # sign flips: the long way round
    scenes.key_bone(rig, "Flipped", "rotation_quaternion", FRAMES, flipped, 'QUATERNION',
                    'LINEAR')
    fast = _quats_about((0, 1, 0), 30.0 * np.arange(n) / 2.0)   # 15 deg a frame, then 30
    fast[12:] = _quats_about((0, 1, 0), 180.0 + 30.0 * np.arange(n - 12))
    scenes.key_bone(rig, "Fast", "rotation_quaternion", FRAMES, fast, 'QUATERNION', 'LINEAR')
    scenes.key_bone(rig, "Still", "rotation_quaternion", FRAMES,
                    _quats_about((1, 0, 0), 0.05 * np.arange(n)), 'QUATERNION', 'LINEAR')
    wrapped = np.zeros((n, 3))
    wrapped[:, 2] = np.radians(np.where(np.arange(n) % 6 < 3, 170.0, -170.0))
    scenes.key_bone(rig, "Wrapped", "rotation_euler", FRAMES, wrapped, 'XYZ')
    gimbal = np.column_stack([np.radians(np.arange(n)), np.radians(89.0 + 0 * steps),
                              np.radians(5.0 * np.arange(n))])
    scenes.key_bone(rig, "Gimbal", "rotation_euler", FRAMES, gimbal, 'XYZ')
    axis = np.column_stack([np.radians(10.0 * np.arange(n)), 0 * steps, 0 * steps + 1.0,
                            np.where(np.arange(n) % 5 == 4, -1.0, 1.0)])
    scenes.key_bone(rig, "Axis", "rotation_axis_angle", FRAMES, axis, 'AXIS_ANGLE')
    broken = _quats_about((0, 0, 1), np.arange(n))
    broken[7] = np.nan                         # no rotation: an error for this bone alone
    scenes.key_bone(rig, "Broken", "rotation_quaternion", FRAMES, broken, 'QUATERNION',
                    'LINEAR')
    return rig, names


def _items(rig, names) -> list:
    items = []
    for b in names:
        t = transform.AnimatedTransform(rig, b)
        mode = t.rotation_mode
        fcurves = animdata.object_fcurves(t)
        at_keys = animdata.evaluate_channels(animdata.rotation_fcurves(t, mode, fcurves),
                                             animdata.rotation_defaults(t, mode), FRAMES)
        items.append((t, mode, fcurves, at_keys))
    return items


def _alone(item, keys=FRAMES):
    try:
        return animdata.subframes_to_sample(item[0], keys, item[1], item[2], item[3])
    except Exception as exc:
        return exc


@pytest.mark.parametrize("block", [None, 2 * FRAMES.size])
def test_a_rigs_bones_together_are_sampled_where_each_alone_is(clean_blender, monkeypatch,
                                                               block):
    """All bones in one piece, and two at a time (as a rig's thousand-key bones are
    taken TOGETHER_ROWS keys at a time)."""
    if block is not None:
        monkeypatch.setattr(animdata.subframes, "TOGETHER_ROWS", block)
    rig, names = _rig(clean_blender)
    items = _items(rig, names)
    alone = [_alone(item) for item in items]
    together = animdata.subframes_many(items, FRAMES)
    assert len(together) == len(items)
    for name, mine, theirs in zip(names, together, alone):
        if isinstance(theirs, Exception):
            assert type(mine) is type(theirs) and str(mine) == str(theirs), (name, mine)
            continue
        assert not isinstance(mine, Exception), (name, mine)
        assert np.array_equal(mine.every, theirs.every), name
        assert np.array_equal(mine.turning, theirs.turning), name
    # The scene shows every case: each assertion above could fail.
    by_name = dict(zip(names, alone))
    assert isinstance(by_name["Broken"], Exception)
    counts = {b: (a.every.size, a.turning.size) for b, a in by_name.items()
              if not isinstance(a, Exception)}
    assert counts["Still"] == (0, 0), counts
    # Sampled only to measure how far they stray (sixteenths), not for a turn.
    assert counts["Bowed"][0] > counts["Bowed"][1] == 0, counts
    assert 0 < counts["Flipped"][1] and 0 < counts["Fast"][1], counts
    assert 0 < counts["Wrapped"][1] and 0 < counts["Axis"][0], counts
    # Bones that differ by where they are sampled, not all the same answer.
    assert 0 < counts["BowedToo"][0] < counts["Bowed"][0], counts


def test_transforms_with_delta_rotations_or_one_key_are_answered_alone(clean_blender):
    """Objects keyed on the same frames: one with a keyed delta rotation (taken alone),
    one with Euler keys (taken with the others of its order)."""
    n = FRAMES.size
    values = np.column_stack([np.radians(12.0 * np.arange(n)), 0 * FRAMES, 0 * FRAMES])
    plain = scenes.make_animated_object("Plain", 'XYZ', FRAMES, values)
    other = scenes.make_animated_object("Other", 'XYZ', FRAMES, values[::-1])
    delta = scenes.make_animated_object("Delta", 'XYZ', FRAMES, values)
    scenes.key_channels(delta, "delta_rotation_euler", FRAMES, values[::-1] * 2.0)
    items = []
    for obj in (plain, other, delta):
        fcurves = animdata.object_fcurves(obj)
        items.append((obj, 'XYZ', fcurves, animdata.evaluate_channels(
            animdata.rotation_fcurves(obj, 'XYZ', fcurves), animdata.rotation_defaults(obj),
            FRAMES)))
    together = animdata.subframes_many(items, FRAMES)
    for obj, mine, item in zip((plain, other, delta), together, items):
        theirs = _alone(item)
        assert np.array_equal(mine.every, theirs.every), obj.name
        assert np.array_equal(mine.turning, theirs.turning), obj.name
    assert together[2].turning.size > 0     # the delta's turn of 24 deg a frame and more
    assert animdata.subframes_many(items[:1], FRAMES[:1])[0].every.size == 0


def test_a_key_of_tiny_length_beside_them_leaves_each_answer_as_alone(clean_blender):
    """A quaternion key of length 5e-11 is a rotation, but core.quat.normalize measures an
    array holding one scaled, all of it: taken together with it, a neighbour's keys turning
    a hair over NEAR_TURN_DEG (20 deg, found by a review's search) came out under it and
    were not sampled. Such a key is answered alone, and the neighbour as alone too."""
    keys = np.array([1.0, 2.0])
    straddling = np.array([[0.5030624793821173, 0.0, 0.0, 0.0],
                           [0.5071884041434412, 0.03130802601360561, 0.06527895949011624,
                            -0.05250113053644729]])
    tiny = np.array([[5e-11, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]])
    items = []
    for name, values in (("Straddling", straddling), ("Tiny", tiny)):
        obj = scenes.make_animated_object(name, 'QUATERNION', keys, values, 'LINEAR')
        # The values as given (Blender keeps float32): the straddle is in float64's bits.
        items.append((obj, 'QUATERNION', animdata.object_fcurves(obj), values))
    together = animdata.subframes_many(items, keys)
    for item, mine in zip(items, together):
        theirs = _alone(item, keys)
        assert np.array_equal(mine.every, theirs.every), item[0].name
        assert np.array_equal(mine.turning, theirs.turning), item[0].name


def test_a_mode_left_out_is_the_transforms_own_and_no_keys_ask_for_nothing(clean_blender):
    """subframes_to_sample takes the transform's own rotation mode where none is given,
    and so does subframes_many (it had grouped such keys as Euler ones); with no keys,
    nothing to sample, for each."""
    n = FRAMES.size
    flipped = _quats_about((0, 0, 1), 2.0 * np.arange(n))
    flipped[5::4] *= -1.0
    obj = scenes.make_animated_object("Flipped", 'QUATERNION', FRAMES, flipped, 'LINEAR')
    fcurves = animdata.object_fcurves(obj)
    item = (obj, None, fcurves, animdata.evaluate_channels(
        animdata.rotation_fcurves(obj, 'QUATERNION', fcurves),
        animdata.rotation_defaults(obj, 'QUATERNION'), FRAMES))
    mine, theirs = animdata.subframes_many([item], FRAMES)[0], _alone(item)
    assert theirs.turning.size > 0
    assert np.array_equal(mine.every, theirs.every)
    assert np.array_equal(mine.turning, theirs.turning)
    for found in animdata.subframes_many([item], np.zeros(0)) + \
            animdata.subframes_many([item], FRAMES[:1]):
        assert found.every.size == 0 and found.turning.size == 0
    assert animdata.subframes_many([], np.zeros(0)) == []
