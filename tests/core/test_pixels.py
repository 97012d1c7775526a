"""core.pixels: a camera turn's largest move of the rendered image, in pixels.

Checked by turning an independent pinhole projection written here (a point
straight ahead at the sensor point (x, y), turned with scipy's Rotation, then
projected again) through the exact angle the module allows, about many axes.
"""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from quatbake.core import pixels


def _projected_move_px(frame, angle_rad, axes, grid=17):
    """Largest image move (pixels) of points over the frame when the camera turns by
    ``angle_rad`` about each of ``axes`` (camera space, -Z forward)."""
    u = np.linspace(-0.5, 0.5, grid)
    x = frame.shift_x_mm + u[:, None] * frame.width_mm
    y = frame.shift_y_mm + u[None, :] * frame.height_mm
    x, y = (a.ravel() for a in np.broadcast_arrays(x, y))
    d = np.column_stack((x, y, np.full_like(x, -frame.lens)))
    worst = 0.0
    for axis in axes:
        # The camera turns by R: a fixed world direction is R^-1 d in the turned camera.
        turned = Rotation.from_rotvec(angle_rad * axis).inv().apply(d)
        xs = -frame.lens * turned[:, 0] / turned[:, 2]
        ys = -frame.lens * turned[:, 1] / turned[:, 2]
        dx = (xs - x) * frame.width_px / frame.width_mm
        dy = (ys - y) * frame.height_px / frame.height_mm
        worst = max(worst, float(np.hypot(dx, dy).max()))
    return worst


def _axes(n=400, seed=0):
    v = np.random.default_rng(seed).normal(size=(n, 3))
    return np.vstack((np.eye(3), v / np.linalg.norm(v, axis=1, keepdims=True)))


def test_the_issues_example_one_pixel_of_a_50mm_lens_is_about_0_02_deg():
    frame = pixels.camera_frame(50.0, 36.0, 24.0, "AUTO", 1920, 1080)
    # atan(36 mm / 1920 px / 50 mm): 0.02149 deg at the centre.
    assert pixels.centre_degrees_per_pixel(frame) == pytest.approx(0.021486, abs=1e-6)
    # Over the whole frame the corners move more for the same turn: a little less.
    whole = pixels.tolerance_degrees(frame, 1.0)
    assert 0.85 * 0.021486 < whole < 0.021486


@pytest.mark.parametrize("case", [
    dict(lens=50.0, sensor_width=36.0, sensor_height=24.0, sensor_fit="AUTO",
         resolution_x=1920, resolution_y=1080),
    dict(lens=18.0, sensor_width=36.0, sensor_height=24.0, sensor_fit="AUTO",
         resolution_x=1080, resolution_y=1920),                        # wide, portrait
    dict(lens=85.0, sensor_width=36.0, sensor_height=24.0, sensor_fit="VERTICAL",
         resolution_x=2048, resolution_y=858, percentage=50.0),
    dict(lens=35.0, sensor_width=30.0, sensor_height=20.0, sensor_fit="HORIZONTAL",
         resolution_x=1440, resolution_y=1080, pixel_aspect_x=2.0, shift_x=0.2, shift_y=-0.1),
])
def test_turning_by_the_tolerance_moves_no_pixel_more_than_asked(case):
    frame = pixels.camera_frame(**case)
    px = 1.5
    angle = np.radians(pixels.tolerance_degrees(frame, px))
    moved = _projected_move_px(frame, angle, _axes())
    # First order in the angle (~3e-4 rad here): the second order is ~angle of it.
    assert moved <= px * (1.0 + 1e-3)
    # And it is the worst case, not a loose bound: some axis moves some pixel ~px.
    assert moved >= 0.97 * px


def test_the_sensor_fit_spans_the_side_blender_spans():
    wide = pixels.camera_frame(50.0, 36.0, 24.0, "AUTO", 1920, 1080)
    assert (wide.width_mm, wide.height_mm) == pytest.approx((36.0, 20.25))
    tall = pixels.camera_frame(50.0, 36.0, 24.0, "AUTO", 1080, 1920)   # AUTO: width spans height
    assert (tall.width_mm, tall.height_mm) == pytest.approx((20.25, 36.0))
    vertical = pixels.camera_frame(50.0, 36.0, 24.0, "VERTICAL", 1920, 1080)
    assert (vertical.width_mm, vertical.height_mm) == pytest.approx((24.0 * 1920 / 1080, 24.0))


@pytest.mark.parametrize("bad", [dict(lens=0.0), dict(resolution_x=-5), dict(sensor_fit="X"),
                                 dict(shift_x=float("nan"))])
def test_bad_camera_values_are_refused_by_name(bad):
    args = dict(lens=50.0, sensor_width=36.0, sensor_height=24.0, sensor_fit="AUTO",
                resolution_x=1920, resolution_y=1080) | bad
    with pytest.raises(ValueError):
        pixels.camera_frame(**args)


def test_a_keyed_lens_is_bounded_by_its_worst_value():
    """A frame of arrays (a zoom keyed over the shot, read at every quarter frame): the
    tolerance keeps every value's image within the pixels, and is set by the worst of
    them. Checked by the projection above at each value on its own."""
    lens = np.array([12.0, 24.0, 50.0, 85.0, 135.0])
    shift = np.array([0.0, 0.1, 0.0, -0.2, 0.0])
    frame = pixels.camera_frame(lens, np.full(5, 36.0), np.full(5, 24.0), "AUTO", 1920, 1080,
                                shift_x=shift)
    px = 1.5
    angle = np.radians(pixels.tolerance_degrees(frame, px))
    moved = [_projected_move_px(pixels.camera_frame(f, 36.0, 24.0, "AUTO", 1920, 1080,
                                                    shift_x=s), angle, _axes())
             for f, s in zip(lens, shift)]
    assert max(moved) <= px * (1.0 + 1e-3)
    assert max(moved) >= 0.97 * px
    assert np.argmax(moved) == 4       # the longest lens moves the image most per radian


def test_a_bad_value_among_a_keyed_lens_is_named():
    with pytest.raises(ValueError, match="lens is 0.0"):
        pixels.camera_frame(np.array([35.0, 0.0]), 36.0, 24.0, "AUTO", 1920, 1080)
