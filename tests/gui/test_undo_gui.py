"""Undo, redo, panel drawing and redo-panel presets in a real Blender window.

Starts Debian's Blender 3.4.1 under Xvfb with undo_gui_script.py, which
installs QuatBake as the add-on ``quatbake`` in a temporary user scripts
folder, and asserts on the JSON it writes.
"""
import json
import os
import pathlib
import shutil
import subprocess

import pytest

pytestmark = pytest.mark.gui

ROOT = pathlib.Path(__file__).resolve().parents[2]
BLENDER = os.environ.get("BLENDER", "/usr/bin/blender")
SCRIPT = pathlib.Path(__file__).with_name("undo_gui_script.py")

# The values each shipped preset gives the operator (see the files' comments).
EXPECTED_PRESETS = {
    "Camera move (slerp, constant speed)":
        {"method": "SLERP", "location_method": "LINEAR", "constant_speed": True, "frame_step": 1},
    "Robot arm - VR (slerp)":
        {"method": "SLERP", "location_method": "LINEAR", "constant_speed": False, "frame_step": 1},
    "Many objects, fast (nlerp)":
        {"method": "NLERP", "location_method": "KEEP", "constant_speed": False, "frame_step": 1},
    "Smooth through keys (Squad + Catmull-Rom)":
        {"method": "SQUAD", "location_method": "CATMULL_ROM", "constant_speed": False,
         "frame_step": 1},
}


@pytest.fixture(scope="module")
def gui_result(tmp_path_factory):
    if not (shutil.which("xvfb-run") and os.path.exists(BLENDER)):
        pytest.skip("needs xvfb-run and the Blender program")
    tmp = tmp_path_factory.mktemp("gui")
    addons = tmp / "scripts" / "addons"
    addons.mkdir(parents=True)
    (addons / "quatbake").symlink_to(ROOT, target_is_directory=True)
    result_path = tmp / "result.json"
    env = dict(os.environ, BLENDER_USER_SCRIPTS=str(tmp / "scripts"),
               BLENDER_USER_CONFIG=str(tmp / "config"))
    proc = subprocess.run(
        ["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", BLENDER, "--factory-startup",
         "--python", str(SCRIPT), "--", str(result_path), str(ROOT)],
        env=env, capture_output=True, text=True, timeout=300,
    )
    assert result_path.exists(), f"no result file\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    result = json.loads(result_path.read_text(encoding="utf-8"))
    result["stderr"] = proc.stderr
    return result


def test_script_ran_without_errors(gui_result):
    assert gui_result["errors"] == []
    assert "Traceback" not in gui_result["stderr"], gui_result["stderr"]


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
