# SPDX-License-Identifier: GPL-3.0-or-later
"""How far a camera's rotation moves its rendered image, in pixels (issue 22).

A perspective camera (Blender's: looking down its -Z axis, X right, Y up) with
focal length ``lens`` (mm) images the point of the sensor plane (x, y) mm from
the centre along the direction d = (x, y, -lens). Turning the camera by a
small rotation vector w (radians, camera axes) turns every direction by -w x d,
which moves its image point by

    dx = dd_x + x dd_z / lens,   dy = dd_y + y dd_z / lens,   dd = -w x d,

a linear map M(x, y) of w (2 x 3, mm per radian). In pixels (mm per pixel
across and up) and at worst over the frame and over the axis of the turn,
one radian moves some pixel of the image by the largest singular value of
M_px over the frame: :func:`pixels_per_radian` (M in closed form there). So a turn of at most
``px / pixels_per_radian`` radians moves no pixel of the frame more than
``px`` pixels (to first order in the angle: the second order is below 1e-6
of it at the angles a pixel tolerance gives).

The frame on the sensor follows Blender (BKE_camera_sensor_fit,
BKE_camera_params_compute_viewplane): the render size (resolution times its
percentage, times the pixel aspect) decides a fit of 'AUTO' (the wider side
spans the sensor width); 'HORIZONTAL' spans the sensor width across, 'VERTICAL'
the sensor height up; the other side follows the image's aspect; the lens
shift moves the frame by shift times the fitted side. At the centre of an
unshifted frame one pixel is ``atan(pixel / lens)``: 0.0215 deg for a 50 mm
lens on a 36 mm sensor at 1920 px (:func:`centre_degrees_per_pixel`); nearer
the edges of the frame a turn moves the image more (by ``1 + (x / lens)^2``
for a pan), so the bound over the whole frame is a little tighter.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SENSOR_FITS = ("AUTO", "HORIZONTAL", "VERTICAL")

# Points per side of the frame where the flow is evaluated (its largest value is at
# a corner or an edge: it grows with |x| and |y|; the grid includes them).
_GRID = 9


@dataclass(frozen=True)
class CameraFrame:
    """A perspective camera's rendered frame: lens (mm), the frame's size on the
    sensor (mm), its centre's offset from the optical axis (mm, the lens shift),
    and the render size in pixels. The lens and sensor fields are arrays for a camera
    whose lens, sensor or shift is keyed (a frame for each of their values)."""

    lens: float | np.ndarray
    width_mm: float | np.ndarray
    height_mm: float | np.ndarray
    shift_x_mm: float | np.ndarray
    shift_y_mm: float | np.ndarray
    width_px: float
    height_px: float


def camera_frame(lens, sensor_width, sensor_height, sensor_fit, resolution_x, resolution_y,
                 percentage=100.0, pixel_aspect_x=1.0, pixel_aspect_y=1.0, shift_x=0.0,
                 shift_y=0.0) -> CameraFrame:
    """The CameraFrame of Blender's camera and render settings (mm, pixels, the
    resolution percentage in percent). ``lens``, the sensor's size and the shift may be
    arrays of the same length (their values over a shot). Raises ValueError naming a bad
    value."""
    values = dict(lens=lens, sensor_width=sensor_width, sensor_height=sensor_height,
                  resolution_x=resolution_x, resolution_y=resolution_y, percentage=percentage,
                  pixel_aspect_x=pixel_aspect_x, pixel_aspect_y=pixel_aspect_y)
    for name, value in values.items():
        bad = _bad(value, np.asarray(value, dtype=np.float64) > 0.0)
        if bad is not None:
            raise ValueError(f"The camera's {name} is {bad!r}; it must be above 0.")
    if _bad(shift_x) is not None or _bad(shift_y) is not None:
        raise ValueError("The camera's lens shift is not a finite number.")
    if sensor_fit not in SENSOR_FITS:
        raise ValueError(f"Sensor fit {sensor_fit!r} is not one of {', '.join(SENSOR_FITS)}.")
    width_px = resolution_x * percentage / 100.0
    height_px = resolution_y * percentage / 100.0
    size_x = width_px * pixel_aspect_x          # the image's proportions
    size_y = height_px * pixel_aspect_y
    fit = sensor_fit
    if fit == "AUTO":
        fit = "HORIZONTAL" if size_x >= size_y else "VERTICAL"
    # BKE_camera_sensor_size: the sensor height only for a VERTICAL fit chosen by the
    # user; AUTO spans the sensor width over the wider side, whichever it is.
    size = np.asarray(sensor_height if sensor_fit == "VERTICAL" else sensor_width,
                      dtype=np.float64)
    if fit == "HORIZONTAL":
        width, height = size, size * size_y / size_x
    else:
        width, height = size * size_x / size_y, size
    return CameraFrame(*(_number(v) for v in (lens, width, height, shift_x * size,
                                              shift_y * size)),
                       float(width_px), float(height_px))


def _bad(value, good=True):
    """The first of ``value``'s entries that is not finite or not ``good`` (a mask), or
    None."""
    v = np.asarray(value, dtype=np.float64)
    wrong = ~(np.isfinite(v) & good)
    if not wrong.any():
        return None
    return v[wrong].flat[0].item() if v.ndim else value


def _number(value):
    """A float, or a float array for an array."""
    v = np.asarray(value, dtype=np.float64)
    return float(v) if v.ndim == 0 else v


def pixels_per_radian(frame: CameraFrame) -> float:
    """The most any pixel of the frame moves (pixels) per radian of camera turn, over
    every axis of the turn and, for a frame of arrays, over each of its values (a keyed
    lens: one call for its frame at every quarter frame, where a call each made the
    click of a 2,000-frame zoom's bake 65-69x a fixed lens's).

    With d = (x, y, -f), a turn about X moves d by dd = (0, -f, -y), about Y by (f, 0, x),
    about Z by (y, -x, 0), so M in mm is [[-xy/f, f + x^2/f, y], [-f - y^2/f, xy/f, -x]],
    its rows times the pixels per mm across (sx) and up (sy). Its largest singular value
    is the square root of the largest eigenvalue of M M^T = [[a, b], [b, c]], in closed
    form: a = sx^2 ((xy/f)^2 + (f + x^2/f)^2 + y^2), c = sy^2 ((f + y^2/f)^2 + (xy/f)^2
    + x^2), b = sx sy xy (1 + (x^2 + y^2)/f^2)."""
    f, width, height, shift_x, shift_y = (
        np.reshape(np.asarray(v, dtype=np.float64), (-1, 1, 1)) for v in (
            frame.lens, frame.width_mm, frame.height_mm, frame.shift_x_mm, frame.shift_y_mm))
    u = np.linspace(-0.5, 0.5, _GRID)
    x = shift_x + u[:, None] * width                                 # (n, GRID, 1)
    y = shift_y + u[None, :] * height                                # (n, 1, GRID)
    sx, sy = frame.width_px / width, frame.height_px / height
    xx, yy, xy = x * x, y * y, x * y
    cross = (xy / f) ** 2
    a = sx * sx * (cross + (f + xx / f) ** 2 + yy)
    c = sy * sy * (cross + (f + yy / f) ** 2 + xx)
    b = sx * sy * xy * (1.0 + (xx + yy) / (f * f))
    return float(np.sqrt(np.max(0.5 * (a + c) + np.sqrt(0.25 * (a - c) ** 2 + b * b))))


def tolerance_degrees(frame: CameraFrame, pixels: float) -> float:
    """The largest camera turn (degrees) that moves no pixel of the frame more than
    ``pixels``."""
    if not (np.isfinite(pixels) and pixels > 0.0):
        raise ValueError(f"A pixel tolerance must be a finite number above 0 (got {pixels!r}).")
    return float(np.degrees(pixels / pixels_per_radian(frame)))


def centre_degrees_per_pixel(frame: CameraFrame) -> float:
    """The angle (degrees) one pixel at the centre of an unshifted frame spans across (an
    array for a frame of arrays)."""
    return _number(np.degrees(np.arctan(np.asarray(frame.width_mm) / frame.width_px
                                        / np.asarray(frame.lens))))
