"""Where the sidebar's panel headers and tabs are in a screenshot (numpy only).

Used by panel_layout_script.py inside Blender (to click a header or a tab, as a user
does) and by test_panel_layout_gui.py (to check that the Re-bake panel's body lies
inside the window). Blender 3.4 tells Python neither where a panel is drawn nor
which sidebar tab is open, so both are read from the pixels:

- a panel header is a band of rows in the theme's panel-header colour
  (``Theme.view_3d.space.panelcolors.header``) across most of the panel's width, one
  header every HEADER_PX * ui_scale rows when several follow each other (a closed
  panel's header touches the next one);
- the tabs are the runs of the tab strip (the sidebar's right-hand column) that are
  not the strip's gap colour.

Images are (rows, columns, 3) integer arrays, row 0 at the top of the window; a
region is [x, y, width, height] with y from the bottom, as Blender gives it.
"""
import numpy as np

# A panel header's height at ui_scale 1 (Blender's PNL_HEADER: 1.3 UI units of 20 px).
HEADER_PX = 26
# The tab strip: this many pixels from the sidebar's right edge (Blender 3.4.1 under
# Xvfb at ui_scale 1; the column panel_loop_script's Ctrl+wheel points at).
TAB_COLUMN_FROM_RIGHT = 8
# The tab strip's width, left out when looking for headers.
TAB_STRIP_PX = 24
# The headers with the theme's header colour, from the top, in the order ui.panel
# gives them: QuatBake, Difference Report, Re-bake, Overlay, Export Check (the
# Re-bake panel's Settings sub-panel has a header in the body's colour in 3.4).
REBAKE_HEADER = 2
OVERLAY_HEADER = 3
# Levels (0-255) a pixel may differ from the theme colour: the display's rounding.
TOLERANCE = 3
# Share of a row's pixels in the header colour for the row to be a header's: the
# header's text, arrow and check box leave ~45% in its rows of text; a panel's body
# has under 5% (its own colour is 7 levels off, boxes and buttons further).
HEADER_FRACTION = 0.3


def region_pixels(image: np.ndarray, region, window_height: int) -> np.ndarray:
    """The pixels of ``region`` ([x, y, width, height], y from the bottom)."""
    x, y, w, h = region
    top = window_height - (y + h)
    return image[top: top + h, x: x + w]


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(first, last + 1) of each run of True in a 1-D mask."""
    padded = np.concatenate([[False], mask, [False]]).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2])]


def header_bands(sidebar: np.ndarray, header_rgb, ui_scale: float = 1.0) -> list[tuple[int, int]]:
    """(top, bottom) rows of each panel header in the sidebar's pixels, top first, in
    the sidebar's own rows (0 = its top). Headers that touch are split evenly."""
    panels = sidebar[:, : sidebar.shape[1] - TAB_STRIP_PX]
    want = np.round(np.asarray(header_rgb[:3], float) * 255.0)
    close = (np.abs(panels - want).max(axis=2) <= TOLERANCE).mean(axis=1) >= HEADER_FRACTION
    height = HEADER_PX * ui_scale
    out = []
    for top, bottom in _runs(close):
        count = int(round((bottom - top) / height))
        if count < 1:
            continue            # a line or two of the colour elsewhere: not a header
        step = (bottom - top) / count
        out += [(int(round(top + k * step)), int(round(top + (k + 1) * step)))
                for k in range(count)]
    return out


def tabs(sidebar: np.ndarray) -> list[tuple[int, int]]:
    """(top, bottom) rows of each tab of the sidebar's tab strip, top first."""
    column = sidebar[:, sidebar.shape[1] - TAB_COLUMN_FROM_RIGHT]
    gap = column[-1]     # below the last tab: the strip's own colour
    return [(a, b) for a, b in _runs(np.abs(column - gap).max(axis=1) > TOLERANCE)
            if b - a >= 20]


def blender_image_rgb(image) -> np.ndarray:
    """A ``bpy.types.Image`` (a screenshot loaded back) as (rows, columns, 3) 0-255
    integers, row 0 at the top."""
    w, h = image.size
    flat = np.empty(w * h * 4, np.float32)
    image.pixels.foreach_get(flat)
    return np.round(flat.reshape(h, w, 4)[::-1, :, :3] * 255.0).astype(int)
