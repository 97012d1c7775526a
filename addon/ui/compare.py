# SPDX-License-Identifier: GPL-3.0-or-later
"""What Blender's own interpolation is compared with, read from the scene settings.

Analyze, the overlay and Export Report all compare with the same method; it lives
in ``ui``, below all three features, so none of them imports another for it.
"""


def compare_method(settings) -> str:
    """A core.interp method name: ``settings.compare_method``, or the bake's
    ``settings.method`` when that is 'BAKE' (the default)."""
    chosen = getattr(settings, "compare_method", 'BAKE')
    return (settings.method if chosen == 'BAKE' else chosen).lower()
