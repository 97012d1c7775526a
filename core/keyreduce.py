# SPDX-License-Identifier: GPL-3.0-or-later
"""Few keys that two players both play within a tolerance of a dense bake.

A dense bake has a key on every step frame: the method's orientation
``quats`` and the channel values written for it (``values``, in the output
rotation mode), maybe locations. Keeping only some of those keys, two
players fill the frames in between:

- **Blender**: LINEAR keys, each channel interpolated on its own (Euler
  angles, quaternion components, axis-angle) and the result normalised;
- **a glTF player**: the exporter turns each kept key into a quaternion and
  the player slerps between them on the short arc (glTF 2.0 Appendix C).

A set of kept keys is acceptable when at every dense frame both players are
within ``tolerance`` of ``quats`` (and linear location within
``location_tolerance`` of the dense locations), and the method turns less
than 180 degrees between any two kept keys (a slerp never turns more).
Adjacent dense keys are always acceptable (no frame between them to miss).

How (a Douglas-Peucker split, then merging; near the fewest keys, not
provably the fewest):

1. Keep each track's first and last key. Every round, check all intervals
   not yet accepted, of all tracks at once (whole-array numpy); split each
   failing one at its worst frame (or, when the method turns 180 degrees
   or more, where it has turned half of that).
2. Merge: try dropping every other interior key, then the others, keeping a
   drop only where the merged interval is still acceptable; repeat while
   keys go (a key whose drop failed stays for good).

Checking an interval: first at its frames nearest 1/4, 1/2 and 3/4 (most
failing intervals fail there), then at every frame; Blender's playback
first and the glTF player only where Blender passes; cosines of half the
error compared, not angles (no trigonometry for the comparison).

Each round costs a few whole-array operations over the frames still
undecided, so the work is a small multiple of the dense bake's own.
Measured against a (much slower) greedy farthest-reach placement on 18
random three-axis tracks of 301 frames: 0-21% more keys, 6% on average.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import quat, rotation

# The method may turn at most this much between two kept keys (radians):
# a slerp never turns more than 180 degrees, so a longer turn would be lost.
MAX_TURN = np.pi

# Written keys are float32 (~6e-8 relative, ~1e-5 deg on an angle of a few
# radians): the selection aims this much (degrees) under the tolerance, so
# rounding never pushes a frame over it.
FLOAT32_MARGIN_DEG = 1e-4

# Merge passes: each tries every interior key once; more rarely find any.
MERGE_PASSES = 3

# Below this sin(arc) two keys are one orientation for the slerp weights
# (1e-9 rad of 4D arc is ~1e-7 deg of rotation, far below any tolerance).
_SMALL_ARC = 1e-9


@dataclass(frozen=True)
class Track:
    """One dense bake: frames (n,), quats (n, 4) w-first, values (n, c) in ``mode``.

    ``quats`` is the orientation the object plays (what a glTF player's keys
    are); ``values`` the channels written, which may be only one half of it
    (the delta or the regular rotation, Blender playing delta @ rotation).
    """

    frames: np.ndarray
    quats: np.ndarray
    values: np.ndarray
    mode: str
    locations: np.ndarray | None = None
    fixed: np.ndarray | None = None  # (n,) bool: keys that must stay (e.g. around a step)


def _mode_to_quat(values: np.ndarray, mode: str) -> np.ndarray:
    if mode == "QUATERNION":
        return quat.normalize(values, "interpolated quaternion channels")
    return rotation.mode_values_to_quat(values, mode)


class _Batch:
    """Tracks of one rotation mode, concatenated; intervals never span two tracks."""

    def __init__(self, tracks, mode: str, tol: float, loc_tol: float):
        self.mode = mode
        self.cos_tol = np.cos(tol / 2.0)  # |dot| of two unit quaternions tol apart
        self.loc_tol = loc_tol
        self.f = np.concatenate([t.frames for t in tracks]).astype(np.float64)
        self.q = quat.normalize(np.concatenate([t.quats for t in tracks]), "select_keys quats")
        self.v = np.concatenate([np.asarray(t.values, np.float64) for t in tracks])
        with_loc = any(t.locations is not None for t in tracks)
        self.loc = (
            np.concatenate(
                [
                    np.asarray(t.locations, np.float64)
                    if t.locations is not None
                    else np.zeros((len(t.frames), 3))
                    for t in tracks
                ]
            )
            if with_loc
            else None
        )
        # Blender's check is in the written channels' own space: their dense
        # values as a rotation. With delta channels Blender plays delta @ rotation
        # and only one half is written; composing with the same other half on
        # both sides leaves the angle between them unchanged.
        self.channel_q = _mode_to_quat(self.v, mode)
        # The player's keys are what the exporter composes: the full orientation.
        self.key_q = self.q
        sizes = np.array([len(t.frames) for t in tracks])
        self.starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        self.ends = self.starts + sizes - 1
        steps = quat.step_angles(self.q)
        steps[self.starts] = 0.0  # no turn across two tracks
        self.turn = np.cumsum(steps)
        self.boundary = np.zeros(self.f.shape[0], dtype=bool)
        self.boundary[self.starts] = True
        self.boundary[self.ends] = True
        for t, start in zip(tracks, self.starts):
            if t.fixed is not None:
                self.boundary[start : start + len(t.frames)] |= np.asarray(t.fixed, dtype=bool)

    def closeness(self, frames_idx: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """|cos(error / 2)| of the players at ``frames_idx`` between kept keys a, b.

        1 is exact; below ``cos(tol / 2)`` fails. Cosines, not angles: no
        trigonometry for the comparison, and the same order (the smallest
        cosine is the largest error). Where Blender's playback already fails,
        its value is returned and the glTF player and location are not
        evaluated (any failing frame is a valid place to split; Blender's
        per-channel curves are what usually fails first). Elsewhere the worst
        of the two players; a location miss beyond its tolerance counts as a
        fail that grows with the distance.
        """
        u = (self.f[frames_idx] - self.f[a]) / (self.f[b] - self.f[a])
        t = self.channel_q[frames_idx]
        # Blender: each channel linear, then the rotation normalised.
        v = self.v[a] + u[:, None] * (self.v[b] - self.v[a])
        if self.mode == "QUATERNION":
            out = np.abs(np.einsum("ij,ij->i", v, t)) / np.sqrt(np.einsum("ij,ij->i", v, v))
        else:
            out = np.abs(np.einsum("ij,ij->i", rotation.mode_values_to_quat(v, self.mode), t))
        rest = np.flatnonzero(out >= self.cos_tol)
        if rest.size:
            full = self.q[frames_idx[rest]]
            sub = np.minimum(out[rest], self._player(u[rest], full, a[rest], b[rest]))
            if self.loc is not None:
                sub = self._location(sub, u[rest], frames_idx[rest], a[rest], b[rest])
            out[rest] = sub
        return out

    def _player(self, u, t, a, b) -> np.ndarray:
        """glTF player: slerp on the short arc between the kept keys' quaternions.

        Both are unit, so only the weights are needed:
        dot(slerp, t) = wa * dot(qa, t) + wb * dot(qb, t).
        """
        qa, qb = self.key_q[a], self.key_q[b]
        d = np.einsum("ij,ij->i", qa, qb)
        sign = np.where(d < 0.0, -1.0, 1.0)
        theta = np.arccos(np.minimum(np.abs(d), 1.0))
        sin_theta = np.sin(theta)
        small = sin_theta < _SMALL_ARC
        inv = 1.0 / np.where(small, 1.0, sin_theta)
        wa = np.where(small, 1.0 - u, np.sin((1.0 - u) * theta) * inv)
        wb = np.where(small, u, np.sin(u * theta) * inv) * sign
        player = np.abs(wa * np.einsum("ij,ij->i", qa, t) + wb * np.einsum("ij,ij->i", qb, t))
        if small.any():
            # Nearly equal keys: the lerp is not unit; divide by its length.
            g = wa[small, None] * qa[small] + wb[small, None] * qb[small]
            player[small] /= np.sqrt(np.einsum("ij,ij->i", g, g))
        return player

    def _location(self, close, u, frames_idx, a, b) -> np.ndarray:
        p = self.loc[a] + u[:, None] * (self.loc[b] - self.loc[a]) - self.loc[frames_idx]
        dist2 = np.einsum("ij,ij->i", p, p)
        far = dist2 > self.loc_tol**2
        # Below cos_tol (a fail) and lower the farther off, so the split
        # lands on the worst location frame, not the first of many ties.
        loc_close = self.cos_tol * self.loc_tol**2 / np.where(far, dist2, 1.0)
        return np.where(far, np.minimum(close, loc_close), close)


# Where a candidate interval is probed first (fractions of its length): one
# failing probe rejects it without evaluating every frame, which is what most
# candidates of a near-dense result do.
PROBES = np.array([0.25, 0.5, 0.75])
_BIG = np.iinfo(np.int64).max


def _check(batch: _Batch, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For intervals between kept keys a[m] < b[m] (b - a >= 2): (ok (m,), worst frame (m,)).

    ``ok``: both players meet the tolerance at every frame strictly between
    and the method turns less than MAX_TURN; where not ok, ``worst`` is the
    frame to split at (the worst frame, or where half the turn is reached).
    """
    m = a.shape[0]
    ok = np.ones(m, dtype=bool)
    worst = np.zeros(m, dtype=np.int64)
    if m == 0:
        return ok, worst
    span = b - a
    # Short intervals are evaluated in full at once (probing them would
    # evaluate the same few frames twice).
    probed = np.flatnonzero(span > PROBES.size + 1)
    fail = np.zeros(m, dtype=bool)
    if probed.size:
        pa, pb, ps = a[probed], b[probed], span[probed]
        probes = pa[:, None] + np.rint(ps[:, None] * PROBES).astype(np.int64)
        close = batch.closeness(
            probes.ravel(), np.repeat(pa, PROBES.size), np.repeat(pb, PROBES.size)
        ).reshape(probed.size, PROBES.size)
        j = close.argmin(axis=1)
        rows = np.arange(probed.size)
        bad = close[rows, j] < batch.cos_tol
        fail[probed[bad]] = True
        ok[probed[bad]] = False
        worst[probed[bad]] = probes[rows, j][bad]
    rest = np.flatnonzero(~fail)
    if rest.size:
        ra, rb = a[rest], b[rest]
        lengths = rb - ra - 1
        offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        frames = np.repeat(ra + 1 - offsets, lengths) + np.arange(int(lengths.sum()))
        close = batch.closeness(frames, np.repeat(ra, lengths), np.repeat(rb, lengths))
        seg_min = np.minimum.reduceat(close, offsets)
        bad = seg_min < batch.cos_tol
        first = np.minimum.reduceat(
            np.where(close == np.repeat(seg_min, lengths), frames, _BIG), offsets
        )
        ok[rest[bad]] = False
        worst[rest[bad]] = first[bad]
    # Too long a turn for one slerp: split where the method has turned half of it.
    long_turn = ok & (batch.turn[b] - batch.turn[a] >= MAX_TURN)
    if long_turn.any():
        la, lb = a[long_turn], b[long_turn]
        half = np.searchsorted(batch.turn, (batch.turn[la] + batch.turn[lb]) / 2.0)
        ok[long_turn] = False
        worst[long_turn] = np.clip(half, la + 1, lb - 1)
    return ok, worst


def _split(batch: _Batch) -> np.ndarray:
    """Top-down: split every failing interval at its worst frame until all pass."""
    is_key = batch.boundary.copy()
    # Between consecutive kept keys (track ends and fixed keys); a pair across two
    # tracks is adjacent and drops out below.
    kept = np.flatnonzero(is_key)
    a, b = kept[:-1], kept[1:]
    while True:
        wide = b - a >= 2  # adjacent keys have no frame between to miss
        a, b = a[wide], b[wide]
        if a.size == 0:
            return is_key
        ok, worst = _check(batch, a, b)
        a, b, s = a[~ok], b[~ok], worst[~ok]
        is_key[s] = True
        a, b = np.concatenate((a, s)), np.concatenate((s, b))


def _merge(batch: _Batch, is_key: np.ndarray) -> np.ndarray:
    """Bottom-up: drop every other interior key where the merged interval still passes.

    A key whose drop failed once is kept for good (its neighbours only move
    away in later passes, which rarely helps), so later passes are cheap.
    """
    kept = batch.boundary.copy()  # keys that must stay
    for _ in range(MERGE_PASSES):
        dropped = False
        for parity in (0, 1):
            keys = np.flatnonzero(is_key)
            pos = np.flatnonzero((np.arange(keys.shape[0]) % 2 == parity) & ~kept[keys])
            if pos.size == 0:
                continue
            ok, _ = _check(batch, keys[pos - 1], keys[pos + 1])
            is_key[keys[pos[ok]]] = False
            kept[keys[pos[~ok]]] = True
            dropped |= bool(ok.any())
        if not dropped:
            break
    return is_key


def select_keys_many(tracks, tolerance_deg: float, location_tolerance: float = 1e-4) -> list:
    """For each Track, the ascending indices of its dense keys to keep.

    tolerance_deg > 0 (degrees); location_tolerance in scene units. Tracks of
    the same rotation mode are processed together (whole-array numpy).
    """
    if not tolerance_deg > 0.0 or not np.isfinite(tolerance_deg):
        raise ValueError(f"Key tolerance {tolerance_deg!r} deg must be a finite angle above 0.")
    tol = np.radians(max(tolerance_deg - FLOAT32_MARGIN_DEG, 0.5 * tolerance_deg))
    out: list = [None] * len(tracks)
    modes = {}
    for i, t in enumerate(tracks):
        n = len(t.frames)
        if n <= 2:
            out[i] = np.arange(n)
        else:
            modes.setdefault(t.mode, []).append(i)
    for mode, members in modes.items():
        batch = _Batch([tracks[i] for i in members], mode, tol, location_tolerance)
        is_key = _merge(batch, _split(batch))
        for i, start, end in zip(members, batch.starts, batch.ends):
            out[i] = np.flatnonzero(is_key[start : end + 1])
    return out


def select_keys(
    frames,
    quats,
    values,
    mode: str,
    tolerance_deg: float,
    locations=None,
    location_tolerance: float = 1e-4,
) -> np.ndarray:
    """Ascending indices of the dense keys to keep for one track (see the module docstring).

    frames (n,) increasing; quats (n, 4) the method's orientations (w-first);
    values (n, c) the channel values written in ``mode`` ('XYZ'..'ZYX',
    'QUATERNION', 'AXIS_ANGLE'); locations (n, 3) or None.
    """
    f = np.asarray(frames, dtype=np.float64)
    q = np.asarray(quats, dtype=np.float64)
    v = np.asarray(values, dtype=np.float64)
    if not (q.shape[0] == v.shape[0] == f.shape[0]):
        raise ValueError(
            f"select_keys: {f.shape[0]} frames but {q.shape[0]} orientations and "
            f"{v.shape[0]} value rows."
        )
    track = Track(f, q, v, mode, None if locations is None else np.asarray(locations, float))
    return select_keys_many([track], tolerance_deg, location_tolerance)[0]
