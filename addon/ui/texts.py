# SPDX-License-Identifier: GPL-3.0-or-later
"""Labels that wrap to the sidebar's real width.

Blender's panels never wrap a label: a long one is cut ("Constant Sp...").
``wrapped_label`` splits text into lines that fit the region it is drawn in,
measured with the interface font (``blf``) where it can be, and never cuts a
word (a word wider than the region gets a line to itself).

``labelled_prop`` draws a setting with its label beside it where the label fits
whole, and above it where it does not (Blender's property split gives the label 40%
of the width and cuts the rest: "Key Toler...").

``drawn_lines()`` keeps, for the last draw of each panel, every line with its
measured width and the width it had, and ``drawn_labels()`` every setting's label
the same way: the GUI tests read them to check that no label is longer than its
region allows.
"""
from __future__ import annotations

import re

import bpy

from .. import versions
from . import translations

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
_LABELS: dict[str, list[tuple[str, float, float]]] = {}


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

            versions.font_size(0, _font_points(context))
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


# Chinese line-breaking rules: no line starts with closing punctuation (a line
# starting "，16244 帧" read as broken) and none ends with opening punctuation.
NO_BREAK_BEFORE = frozenset("，。、；：？！）》」』】〉…”’")
NO_BREAK_AFTER = frozenset("（《「『【〈“‘")


def _snake_pieces(word: str) -> list[str]:
    """``word`` split after each inner underscore ("cubic_", "vs_", "bezier:"); pieces
    after the first start with _GLUE so wrap() joins them without a space."""
    pieces = re.findall(r"[^_]*_+|[^_]+$", word)
    return pieces[:1] + [_GLUE + piece for piece in pieces[1:]]


def _cjk_pieces(word: str) -> list[str]:
    """``word`` split before every CJK character and after every one (so a Latin run
    beside Chinese may start a line: "，16244"), never inside a Latin run, before
    closing punctuation or after opening punctuation; pieces after the first start
    with _GLUE so wrap() joins them without a space."""
    pieces, current = [], ""
    for c in word:
        prev = current[-1] if current else ""
        if prev and (ord(c) >= CJK_START or ord(prev) >= CJK_START) \
                and c not in NO_BREAK_BEFORE and prev not in NO_BREAK_AFTER:
            pieces.append(current)
            current = _GLUE + c
        else:
            current += c
    pieces.append(current)
    return pieces


# A space that keeps its two words on one line while they fit it ("Keys: Linear",
# "98 deg"); drawn as a space.
KEEP_TOGETHER = "\u00a0"


def _words(text: str, context, width_px: float) -> list[str]:
    """``text``'s words: split at spaces, not at KEEP_TOGETHER, unless the words it
    joins are wider than the line together (then they are words of their own)."""
    out = []
    for group in re.split(r"[^\S\u00a0]+", text.strip()):
        if KEEP_TOGETHER in group and text_width(context, group) > width_px:
            out.extend(w for w in group.split(KEEP_TOGETHER) if w)
        elif group:
            out.append(group)
    return out


def wrap(context, text: str, width_px: float) -> list[str]:
    """``text`` split at spaces into lines at most ``width_px`` wide (words never cut;
    words joined by KEEP_TOGETHER kept on one line while they fit one)."""
    words = []
    for word in _words(text, context, width_px):
        # Chinese and Japanese have no spaces: a run of such characters may
        # break between any two of them (a Latin word is never cut).
        if any(ord(c) >= CJK_START for c in word) and text_width(context, word) > width_px:
            words.extend(_cjk_pieces(word))
        elif "_" in word.strip("_") and text_width(context, word) > width_px:
            # A snake_case name wider than the line ("cubic_vs_bezier:" in a narrow
            # sidebar, which Blender cut to "cubic_vs_bezi..."): it may break after an
            # underscore, the underscore ending the line.
            words.extend(_snake_pieces(word))
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
        text = translations.iface(text)
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
    """Forget the lines and labels of ``panel``'s previous draw (call at the top of draw())."""
    _DRAWN[panel] = []
    _LABELS[panel] = []


def drawn_lines() -> dict[str, list[tuple[str, float, float]]]:
    """Per panel: (line, its width, the width available) of its last draw."""
    return {k: list(v) for k, v in _DRAWN.items()}


def drawn_labels() -> dict[str, list[tuple[str, float, float]]]:
    """Per panel: (setting's label as drawn, its width, the width it had) of its last draw."""
    return {k: list(v) for k, v in _LABELS.items()}


# The label column of a setting drawn beside its label: Blender's own property split
# gives it 40%; up to 55% is taken when the longest label of the column needs it (one
# factor per column, so the fields stay aligned). A label wider than that goes on a
# line of its own above its field, whole, rather than cut.
LABEL_FACTOR = 0.4
LABEL_FACTOR_MAX = 0.55
# Pixels a right-aligned label leaves free at each end of its column (ui_scale 1).
LABEL_PADDING_PX = 8.0


def prop_label(data, prop: str, text: str = "") -> str:
    """The label Blender would draw for ``prop`` of ``data``: ``text`` or the
    property's name, translated."""
    # An operator (the redo panel) keeps its properties in .properties.
    owner = data.properties if isinstance(data, bpy.types.Operator) else data
    found = owner.bl_rna.properties.get(prop)
    name = text or (found.name if found is not None else prop)
    return translations.iface(name)


def label_factor(context, data, props) -> float:
    """The label column's share of the width for settings ``props`` of ``data``: 40%,
    or as much more (up to 55%) as their longest label that fits there needs."""
    width = available_width(context)
    padding = 2.0 * LABEL_PADDING_PX * _ui_scale(context)
    needs = [(text_width(context, prop_label(data, p)) + padding) / width for p in props]
    # Labels too long even for the widest column go above their fields: they do not
    # widen the column (a wider one cut the fields: "Object's Mode" to "Object's...").
    return max([LABEL_FACTOR] + [n for n in needs if n <= LABEL_FACTOR_MAX])


def labelled_prop(layout, context, data, prop: str, factor: float = LABEL_FACTOR,
                  panel: str = "", **kwargs) -> None:
    """Draw ``prop`` of ``data`` with its label right-aligned in a column of ``factor``
    of the width when the label fits there whole, else the label on a line of its own
    and the field under it, full width (``kwargs`` go to ``layout.prop``)."""
    label = prop_label(data, prop, kwargs.pop("text", ""))
    width = available_width(context)
    beside = factor * width - 2.0 * LABEL_PADDING_PX * _ui_scale(context)
    measured = text_width(context, label)
    if measured <= beside:
        split = layout.split(factor=factor, align=True)
        left = split.row(align=True)
        left.alignment = 'RIGHT'
        left.label(text=label, translate=False)
        split.prop(data, prop, text="", **kwargs)
        _LABELS.setdefault(panel, []).append((label, measured, beside))
        return
    col = layout.column(align=True)
    col.label(text=label, translate=False)
    col.prop(data, prop, text="", **kwargs)
    _LABELS.setdefault(panel, []).append((label, measured, width))




# A name beside a figure (a report row: "RightFingerBase  0.0 deg"). The figure's
# column is as wide as the widest figure a row can show. A list shows its figures
# only when every name of it fits whole beside that column; otherwise its rows are
# the names alone, whole (the figure is in the details below): a bone cut to
# "RightFing..." could be any of four, and a list whose rows have figures or not by
# the length of their names reads as broken.
WIDEST_FIGURE = "180.0\u00b0"
# Pixels (ui_scale 1) the tabs, margins and a list's scroll bar take from a row of
# the report's list; a details box's name row, with its Jump button, loses as much
# (both 144 px of a 229 px sidebar at ui_scale 1.04, Blender 3.4.1 at 1600x900).
ROW_MARGIN_PX = 82.0
# Where a row's name starts: its icon and the label's padding.
ROW_ICON_PX = 26.0


def _row_width(context) -> float:
    region = getattr(context, "region", None)
    return float(getattr(region, "width", 0) or 300) - ROW_MARGIN_PX * _ui_scale(context)


def _figure_column(context) -> float:
    return text_width(context, WIDEST_FIGURE) + LABEL_PADDING_PX * _ui_scale(context)


def _name_room(context, with_figure: bool) -> float:
    room = _row_width(context) - ROW_ICON_PX * _ui_scale(context)
    return (room - _figure_column(context) if with_figure else room) * SAFETY


def figures_fit(context, names) -> bool:
    """Whether every one of ``names`` fits whole beside the figure column."""
    if is_narrow(context):
        return False
    room = _name_room(context, with_figure=True)
    return all(text_width(context, name) <= room for name in names)


def name_and_figure(layout, context, name: str, figure: str, icon: str, with_figure: bool,
                    panel: str = "") -> None:
    """Draw ``name`` (with ``icon``) and, when ``with_figure`` (figures_fit), ``figure``
    in its column. Recorded in drawn_labels() under ``panel``: (name, its width, the
    width it had)."""
    needs = text_width(context, name)
    _LABELS.setdefault(panel, []).append((name, needs, _name_room(context, with_figure)))
    if not with_figure:
        layout.label(text=name, icon=icon, translate=False)
        return
    split = layout.split(factor=1.0 - _figure_column(context) / _row_width(context),
                         align=True)
    split.label(text=name, icon=icon, translate=False)
    split.label(text=figure, translate=False)


def one_line_tooltips(*classes) -> tuple:
    """``classes``, each given its docstring as a one-line tooltip (``bl_description``).
    Blender stores a docstring as written, line breaks and indentation included: a wrapped
    one showed broken in the tooltip, and missed its translation, which is keyed by the
    one-line sentence (a review found the Chinese of four operators never shown)."""
    for cls in classes:
        if cls.__doc__ and "bl_description" not in vars(cls):
            cls.bl_description = " ".join(cls.__doc__.split())
    return classes
