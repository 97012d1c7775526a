"""The overlay on real work ('The panel on real work'), in Blender 3.4.1's window at
1600x900.

tests/gui/overlay_walk_script.py imports the CMU walk BVH as an armature (31 keyed
bones), analyses and re-bakes it with the overlay on, shoots it from the front and the
side, then loads the demo scene with the overlay on; screenshots in
artifacts/overlay_walk_gui/ (git-ignored, kept by CI). These tests read the pixels and
what the draw callbacks recorded.
"""
import pathlib

import numpy as np
import pytest

from quatbake.core import triads

from harness import ROOT, assert_ran_cleanly, run_window_session

pytestmark = pytest.mark.gui

SCRIPT = pathlib.Path(__file__).with_name("overlay_walk_script.py")
ARTIFACTS = ROOT / "artifacts" / "overlay_walk_gui"
STEPS = ("1_walk_front", "2_walk_side", "3_demo")
# Colours on screen: the display's rounding and antialiased edges, 8 of 255 levels.
COLOUR_TOLERANCE = 8


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    from PIL import Image

    result = run_window_session(SCRIPT, tmp_path_factory.mktemp("overlay_walk_gui"), ARTIFACTS)
    shots = {name: np.asarray(Image.open(step["shot"]).convert("RGB")).astype(int)
             for name, step in result["steps"].items()}
    return result, shots


def test_the_session_ran(session):
    result, _ = session
    assert_ran_cleanly(result)
    assert result["blender"].startswith("3.4")
    assert result["analyze"] == ["FINISHED"] and result["bake"] == ["FINISHED"]
    assert result["demo"] == ["FINISHED"] and result["demo_analyze"] == ["FINISHED"]
    assert set(result["steps"]) == set(STEPS)
    assert result["steps"]["1_walk_front"]["objects"] == 31
    assert result["steps"]["1_walk_front"]["has_last_bake"]
    assert result["steps"]["3_demo"]["objects"] == 5
    assert "QuatBake overlay:" not in result["stderr"], result["stderr"][-3000:]


def _window_box(step, box):
    """(left, top, right, bottom) image pixels of a viewport-region box (x, y, w, h)."""
    vx, vy = step["viewport"][:2]
    height = step["window"][1]
    x, y, w, h = box
    return (int(vx + x), int(height - (vy + y + h)), int(vx + x + w), int(height - (vy + y)))


@pytest.mark.parametrize("name", STEPS)
def test_the_legend_is_on_a_900_pixel_screen_in_the_viewport(session, name):
    """With a rig's report and its Last bake in the sidebar, the sidebar's legend is below
    the bottom of a 900-pixel screen; the legend drawn in the viewport's corner is inside
    the window, left of the sidebar, with every colour of the speed ramp and the long-way
    band as a swatch."""
    result, shots = session
    step = result["steps"][name]
    assert step["window"] == [1600, 900]
    assert step["legend_box"] is not None, step
    left, top, right, bottom = _window_box(step, step["legend_box"])
    assert 0 <= left < right <= step["sidebar"][0], (left, right, step["sidebar"])
    assert 0 <= top < bottom <= 900, (top, bottom)
    assert bottom <= 900 - step["viewport"][1]         # above the viewport's bottom edge
    box = shots[name][top:bottom, left:right]
    for rgb in list(triads.SPEED_COLORS[:, :3]) + [triads.LONG_ARC_COLOR[:3]]:
        want = np.round(np.asarray(rgb) * 255)
        close = (np.abs(box - want).max(axis=2) <= COLOUR_TOLERANCE).sum()
        assert close >= 120, (rgb, close)     # a 20 x 11 px swatch is ~220 px


def _overlay_pixels(session, name):
    """(white, pure axis colour) pixel counts of the viewport left of the sidebar,
    the legend's box left out."""
    result, shots = session
    step = result["steps"][name]
    image = shots[name].copy()
    left, top, right, bottom = _window_box(step, step["legend_box"])
    image[top:bottom, left:right] = 0
    height = step["window"][1]
    vx, vy, _vw, vh = step["viewport"]
    view = image[height - (vy + vh):height - vy, vx:step["sidebar"][0]]
    r, g, b = view[..., 0], view[..., 1], view[..., 2]
    white = (view.min(axis=2) >= 235).sum()
    axis = (((r >= 170) & (g <= 80) & (b <= 80)) | ((g >= 150) & (r <= 90) & (b <= 90))
            | ((b >= 170) & (r <= 90) & (g <= 90))).sum()
    return int(white), int(axis)


# Pixels of this 1600x900 front (side) view, counted as _overlay_pixels does. Measured
# when every frame's triad and white key triangle of 31 bones was drawn: 27,940 white
# and 28,061 axis-coloured from the front (51,591 and 77,166 from the side), a solid
# wall; with the triads spread on screen: 2,302 and 9,509 (12,776 and 20,375). The
# bounds sit between, clear of both.
WALL_BOUNDS = {"1_walk_front": (8_000, 15_000), "2_walk_side": (25_000, 40_000)}


@pytest.mark.parametrize("name", sorted(WALL_BOUNDS))
def test_the_walk_is_no_wall_of_triads(session, name):
    white, axis = _overlay_pixels(session, name)
    most_white, most_axis = WALL_BOUNDS[name]
    assert white < most_white and axis < most_axis, (white, axis)
    step = session[0]["steps"][name]
    # a readable subset of the 31 bones x 525 frames, not none
    assert 10 <= step["drawn_triads"] < 400, step["drawn_triads"]
