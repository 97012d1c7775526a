# SPDX-License-Identifier: GPL-3.0-or-later
"""The analysis: Blender's own interpolation of each transform compared with
QuatBake's method, frame by frame, and the Difference Report made of it.

- ``engine``: ``analyze_many`` (a rig's bones compared together), ``analyze_object`` and
  what a transform offers to analyse;
- ``entries``: the report's entries per scene, as the panel and scripts read them;
- ``ops``, ``panel``: Analyze and Jump to Worst Frame, and the Difference Report panel;
- ``export``: the Export Report operator (HTML with its JSON).

The public names of ``engine`` and ``entries`` are forwarded here (docs/api.md).
"""
from .engine import (  # noqa: F401
    DRIVEN,
    NoRotationKeys,
    RangeTooLong,
    Skipped,
    analysis_frames,
    analysis_targets,
    analyze_many,
    analyze_object,
    location_findings,
    no_keys_sentence,
    result_label,
    skipped_transform,
)
from .entries import (  # noqa: F401
    FINE_DEG,
    REFRESH_FRAME_LIMIT,
    VERDICT_FINE,
    VERDICT_LONG_WAY,
    VERDICT_RANK,
    VERDICT_SKIPPED,
    VERDICT_VISIBLE,
    analyze_into,
    before_after,
    fingerprint,
    forget_all,
    is_stale,
    named_transform,
    refresh,
    results,
    summary,
    verdict,
    worst_first,
)
