# SPDX-License-Identifier: GPL-3.0-or-later
"""What Blender's own interpolation is compared with, read from the scene settings.

Analyze, the overlay and Export Report all compare with the same method; it lives
in ``ui``, below all three features, so none of them imports another for it.
"""


def compare_method(settings, baked: str | None = None) -> str:
    """A core.interp method name: ``settings.compare_method``, or the bake's method when
    that is 'BAKE' (the default): ``baked``, the method of the bake just made, when given
    (a Re-bake called with its own, or changed in the redo panel), else
    ``settings.method``."""
    chosen = getattr(settings, "compare_method", 'BAKE')
    if chosen != 'BAKE':
        return chosen.lower()
    return (baked or settings.method).lower()
