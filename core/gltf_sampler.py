# SPDX-License-Identifier: GPL-3.0-or-later
"""Evaluate glTF 2.0 animation samplers at any times, as the spec says a player must.

glTF 2.0 spec, section 3.11 and Appendix C ("Interpolation"):

- STEP: the value of the key at or before t.
- LINEAR: lerp for translation, scale and weights; for rotation, spherical
  linear interpolation on the short arc (the spec's pseudocode takes
  ``s = sign(dot)``, so a key stored with its sign flipped against the
  previous one does not make the player turn the long way).
- CUBICSPLINE: per key an in-tangent a, a value v and an out-tangent b; on
  [t_k, t_k+1] with td = t_k+1 - t_k and s = (t - t_k) / td,
  ``p(s) = (2s^3 - 3s^2 + 1) v_k + td (s^3 - 2s^2 + s) b_k
  + (-2s^3 + 3s^2) v_k+1 + td (s^3 - s^2) a_k+1``; rotations are normalised
  after (the cubic runs through the 4D space, not on the sphere).

Before the first key and after the last the sampler holds the end value
(what every player does; the spec leaves it to the implementation, three.js,
Babylon and Khronos' sample viewer all clamp). Times are seconds. Values keep
the file's component order (rotations x, y, z, w: slerp, lerp and the cubic
treat the four components alike, so the order does not matter here).
"""

from __future__ import annotations

import numpy as np

from . import interp, quat
from .gltf_read import INTERPOLATIONS, Sampler

# A CUBICSPLINE rotation whose cubic passes within this norm of zero has no
# direction to normalise (the same threshold as core.quat refuses).
ZERO_NORM = quat.ZERO_NORM


def _check(times: np.ndarray, values: np.ndarray, interpolation: str, what: str) -> None:
    if interpolation not in INTERPOLATIONS:
        raise ValueError(
            f"{what}: interpolation {interpolation!r} is not one of {', '.join(INTERPOLATIONS)}."
        )
    if times.ndim != 1 or times.shape[0] == 0:
        raise ValueError(f"{what}: a sampler needs at least one key time.")
    if not np.isfinite(times).all():
        raise ValueError(
            f"{what}: key {int(np.argmax(~np.isfinite(times)))} has a time that is not "
            "a finite number."
        )
    steps = np.diff(times)
    if (steps <= 0.0).any():
        k = int(np.argmax(steps <= 0.0))
        raise ValueError(
            f"{what}: key times must increase strictly (spec 3.11), but key {k + 1} at "
            f"{times[k + 1]:g} s is not after key {k} at {times[k]:g} s."
        )
    rows = 3 * times.shape[0] if interpolation == "CUBICSPLINE" else times.shape[0]
    if values.ndim != 2 or values.shape[0] != rows:
        raise ValueError(
            f"{what}: {interpolation} with {times.shape[0]} keys needs {rows} output "
            f"values, the file has {values.shape[0] if values.ndim else 0}."
        )
    if not np.isfinite(values).all():
        raise ValueError(
            f"{what}: output value {int(np.argmax(~np.isfinite(values).all(axis=1)))} "
            "is not finite."
        )


def _locate(times: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Interval index k (0..n-2), fraction s in [0, 1] and clamped t for every sample."""
    n = times.shape[0]
    tc = np.clip(t, times[0], times[-1])
    k = np.clip(np.searchsorted(times, tc, side="right") - 1, 0, max(n - 2, 0))
    if n == 1:
        return k, np.zeros_like(tc), tc
    td = times[k + 1] - times[k]
    s = np.clip((tc - times[k]) / td, 0.0, 1.0)
    return k, s, tc


def evaluate(
    times, values, interpolation: str, sample_times, rotation: bool = False, what: str = "sampler"
) -> np.ndarray:
    """Sampler values at ``sample_times`` (m,) seconds -> (m, k).

    ``times`` (n,) seconds, ``values`` (n, k) (LINEAR, STEP) or (3n, k)
    (CUBICSPLINE: in-tangent, value, out-tangent per key). ``rotation``
    makes LINEAR a short-arc slerp and normalises CUBICSPLINE results (and
    every rotation result is unit length).
    """
    times = np.asarray(times, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    t = np.asarray(sample_times, dtype=np.float64).ravel()
    _check(times, values, interpolation, what)
    if not np.isfinite(t).all():
        raise ValueError(f"{what}: sample times must be finite numbers.")
    n = times.shape[0]
    if interpolation == "CUBICSPLINE":
        tangent_in, points, tangent_out = values[0::3], values[1::3], values[2::3]
    else:
        points = values
    if rotation and interpolation != "CUBICSPLINE":
        # Stored keys are unit only to float32 (~1e-7): players normalise them.
        # The cubic is the spec's formula on the stored values, normalised after.
        points = quat.normalize(points, f"{what} key")
    k, s, tc = _locate(times, t)
    if n == 1:
        out = np.repeat(points[:1], t.shape[0], axis=0)
        return quat.normalize(out, f"{what} key") if rotation else out
    if interpolation == "STEP":
        # The key at or before t: at exactly t_k+1 the next key's value holds. Key times
        # are float32 (an exporter writes float32(frame / fps)), so a frame's time in
        # float64 can fall a rounding short of its own key: within the key time's float32
        # spacing it is at that key (a walk: a stepped camera read 20.6 deg off on the
        # frames whose float32 time rounded up, 8e-8 s after the frame).
        next_time = times[k + 1]
        at_next = tc >= next_time - np.spacing(np.abs(next_time).astype(np.float32))
        return points[np.where(at_next, k + 1, k)]
    if interpolation == "LINEAR":
        if rotation:
            return interp.slerp(points[k], points[k + 1], s)
        return (1.0 - s)[:, None] * points[k] + s[:, None] * points[k + 1]
    td = (times[k + 1] - times[k])[:, None]
    s = s[:, None]
    s2, s3 = s * s, s * s * s
    out = (
        (2.0 * s3 - 3.0 * s2 + 1.0) * points[k]
        + td * (s3 - 2.0 * s2 + s) * tangent_out[k]
        + (-2.0 * s3 + 3.0 * s2) * points[k + 1]
        + td * (s3 - s2) * tangent_in[k + 1]
    )
    if not rotation:
        return out
    norms = quat.norm(out)
    if (norms < ZERO_NORM).any():
        i = int(np.argmax(norms < ZERO_NORM))
        raise ValueError(
            f"{what}: the CUBICSPLINE rotation passes through zero at {t[i]:g} s, where "
            "it has no orientation; the keys' signs or tangents are broken."
        )
    return out / norms[:, None]


def evaluate_sampler(
    sampler: Sampler, sample_times, path: str, what: str = "sampler"
) -> np.ndarray:
    """``evaluate`` for a ``gltf_read.Sampler`` of a channel with target ``path``.

    For ``weights`` the output of each key is all morph targets' weights, so
    it is reshaped to (n, targets) first.
    """
    values = sampler.output
    n = sampler.input.shape[0]
    rows = 3 * n if sampler.interpolation == "CUBICSPLINE" else n
    if path == "weights" and values.shape[1] == 1 and rows and values.shape[0] % rows == 0:
        values = values.reshape(rows, -1)
    return evaluate(
        sampler.input,
        values,
        sampler.interpolation,
        sample_times,
        rotation=(path == "rotation"),
        what=what,
    )
