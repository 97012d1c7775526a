# SPDX-License-Identifier: GPL-3.0-or-later
"""What the overlay's legend says: one plain record, shared by both overlay halves.

``overlay.geometry`` fills it in on every rebuild and ``overlay.draw`` (the
registry, the draw callback and the panel) shows it. It lives on its own,
below both, so the two never import each other.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Legend:
    """What the panel shows next to the overlay settings."""

    speed_max: float = 0.0          # degrees per frame of the ramp's last colour
    long_arc_count: int = 0         # key intervals the playing animation turns the long way round
    # Key intervals the original keys turned the long way round that a QuatBake
    # bake now plays on the short arc (0 when nothing drawn is baked).
    fixed_long_arc_count: int = 0
    spin_count: int = 0             # key intervals spinning as keyed (kept: green band)
    step_count: int = 0             # stepped key intervals (grey band)
    objects: list[str] = field(default_factory=list)
    baked_objects: list[str] = field(default_factory=list)   # drawn from a QuatBake bake
    cameras: list[str] = field(default_factory=list)         # drawn with their view direction
    problems: list[str] = field(default_factory=list)        # objects skipped, and why
    # Median distance (Blender units) between neighbouring triads of the objects
    # drawn: the draw callback turns it into pixels to pick a thinned level.
    triad_spacing: float = 0.0
    # The same per thinned level (core.triads.LOD_LEVELS): {level: Blender units}. Dense
    # keys thin faster than the in-between triads, so each level is measured.
    level_spacing: dict = field(default_factory=dict)
    in_place: list[str] = field(default_factory=list)        # drawn as a turn arc

    def lines(self, show_ghost: bool, tr=str) -> list[tuple[str | None, str, bool]]:
        """What the legend says under the speed ramp, for the panel and the viewport
        alike: (swatch property of scene.quatbake or None, text, whether it is a warning).
        ``tr`` translates each pattern before its numbers go in (pgettext_iface: every
        line is in the interface's language, numbers and all)."""
        fixed = tr(", {:d} fixed").format(self.fixed_long_arc_count) \
            if self.fixed_long_arc_count else ""
        count = f"{self.long_arc_count:d}" if self.long_arc_count else tr("none")
        found = [("legend_long_arc", tr("Long way: {}{}").format(count, fixed),
                  bool(self.long_arc_count))]
        if show_ghost:
            whose = tr("before the bake") if self.baked_objects else tr("Blender now")
            found.append(("legend_ghost", tr("Ghosts: {}").format(whose), False))
        if self.spin_count:
            found.append((None, tr("Keyed spins, kept: {:d} (green band)").format(
                self.spin_count), False))
        if self.step_count:
            found.append((None, tr("Stepped keys: {:d} (grey band)").format(self.step_count),
                          False))
        found.append((None, tr("Keys: white \u25b3; camera view: dashes") if self.cameras
                      else tr("Keys: white \u25b3"), False))
        return found
