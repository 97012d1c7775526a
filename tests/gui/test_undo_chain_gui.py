"""Undo/redo through a whole editing session in a real Blender window (issue 7):
bake, undo, redo, revert, undo, redo, then bake, re-bake, undo, undo. After
every step each keyframe (co, handles, interpolation ...), action assignment,
slot, rotation mode and fake user must equal the state expected at that step.

Starts Debian's Blender 3.4.1 under Xvfb with undo_chain_gui_script.py (the
approach of test_undo_gui.py) and asserts on the JSON it writes.
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
SCRIPT = pathlib.Path(__file__).with_name("undo_chain_gui_script.py")

CHAIN = ["bake", "undo the bake", "redo the bake", "revert", "undo the revert",
         "redo the revert", "bake again", "re-bake", "undo the re-bake", "undo the first bake"]


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    if not (shutil.which("xvfb-run") and os.path.exists(BLENDER)):
        pytest.skip("needs xvfb-run and the Blender program")
    tmp = tmp_path_factory.mktemp("undo chain")
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


def test_chain_ran_without_errors(chain):
    assert chain["errors"] == []
    assert "Traceback" not in chain["stderr"], chain["stderr"]
    assert chain["bake_changed_actions"]


@pytest.mark.parametrize("step", CHAIN)
def test_each_step_leaves_the_expected_keyframes(chain, step):
    found = {s["name"]: s for s in chain["steps"]}
    assert step in found, list(found)
    assert found[step]["ok"], found[step]
