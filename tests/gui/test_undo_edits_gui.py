"""A key set after a bake, kept by Re-bake and Revert (in a copy of the animator's
action, '<Action>.edited'), through undo and redo in a real Blender window: Debian's
Blender 3.4.1 under Xvfb runs undo_edits_gui_script.py, and the JSON it writes is
checked here."""
import pathlib

import pytest

from harness import assert_ran_cleanly, script_result

pytestmark = pytest.mark.gui

SCRIPT = pathlib.Path(__file__).with_name("undo_edits_gui_script.py")
STEPS = ["re-bake keeps the scale key", "undo the re-bake", "redo the re-bake",
         "a second re-bake keeps one copy", "undo the second re-bake",
         "redo the second re-bake", "revert plays the copy with the scale keys",
         "undo the revert", "redo the revert"]

chain = script_result(SCRIPT, "undo edits")


def test_chain_ran_without_errors(chain):
    assert_ran_cleanly(chain)
    # The animator's action, its copy with the scale key, the bake.
    names = chain["rebaked_actions"]
    assert len(names) == 3 and names[1] == names[0] + ".edited" \
        and names[2] == names[0] + ".quatbake", names


@pytest.mark.parametrize("step", STEPS)
def test_each_step_leaves_the_expected_keys_and_actions(chain, step):
    found = {s["name"]: s for s in chain["steps"]}
    assert step in found, list(found)
    assert found[step]["ok"], found[step]
