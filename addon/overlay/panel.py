# SPDX-License-Identifier: GPL-3.0-or-later
"""The Overlay panel: its switch, ghosts, the pin, the display popover and the legend
of what the viewport draws (``overlay.draw``'s last rebuild)."""
import bpy

from ..ui import translations
from .draw import legend
from .legend import Legend


def _settings(scene):
    return getattr(scene, "quatbake", None)


PANEL_NAME = "Overlay"


# (swatch property, what the colour means); the speed rows add their number.
_SPEED_SWATCHES = ("legend_still", "legend_slow", "legend_fast", "legend_fastest")


SWATCH_UNITS = 1.6


# The text beside a swatch starts this far in (swatch and gap, at ui_scale 1).
SWATCH_INDENT_PX = SWATCH_UNITS * 20.0 + 8.0


def _swatch_row(layout, settings, prop: str):
    """A row starting with the real colour of ``prop`` (a colour property of the legend)."""
    row = layout.row(align=True)
    swatch = row.row(align=True)
    swatch.ui_units_x = SWATCH_UNITS
    swatch.prop(settings, prop, text="")
    return row


def _swatch_text(layout, context, settings, prop: str, text: str, icon: str = 'NONE') -> None:
    """A swatch with ``text`` beside it, wrapped in the width that is left."""
    from ..ui.texts import wrapped_label

    row = _swatch_row(layout, settings, prop)
    wrapped_label(row.column(align=True), context, text, icon=icon, panel=PANEL_NAME,
                  indent_px=SWATCH_INDENT_PX, translate=False)


def draw_legend(layout, context, settings, info: Legend) -> None:
    """The legend: real colour swatches and what each colour measures."""
    from ...core import triads  # loaded by the rebuild that found the objects
    from ..ui.texts import wrapped_label

    box = layout.box()
    if not info.objects:
        box.label(text="Select or pin an animated object", text_ctxt=translations.CONTEXT,
                  icon='INFO')
        return
    wrapped_label(box, context, "Path colour: how fast the object turns, \u00b0/frame", panel=PANEL_NAME)
    # The four stops side by side, each swatch above its number: two rows for
    # the whole ramp, so the panel stays short.
    swatches = box.row(align=True)
    numbers = box.row(align=True)
    # Round numbers (0°, 2°, 4°, 6°+): the top is a round speed at a high percentile
    # (core.triads.legend_scale), faster turns take the last colour.
    for prop, text in zip(_SPEED_SWATCHES, triads.legend_labels(info.speed_max)):
        swatches.prop(settings, prop, text="")
        numbers.label(text=text, translate=False)
    tr = translations.iface
    for swatch, text, warning in info.lines(settings.overlay_show_ghost, tr):
        # already translated, numbers and all
        if swatch is None:
            wrapped_label(box, context, text, panel=PANEL_NAME, translate=False)
        else:
            _swatch_text(box, context, settings, swatch, text,
                         icon='ERROR' if warning else 'NONE')


class QUATBAKE_PT_overlay(bpy.types.Panel):
    """Overlay settings and the speed legend, under the main QuatBake panel."""

    bl_label = PANEL_NAME
    bl_idname = "QUATBAKE_PT_overlay"
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "QuatBake"
    bl_parent_id = "QUATBAKE_PT_main"
    # After Re-bake (1): the legend is a key of varying length, below what is acted on
    # (ui.panel says why).
    bl_order = 2

    @classmethod
    def poll(cls, context):
        return _settings(context.scene) is not None

    def draw_header(self, context):
        self.layout.prop(_settings(context.scene), "show_overlay", text="")

    def draw(self, context):
        from ..ui.texts import start_panel, wrapped_label

        start_panel(PANEL_NAME)
        settings = _settings(context.scene)
        layout = self.layout
        col = layout.column(align=True)
        col.active = settings.show_overlay
        row = col.row(align=True)
        row.prop(settings, "overlay_show_ghost", text="Ghosts", text_ctxt=translations.CONTEXT)
        # Spacing, size and width in a popover: rarely changed, and a row of
        # their own would push the Re-bake button off a 900-pixel screen.
        row.popover(panel=QUATBAKE_PT_overlay_display.bl_idname, text="", icon='PREFERENCES')
        active = context.active_object
        if active is not None and getattr(active, "quatbake", None) is not None:
            # The name on its own button: in the check box's label it was cut
            # ('Pin "ShotCa...').
            pinned = active.quatbake.overlay_pinned
            row.prop(active.quatbake, "overlay_pinned", text="Pin", text_ctxt=translations.CONTEXT,
                     icon='PINNED' if pinned else 'UNPINNED')
        if not settings.show_overlay:
            return
        info = legend()
        draw_legend(layout, context, settings, info)
        for problem in info.problems:
            wrapped_label(layout, context, problem, icon='ERROR', panel=PANEL_NAME,
                          translate=False)


class QUATBAKE_PT_overlay_display(bpy.types.Panel):
    """How the overlay draws: spacing, size and line width (closed at first: rarely changed)."""

    bl_label = "Display"
    bl_idname = "QUATBAKE_PT_overlay_display"
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'HEADER'   # shown only as the Overlay panel's popover

    def draw(self, context):
        settings = _settings(context.scene)
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        col = layout.column()
        col.active = settings.show_overlay
        col.prop(settings, "overlay_step")
        col.prop(settings, "overlay_size")
        col.prop(settings, "overlay_line_width")
        col.prop(settings, "overlay_show_names")
        col.prop(settings, "overlay_show_legend")


classes = (QUATBAKE_PT_overlay, QUATBAKE_PT_overlay_display)


def register() -> None:
    # The sub-panel needs its parent; without the main panel (e.g. a trimmed
    # build) the overlay still works from scene.quatbake.show_overlay.
    if hasattr(bpy.types, "QUATBAKE_PT_main"):
        for cls in classes:
            bpy.utils.register_class(cls)


def unregister() -> None:
    for cls in reversed(classes):
        if cls.is_registered:
            bpy.utils.unregister_class(cls)
