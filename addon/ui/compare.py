# SPDX-License-Identifier: GPL-3.0-or-later
"""What Blender's own interpolation is compared with, read from the scene settings.

Analyze, the overlay and Export Report all compare with the same method; it
lives below all three (and below ``props``, which imports the overlay on use)
so no two modules import each other.
"""


def compare_method(settings) -> str:
    """A core.interp method name: ``settings.compare_method``, or the bake's
    ``settings.method`` when that is 'BAKE' (the default)."""
    chosen = getattr(settings, "compare_method", 'BAKE')
    return (settings.method if chosen == 'BAKE' else chosen).lower()
