"""Undo/redo through a whole editing session in a real Blender window (issue 7):
bake, undo, redo, revert, undo, redo, then bake, re-bake, undo, undo, then a Bezier
tolerance bake and Convert Rotation Mode (issue 22) undone, redone and reverted, then in Pose
Mode (issue 13) bake one bone, undo, redo, revert it, undo. After
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
         "redo the revert", "bake again", "re-bake", "undo the re-bake", "undo the first bake",
         "bezier tolerance bake", "undo the bezier bake", "redo the bezier bake",
         "undo the bezier bake again", "convert to quaternion", "undo the conversion",
         "redo the conversion", "revert the conversion", "undo the revert of the conversion",
         "undo the conversion again",
         "pose mode: entered, nothing changed", "pose mode: bake the selected bone",
         "pose mode: undo the bone's bake", "pose mode: redo the bone's bake",
         "pose mode: revert the bone", "pose mode: undo the revert"]


chain = script_result(SCRIPT, "undo chain")


def test_chain_ran_without_errors(chain):
    assert_ran_cleanly(chain)
    assert chain["bake_changed_actions"]
    # The tolerance bake wrote Bezier keys, fewer than one per frame of the 41.
    written = chain["bezier_keys"]
    assert written["interpolations"] == ['BEZIER'], written
    assert 3 <= len(written["frames"]) < 41, written
    # Every transform converted, the armature's keyed bones with it (Arm and Joint were
    # XYZ and ZXY, the bone arm.L XYZ; Cam and root were keyed as quaternions already).
    assert chain["converted_modes"] == {
        "Arm": 'QUATERNION', "Cam": 'QUATERNION', "Joint": 'QUATERNION',
        "Rig: root": 'QUATERNION', "Rig: arm.L": 'QUATERNION'}, chain["converted_modes"]
    # The Pose Mode part baked the selected bone only, and stayed in Pose Mode.
    assert chain["pose_mode_baked"] == ["arm.L"], chain["pose_mode_baked"]
    assert chain["pose_mode_mode"] == 'POSE'


def test_undoing_a_revert_shows_the_analysis_of_the_bake_again(chain):
    """An undo walk: after Ctrl+Z of a Revert the list (restored by undo) read the bake's
    verdicts and every box "Out of date: the keys changed since this analysis"; the
    analysis of the bake's keys, kept when the Revert replaced it, is shown again."""
    state = chain["report_after_undoing_the_revert"]
    assert set(state["entries"]) == set(state["rows"]) and len(state["rows"]) >= 4, state
    for name, (stale, verdict) in state["entries"].items():
        assert not stale and verdict == state["rows"][name], (name, state)


@pytest.mark.parametrize("step", CHAIN)
def test_each_step_leaves_the_expected_keyframes(chain, step):
    found = {s["name"]: s for s in chain["steps"]}
    assert step in found, list(found)
    assert found[step]["ok"], found[step]
