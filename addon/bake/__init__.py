# SPDX-License-Identifier: GPL-3.0-or-later
"""The bake: QuatBake's interpolation written back as keys, all transforms or none,
and taken back by Revert.

- ``engine``: ``bake_objects`` and ``revert_objects``, the order of the steps;
- ``settings``: what a bake is asked (``BakeSettings``) and what it finds wrong;
- ``read``: step 1, each transform checked and its keys read;
- ``turns``: the keyed turns of every transform, tracked together;
- ``plan``: step 2, the keys interpolated with ``core`` and converted;
- ``deviation``: how far Blender's own playback is from the bake;
- ``reduce``: fewer keys within a tolerance, and what the keys written measure;
- ``write``: step 3, the new actions written, undone on failure, reverted;
- ``convert``: a rotation-mode conversion, a bake of Blender's own playback;
- ``ops``, ``panel``, ``presets``: the operators, the Re-bake panel, the presets.

The engine's public names are forwarded here (docs/api.md): ``bake.bake_objects``.
They load on first use, so registering the operators and panels does not load the
engine and ``core`` (measured in benchmarks/bench_register.py).
"""

from ..keyed import MAX_FRAMES as MAX_BAKE_FRAMES  # noqa: F401  (one cap for both)
from ..lazy import forward

ENGINE_NAMES = (
    "ANGLE_FLOAT32_WARN",
    "BAKED_SUFFIX",
    "LOCATION_FLOAT32_WARN",
    "LOCATION_METHODS",
    "MAX_TURN_NOTES",
    "METHODS",
    "OUTPUT_MODES",
    "TIMINGS",
    "TURNS",
    "BakeError",
    "BakeIssue",
    "BakeResult",
    "BakeSettings",
    "bake_objects",
    "can_revert",
    "revert_objects",
    "location_words",
    "within_words",
)

# The rotation-mode conversion, a bake that keeps Blender's playback.
CONVERT_NAMES = ("CONVERT_MODES", "CONVERT_TOLERANCE_DEG", "convert_objects")

# How a bake's tolerances read, for the operator and the command line alike.
SETTINGS_NAMES = ("has_tolerance", "merge_bone_issues", "tolerance_words")

__getattr__, __dir__ = forward(__name__, {"engine": ENGINE_NAMES, "convert": CONVERT_NAMES,
                                          "settings": SETTINGS_NAMES})
