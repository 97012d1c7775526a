# SPDX-License-Identifier: GPL-3.0-or-later
"""Overlay geometry: axis triads, a speed-coloured path, highlights. Pure numpy.

Everything the viewport overlay draws is a list of line segments: an array of
endpoints of shape (2*m, 3) (segment j runs from row 2j to row 2j+1) and an
array of RGBA colours of the same length (one per endpoint, values in [0, 1]).
The add-on converts them to float32 and uploads them once per change; nothing
here knows about the GPU, so all of it is tested without one.

Conventions chosen here (and shown in the panel's legend):

- Triads: X axis red, Y green, Z blue, pure colours, each axis a segment from
  the object's position along the rotated unit axis scaled by ``size``
  (Blender units). Key poses are drawn ``KEY_SCALE`` times larger, the current
  frame's triad ``CURRENT_SCALE`` times larger (and with a wider line).
- Key poses also get a white triangle joining their three axes at
  ``KEY_MARK_AT`` of their length: a shape, not only a size, so a key reads
  as a key from any angle (``key_marks``).
- Cameras look down their local -Z axis: their key poses and current-frame
  triad get a dashed white line along -Z, ``VIEW_LENGTH`` times the axis
  length (``view_lines``).
- Ghosts (Blender's own interpolation of the same keys) are drawn at the SAME
  positions as QuatBake's triads, in lighter axis colours (``GHOST_LIGHTEN``
  towards white, alpha ``GHOST_ALPHA``) over a wider dark halo
  (``GHOST_HALO_COLOR``): the light line shows on a dark background, the
  halo on a light one. Where both agree the ghost hides behind the solid
  triad, and where they differ the faded axes fan out from the same origin,
  so the angle between them is the difference you read.
- Path: one segment per frame step, coloured by angular speed (degrees per
  frame) through ``SPEED_COLORS``: light grey-blue (still) -> yellow ->
  orange -> magenta (the legend's maximum speed and above). The ramp avoids
  pure red, green and blue so the path is never mistaken for an axis.
- Long-arc segments (Blender's interpolation sweeping much more than the
  shortest arc between two keys: the long way round) get a wider cyan line
  under the path (``LONG_ARC_COLOR``).
- Rotation in place (the whole path fits inside ``IN_PLACE_EXTENT`` triad
  lengths while it turns): triads at one point are a starburst, so they are
  spread along a turn arc instead: the trail of the tip of one axis (the one
  that travels furthest; a camera's view direction, -Z) at ``ARC_RADIUS``
  triad lengths from the object, each triad at its own frame's point of it.
  The arc is the path (speed colours, long-way and kept bands on it), and a
  white spoke joins the object to each key pose (``arc_axis``, ``arc_points``).
- Dense keys (a key on every frame of a capture): at full detail every key
  is a key pose; the thinned levels (zoomed out, ``LOD_LEVELS``) draw one key
  pose per window of ``step * level`` frames, the key where the rotation
  changes most (``key_change``), plus the first and last keys and both keys
  of every long-way interval (``thin_keys``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import interp, quat

# Pure axis colours: the convention every 3D tool uses, RGBA.
AXIS_COLORS = np.array(
    [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]], dtype=np.float64
)
UNIT_AXES = np.eye(3, dtype=np.float64)

KEY_SCALE = 1.5
CURRENT_SCALE = 1.8

# Ghost colours: this far towards white, and this opaque: the hue stays
# readable (which axis is which) while clearly lighter than the solid triad.
# (A mix towards mid grey at alpha 0.35 vanished on Blender's grey floor.)
GHOST_LIGHTEN = 0.55
GHOST_ALPHA = 0.85
# The halo under each ghost line (drawn wider): dark and half-transparent, so
# the light ghost stays visible on a light-grey background too.
GHOST_HALO_COLOR = np.array([0.05, 0.05, 0.05, 0.7], dtype=np.float64)

# Key poses: a triangle joins the three axes at this fraction of their length.
KEY_MARK_AT = 0.45
KEY_MARK_COLOR = np.array([1.0, 1.0, 1.0, 1.0], dtype=np.float64)
# Cameras: the view direction (-Z) is this many axis lengths long, in this
# many dashes (dash and gap equally long).
VIEW_LENGTH = 2.0
VIEW_DASHES = 4
VIEW_COLOR = np.array([1.0, 1.0, 1.0, 0.9], dtype=np.float64)

# Speed colour ramp: stops at these fractions of the legend's maximum speed.
SPEED_STOPS = np.array([0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0], dtype=np.float64)
SPEED_COLORS = np.array(
    [
        [0.80, 0.88, 1.00, 1.0],  # still: light grey-blue
        [1.00, 0.90, 0.20, 1.0],  # yellow
        [1.00, 0.50, 0.00, 1.0],  # orange
        [0.90, 0.10, 0.90, 1.0],  # fast: magenta
    ],
    dtype=np.float64,
)
LONG_ARC_COLOR = np.array([0.0, 1.0, 1.0, 1.0], dtype=np.float64)
# Key intervals that turn the long way ON PURPOSE (core.turns "spin": kept by
# Turns: Auto) get a thinner green band instead, and stepped (CONSTANT)
# intervals a grey one: both are the keys' intent, not defects.
KEPT_SPIN_COLOR = np.array([0.35, 0.9, 0.35, 0.8], dtype=np.float64)
STEP_COLOR = np.array([0.7, 0.7, 0.7, 0.8], dtype=np.float64)
# Kinds (core.turns.KINDS) the cyan long-arc band may mark: the probable defects.
DEFECT_KINDS = ("flip", "wrap", "euler")

# A key interval is "long arc" when Blender's interpolation sweeps this much
# more angle (radians) than the shortest arc between the two key orientations.
# The long way round sweeps 2*pi - 2*theta extra (>= 90 degrees unless the keys
# are already more than 135 degrees apart); an ordinary Bezier ease on Euler
# channels overshoots the geodesic by a few degrees, far below this.
LONG_ARC_EXCESS = np.pi / 2.0

# Speeds below this (degrees per frame) count as still when picking the
# legend's maximum, so a motionless object does not divide by zero.
MIN_LEGEND_SPEED = 1e-6

# The legend's top speed is a round number at or above this percentile of every
# drawn speed, so one spike (a mocap glitch, a single fast frame) saturates at
# the last colour instead of flattening the whole ramp to "still".
LEGEND_PERCENTILE = 98.0
# Round tops (x 10^n): each splits into three round stops (1.5 -> 0.5, 1, 1.5).
LEGEND_ROUND = (1.5, 3.0, 6.0, 9.0)
# Below this top (degrees per frame) everything drawn is barely turning: the
# ramp does not stretch further (a still object is not shown as "fast").
LEGEND_FLOOR = 0.15

# A path whose bounding box is smaller than this many triad lengths (the
# diagonal) is rotation in place: its triads would all sit on each other.
IN_PLACE_EXTENT = 1.0
# The turn arc is traced this many triad lengths from the object: its triads, one
# triad length long, clear the object and each other.
ARC_RADIUS = 2.0
# ... and it turns more than this (radians, 5 degrees) from its first orientation.
IN_PLACE_MIN_TURN = np.radians(5.0)


def _positions(points, what: str) -> np.ndarray:
    arr = np.asarray(points, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise ValueError(f"{what}: expected positions of shape (n, 3), got shape {arr.shape}.")
    if not np.isfinite(arr).all():
        row = int(np.argwhere(~np.isfinite(arr).all(axis=1))[0, 0])
        raise ValueError(f"{what}: position {row} has a NaN or infinite coordinate.")
    return arr


def _unit_quats(quats, n: int, what: str) -> np.ndarray:
    q = quat.normalize(quats, what)
    if q.ndim != 2 or q.shape[0] != n:
        raise ValueError(f"{what}: expected {n} quaternions of shape (n, 4), got shape {q.shape}.")
    return q


def triad_lines(quats, positions, size=1.0) -> tuple[np.ndarray, np.ndarray]:
    """Axis triads as line segments.

    quats: (n, 4) rotations (w, x, y, z), normalised here; positions: (n, 3);
    size: axis length in Blender units, a scalar or (n,) per triad.
    Returns (points (n*6, 3), colors (n*6, 4)): for triad i and axis a (0 = X,
    1 = Y, 2 = Z), rows 6i+2a and 6i+2a+1 are the position and the tip
    position + size * (rotated unit axis a); both rows carry AXIS_COLORS[a].
    """
    pos = _positions(positions, "triad positions")
    n = pos.shape[0]
    q = _unit_quats(quats, n, "triad orientations")
    sizes = np.broadcast_to(np.asarray(size, dtype=np.float64), (n,))
    if not np.isfinite(sizes).all() or (sizes < 0).any():
        raise ValueError("triad size must be a finite length >= 0 (Blender units).")
    return _triad_points(q, pos, sizes), np.tile(_TRIAD_COLORS, (n, 1))


def _triad_points(q: np.ndarray, pos: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """triad_lines' endpoints for already checked unit quats (n, 4), positions, sizes (n,)."""
    n = pos.shape[0]
    points = np.empty((n, 3, 2, 3), dtype=np.float64)
    points[:, :, 0, :] = pos[:, None, :]
    tips = points[:, :, 1, :]  # a view: tips[i, a] is triad i's axis a tip
    # Axis a of a rotation is column a of its matrix (the standard unit
    # quaternion -> matrix formula), written straight into place and scaled:
    # one pass, no (n, 3, 3) temporaries, no cross products.
    w, x, y, z = q.T
    s2 = 2.0 * sizes
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    tips[:, 0, 0] = sizes - s2 * (yy + zz)
    tips[:, 0, 1] = s2 * (xy + wz)
    tips[:, 0, 2] = s2 * (xz - wy)
    tips[:, 1, 0] = s2 * (xy - wz)
    tips[:, 1, 1] = sizes - s2 * (xx + zz)
    tips[:, 1, 2] = s2 * (yz + wx)
    tips[:, 2, 0] = s2 * (xz + wy)
    tips[:, 2, 1] = s2 * (yz - wx)
    tips[:, 2, 2] = sizes - s2 * (xx + yy)
    tips += pos[:, None, :]
    return points.reshape(-1, 3)


def ghost_colors(colors) -> np.ndarray:
    """Faded copy of RGBA colours (m, 4): GHOST_LIGHTEN towards white, alpha GHOST_ALPHA."""
    c = np.array(colors, dtype=np.float64, copy=True)
    c[:, :3] = c[:, :3] * (1.0 - GHOST_LIGHTEN) + GHOST_LIGHTEN
    c[:, 3] = c[:, 3] * GHOST_ALPHA
    return c


def key_marks(quats, positions, size) -> tuple[np.ndarray, np.ndarray]:
    """White triangles (3 segments per pose) joining the X, Y and Z axes of each pose.

    quats (n, 4), positions (n, 3), size: the poses' axis length (scalar or
    (n,)). Corner a of pose i lies at position + KEY_MARK_AT * size * axis a.
    Returns points (n*6, 3) and colours (n*6, 4).
    """
    pos = _positions(positions, "key positions")
    n = pos.shape[0]
    q = _unit_quats(quats, n, "key orientations")
    sizes = np.broadcast_to(np.asarray(size, dtype=np.float64), (n,)) * KEY_MARK_AT
    tips = _triad_points(q, pos, sizes).reshape(n, 3, 2, 3)[:, :, 1, :]   # (n, 3 axes, 3)
    corners = np.stack([tips, np.roll(tips, -1, axis=1)], axis=2)        # X-Y, Y-Z, Z-X
    points = corners.reshape(-1, 3)
    return points, np.broadcast_to(KEY_MARK_COLOR, (points.shape[0], 4)).copy()


def view_lines(quats, positions, size) -> tuple[np.ndarray, np.ndarray]:
    """A camera's view direction: VIEW_DASHES dashes along local -Z per pose.

    The line runs from the position to position - VIEW_LENGTH * size * Z axis;
    each dash is half of one of VIEW_DASHES equal pieces, starting at the
    camera. Returns points (n*2*VIEW_DASHES, 3) and colours.
    """
    pos = _positions(positions, "camera positions")
    n = pos.shape[0]
    q = _unit_quats(quats, n, "camera orientations")
    sizes = np.broadcast_to(np.asarray(size, dtype=np.float64), (n,))
    z_tips = _triad_points(q, pos, sizes).reshape(n, 3, 2, 3)[:, 2, 1, :]
    down = (pos - z_tips) * VIEW_LENGTH                  # -Z, VIEW_LENGTH axis lengths
    piece = np.arange(VIEW_DASHES, dtype=np.float64) / VIEW_DASHES
    starts = pos[:, None, :] + piece[None, :, None] * down[:, None, :]
    ends = starts + (0.5 / VIEW_DASHES) * down[:, None, :]
    points = np.stack([starts, ends], axis=2).reshape(-1, 3)
    return points, np.broadcast_to(VIEW_COLOR, (points.shape[0], 4)).copy()


# One triad's six endpoint colours (X, X, Y, Y, Z, Z), solid and faded: tiled
# per triad rather than recomputed per endpoint.
_TRIAD_COLORS = np.repeat(AXIS_COLORS, 2, axis=0)
_GHOST_TRIAD_COLORS = ghost_colors(_TRIAD_COLORS)


def angular_speed(quats, frames) -> np.ndarray:
    """Angular speed in degrees per frame between consecutive samples, shape (n-1,).

    quats: (n, 4), frames: (n,) strictly increasing. Uses the sign-agnostic
    geodesic angle (atan2 form), so q and -q samples do not read as a spin.
    """
    q = quat.as_quat_array(quats, "path orientations")
    t = np.asarray(frames, dtype=np.float64)
    if t.ndim != 1 or t.shape[0] != q.shape[0]:
        raise ValueError(f"path frames: expected shape ({q.shape[0]},), got {t.shape}.")
    dt = np.diff(t)
    if (dt <= 0).any():
        raise ValueError(f"path frames must increase; frame {t[1:][dt <= 0][0]} does not.")
    return np.degrees(quat.angle_between(q[:-1], q[1:])) / dt


def legend_max(speed) -> float:
    """The speed (degrees per frame) the ramp's last colour stands for: the maximum."""
    s = np.asarray(speed, dtype=np.float64)
    top = float(s.max()) if s.size else 0.0
    return max(top, MIN_LEGEND_SPEED)


def legend_scale(speeds) -> float:
    """The legend's top speed (degrees per frame) for every drawn path's ``speeds``
    (a list of arrays): the LEGEND_PERCENTILE-th percentile of all of them, rounded up
    to the next LEGEND_ROUND number (x 10^n), at least LEGEND_FLOOR. Speeds above it
    take the last colour (the legend's "+")."""
    parts = [np.asarray(s, dtype=np.float64).ravel() for s in speeds]
    pooled = np.concatenate(parts) if parts else np.zeros(0)
    pooled = pooled[np.isfinite(pooled)]
    top = float(np.percentile(pooled, LEGEND_PERCENTILE)) if pooled.size else 0.0
    if top <= LEGEND_FLOOR:
        return LEGEND_FLOOR
    decade = 10.0 ** np.floor(np.log10(top / LEGEND_ROUND[0]))
    for scale in (decade, decade * 10.0):
        for mantissa in LEGEND_ROUND:
            # a hair of tolerance: 3.0000000001 is 3, not 6
            if mantissa * scale >= top * (1.0 - 1e-9):
                return float(round(mantissa * scale, 12))
    return float(round(LEGEND_ROUND[0] * decade * 100.0, 12))   # not reached


def legend_labels(vmax: float) -> list[str]:
    """The numbers under the legend's swatches (SPEED_STOPS times ``vmax``, degrees per
    frame), as short as they can be: ``["0°", "0.5°", "1°", "1.5°+"]`` for 1.5."""
    out = []
    for fraction in SPEED_STOPS:
        value = round(float(fraction * vmax), 6)
        text = f"{value:.6f}".rstrip("0").rstrip(".") if value else "0"
        out.append(text + "\u00b0" + ("+" if fraction == 1.0 else ""))
    return out


def speed_colors(speed, vmax: float) -> np.ndarray:
    """RGBA (m, 4) for speeds (m,) in degrees per frame on the SPEED_COLORS ramp.

    0 maps to the first stop, ``vmax`` and above to the last; linear in between.
    """
    if not np.isfinite(vmax) or vmax <= 0:
        raise ValueError(f"legend maximum speed must be a positive number, got {vmax}.")
    s = np.asarray(speed, dtype=np.float64)
    x = np.clip(s / vmax, 0.0, 1.0)
    out = np.empty(s.shape + (4,), dtype=np.float64)
    for channel in range(4):
        out[..., channel] = np.interp(x, SPEED_STOPS, SPEED_COLORS[:, channel])
    return out


def path_lines(positions, speed, vmax: float) -> tuple[np.ndarray, np.ndarray]:
    """The path as segments (2*(n-1), 3) coloured by speed (n-1,) -> colours (2*(n-1), 4).

    Segment j joins positions j and j+1 and both its ends take speed j's colour,
    so the colour changes exactly at the samples.
    """
    pos = _positions(positions, "path positions")
    s = np.asarray(speed, dtype=np.float64)
    if s.shape != (max(pos.shape[0] - 1, 0),):
        raise ValueError(f"path speed: expected shape ({pos.shape[0] - 1},), got {s.shape}.")
    points = np.stack([pos[:-1], pos[1:]], axis=1).reshape(-1, 3)
    colors = np.repeat(speed_colors(s, vmax), 2, axis=0)
    return points, colors


def segment_lines(positions, mask, color=LONG_ARC_COLOR) -> tuple[np.ndarray, np.ndarray]:
    """Only the path segments j with mask[j] (mask shape (n-1,)), in one colour."""
    pos = _positions(positions, "path positions")
    m = np.asarray(mask, dtype=bool)
    if m.shape != (max(pos.shape[0] - 1, 0),):
        raise ValueError(f"segment mask: expected shape ({pos.shape[0] - 1},), got {m.shape}.")
    idx = np.flatnonzero(m)
    points = np.stack([pos[idx], pos[idx + 1]], axis=1).reshape(-1, 3)
    colors = np.broadcast_to(np.asarray(color, dtype=np.float64), (points.shape[0], 4)).copy()
    return points, colors


def long_arc_intervals(frames, quats, key_frames) -> np.ndarray:
    """Which key intervals the sampled rotation crosses the long way round, (k-1,) bool.

    frames: (n,) increasing sample frames that include every key frame;
    quats: (n, 4) the sampled orientations (Blender's own interpolation);
    key_frames: (k,) sorted. Interval j is flagged when the angle swept by the
    samples between key j and key j+1 exceeds the shortest arc between the two
    key orientations by more than LONG_ARC_EXCESS radians.
    """
    t = np.asarray(frames, dtype=np.float64)
    q = quat.as_quat_array(quats, "sampled orientations")
    keys = np.asarray(key_frames, dtype=np.float64)
    if keys.shape[0] < 2:
        return np.zeros(0, dtype=bool)
    at = np.searchsorted(t, keys)
    at = np.clip(at, 0, t.shape[0] - 1)
    if not np.allclose(t[at], keys):
        raise ValueError("long-arc check: the sample frames must include every key frame.")
    step = quat.angle_between(q[:-1], q[1:])
    swept_to = np.concatenate([[0.0], np.cumsum(step)])
    swept = np.diff(swept_to[at])
    shortest = quat.angle_between(q[at[:-1]], q[at[1:]])
    return swept - shortest > LONG_ARC_EXCESS


def long_arc_count(frames, quats, key_frames) -> int:
    """How many key intervals ``quats`` sampled at ``frames`` turn the long way round
    (``long_arc_intervals`` over the keys inside the sampled range)."""
    t = np.asarray(frames, dtype=np.float64)
    keys = np.asarray(key_frames, dtype=np.float64)
    if t.size < 2:
        return 0
    inside = keys[(keys >= t[0]) & (keys <= t[-1])]
    return int(long_arc_intervals(t, quats, inside).sum())


def interval_segments(frames, key_frames, interval_mask) -> np.ndarray:
    """Path segments (n-1,) lying inside a flagged key interval (interval_mask (k-1,))."""
    t = np.asarray(frames, dtype=np.float64)
    keys = np.asarray(key_frames, dtype=np.float64)
    flagged = np.asarray(interval_mask, dtype=bool)
    if t.shape[0] < 2 or flagged.size == 0:
        return np.zeros(max(t.shape[0] - 1, 0), dtype=bool)
    mid = 0.5 * (t[:-1] + t[1:])
    interval = np.searchsorted(keys, mid, side="right") - 1
    inside = (interval >= 0) & (interval < flagged.shape[0])
    return inside & flagged[np.clip(interval, 0, flagged.shape[0] - 1)]


def triad_frames(frames, step: int, key_frames) -> tuple[np.ndarray, np.ndarray]:
    """Which samples get a triad: every ``step``-th sample plus every key frame.

    Returns (indices into frames (m,), is_key (m,) bool), sorted by frame.
    """
    if int(step) < 1:
        raise ValueError(f"triad step must be at least 1 frame, got {step}.")
    t = np.asarray(frames, dtype=np.float64)
    keys = np.asarray(key_frames, dtype=np.float64)
    every = np.zeros(t.shape[0], dtype=bool)
    every[:: int(step)] = True
    is_key = np.isin(t, keys)
    chosen = np.flatnonzero(every | is_key)
    return chosen, is_key[chosen]


# Radians: float32 F-curves and matrices round an orientation by ~1e-7 (measured: an
# even Euler turn's middle key scores 1.6e-8 or 0 by build); 1e-6 rad (0.00006 deg) is
# a swerve no zoom level can show.
KEY_CHANGE_FLOOR = 1e-6


def key_change(frames, quats, key_frames, window: float) -> np.ndarray:
    """How much the rotation changes course at each key, radians, shape (k,).

    frames (n,) increasing samples that include every key frame, quats (n, 4) the
    orientations there, key_frames (k,), window (frames, > 0): the angle between the
    key's orientation and the slerp, at the key's time, of the orientations ``window``
    frames before and after it (clipped to the samples). A key in the middle of an even
    turn scores 0 (as does any swerve under KEY_CHANGE_FLOOR), a key where the turn
    stops, reverses or swerves scores its swerve: the keys a reader needs to see.
    Measured at one fixed window, so the thinned levels (``thin_keys``) choose among the
    same scores.
    """
    t = np.asarray(frames, dtype=np.float64)
    q = quat.as_quat_array(quats, "key orientations")
    keys = np.asarray(key_frames, dtype=np.float64)
    if keys.size == 0 or t.size == 0:
        return np.zeros(keys.shape)
    at = np.clip(np.searchsorted(t, keys), 0, t.size - 1)
    before = np.clip(np.searchsorted(t, keys - window), 0, t.size - 1)
    after = np.clip(np.searchsorted(t, keys + window, side="right") - 1, 0, t.size - 1)
    span = t[after] - t[before]
    u = np.where(span > 0.0, (t[at] - t[before]) / np.where(span > 0.0, span, 1.0), 0.0)
    mid = interp.slerp(q[before], q[after], u)
    swerve = quat.angle_between(q[at], mid)
    # Below the floor a swerve is the rounding of float32 curves, not a change of
    # course: an even turn's keys tie at 0, so thin_keys keeps the first of them on every
    # build, rather than whichever key the rounding of this build favoured.
    return np.where(swerve < KEY_CHANGE_FLOOR, 0.0, swerve)


def thin_keys(key_frames, scores, spacing: float, forced=None) -> np.ndarray:
    """Which keys are drawn as key poses, shape (k,) bool.

    The keys (k,) sorted frames fall into windows of ``spacing`` frames counted from the
    first key; in each window the key with the highest score (``key_change``; the first
    of equal ones) is drawn. The first and last keys and every ``forced`` key (k,) bool
    (the keys of long-way intervals) are always drawn. Keys ``spacing`` or more frames
    apart are all drawn; windows of ``spacing * L`` are unions of L windows of
    ``spacing``, so a coarser thinning keeps a subset of a finer one.
    """
    t = np.asarray(key_frames, dtype=np.float64)
    k = t.size
    keep = np.zeros(k, dtype=bool)
    if k == 0:
        return keep
    if not np.isfinite(spacing) or spacing <= 0.0:
        raise ValueError(f"key thinning: the spacing must be a positive number of frames, "
                         f"got {spacing}.")
    score = np.nan_to_num(np.asarray(scores, dtype=np.float64), nan=0.0)
    window = np.floor((t - t[0]) / spacing).astype(np.int64)
    order = np.lexsort((np.arange(k), -score, window))     # by window, best first
    first = np.ones(k, dtype=bool)
    first[1:] = window[order][1:] != window[order][:-1]
    keep[order[first]] = True
    keep[0] = keep[-1] = True
    if forced is not None:
        keep |= np.asarray(forced, dtype=bool)
    return keep


def is_in_place(positions, quats, size: float) -> bool:
    """Whether a path is rotation in place: its bounding box's diagonal is shorter than
    IN_PLACE_EXTENT triad lengths ``size`` while it turns (orientations (n, 4) more than
    IN_PLACE_MIN_TURN radians from the first), so its triads would sit on each other in a
    starburst. A still, unmoving object keeps its (coinciding) triads."""
    pos = _positions(positions, "path positions")
    n = pos.shape[0]
    if n < 2 or not size > 0.0:
        return False
    if float(np.linalg.norm(pos.max(axis=0) - pos.min(axis=0))) >= IN_PLACE_EXTENT * size:
        return False
    q = _unit_quats(quats, n, "path orientations")
    return bool(quat.angle_between(q[:1], q).max() > IN_PLACE_MIN_TURN)


def arc_axis(quats, camera: bool = False) -> tuple[int, float]:
    """(axis 0/1/2, sign) whose tip the turn arc follows: a camera's view direction (-Z);
    otherwise the axis whose tip travels furthest over the samples (n, 4)."""
    if camera:
        return 2, -1.0
    q = quat.as_quat_array(quats, "turn orientations")
    n = q.shape[0]
    tips = _triad_points(q, np.zeros((n, 3)), np.ones(n)).reshape(n, 3, 2, 3)[:, :, 1, :]
    travel = np.linalg.norm(np.diff(tips, axis=0), axis=2).sum(axis=0) if n > 1 else np.zeros(3)
    return int(np.argmax(travel)), 1.0


def arc_points(quats, positions, radius: float, axis: int, sign: float = 1.0) -> np.ndarray:
    """(n, 3) the tip of ``sign`` * axis ``axis`` of each orientation (n, 4), ``radius``
    Blender units from each position (n, 3): the turn arc's points."""
    pos = _positions(positions, "turn arc positions")
    n = pos.shape[0]
    q = _unit_quats(quats, n, "turn orientations")
    tips = _triad_points(q, np.zeros((n, 3)), np.full(n, float(radius))).reshape(n, 3, 2, 3)
    return pos + sign * tips[:, axis, 1, :]


# Zoomed out, a triad every few frames is clutter: the overlay also keeps
# thinned copies (every LOD_LEVELS[i]-th triad, key poses always kept) and
# draws the first level whose triads land at least MIN_TRIAD_SPACING_PX apart.
LOD_LEVELS = (1, 2, 4, 8, 16)
MIN_TRIAD_SPACING_PX = 14.0


def lod_level(spacing_px: float) -> int:
    """The level of LOD_LEVELS to draw when neighbouring triads are ``spacing_px``
    pixels apart: the smallest whose thinned spacing reaches MIN_TRIAD_SPACING_PX
    (the largest level when none does; 1 for a non-finite or zero spacing)."""
    if not np.isfinite(spacing_px) or spacing_px <= 0.0:
        return 1
    for level in LOD_LEVELS:
        if spacing_px * level >= MIN_TRIAD_SPACING_PX:
            return level
    return LOD_LEVELS[-1]


def lod_level_for(spacings_px: dict) -> int:
    """The level of LOD_LEVELS to draw, given the median pixel spacing of the triads each
    level draws ({level: pixels}): the first whose spacing reaches MIN_TRIAD_SPACING_PX
    (the last when none does; 1 when nothing is measured)."""
    measured = {lv: px for lv, px in spacings_px.items() if np.isfinite(px) and px > 0.0}
    if not measured:
        return 1
    for level in LOD_LEVELS:
        if level in measured and measured[level] >= MIN_TRIAD_SPACING_PX:
            return level
    return max(measured)


# On screen, whatever the level: two drawn triads are at least this many of their own axis
# lengths apart (and MIN_TRIAD_SPACING_PX), so neighbours never cross each other. Along a
# path the levels thin by frames, but a walk seen from the front stacks every frame of a
# bone on one spot, and 31 bones share one figure: only a spacing measured between the
# triads as drawn, across every path, keeps that readable (spread_on_screen).
TRIAD_SPACING_SIZES = 1.0


def spread_on_screen(xy, priority, spacing_px: float) -> np.ndarray:
    """Which triads to draw so that no two drawn ones are closer than ``spacing_px``.

    xy (m, 2): the triads' origins in region pixels (NaN: not on screen, never drawn);
    priority (m,): higher first (equal ones in their order). Greedy: each triad in
    priority order is drawn unless a triad already drawn lies within ``spacing_px``.
    Returns (m,) bool. A first pass keeps one triad per square of spacing / sqrt(2)
    (two in one square are always too close), so the loop only visits what can fit on
    the screen, however many triads there are.
    """
    pts = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    m = pts.shape[0]
    keep = np.zeros(m, dtype=bool)
    if m == 0:
        return keep
    if not np.isfinite(spacing_px) or spacing_px <= 0.0:
        raise ValueError(f"triad spacing must be a positive number of pixels, got {spacing_px}.")
    rank = np.asarray(priority, dtype=np.float64).reshape(m)
    on = np.flatnonzero(np.isfinite(pts).all(axis=1))
    order = on[np.lexsort((on, -rank[on]))]
    fine = np.floor(pts[order] / (spacing_px / np.sqrt(2.0))).astype(np.int64)
    _, first = np.unique(fine, axis=0, return_index=True)
    order = order[np.sort(first)]
    cells = np.floor(pts[order] / spacing_px).astype(np.int64)
    taken: dict = {}
    limit = spacing_px * spacing_px
    for i, (cx, cy) in zip(order.tolist(), cells.tolist()):
        x, y = pts[i]
        near = False
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for j in taken.get((cx + dx, cy + dy), ()):
                    if (pts[j, 0] - x) ** 2 + (pts[j, 1] - y) ** 2 < limit:
                        near = True
                        break
                if near:
                    break
            if near:
                break
        if not near:
            taken.setdefault((cx, cy), []).append(i)
            keep[i] = True
    return keep


def triad_spacing(positions, chosen) -> float:
    """Median distance (Blender units) between neighbouring drawn triads, the
    samples ``chosen`` (from triad_frames) of ``positions``; 0 when fewer than 2."""
    pos = _positions(positions, "path positions")
    idx = np.asarray(chosen)
    if idx.size < 2:
        return 0.0
    return float(np.median(np.linalg.norm(np.diff(pos[idx], axis=0), axis=1)))


@dataclass
class LineSet:
    """Segments to draw in one batch: points (2m, 3) and colours (2m, 4), float64."""

    points: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    colors: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))

    @staticmethod
    def join(parts: list["LineSet"]) -> "LineSet":
        if not parts:
            return LineSet()
        return LineSet(
            np.concatenate([p.points for p in parts]), np.concatenate([p.colors for p in parts])
        )

    def select_triads(self, mask, rows_per_triad: int = 6) -> "LineSet":
        """The triads where ``mask`` (one bool per triad) is set: ``rows_per_triad``
        consecutive rows each, as triad_lines lays them out."""
        rows = np.repeat(np.asarray(mask, dtype=bool), rows_per_triad)
        return LineSet(self.points[rows], self.colors[rows])

    def transformed(self, matrix) -> "LineSet":
        """Copy with points mapped by a 4x4 affine matrix (e.g. the parent's world matrix)."""
        m = np.asarray(matrix, dtype=np.float64)
        return LineSet(self.points @ m[:3, :3].T + m[:3, 3], self.colors.copy())


# The line sets of OverlayGeometry.thinned: a row selection per LOD level.
THINNED_SETS = ("triads", "ghosts", "ghost_halo", "marks", "marks_halo", "spokes",
                "spokes_halo")


@dataclass
class OverlayGeometry:
    """Everything the overlay draws for one object, plus the legend's range."""

    triads: LineSet
    ghosts: LineSet
    ghost_halo: LineSet     # the ghosts' segments in GHOST_HALO_COLOR, drawn wider underneath
    path: LineSet
    long_arc: LineSet
    marks: LineSet          # key poses' triangles and cameras' dashed view direction
    marks_halo: LineSet     # the marks' segments in GHOST_HALO_COLOR, drawn wider underneath
    speed_max: float        # degrees per frame that the ramp's last colour stands for
    long_arc_count: int     # how many key intervals go the long way round (defects only)
    kept: LineSet = field(default_factory=lambda: LineSet())   # kept spins and steps
    spin_count: int = 0     # key intervals that spin as keyed (green band)
    step_count: int = 0     # stepped key intervals (grey band)
    # Rotation in place: the triads, ghosts and key marks sit on the turn arc, which is
    # also the ``path`` (and its bands); ``spokes`` join the object to its key poses.
    in_place: bool = False
    chosen: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # Per LOD level: (which of the triads to keep (m,), which key poses (p,)).
    levels: dict = field(default_factory=dict)
    # Rows of ``marks`` per key pose, in order: the triangle (6), the camera's dashes
    # (2 * VIEW_DASHES).
    mark_layout: tuple = (6,)
    label_at: np.ndarray | None = None   # (3,) where the path (or the arc) ends
    triad_positions: np.ndarray | None = None   # (n, 3) where each sample's triad sits
    spokes: LineSet = field(default_factory=lambda: LineSet())   # white, object -> key pose
    spokes_halo: LineSet = field(default_factory=lambda: LineSet())
    # Per drawn triad (``chosen``): whether it is a key pose (KEY_SCALE larger, its key
    # mark and spoke follow it), in order, so a view can thin the three together.
    triad_is_key: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))

    def thinned(self, level: int) -> dict[str, LineSet]:
        """The thinned line sets (THINNED_SETS) at LOD ``level``: row selections of the full
        ones (level 1: the full ones)."""
        full = {key: getattr(self, key) for key in THINNED_SETS}
        if level not in self.levels or level == 1:
            return full
        triad_mask, key_mask = self.levels[level]
        rows = np.concatenate([np.repeat(key_mask, r) for r in self.mark_layout])
        out = {}
        for key in ("marks", "marks_halo"):
            lines = full[key]
            out[key] = LineSet(lines.points[rows], lines.colors[rows]) \
                if lines.points.shape[0] else lines
        for key in ("spokes", "spokes_halo"):
            out[key] = full[key].select_triads(key_mask, 2) if self.in_place else full[key]
        for key in ("triads", "ghosts", "ghost_halo"):
            lines = full[key]
            out[key] = lines.select_triads(triad_mask) if lines.points.shape[0] else lines
        return out


def _halo(lines: LineSet) -> LineSet:
    return LineSet(lines.points.copy(),
                   np.broadcast_to(GHOST_HALO_COLOR, (lines.points.shape[0], 4)).copy())


def build_overlay(
    frames,
    quats,
    positions,
    key_frames,
    *,
    step: int = 5,
    size: float = 0.5,
    ghost_quats=None,
    long_arc_quats=None,
    speed_max: float | None = None,
    interval_kinds=None,
    long_arc_mask=None,
    view_axis: bool = False,
    in_place: bool = False,
) -> OverlayGeometry:
    """All of one object's overlay geometry from per-frame samples.

    frames: (n,) increasing sample frames (include the key frames);
    quats: (n, 4) QuatBake's orientations; positions: (n, 3);
    key_frames: (k,) keyed frames (their triads are KEY_SCALE larger; dense keys are
    thinned, ``thin_keys``);
    step: a triad every ``step`` samples; size: triad axis length (Blender units);
    ghost_quats: (n, 4) Blender's own interpolation, drawn faded, or None;
    long_arc_quats: (n, 4) orientations checked for the long way round (default
    ghost_quats, else quats); speed_max: the legend maximum (degrees per frame),
    default the largest speed along this path; interval_kinds: the kind of each
    key interval (core.turns.KINDS, (k-1,)) or None: only the defects (DEFECT_KINDS)
    intervals get the long-arc band, "spin" and "step" get the ``kept`` band;
    long_arc_mask: (k-1,) bool per interval of the key frames inside ``frames``,
    when the caller measured the long way round on denser samples (a spin
    between neighbouring keys); view_axis: a camera, so its key poses get the
    dashed view direction (``view_lines``) in ``marks``, beside every key
    pose's triangle (``key_marks``); in_place: draw the turn arc instead of the
    triads (the caller decides, ``is_in_place``).
    """
    t = np.asarray(frames, dtype=np.float64)
    pos = _positions(positions, "path positions")
    n = pos.shape[0]
    q = _unit_quats(quats, n, "QuatBake orientations")
    if t.shape != (n,):
        raise ValueError(f"path frames: expected shape ({n},), got {t.shape}.")
    if int(step) < 1:
        raise ValueError(f"triad step must be at least 1 frame, got {step}.")
    step = int(step)
    keys = np.asarray(key_frames, dtype=np.float64)
    if not np.isfinite(size) or size < 0:
        raise ValueError("triad size must be a finite length >= 0 (Blender units).")
    g = None if ghost_quats is None else _unit_quats(ghost_quats, n, "Blender's orientations")
    inside = keys[(keys >= t[0]) & (keys <= t[-1])] if n else keys[:0]
    if n >= 2:
        speed = angular_speed(q, t)
        vmax = legend_max(speed) if speed_max is None else float(speed_max)
        check = long_arc_quats if long_arc_quats is not None else ghost_quats
        check = q if check is None else _unit_quats(check, n, "long-arc orientations")
        if long_arc_mask is not None:
            intervals = np.asarray(long_arc_mask, dtype=bool)
            if intervals.shape != (max(inside.size - 1, 0),):
                raise ValueError(f"long-arc mask: expected shape ({inside.size - 1},), "
                                 f"got {intervals.shape}.")
        else:
            intervals = long_arc_intervals(t, check, inside)
        spins = steps = np.zeros(intervals.shape, dtype=bool)
        if interval_kinds is not None and len(interval_kinds) == intervals.size:
            kinds = np.asarray(interval_kinds, dtype=object)
            spins = kinds == "spin"
            steps = kinds == "step"
            intervals = intervals & np.isin(kinds, DEFECT_KINDS)
    else:
        speed = np.zeros(0)
        vmax = MIN_LEGEND_SPEED if speed_max is None else float(speed_max)
        intervals = np.zeros(0, dtype=bool)
        spins = steps = intervals

    # Key poses: zoomed out (LOD level L > 1), dense keys are thinned to one per window
    # of step * L frames, the long-way intervals' keys always kept.
    key_rows = np.flatnonzero(np.isin(t, keys))
    key_t = t[key_rows]
    ends = np.zeros(inside.size, dtype=bool)
    if intervals.size:
        ends[:-1] |= intervals
        ends[1:] |= intervals
    forced = np.isin(key_t, inside[ends])
    scores = key_change(t, q, key_t, float(step)) if key_t.size else np.zeros(0)
    every = np.arange(n) % step == 0
    # Full detail draws every key; each coarser level keeps one key per window.
    pose = {level: thin_keys(key_t, scores, float(step * level), forced) if level > 1
            else np.ones(key_t.size, dtype=bool) for level in LOD_LEVELS}
    pose_rows = key_rows[pose[1]]
    place = bool(in_place) and n >= 2

    # Turning in place: the triads are spread along the turn arc (each at the tip of its
    # own arc axis) instead of stacked on the object, white spokes join the object to its
    # key poses, and the path and its bands follow the arc.
    line = arc_points(q, pos, size * ARC_RADIUS, *arc_axis(q, view_axis)) if place else pos
    chosen = np.flatnonzero(every | np.isin(np.arange(n), pose_rows))
    is_key = np.isin(chosen, pose_rows)
    sizes = np.where(is_key, size * KEY_SCALE, size)
    triads = LineSet(_triad_points(q[chosen], line[chosen], sizes),
                     np.tile(_TRIAD_COLORS, (chosen.size, 1)))
    marks = []
    mark_layout = [6]
    if pose_rows.size:
        key_size = size * KEY_SCALE
        marks.append(LineSet(*key_marks(q[pose_rows], line[pose_rows], key_size)))
        if view_axis:
            marks.append(LineSet(*view_lines(q[pose_rows], line[pose_rows], key_size)))
    if view_axis:
        mark_layout.append(2 * VIEW_DASHES)
    spokes = LineSet()
    if place:
        ends = np.stack([pos[pose_rows], line[pose_rows]], axis=1).reshape(-1, 3)
        spokes = LineSet(ends, np.broadcast_to(KEY_MARK_COLOR, (ends.shape[0], 4)).copy())
    ghosts = ghost_halo = LineSet()
    if g is not None:
        ghost_points = _triad_points(g[chosen], line[chosen], sizes)
        ghosts = LineSet(ghost_points, np.tile(_GHOST_TRIAD_COLORS, (chosen.size, 1)))
        ghost_halo = _halo(ghosts)
    label_at = line[-1].copy() if n else None

    levels = {}
    for level in LOD_LEVELS:
        rows = (np.arange(n) % (step * level) == 0) | np.isin(np.arange(n),
                                                              key_rows[pose[level]])
        levels[level] = (rows[chosen], pose[level][pose[1]])

    if n >= 2:
        path = LineSet(*path_lines(line, speed, vmax))
        long_arc = LineSet(*segment_lines(line, interval_segments(t, inside, intervals)))
        kept = LineSet.join([
            LineSet(*segment_lines(line, interval_segments(t, inside, spins), KEPT_SPIN_COLOR)),
            LineSet(*segment_lines(line, interval_segments(t, inside, steps), STEP_COLOR))])
    else:
        path, long_arc, kept = LineSet(), LineSet(), LineSet()
    marks_set = LineSet.join(marks)
    # White marks on a light-grey floor need the ghosts' dark edge as well.
    marks_halo = _halo(marks_set)
    return OverlayGeometry(triads, ghosts, ghost_halo, path, long_arc, marks_set, marks_halo,
                           vmax, int(intervals.sum()), kept, int(spins.sum()), int(steps.sum()),
                           place, chosen, levels, tuple(mark_layout), label_at, line,
                           spokes, _halo(spokes), is_key)


def thinned_mask(chosen, is_key, step: int, level: int) -> np.ndarray:
    """Which of build_overlay's triads (``chosen``, ``is_key`` from triad_frames
    with ``step``) a view thinned to ``level`` keeps: every ``step * level``-th
    sample and every key pose, shape (m,) bool."""
    return np.asarray(is_key, dtype=bool) | (np.asarray(chosen) % (int(step) * int(level)) == 0)


def current_triad(frames, quats, positions, frame: float, size: float,
                  view_axis: bool = False) -> LineSet:
    """The emphasised triad at ``frame`` (CURRENT_SCALE * size), or empty outside the path.

    With ``view_axis`` (a camera) its dashed view direction follows the 6 triad
    rows (``view_lines``).

    Uses the nearest sample: the overlay samples every frame, so that is the
    pose Blender shows when the playhead sits on a whole frame.
    """
    t = np.asarray(frames, dtype=np.float64)
    if t.size == 0 or frame < t[0] - 0.5 or frame > t[-1] + 0.5:
        return LineSet()
    i = int(np.clip(np.searchsorted(t, frame), 0, t.size - 1))
    if i > 0 and abs(t[i - 1] - frame) <= abs(t[i] - frame):
        i -= 1
    pos = np.asarray(positions, dtype=np.float64)[i : i + 1]
    q = np.asarray(quats)[i : i + 1]
    triad = LineSet(*triad_lines(q, pos, size * CURRENT_SCALE))
    if not view_axis:
        return triad
    return LineSet.join([triad, LineSet(*view_lines(q, pos, size * CURRENT_SCALE))])
