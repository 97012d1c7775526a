# SPDX-License-Identifier: GPL-3.0-or-later
"""The export check: the selection exported with Blender's glTF exporter, played back
as the glTF 2.0 spec says, and compared with Blender.

- ``exporter``: Blender's glTF exporter, its options and running it;
- ``engine``: ``check_objects``, the export's playback and the comparison;
- ``timing``: the exporter's seconds per frame, and its slide or cut before frame 0;
- ``unplayed``: the exported NLA clips Blender does not play, left out of the comparison;
- ``ops``, ``panel``: the operator and the Export Check panel.

The engine's public names are forwarded here, loaded on first use (``lazy``).
"""
from ..lazy import forward

EXPORTER_NAMES = (
    "FIXED_OPTIONS",
    "REFUSED_VALUES",
    "ExportCheckError",
    "require_exporter",
    "parse_exporter_options",
    "export_gltf",
    "exporter_version",
    "written_bytes",
)
ENGINE_NAMES = (
    "MAX_CHECK_FRAMES",
    "KEY_FRAME_DECIMALS",
    "check_frames",
    "blender_world",
    "blender_world_at",
    "check_objects",
)
TIMING_NAMES = ("exporter_seconds_per_frame",)
__getattr__, __dir__ = forward(__name__, {"engine": ENGINE_NAMES, "exporter": EXPORTER_NAMES,
                                          "timing": TIMING_NAMES})
