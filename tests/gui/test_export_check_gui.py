"""The Export Check operator, its sub-panel and the Key Tolerance field in a real
Blender window (Debian's Blender 3.4.1 under Xvfb; export_check_gui_script.py)."""
import pathlib

import pytest

from harness import assert_ran_cleanly, script_result

pytestmark = pytest.mark.gui

SCRIPT = pathlib.Path(__file__).with_name("export_check_gui_script.py")


gui_result = script_result(SCRIPT)


def test_script_ran_without_errors(gui_result):
    assert_ran_cleanly(gui_result)
    failed = [s for s in gui_result["steps"] if not s["ok"]]
    assert not failed and len(gui_result["steps"]) == 2, gui_result["steps"]


def test_operator_found_the_causes_in_the_window(gui_result):
    causes = gui_result["causes"]
    assert causes["Windmill"] == {"turn_lost": 1}
    assert "sign_flip" in causes["Flip"] and "turn_lost" in causes["Swing"]


def test_panels_were_drawn(gui_result):
    assert gui_result["draws"]["QUATBAKE_PT_export_check"] >= 1
    assert gui_result["draws"]["QUATBAKE_PT_main"] >= 1


def test_tolerance_from_the_scene_setting_wrote_fewer_keys(gui_result):
    # Frames 1..25 baked: a dense bake writes 25 keys per channel.
    assert 2 <= gui_result["swing_keys"] < 25


def test_the_panel_shows_the_advice_with_its_controls_and_no_command_line(gui_result):
    """The window walk: the advice's command lines ("(quatbake bake --tolerance 0.01 --keys
    linear)") broke over four sidebar lines, options cut from their values. The panel
    names the Re-bake panel's controls only (the JSON and the CLI keep the commands),
    and every line it drew fits the width it had, bar a single word."""
    lines = gui_result["export_check_lines"]
    # Drawn with no-break spaces where a control meets its value (texts.KEEP_TOGETHER).
    text = " ".join(line for line, _width, _room in lines).replace("\u00a0", " ")
    assert "Re-bake with Key Tolerance 0.01 and Keys: Linear" in text, text
    assert "quatbake" not in text and "--" not in text, text
    for line, width, room in lines:
        assert width <= room or " " not in line.replace("\u00a0", " "), (line, width, room)
