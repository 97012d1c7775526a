# SPDX-License-Identifier: GPL-3.0-or-later
"""The viewport overlay: axis triads along each path, the long-arc band, ghosts of
what Blender plays, and the legend of what is drawn.

- ``geometry``: the samples and line arrays, from ``core.triads`` (no GPU);
- ``legend``: what the last rebuild found, for the panel;
- ``cache``: each transform's geometry kept until what it is made from changes;
- ``draw``: the draw handler, its batches and the handlers that keep it current;
- ``panel``: the Overlay panel.

The draw module's public names are forwarded here: ``overlay.rebuild()`` (its
``legend()`` is ``overlay.draw.legend()``: ``overlay.legend`` is the module).
"""
from .draw import (  # noqa: F401
    BATCH_ORDER,
    cache_stats,
    cached_arrays,
    disable,
    drawn_lod_level,
    enable,
    handler_counts,
    is_enabled,
    rebuild,
    rebuild_count,
    settings_changed,
    sync,
)
