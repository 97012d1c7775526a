# SPDX-License-Identifier: GPL-3.0-or-later
"""QuatBake: rotation-aware re-bake, viewport overlay and difference report.

This file stays thin on purpose. The same folder is
- a Blender extension (blender_manifest.toml, Blender 4.2+),
- a legacy add-on (bl_info below, Blender 3.4 - 4.1),
- the Python package ``quatbake`` for pipelines (``pip install -e .``).

``import quatbake.core`` must work without Blender, so nothing here imports
bpy at import time: register() and unregister() import ``addon`` lazily.
"""

bl_info = {
    "name": "QuatBake",
    "author": "QuatBake developers",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "3D Viewport > Sidebar > QuatBake",
    "description": "Re-bake rotations with slerp/Squad, see them as axis triads, "
    "and measure how Blender's own interpolation differs",
    "category": "Animation",
}


def register() -> None:
    from . import addon

    addon.register()


def unregister() -> None:
    from . import addon

    addon.unregister()
