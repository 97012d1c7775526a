"""Undo/redo through a whole editing session in a real Blender window (issue 7):
bake, undo, redo, revert, undo, redo, then bake, re-bake, undo, undo. After
every step each keyframe (co, handles, interpolation ...), action assignment,
slot, rotation mode and fake user must equal the state expected at that step.

Starts Debian's Blender 3.4.1 under Xvfb with undo_chain_gui_script.py (the
approach of test_undo_gui.py) and asserts on the JSON it writes.
"""
import pathlib

import pytest

from harness import assert_ran_cleanly, script_result

pytestmark = pytest.mark.gui

SCRIPT = pathlib.Path(__file__).with_name("undo_chain_gui_script.py")

CHAIN = ["bake", "undo the bake", "redo the bake", "revert", "undo the revert",
         "redo the revert", "bake again", "re-bake", "undo the re-bake", "undo the first bake"]


chain = script_result(SCRIPT, "undo chain")


def test_chain_ran_without_errors(chain):
    assert_ran_cleanly(chain)
    assert chain["bake_changed_actions"]


@pytest.mark.parametrize("step", CHAIN)
def test_each_step_leaves_the_expected_keyframes(chain, step):
    found = {s["name"]: s for s in chain["steps"]}
    assert step in found, list(found)
    assert found[step]["ok"], found[step]
