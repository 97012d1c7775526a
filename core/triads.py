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
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import quat

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
SPEED_COLOR_NAMES = ("grey-blue", "yellow", "orange", "magenta")
LONG_ARC_COLOR = np.array([0.0, 1.0, 1.0, 1.0], dtype=np.float64)
# Key intervals that turn the long way ON PURPOSE (core.turns "spin": kept by
# Turns: Auto) get a thinner green band instead, and stepped (CONSTANT)
# intervals a grey one: both are the keys' intent, not defects.
KEPT_SPIN_COLOR = np.array([0.35, 0.9, 0.35, 0.8], dtype=np.float64)
STEP_COLOR = np.array([0.7, 0.7, 0.7, 0.8], dtype=np.float64)
# Kinds (core.turns.KINDS) the cyan long-arc band may mark: the probable defects.
DEFECT_KINDS = ("flip", "wrap")

# A key interval is "long arc" when Blender's interpolation sweeps this much
# more angle (radians) than the shortest arc between the two key orientations.
# The long way round sweeps 2*pi - 2*theta extra (>= 90 degrees unless the keys
# are already more than 135 degrees apart); an ordinary Bezier ease on Euler
# channels overshoots the geodesic by a few degrees, far below this.
LONG_ARC_EXCESS = np.pi / 2.0

# Speeds below this (degrees per frame) count as still when picking the
# legend's maximum, so a motionless object does not divide by zero.
MIN_LEGEND_SPEED = 1e-6


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
    return np.degrees(_step_angles(q)) / dt


def _step_angles(q: np.ndarray) -> np.ndarray:
    """Geodesic angle (radians) between consecutive rotations q[i], q[i+1], shape (n-1,).

    The same 2*atan2(|v|, |w|) of conj(a)*b as quat.angle_between, with the
    product written out per component: this runs over every sample of every
    path, and the generic broadcasting product with np.cross costs 3x more.
    """
    aw, ax, ay, az = q[:-1].T
    bw, bx, by, bz = q[1:].T
    w = aw * bw + ax * bx + ay * by + az * bz
    vx = aw * bx - bw * ax - (ay * bz - az * by)
    vy = aw * by - bw * ay - (az * bx - ax * bz)
    vz = aw * bz - bw * az - (ax * by - ay * bx)
    return 2.0 * np.arctan2(np.sqrt(vx * vx + vy * vy + vz * vz), np.abs(w))


def legend_max(speed) -> float:
    """The speed (degrees per frame) the ramp's last colour stands for: the maximum."""
    s = np.asarray(speed, dtype=np.float64)
    top = float(s.max()) if s.size else 0.0
    return max(top, MIN_LEGEND_SPEED)


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
    step = _step_angles(q)
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
) -> OverlayGeometry:
    """All of one object's overlay geometry from per-frame samples.

    frames: (n,) increasing sample frames (include the key frames);
    quats: (n, 4) QuatBake's orientations; positions: (n, 3);
    key_frames: (k,) keyed frames (their triads are KEY_SCALE larger);
    step: a triad every ``step`` samples; size: triad axis length (Blender units);
    ghost_quats: (n, 4) Blender's own interpolation, drawn faded, or None;
    long_arc_quats: (n, 4) orientations checked for the long way round (default
    ghost_quats, else quats); speed_max: the legend maximum (degrees per frame),
    default the largest speed along this path; interval_kinds: the kind of each
    key interval (core.turns.KINDS, (k-1,)) or None: only "flip" and "wrap"
    intervals get the long-arc band, "spin" and "step" get the ``kept`` band;
    long_arc_mask: (k-1,) bool per interval of the key frames inside ``frames``,
    when the caller measured the long way round on denser samples (a spin
    between neighbouring keys); view_axis: a camera, so its key poses get the
    dashed view direction (``view_lines``) in ``marks``, beside every key
    pose's triangle (``key_marks``).
    """
    t = np.asarray(frames, dtype=np.float64)
    pos = _positions(positions, "path positions")
    n = pos.shape[0]
    q = _unit_quats(quats, n, "QuatBake orientations")
    if t.shape != (n,):
        raise ValueError(f"path frames: expected shape ({n},), got {t.shape}.")
    keys = np.asarray(key_frames, dtype=np.float64)
    chosen, is_key = triad_frames(t, step, keys)
    if not np.isfinite(size) or size < 0:
        raise ValueError("triad size must be a finite length >= 0 (Blender units).")
    sizes = np.where(is_key, size * KEY_SCALE, size)
    triads = LineSet(
        _triad_points(q[chosen], pos[chosen], sizes), np.tile(_TRIAD_COLORS, (chosen.size, 1))
    )
    marks = []
    key_rows = chosen[is_key]
    if key_rows.size:
        key_size = size * KEY_SCALE
        marks.append(LineSet(*key_marks(q[key_rows], pos[key_rows], key_size)))
        if view_axis:
            marks.append(LineSet(*view_lines(q[key_rows], pos[key_rows], key_size)))
    ghosts = ghost_halo = LineSet()
    if ghost_quats is not None:
        g = _unit_quats(ghost_quats, n, "Blender's orientations")
        ghost_points = _triad_points(g[chosen], pos[chosen], sizes)
        ghosts = LineSet(ghost_points, np.tile(_GHOST_TRIAD_COLORS, (chosen.size, 1)))
        ghost_halo = LineSet(ghost_points.copy(),
                             np.broadcast_to(GHOST_HALO_COLOR, (ghost_points.shape[0], 4)).copy())
    if n >= 2:
        speed = angular_speed(q, t)
        vmax = legend_max(speed) if speed_max is None else float(speed_max)
        path = LineSet(*path_lines(pos, speed, vmax))
        check = long_arc_quats if long_arc_quats is not None else ghost_quats
        check = q if check is None else _unit_quats(check, n, "long-arc orientations")
        inside = keys[(keys >= t[0]) & (keys <= t[-1])]
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
        long_arc = LineSet(*segment_lines(pos, interval_segments(t, inside, intervals)))
        kept = LineSet.join([
            LineSet(*segment_lines(pos, interval_segments(t, inside, spins), KEPT_SPIN_COLOR)),
            LineSet(*segment_lines(pos, interval_segments(t, inside, steps), STEP_COLOR))])
    else:
        vmax = MIN_LEGEND_SPEED if speed_max is None else float(speed_max)
        path, long_arc, intervals = LineSet(), LineSet(), np.zeros(0, dtype=bool)
        kept, spins, steps = LineSet(), intervals, intervals
    marks_set = LineSet.join(marks)
    # White marks on a light-grey floor need the ghosts' dark edge as well.
    marks_halo = LineSet(marks_set.points.copy(),
                         np.broadcast_to(GHOST_HALO_COLOR, (marks_set.points.shape[0], 4)).copy())
    return OverlayGeometry(triads, ghosts, ghost_halo, path, long_arc, marks_set, marks_halo,
                           vmax, int(intervals.sum()), kept, int(spins.sum()), int(steps.sum()))


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
