# SPDX-License-Identifier: GPL-3.0-or-later
"""Labels that wrap to the sidebar's real width.

Blender's panels never wrap a label: a long one is cut ("Constant Sp...").
``wrapped_label`` splits text into lines that fit the region it is drawn in,
measured with the interface font (``blf``) where it can be, and never cuts a
word (a word wider than the region gets a line to itself).

``drawn_lines()`` keeps, for the last draw of each panel, every line with its
measured width and the width it had: the GUI tests read it to check that no
label is longer than its region allows.
"""
from __future__ import annotations

import bpy

# Pixels the sidebar's category tabs, a panel's margins and a box's padding
# take from the region's width at ui_scale 1 (measured on Blender 3.4.1's
# screenshots at 1600x900: a 229 px sidebar leaves 166 px to a label in a
# box of a sub-panel).
MARGIN_PX = 64.0
# blf measures the label font a little narrower than the widget draws it
# (kerning, the label's own padding): leave this much of the line free.
SAFETY = 0.94
ICON_PX = 20.0
# Average width of one character of the interface font at 11 points and
# ui_scale 1, when blf cannot measure (the bpy module without a window).
FALLBACK_CHAR_PX = 6.5

_DRAWN: dict[str, list[tuple[str, float, float]]] = {}


def _ui_scale(context) -> float:
    prefs = getattr(context, "preferences", None)
    system = getattr(prefs, "system", None)
    return float(getattr(system, "ui_scale", 1.0) or 1.0)


def _font_points(context) -> float:
    try:
        return float(context.preferences.ui_styles[0].widget_label.points)
    except (AttributeError, IndexError, TypeError):
        return 11.0


def text_width(context, text: str) -> float:
    """Width of ``text`` in region pixels, in the interface's label font."""
    scale = _ui_scale(context)
    if not bpy.app.background:
        try:
            import blf

            points = _font_points(context)
            if bpy.app.version >= (4, 0, 0):
                blf.size(0, points)
            else:
                blf.size(0, points, 72)
            return float(blf.dimensions(0, text)[0]) * scale
        except Exception:  # noqa: BLE001 - no font: fall back to the estimate
            pass
    return len(text) * FALLBACK_CHAR_PX * _font_points(context) / 11.0 * scale


# A panel shown as a popover (wm.call_panel) is this many interface units wide
# (Blender's default panel width, 10 units of 20 px); context.region is then
# the region it pops up over, not the popover.
POPOVER_UNITS = 10
UNIT_PX = 20.0
POPOVER_PADDING_PX = 20.0


def available_width(context, icon: bool = False, indent_px: float = 0.0) -> float:
    """Pixels a label in a box of a sub-panel of this region can use."""
    region = getattr(context, "region", None)
    scale = _ui_scale(context)
    if getattr(region, "type", 'UI') == 'UI':
        width = float(getattr(region, "width", 0) or 300)
    else:
        width = (POPOVER_UNITS * UNIT_PX + POPOVER_PADDING_PX) * scale
    usable = (width - (MARGIN_PX + indent_px + (ICON_PX if icon else 0.0)) * scale) * SAFETY
    return max(usable, 40.0)


# Below this many interface pixels a sidebar is "narrow": panels drop split
# labels and secondary columns instead of letting Blender cut them.
NARROW_PX = 180.0


def is_narrow(context) -> bool:
    """Whether the region is too narrow for a label beside each field."""
    region = getattr(context, "region", None)
    if getattr(region, "type", 'UI') != 'UI':
        return False
    return float(getattr(region, "width", 300) or 300) / _ui_scale(context) < NARROW_PX


# From here on (CJK radicals, kana, ideographs, full-width forms) a line may
# break between two characters.
CJK_START = 0x2E80
# Marks a piece that joins the previous one without a space.
_GLUE = "\u2060"


def _cjk_pieces(word: str) -> list[str]:
    """``word`` split before every CJK character; pieces after the first start
    with _GLUE so wrap() joins them without a space."""
    pieces, current = [], ""
    for c in word:
        if ord(c) >= CJK_START and current:
            pieces.append(current)
            current = _GLUE + c
        else:
            current += c
    pieces.append(current)
    return pieces


def wrap(context, text: str, width_px: float) -> list[str]:
    """``text`` split at spaces into lines at most ``width_px`` wide (words never cut)."""
    words = []
    for word in text.split():
        # Chinese and Japanese have no spaces: a run of such characters may
        # break between any two of them (a Latin word is never cut).
        if any(ord(c) >= CJK_START for c in word) and text_width(context, word) > width_px:
            words.extend(_cjk_pieces(word))
        else:
            words.append(word)
    lines: list[str] = []
    current = ""
    for word in words:
        glued = word.startswith(_GLUE)
        word = word.lstrip(_GLUE)
        trial = (current + word if glued else f"{current} {word}") if current else word
        if current and text_width(context, trial) > width_px:
            lines.append(current)
            current = word
        else:
            current = trial
    if current:
        lines.append(current)
    return lines or [""]


def wrapped_label(layout, context, text: str, icon: str = 'NONE', panel: str = "",
                  indent_px: float = 0.0, translate: bool = True) -> None:
    """Draw ``text`` as one label per line, wrapped to the region's width.

    ``text`` is translated first (``translate``; off for names, sentences
    made at run time and advice). The first line carries ``icon``; the others
    are indented as far, so the text stays in one column. ``panel`` names the
    panel for ``drawn_lines``.
    """
    if translate:
        text = bpy.app.translations.pgettext_iface(text)
    has_icon = icon != 'NONE'
    width = available_width(context, has_icon, indent_px)
    col = layout.column(align=True)
    for k, line in enumerate(wrap(context, text, width)):
        if has_icon:
            col.label(text=line, icon=icon if k == 0 else 'BLANK1', translate=False)
        else:
            col.label(text=line, translate=False)
        _DRAWN.setdefault(panel, []).append((line, text_width(context, line), width))


def start_panel(panel: str) -> None:
    """Forget the lines of ``panel``'s previous draw (call at the top of draw())."""
    _DRAWN[panel] = []


def drawn_lines() -> dict[str, list[tuple[str, float, float]]]:
    """Per panel: (line, its width, the width available) of its last draw."""
    return {k: list(v) for k, v in _DRAWN.items()}
