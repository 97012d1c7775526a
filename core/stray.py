# SPDX-License-Identifier: GPL-3.0-or-later
"""How far Blender's playback between two keys can stray from slerp, bounded cheaply.

The report compares Blender with the method at whole frames; between them it samples
only where it must (sampling every key interval in sixteenths made a rig's Analyze
many times slower). Which intervals must be sampled is decided here, from the keys
and handles alone, without evaluating anything: per key interval, an upper bound of
the angle between Blender's playback and the slerp of the interval's two key
orientations. Where the bound is small, sampling cannot find more than it.

The bound is the sum of two parts (the triangle inequality of the rotation angle):

- the channels against their chord: each channel's Bezier lies in the convex hull of
  its four control points, so its distance from the straight line between its keys
  (the channel interpolated LINEARLY) is at most its handles' distance from that
  line (``gaps``, computed by the caller from the F-curves). Blender's correction of
  an over-long handle moves it towards its key, only nearer the line. Euler: a
  rotation about each axis in turn is at most the sum of the channels' gaps from the
  chord's orientation. Quaternion: the gaps bound the 4D distance from the chord,
  hence the 4D angle (through the chord's smallest length), and the rotation angle
  is twice that.
- the chord against slerp: channels interpolated linearly are not slerp. Quaternion:
  the normalised chord is slerp re-timed (nlerp), exactly bounded by ``_nlerp_table``'s
  table, plus the re-timing when the keys' lengths differ. Euler: linear angles turn
  about an axis that moves, which strays from the great arc by at most
  (|da db| + |da dc| + |db dc|) / 8 to leading order (the axis turns at most that
  fast; a deviation that is 0 at both keys is at most 1/8 of its second
  derivative); EULER_MARGIN doubles it (measured on random intervals: at most 0.126
  of the products up to 0.3 rad a channel, 0.132 up to 0.6 rad), and intervals
  whose channels turn more than EULER_MAX_TURN together get no bound (the leading
  order is no longer the whole story there).

Pure numpy; angles in radians unless a name says deg.
"""
from __future__ import annotations

import functools

import numpy as np

# Euler chord-vs-slerp: the leading-order 1/8, doubled.
EULER_MARGIN = 2.0
# Euler intervals turning more than this (sum of the channels' changes, radians) are
# not bounded (np.inf): sampled whatever their handles.
EULER_MAX_TURN = 1.0


@functools.lru_cache(maxsize=1)
def _nlerp_table(points: int = 257, steps: int = 2049):
    """Largest 4D angle between nlerp and slerp of two unit quaternions phi apart, for
    phi on a grid over [0, pi/2] (one hemisphere: wider is a flip, sampled anyway). It
    grows with phi, so the value at the grid point above a phi bounds it. Made on the
    first quaternion bound, not on import: half a million arctangents, 50 ms of every
    command line's start that an Euler capture never uses."""
    phi = np.linspace(0.0, np.pi / 2, points)[:, None]
    t = np.linspace(0.0, 1.0, steps)[None, :]
    along = np.arctan2(t * np.sin(phi), (1.0 - t) + t * np.cos(phi))
    worst = np.abs(along - t * phi).max(axis=1)
    # The t grid misses the peak by a hair: a percent on top.
    return phi[:, 0], np.maximum.accumulate(worst) * 1.01



def euler_bound(key_raw: np.ndarray, gaps: np.ndarray) -> np.ndarray:
    """(k-1,) radians: how far Blender's playback of Euler channels can stray from slerp
    inside each key interval. ``key_raw`` (k, 3): the channels at the keys; ``gaps``
    (k-1, 3): each channel's largest distance from its chord in the interval
    (np.inf where unknown)."""
    raw = np.asarray(key_raw, dtype=np.float64)
    d = np.abs(np.diff(raw, axis=0))
    products = d[:, 0] * d[:, 1] + d[:, 0] * d[:, 2] + d[:, 1] * d[:, 2]
    chord = EULER_MARGIN * products / 8.0
    chord = np.where(d.sum(axis=1) <= EULER_MAX_TURN, chord, np.inf)
    return np.asarray(gaps, dtype=np.float64).sum(axis=1) + chord


def quaternion_bound(key_raw: np.ndarray, gaps: np.ndarray) -> np.ndarray:
    """(k-1,) radians: :func:`euler_bound` for quaternion channels (w, x, y, z as keyed,
    any length; Blender normalises what it plays). Intervals whose keys point apart
    (a flipped sign: the long way round) or whose chord passes near zero get np.inf."""
    raw = np.asarray(key_raw, dtype=np.float64)
    a, b = raw[:-1], raw[1:]
    r = _row_norms(raw)
    ra, rb = r[:-1], r[1:]
    dot = np.einsum("ij,ij->i", a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        cos_phi = np.clip(dot / (ra * rb), -1.0, 1.0)
        phi = np.arccos(cos_phi)
        # The chord's smallest length: the distance from zero to the segment a -> b.
        ab = b - a
        t = np.clip(-np.einsum("ij,ij->i", a, ab) / np.einsum("ij,ij->i", ab, ab), 0.0, 1.0)
        t = np.where(np.isfinite(t), t, 0.0)
        shortest = _row_norms(a + t[:, None] * ab)
        g = _row_norms(np.asarray(gaps, dtype=np.float64))
        off_chord = np.where(g < shortest, np.arcsin(np.minimum(g / shortest, 1.0)), np.inf)
        # nlerp of a and b is nlerp of their directions at a re-timed t; the re-timing
        # moves it at most phi |rb - ra| / (4 min(ra, rb)) along the arc.
        retimed = phi * np.abs(rb - ra) / (4.0 * np.minimum(ra, rb))
    grid, table = _nlerp_table()
    at = np.clip(np.searchsorted(grid, phi, side="left"), 0, table.size - 1)
    along = table[at] + retimed
    out = 2.0 * (off_chord + along)
    bad = (dot <= 0.0) | ~np.isfinite(out) | (np.minimum(ra, rb) <= 0.0)
    return np.where(bad, np.inf, out)


def _row_norms(x: np.ndarray) -> np.ndarray:
    """``np.linalg.norm(x, axis=1)`` of (n, c) float64, bit for bit (the squares summed
    in the same order: numpy adds a row's few terms one after another), a column at a
    time: 5x faster than numpy's reduction of short rows (a rig's 60,000 baked
    intervals)."""
    squares = x * x
    total = squares[:, 0].copy() if x.shape[1] else np.zeros(x.shape[0])
    for column in range(1, x.shape[1]):
        total += squares[:, column]
    return np.sqrt(total, out=total)
