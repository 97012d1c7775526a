"""Location keys keyed Constant (a blocking pass) stay held through a location bake.

A walk: a blocking pass keyed with Constant interpolation, location and rotation, baked
with Location: Linear. The rotation stayed stepped, the position glided between the
poses (x 1.8 at frame 10 where Blender held 0), with no word. The oracle is Blender's
playback before the bake (frame_set with subframes, matrix_basis), and for an axis
that does not hold, numpy's linear interpolation of its key values."""
import math

import bpy
import numpy as np
import pytest

from quatbake.addon import animdata, bake

from scenes import key_channels, new_object

pytestmark = pytest.mark.bpy

KEYS = [1.0, 11.0, 21.0]
QUARTERS = np.arange(1.0, 21.25, 0.25)


def _locations(obj, times) -> np.ndarray:
    scene = bpy.context.scene
    out = np.empty((len(times), 3))
    for i, t in enumerate(times):
        scene.frame_set(int(math.floor(t)), subframe=float(t - math.floor(t)))
        out[i] = obj.matrix_basis.translation
    return out


def _blocking(y_interpolation='CONSTANT'):
    """X keyed 0, 2, 4 and Y 0, 1, 3 at KEYS (X Constant, Y as given), a turn about Z
    keyed Constant on the same frames."""
    obj = new_object("Blocking", 'XYZ')
    key_channels(obj, "rotation_euler", KEYS, np.radians([[0, 0, 0], [0, 0, 30], [0, 0, 60]]),
                 'CONSTANT')
    key_channels(obj, "location", KEYS, [[0.0, 0.0, 0.0], [2.0, 1.0, 0.0], [4.0, 3.0, 0.0]],
                 'CONSTANT')
    animdata.location_fcurves(obj)[1].keyframe_points.foreach_set(
        "interpolation", [animdata.enum_value("interpolation", y_interpolation)] * 3)
    return obj


@pytest.mark.parametrize("method", ['LINEAR', 'CATMULL_ROM'])
def test_a_blocking_pass_keeps_its_held_positions(clean_blender, method):
    obj = _blocking()
    before = _locations(obj, QUARTERS)
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP', location_method=method))
    assert not result.warnings, result.warnings
    # float32 keys of values up to 4: 5e-7.
    np.testing.assert_allclose(_locations(obj, QUARTERS), before, rtol=0, atol=1e-6)


def test_only_the_axis_that_holds_is_held(clean_blender):
    """X holds (Constant), Y moves (Linear keys): X as Blender played it, Y along the
    Linear path between its keys."""
    obj = _blocking('LINEAR')
    before = _locations(obj, QUARTERS)
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', location_method='LINEAR'))
    after = _locations(obj, QUARTERS)
    np.testing.assert_allclose(after[:, 0], before[:, 0], rtol=0, atol=1e-6)
    np.testing.assert_allclose(after[:, 1], np.interp(QUARTERS, KEYS, [0.0, 1.0, 3.0]),
                               rtol=0, atol=1e-6)
    assert np.ptp(after[(QUARTERS >= 1) & (QUARTERS < 11), 1]) > 0.9   # Y does move


@pytest.mark.parametrize("keys", ['LINEAR', 'BEZIER'])
def test_a_tolerance_bake_keeps_the_holds_too(clean_blender, keys):
    """A Key Tolerance bake thins the location keys; the held ones stay held (each key
    in a hold is Constant, whichever of them the thinning keeps), as float32 keys: 5e-7."""
    obj = _blocking()
    before = _locations(obj, QUARTERS)
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', location_method='LINEAR',
                                               tolerance_deg=0.01, key_interpolation=keys))
    np.testing.assert_allclose(_locations(obj, QUARTERS), before, rtol=0, atol=1e-6)


def test_a_tolerance_bake_keeps_the_key_that_ends_a_hold(clean_blender):
    """A review: X held at 0 from frame 1 (a Constant key), then 10 at frame 10 and 110 at
    20 (Linear). The motion after the jump lines up with the held value, and a tolerance
    bake dropped frame 10's key: the hold lasted until frame 20 (105 units off at 19.5)."""
    obj = new_object("Jump", 'XYZ')
    key_channels(obj, "location", [1, 10, 20], [[0.0, 0.0, 0.0], [10.0, 0.0, 0.0],
                                                [110.0, 0.0, 0.0]], 'LINEAR')
    animdata.location_fcurves(obj)[0].keyframe_points[0].interpolation = 'CONSTANT'
    times = np.arange(1.0, 20.25, 0.25)
    before = _locations(obj, times)
    for keys in ('LINEAR', 'BEZIER'):
        bake.bake_objects([obj], bake.BakeSettings(method='SLERP', location_method='LINEAR',
                                                   tolerance_deg=0.01, key_interpolation=keys))
        # float32 keys of values up to 110: 1e-5.
        np.testing.assert_allclose(_locations(obj, times), before, rtol=0, atol=1e-5,
                                   err_msg=keys)
        bake.revert_objects([obj])


def test_a_held_location_over_a_moving_delta_location_holds_its_own_half(clean_blender):
    """A review: location X held (Constant keys 0, 2, 4) while delta_location X moves
    (Linear 0, 5, 10). Held as their sum, the bake stood the object still where Blender
    moved it by the delta (4.5 units off at frame 10): the location holds its own value
    and the delta moves on under it."""
    obj = _blocking()
    key_channels(obj, "delta_location", KEYS, [[0.0, 0.0, 0.0], [5.0, 0.0, 0.0],
                                               [10.0, 0.0, 0.0]], 'LINEAR')
    before = _locations(obj, QUARTERS)
    assert np.ptp(before[(QUARTERS >= 1) & (QUARTERS < 11), 0]) > 4.0   # the delta moves it
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', location_method='LINEAR'))
    np.testing.assert_allclose(_locations(obj, QUARTERS), before, rtol=0, atol=1e-6)


@pytest.mark.parametrize("method,tolerance", [('LINEAR', 0.0), ('CATMULL_ROM', 0.0),
                                              ('LINEAR', 0.01)])
def test_a_delta_location_that_jumps_under_a_moving_location_keeps_its_jump(clean_blender,
                                                                           method, tolerance):
    """Location X moves (Linear 0, 5, 10 at frames 1, 11, 21) while delta_location X is keyed
    Constant (0 at 1, 5 at 11 and 21): Blender plays a steady move that jumps 5 units at
    frame 11. Baked along the path of their sums (0, 10, 15), the location ran ahead to
    meet the jump: 2.5 units off at frame 6. The path now leaves the jump to the delta
    and follows the location's own points (0, 5, 10: a straight line either way)."""
    obj = new_object("Dolly", 'XYZ')
    key_channels(obj, "rotation_euler", [1, 21], np.radians([[0, 0, 0], [0, 0, 90]]), 'LINEAR')
    key_channels(obj, "location", KEYS, [[0.0, 0.0, 0.0], [5.0, 0.0, 0.0], [10.0, 0.0, 0.0]],
                 'LINEAR')
    key_channels(obj, "delta_location", KEYS, [[0.0, 0.0, 0.0], [5.0, 0.0, 0.0],
                                               [5.0, 0.0, 0.0]], 'CONSTANT')
    before = _locations(obj, QUARTERS)
    assert before[QUARTERS == 11.0, 0] - before[QUARTERS == 10.75, 0] > 5.0   # the jump
    result = bake.bake_objects([obj], bake.BakeSettings(
        method='SLERP', location_method=method, tolerance_deg=tolerance))
    assert not result.warnings, result.warnings
    # float32 keys of values up to 15: 2e-6 (a Key Tolerance bake too: its location
    # tolerance keeps the keys of a straight move exact).
    np.testing.assert_allclose(_locations(obj, QUARTERS), before, rtol=0, atol=2e-6)
