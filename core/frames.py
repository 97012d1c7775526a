# SPDX-License-Identifier: GPL-3.0-or-later
"""Validation of frame arrays (key times, sample times), shared by interp, path and metrics.

Frames are float64 numbers; an array of them is 1-D, shape (n,). Bad input
raises ValueError with a sentence naming the argument (``what``), the entry
and its frame.
"""
from __future__ import annotations

import numpy as np


def label(frame: float) -> str:
    """A frame in a sentence: ``12`` for whole frames, ``12.5`` otherwise, to a millionth
    (a subframe read from float32 keys is 12.100000381...; a cut keyed at 12.9996 is not
    13). Never %g's six significant digits, which made frame 100009.5 "100010" and frame
    1000001 "1.000001e+06" (a walk)."""
    f = float(frame)
    if f.is_integer():
        return str(int(f))
    if float(np.float32(f)) == f:
        # A key time as Blender stores it (float32): the shortest digits that are that
        # float32, as Blender shows it. A 30 fps glTF key in a 24 fps scene is float32
        # 240.4, 240.39999389..., which to a millionth read "240.399994" (a walk).
        text = np.format_float_positional(np.float32(f), unique=True, trim="-")
    else:
        text = f"{f:.6f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def span(first: float, last: float) -> str:
    """Frames ``first`` to ``last`` in a sentence: ``1-100``, and ``-10 to 20`` where one is
    negative (a walk: keys of an FBX clip at frames -4999999 to -9 read "-4999999--9")."""
    a, b = label(first), label(last)
    return f"{a} to {b}" if float(first) < 0.0 or float(last) < 0.0 else f"{a}-{b}"


def as_frames(values, what: str, *, copy: bool = True, item: str = "entry") -> np.ndarray:
    """``values`` as a float64 (n,) array of frames, checked 1-D and finite.

    ``what`` names the argument in the error sentence, ``item`` one of its
    entries ("entry", "key"). With ``copy=False`` the result may be the
    caller's own array (read-only use: copying a million samples costs more
    than looking them up); with ``copy=True`` it is always a new array.
    """
    arr = np.array(values, dtype=np.float64, copy=True) if copy else np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{what}: expected a 1-D array of frames, got shape {arr.shape}.")
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{what}: {item} {i} is {arr[i]}, not a finite frame number.")
    return arr


def as_key_times(values, what: str, *, item: str = "entry") -> np.ndarray:
    """A new float64 (n,) array of frames: 1-D, finite and strictly increasing.

    n may be 0; callers that need a key say so in their own words.
    """
    arr = as_frames(values, what, copy=True, item=item)
    check_increasing(arr, what, item=item)
    return arr


def check_increasing(frames: np.ndarray, what: str, *, item: str = "entry") -> None:
    """Raise unless the finite (n,) array ``frames`` is strictly increasing.

    The sentence names both entries and their frames and says whether the
    step is a duplicate or goes backwards.
    """
    with np.errstate(over="ignore"):  # an overflowing gap still increases
        steps = np.diff(frames)
    if (steps <= 0.0).any():
        i = int(np.argmax(steps <= 0.0)) + 1
        kind = f"duplicate {item} time" if steps[i - 1] == 0.0 else f"earlier than the {item} before it"
        raise ValueError(
            f"{what} must be strictly increasing: {item} {i} at frame {frames[i]:g} comes after "
            f"{item} {i - 1} at frame {frames[i - 1]:g} ({kind})."
        )
