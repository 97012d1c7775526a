"""The QuatBake sidebar as an animator uses it: Blender 3.4.1's window at 1600x900.

tests/gui/panel_loop_script.py analyses a camera (Euler wrap) and an empty
(flipped quaternion key), re-bakes them and sets the interface scale to 2, with a
screenshot after each step (artifacts/panel_gui/, git-ignored, kept by CI).
These tests look at the pixels and at what the panels drew.
"""
import pathlib

import numpy as np
import pytest

from quatbake.core import triads

from harness import ROOT, assert_ran_cleanly, run_window_session

pytestmark = pytest.mark.gui

SCRIPT = pathlib.Path(__file__).with_name("panel_loop_script.py")
ARTIFACTS = ROOT / "artifacts" / "panel_gui"


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    from PIL import Image

    result = run_window_session(SCRIPT, tmp_path_factory.mktemp("panel_gui"), ARTIFACTS)
    shots = {name: np.asarray(Image.open(ARTIFACTS / f"{name}.png").convert("RGB")).astype(int)
             for name in ("1_analyzed", "2_baked", "3_ui_scale_2", "4_many_objects")}
    return result, shots


def _region_pixels(image, region, window_height):
    """The pixels of a region given as [x, y, width, height] with y from the bottom."""
    x, y, w, h = region
    top = window_height - (y + h)
    return image[top: top + h, x: x + w]


def _cyan(image):
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    return (r <= 60) & (g >= 200) & (b >= 200)


def test_the_session_ran(session):
    result, _ = session
    assert_ran_cleanly(result)
    assert result["blender"].startswith("3.4")
    assert result["analyze"] == ["FINISHED"] and result["bake"] == ["FINISHED"]
    assert result["steps"]["analyzed"]["window"] == [1600, 900]


def test_after_the_bake_no_result_is_stale_and_each_says_before_and_after(session):
    result, _ = session
    analyzed, baked = result["steps"]["analyzed"], result["steps"]["baked"]
    assert analyzed["results"]["Empty"]["verdict"] == "long way round"
    assert analyzed["results"]["ShotCam"]["verdict"] == "long way round"
    for name in ("Empty", "ShotCam"):
        assert baked["stale"][name] is False
        entry = baked["results"][name]
        assert entry["long_arc_segments"] == [] and "long way" not in entry["advice"]
        assert baked["before_after"][name].endswith("long way round fixed")


def test_the_last_bake_line_totals_what_was_baked(session):
    # panel_loop_script keys ShotCam and Empty on frames 1..120 and bakes both at step 1:
    # a key per frame, 120 keys per channel each, two objects, no bone (bones are counted
    # in tests/blender/test_bake_messages.py, through the same function the panel draws
    # with); the two alike are listed once with their count.
    lines = session[0]["steps"]["baked"]["lines"]["Re-bake"]
    text = " ".join(line for line, _width, _available in lines)
    assert "Last bake: Empty, ShotCam: 120 keys each;" in text, text
    assert "Total: 2 objects, 240 keys per channel." in text, text


def test_the_band_pixels_vanish_after_the_bake(session):
    result, shots = session
    steps = result["steps"]
    # The viewport region runs under the sidebar (region overlap): only the part
    # left of the sidebar, where the legend's cyan swatch is not.
    x, y, w, h = steps["analyzed"]["viewport"]
    view = [x, y, steps["analyzed"]["sidebar"][0] - x, h]
    before = _cyan(_region_pixels(shots["1_analyzed"], view, 900)).sum()
    after = _cyan(_region_pixels(shots["2_baked"], view, 900)).sum()
    assert steps["analyzed"]["legend"]["long_arc_count"] == 3     # Empty 2, ShotCam 1
    assert before > 500, before
    assert steps["baked"]["legend"]["long_arc_count"] == 0
    assert steps["baked"]["legend"]["fixed_long_arc_count"] == 3
    assert after == 0, after


@pytest.mark.parametrize("shot", ["1_analyzed", "2_baked"])
def test_the_legend_draws_real_colour_swatches(session, shot):
    """Each colour of the speed ramp and the band fills a block in the sidebar
    (the swatches are drawn as the overlay draws them, not dimmed)."""
    result, shots = session
    step = result["steps"]["analyzed" if shot == "1_analyzed" else "baked"]
    sidebar = _region_pixels(shots[shot], step["sidebar"], 900)
    colours = list(triads.SPEED_COLORS[:, :3]) + [triads.LONG_ARC_COLOR[:3]]
    for rgb in colours:
        want = np.round(np.asarray(rgb) * 255)
        # 8 levels: the display's rounding and the widget's antialiased corners
        close = (np.abs(sidebar - want).max(axis=2) <= 8).sum()
        assert close >= 150, (rgb, close)      # a 1.6 x 1 unit swatch is ~600 px


@pytest.mark.parametrize("step", ["analyzed", "baked", "ui_scale_2", "many", "half_width"])
def test_no_label_is_wider_than_its_sidebar(session, step):
    info = session[0]["steps"][step]
    lines = [line for panel in info["lines"].values() for line in panel]
    assert len(lines) >= 6      # the panels drew (and recorded) their wrapped text
    sidebar_width = info["sidebar"][2]
    for text, width, available in lines:
        assert available < sidebar_width, (text, available, sidebar_width)
        # a single word may be wider than the line (never cut); sentences fit
        if " " in text:
            assert width <= available, (text, width, available)


def test_many_objects_come_as_a_list_worst_first(session):
    result, _ = session
    rows = result["rows"]
    assert len(rows) == 6
    many = result["steps"]["many"]["results"]
    # ShotCam and Empty were baked (fine now); the props ease where slerp does not
    degrees = [many[name]["max_deviation_deg"] for name in rows]
    verdict_rank = {"long way round": 0, "visible": 1, "fine": 2}
    ranks = [verdict_rank[many[name]["verdict"]] for name in rows]
    assert ranks == sorted(ranks)
    for a, b, ra, rb in zip(degrees, degrees[1:], ranks, ranks[1:]):
        if ra == rb:
            assert a >= b


def test_zoomed_out_the_triads_are_thinned(session):
    result, _ = session
    assert result["lod_level_near"] == 1
    assert result["lod_level_far"] > 1


@pytest.mark.parametrize("background", ["dark", "light"])
def test_ghosts_stand_out_on_dark_and_light_grey_backgrounds(session, background):
    """The pixels the ghosts change (on vs off) contrast with the background:
    a light line on the dark one, its dark halo on the light-grey one."""
    from PIL import Image

    result, _ = session
    on, off = (np.asarray(Image.open(ARTIFACTS / f"ghosts_{background}_{state}.png")
                          .convert("RGB")).astype(int) for state in ("on", "off"))
    x, y, w, h = result["steps"]["analyzed"]["viewport"]
    view = [x, y, result["steps"]["analyzed"]["sidebar"][0] - x, h]
    on, off = _region_pixels(on, view, 900), _region_pixels(off, view, 900)
    changed = np.abs(on - off).max(axis=2) > 40
    assert changed.sum() > 300, changed.sum()
    # how far the changed pixels are from what they cover, in the channel that
    # differs most (0-255): a light pink on grey differs in red, a halo in all
    contrast = np.abs(on[changed] - off[changed]).max(axis=1)
    assert np.median(contrast) > 70, np.median(contrast)


def test_the_redo_panels_start_and_end_are_the_keyed_range(session):
    redo = session[0]["redo"]
    assert redo["operator"] == "QUATBAKE_OT_bake" and not redo["use_frame_range"]
    # both objects are keyed 1..120; the scene setting keeps its default 250
    assert (redo["frame_start"], redo["frame_end"]) == (1, 120)
    assert redo["scene_frame_end"] == 250


def test_the_redo_panel_opens_with_the_sidebars_fields(session):
    """Clicked open, the redo panel is as tall as the sidebar's settings (no
    preset list on 3.4: it showed only "* Missing Paths *" there). The picture
    (2b_redo_panel.png) shows the order and the greyed Start/End."""
    result, _ = session
    folded, opened = result["hud_folded"], result["hud_open"]
    assert folded is not None and opened is not None
    # method row, Location, Output, 3 check boxes, Start, End, Step: ~10 rows of ~22 px
    assert opened[3] > folded[3] + 180, (folded, opened)


def test_the_preset_menu_names_the_active_preset(session):
    result, _ = session
    assert result["apply_preset"] == ["FINISHED"]
    assert result["preset_label"] == "Camera move, even speed"


def test_the_sidebar_was_dragged_to_about_half_its_width(session):
    before, after = session[0]["sidebar_widths"]
    assert 0.4 * before <= after <= 0.65 * before, (before, after)
