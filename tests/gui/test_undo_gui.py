"""Undo, redo, panel drawing and redo-panel presets in a real Blender window.

Starts Debian's Blender 3.4.1 under Xvfb with undo_gui_script.py, which
installs QuatBake as the add-on ``quatbake`` in a temporary user scripts
folder, and asserts on the JSON it writes.
"""
import pathlib

import pytest

from harness import assert_ran_cleanly, script_result

pytestmark = pytest.mark.gui

SCRIPT = pathlib.Path(__file__).with_name("undo_gui_script.py")

# The values each shipped preset gives the operator (see the files' comments).
EXPECTED_PRESETS = {
    "Camera move, even speed":
        {"method": "SLERP", "location_method": "LINEAR", "constant_speed": True, "frame_step": 1},
    "Exact turns, keep timing":
        {"method": "SLERP", "location_method": "LINEAR", "constant_speed": False, "frame_step": 1},
    "Many objects, quick":
        {"method": "NLERP", "location_method": "KEEP", "constant_speed": False, "frame_step": 1},
    "Smooth through every key":
        {"method": "SQUAD", "location_method": "CATMULL_ROM", "constant_speed": False,
         "frame_step": 1},
}


gui_result = script_result(SCRIPT)


def test_script_ran_without_errors(gui_result):
    assert_ran_cleanly(gui_result)


def test_every_step_passed(gui_result):
    names = [s["name"] for s in gui_result["steps"]]
    assert "undo restores the keyframes" in names and "redo bakes again" in names, names
    failed = [s for s in gui_result["steps"] if not s["ok"]]
    assert not failed, failed


def test_both_panels_were_drawn(gui_result):
    assert gui_result["draws"]["QUATBAKE_PT_main"] >= 1
    assert gui_result["draws"]["QUATBAKE_PT_main_graph"] >= 1


def test_redo_panel_presets_set_the_operator(gui_result):
    values = gui_result["preset_values"]
    for name, expected in EXPECTED_PRESETS.items():
        assert values.get(name) == expected, (name, values.get(name))
