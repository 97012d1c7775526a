# SPDX-License-Identifier: GPL-3.0-or-later
"""The frames the selection is keyed over: where a custom bake range starts from."""
from __future__ import annotations

import math

# Reading every key of a huge selection on a click would stall the UI: the
# first objects decide (the bake itself still reads them all).
KEYED_RANGE_LIMIT = 64


def keyed_range(objects) -> tuple[int, int] | None:
    """(first, last) whole frames covering the rotation and location keys of
    ``objects`` (first rounded down, last up), or None when none is keyed."""
    from .. import animdata

    first, last = math.inf, -math.inf
    for obj in list(objects)[:KEYED_RANGE_LIMIT]:
        keys = animdata.key_frames(animdata.rotation_fcurves(obj) + animdata.location_fcurves(obj))
        keys = keys[[math.isfinite(k) for k in keys]] if keys.size else keys
        if keys.size:
            first, last = min(first, float(keys[0])), max(last, float(keys[-1]))
    if not math.isfinite(first):
        return None
    return math.floor(first), math.ceil(last)
