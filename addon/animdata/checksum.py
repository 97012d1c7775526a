# SPDX-License-Identifier: GPL-3.0-or-later
"""A number that changes when keys change: whether the Difference Report still describes
a transform's keys, and whether the keys a bake wrote were edited since.

The keys' float32 bits (frames and values, the interpolation's enum values, and the
handles of a curve with Bezier keys, the only ones that play), each times a fixed
pseudo-random weight for its place, summed modulo 2**64: any key moved, retimed, given
another value, interpolation or (played) handle changes it, and integer
arithmetic makes it exact, the same on every machine and numpy (a float dot product's
last bits depend on the BLAS), so a file baked on one machine and opened on another
does not read as edited. One pass over all the curves' values: cheap enough for every
redraw of the few transforms the panel shows; inside ``read_once()`` the arrays are
those the analysis read.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from .read import read_keyframe_arrays

# Blender's Keyframe interpolation enum value of BEZIER (core.fcurve uses Blender's).
_BEZIER = 2

_WEIGHTS = np.empty(0, dtype=np.uint32)


def _weights(n: int) -> np.ndarray:
    """The first ``n`` weights (the same ones whatever ``n``: a seeded stream's prefix)."""
    global _WEIGHTS
    if _WEIGHTS.size < n:
        size = max(n, 2 * _WEIGHTS.size)
        _WEIGHTS = np.random.default_rng(20261205).integers(1, 2**32, size, dtype=np.uint32)
        _WEIGHTS.flags.writeable = False
    return _WEIGHTS[:n]


def checksum(arrays: Sequence) -> int:
    """The checksum of ``arrays`` in order: float32 values (or float64 widened from them,
    as read_keyframe_arrays gives them) and enum values, any shape (flattened)."""
    if not arrays:
        return 0
    bits = np.concatenate([np.asarray(a, dtype=np.float32).ravel() for a in arrays])
    products = np.multiply(bits.view(np.uint32), _weights(bits.size), dtype=np.uint64)
    return int(products.sum(dtype=np.uint64))    # wraps modulo 2**64, as meant


def curve_arrays(co, interpolation, handle_left, handle_right) -> tuple:
    """One curve's part of ``checksum``: co and interpolation, and the handles when a key
    is Bezier (a writer returns this for the curve it filled)."""
    if (np.asarray(interpolation) == _BEZIER).any():
        return co, interpolation, handle_left, handle_right
    return co, interpolation


def keys_arrays(fcurves: Iterable) -> list:
    """``curve_arrays`` of each curve of ``fcurves`` (None skipped), in order. The handles
    are read only from a curve with Bezier keys: a dense bake's Linear keys are more than
    half handles, and Revert checks every baked curve (100 objects x 2,000 frames: 89 ms
    of foreach_get, most of a Revert click)."""
    out = []
    for fc in fcurves:
        if fc is None:
            continue
        keys = read_keyframe_arrays(fc, ("co", "interpolation"))
        if (keys["interpolation"] == _BEZIER).any():
            # (Inside read_once() the first read took the handles too.)
            keys = {**keys, **read_keyframe_arrays(fc, ("handle_left", "handle_right"))}
            out += curve_arrays(keys["co"], keys["interpolation"], keys["handle_left"],
                                keys["handle_right"])
        else:
            out += curve_arrays(keys["co"], keys["interpolation"], None, None)
    return out


def keys_checksum(fcurves: Iterable) -> int:
    """``checksum`` of every key of ``fcurves`` (None skipped), in order."""
    return checksum(keys_arrays(fcurves))
