# SPDX-License-Identifier: GPL-3.0-or-later
"""Great-circle arcs between unit quaternions, and the block kernels that evaluate
``interp.interpolate`` over cache-sized blocks of samples.

Each kernel writes a (4, k) block: ``lerp_block`` and ``nlerp_block`` from a key's
start and delta, ``slerp_block`` from its arc table, ``squad_block`` from two arc
tables (Shoemake 1985). ``arcs`` gives the 4D arc angle and unit tangent of a pair
of keys, accurate at 0 and at pi. Only ``interp`` calls these; their named
thresholds (ANTIPODAL_GAP, LONG_ARC, OUTER_ARC_SHIFT) say where the formulas change.
"""
from __future__ import annotations

import numpy as np

from . import quat

# Two unit quaternions closer than this to antipodal (|q0 + q1| below it) have
# no unique great circle between them. Only reachable without the shortest-arc
# fix (shortest=False, or the inner arcs of Squad); the arc is then taken
# through q0 * (0, 1, 0, 0), i.e. about q0's local X axis, so the choice is
# deterministic instead of NaN. 1e-12 matches quat.ZERO_NORM: below it the
# direction of q0 + q1 is float64 rounding noise.
ANTIPODAL_GAP = quat.ZERO_NORM

# Arcs longer than this 4D angle (radians; 90 degrees of 4D arc, 180 of
# rotation) get their unit tangent re-orthogonalised against the start key and
# renormalised. The tangent (b - cos(omega) a) / sin(omega) carries float64
# rounding of ~1e-16 / sin(omega); up to pi/2 it is only ever multiplied by
# sin(u omega) <= sin(omega), so that stays ~1e-16, but past pi/2 the path's
# middle multiplies it by ~1 while sin(omega) -> 0 near pi: keys 2e-9 short of
# antipodal came out 6e-7 off unit, 2e-12 short 2e-4. Only reachable with
# shortest=False or on Squad's control-point and outer arcs; the shortest-arc
# bake never gets here, so its path is unchanged bit for bit.
LONG_ARC = np.pi / 2

# Squad's outer arc (per sample, between the two inner slerps p and r) is
# weighted by sin(h psi)/sin(psi), which tends to h as psi -> 0 but is 0/0 at
# psi == 0 exactly (whenever the control points coincide with the keys, e.g.
# a uniform rotation). Adding this to tan(psi/2) keeps the ratio finite and
# equal to h there; for any psi above ~1e-290 it changes numerator and
# denominator by the same relative amount, i.e. not at all in float64. It
# also floors 1 + cos(psi), which is 0 only for p == -r (no unique arc).
OUTER_ARC_SHIFT = 1e-300


def arcs(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Great-circle arcs from unit a to unit b, as given (no sign flip).

    Returns ``omega`` (...,), the 4D angle in [0, pi] (half the rotation
    angle), and the unit tangent ``e`` (..., 4) at a towards b, so that
    ``cos(u*omega) a + sin(u*omega) e`` runs from a (u=0) to b (u=1).
    Identical keys get e = 0 (no direction needed: sin(0) = 0).
    """
    diff = b - a
    summ = b + a
    gap = quat.norm(summ)
    omega = 2.0 * np.arctan2(quat.norm(diff), gap)
    sin_omega = np.sin(omega)
    num = b - np.cos(omega)[..., None] * a
    tangent = np.zeros(np.broadcast_shapes(a.shape, b.shape), dtype=np.float64)
    np.divide(num, sin_omega[..., None], out=tangent, where=(sin_omega > 0.0)[..., None])
    antipodal = gap < ANTIPODAL_GAP
    if antipodal.any():
        # Deterministic great circle through a * (0, 1, 0, 0): about a's local X.
        local_x = quat.multiply(a, np.array([0.0, 1.0, 0.0, 0.0]))
        tangent = np.where(antipodal[..., None], local_x, tangent)
        omega = np.where(antipodal, np.pi, omega)
    long = omega > LONG_ARC
    if long.any():
        # See LONG_ARC: one Gram-Schmidt step makes the tangent orthogonal to
        # a and unit to ~1e-16 (its direction error of ~1e-16 / sin(omega) is
        # the great circle's own sensitivity to the keys' last bits), so
        # cos(x) a + sin(x) e stays unit along the whole long arc.
        ortho = tangent - quat.dot(tangent, a)[..., None] * a
        np.divide(ortho, quat.norm(ortho)[..., None], out=ortho, where=long[..., None])
        tangent = np.where(long[..., None], ortho, tangent)
    return omega, tangent

# Samples are evaluated in blocks of this many. A block's work arrays (a few
# (4, BLOCK) float64 buffers of 512 KB) stay in the CPU cache across the
# dozen operations applied to them, and are reused from block to block
# instead of being allocated (and page-faulted) afresh; that makes the
# memory-bound numpy steps 1.5-2x faster than streaming 32 MB arrays at a
# million samples. It is a loop over blocks (62 for a million samples), not
# over samples or keys.
BLOCK = 16384


class Work:
    """Reusable per-block buffers: three (4, size) and four (size,) arrays."""

    def __init__(self, size: int) -> None:
        self.quads = [np.empty((4, size)) for _ in range(3)]
        self.rows = [np.empty(size) for _ in range(4)]

    def view(self, k: int):
        """The first k columns: ([three (4, k)], [three (k,)]) and a (k,) for u."""
        rows = [b[:k] for b in self.rows]
        return ([b[:, :k] for b in self.quads], rows[:3]), rows[3]


def arc_table(start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Arcs between unit keys ``start`` -> ``end`` (n-1, 4), plus the hold segment.

    Returns (start_t (4, n), tangent_t (4, n), half_omega (n,)).
    """
    n = start.shape[0] + 1
    omega, tangent = arcs(start, end)
    start_t = np.empty((4, n))
    start_t[:, :-1] = start.T
    start_t[:, -1] = end[-1]
    tangent_t = np.zeros((4, n))
    tangent_t[:, :-1] = tangent.T
    half = np.zeros(n)
    half[:-1] = 0.5 * omega
    return start_t, tangent_t, half


def sin_cos_from_tan(t, cos_out) -> None:
    """t = tan(x/2) (overwritten with sin x); cos_out <- cos x."""
    np.multiply(t, t, out=cos_out)
    cos_out += 1.0
    np.divide(2.0, cos_out, out=cos_out)  # 2 / (1 + t^2)
    t *= cos_out  # sin x = 2t / (1 + t^2)
    cos_out -= 1.0  # cos x = 2 / (1 + t^2) - 1


def arc_block(dest, scratch, row_a, row_b, table, index, u, out=None) -> None:
    """dest (4, k) <- cos(u omega_i) start_i + sin(u omega_i) tangent_i.

    With ``out`` the sum is written there instead (dest is then scratch too).
    """
    start_t, tangent_t, half = table
    np.take(half, index, mode="clip", out=row_a)
    row_a *= u
    np.tan(row_a, out=row_a)
    sin_cos_from_tan(row_a, row_b)
    np.take(start_t, index, axis=1, mode="clip", out=scratch)
    np.multiply(scratch, row_b, out=dest)
    np.take(tangent_t, index, axis=1, mode="clip", out=scratch)
    scratch *= row_a
    np.add(dest, scratch, out=dest if out is None else out)


def lerp_block(dest, tables, index, u, work) -> None:
    """dest (4, k) <- start_i + u delta_i: per component, not normalised."""
    (start_t, delta_t) = tables[:2]
    (acc, gathered, _), _rows = work
    np.take(delta_t, index, axis=1, mode="clip", out=acc)
    acc *= u
    np.take(start_t, index, axis=1, mode="clip", out=gathered)
    np.add(acc, gathered, out=dest)


# 1 / |a + u (b - a)| above this: the sum is shorter than 0.1 (see nlerp_block).
_SHORT_SUM_SCALE = 10.0


def nlerp_block(dest, tables, index, u, work) -> None:
    """dest (4, k) <- (start_i + u delta_i) / |start_i + u delta_i|, its norm in closed form.

    For unit keys a, b: |a + u (b - a)|^2 = (1 - 2u)^2 + u (1 - u) |a + b|^2, a sum
    of two non-negative terms, so it keeps its digits next to the antipode, where
    1 - 2u(1-u)(1 - a.b) would cancel. That is k values per sample where the plain
    norm of the (4, k) sum costs a reduction over 4k and a 4k division; with the
    scales folded into the two weights, nlerp does the work of a slerp minus its
    tangent, which is what makes it the cheaper method (benchmarks/bench_interp.py).
    """
    start_t, delta_t, sum_norm2 = tables
    (acc, gathered, _), (scale, weight, _) = work
    np.take(sum_norm2, index, mode="clip", out=scale)
    np.subtract(1.0, u, out=weight)
    weight *= u
    scale *= weight                      # u (1 - u) |a + b|^2
    np.multiply(u, -2.0, out=weight)
    weight += 1.0
    weight *= weight                     # (1 - 2u)^2
    scale += weight
    np.sqrt(scale, out=scale)
    np.divide(1.0, scale, out=scale)     # 1 / |a + u (b - a)|
    np.multiply(u, scale, out=weight)
    np.take(delta_t, index, axis=1, mode="clip", out=acc)
    acc *= weight
    np.take(start_t, index, axis=1, mode="clip", out=gathered)
    gathered *= scale
    np.add(acc, gathered, out=dest)
    # Near the antipode the sum itself is short (|a + u (b - a)| below 0.1): its own
    # rounding, ~1e-16 / |sum| relative, then shows in the closed-form norm (7.6e-14 off
    # unit, found by make test-slow). Those samples are normalised by their own norm.
    short = np.flatnonzero(scale > _SHORT_SUM_SCALE)
    if short.size:
        near = dest[:, short]
        dest[:, short] = near / np.sqrt(np.einsum("ik,ik->k", near, near))


def slerp_block(dest, tables, index, u, work) -> None:
    (p, scratch, _), (row_a, row_b, _) = work
    arc_block(p, scratch, row_a, row_b, tables[0], index, u, out=dest)


def squad_block(dest, tables, index, u, work) -> None:
    """Shoemake (1985): slerp(slerp(q_i, q_i+1, u), slerp(s_i, s_i+1, u), 2u(1-u)).

    None of the three slerps takes a shortest-arc flip: the keys are already
    continuous (when asked), and flipping s_i+1 or the outer pair on their
    own would reverse a tangent and break C1 continuity at the keys (this is
    where we differ from numpy-quaternion's squad). Each arc is the great
    circle between the 4-vectors as they are.

    Outer arc, per sample, with c = p.r = cos(psi) and tau = tan(psi/2) =
    sqrt((1-c)/(1+c)): w_r = sin(h psi)/sin(psi), w_p = cos(h psi) - c w_r.
    c is inaccurate for small psi, but these weights tend to (1-h, h) with a
    slope O(psi), so an error of 1e-16/psi in psi moves the result by only
    ~1e-16 (unlike the tangent form of the key arcs, which needs an accurate
    angle and gets it per segment). At h = 0 the weights are exactly (1, 0).
    """
    (p, r, scratch), (row_a, row_b, row_c) = work
    arc_block(p, scratch, row_a, row_b, tables[0], index, u)
    arc_block(r, scratch, row_a, row_b, tables[1], index, u)
    c = np.einsum("ij,ij->j", p, r, out=row_c)
    # Outer arcs longer than LONG_ARC (p.r < 0: only with shortest=False or
    # keys near 180 degrees of rotation apart) are redone below on the
    # re-orthogonalised great circle of arcs: there w_r ~ 1/sin(psi)
    # amplifies the rounding of p, r and c (2e-9 off unit was found) and
    # p == -r has no arc at all. One reduction per block on the normal path.
    long = None
    if c.min() < 0.0:
        long = np.flatnonzero(c < 0.0)
        long_p = p[:, long].T
        long_r = r[:, long].T
    np.minimum(c, 1.0, out=c)
    one_plus_c = np.add(1.0, c, out=row_a)
    np.maximum(one_plus_c, OUTER_ARC_SHIFT, out=one_plus_c)  # p == -r has no unique arc
    tau = np.subtract(1.0, c, out=row_b)
    tau /= one_plus_c
    np.sqrt(tau, out=tau)
    tau += OUTER_ARC_SHIFT  # keeps w_r's 0/0 at psi == 0 finite (-> h)
    sin_psi = one_plus_c
    sin_psi *= tau  # tan(psi/2) (1 + cos psi) = sin(psi)
    # x = h psi / 2 = h atan(tau), h = 2u(1-u)
    x = np.arctan(tau, out=tau)
    h = np.subtract(1.0, u, out=scratch[0])
    h *= u
    h *= 2.0
    x *= h
    t = np.tan(x, out=x)
    cos_h = scratch[0]
    sin_cos_from_tan(t, cos_h)
    w_r = t  # sin(h psi) ...
    w_r /= sin_psi  # ... / sin(psi)
    c *= w_r
    np.subtract(cos_h, c, out=cos_h)  # w_p = cos(h psi) - cos(psi) w_r
    p *= cos_h
    r *= w_r
    np.add(p, r, out=dest)
    if long is not None:
        psi, tangent = arcs(long_p, long_r)
        h_long = 2.0 * u[long] * (1.0 - u[long])
        x = (h_long * psi)[:, None]
        dest[:, long] = (np.cos(x) * long_p + np.sin(x) * tangent).T
