"""The Difference Report's list after undo and redo (a review): undo restores the rows
with the scene, the entries follow the keys back in place, and a row read "long way
round 180.0" beside its box's "fine 0.0". Every row whose entry describes the keys shows
the entry's figures, and those agree with Blender's playback.

Starts Debian's Blender 3.4.1 under Xvfb with undo_report_rows_gui_script.py and asserts
on the JSON it writes."""
import pathlib

import pytest

from harness import assert_ran_cleanly, script_result

pytestmark = pytest.mark.gui

SCRIPT = pathlib.Path(__file__).with_name("undo_report_rows_gui_script.py")

# The oracle samples every 250 frames, the report every frame: it finds at most as much.
SAMPLING_DEG = 0.5

steps = script_result(SCRIPT, "undo report rows")


def test_it_ran_cleanly(steps):
    assert_ran_cleanly(steps)
    assert [s["name"] for s in steps["steps"]] == [
        "analyze", "bake, left pending", "analyze again", "undo the bake", "redo the bake",
        "bake again, left pending", "undo the second bake", "redo the second bake"]


@pytest.mark.parametrize("step", ["analyze again", "undo the bake", "redo the bake"])
def test_each_row_shows_what_plays(steps, step):
    """Every entry that says it is current, and its row where the list has one, gives
    Blender's largest difference from slerp (the oracle's, within its sampling)."""
    found = {s["name"]: s for s in steps["steps"]}[step]["rows"]
    assert len(found) == 4, found
    for name, row in found.items():
        if not row["current"]:
            continue
        shown = [row["entry"]] + ([row["row"]] if row["row"] is not None else [])
        for _verdict, figure in shown:
            assert abs(figure - row["oracle_deg"]) <= SAMPLING_DEG, (name, row)
    assert any(r["current"] for r in found.values()), found


def test_after_the_redo_the_rows_are_the_entries(steps):
    """The review's case: after the redo each row read "long way round 180.0" (the rows
    of the pending bake) beside its box's current "fine 0.0"."""
    found = {s["name"]: s for s in steps["steps"]}["redo the bake"]["rows"]
    assert all(r["row"] is not None and r["current"] for r in found.values()), found
    for name, row in found.items():
        assert row["row"] == row["entry"], (name, row)


def test_after_the_undo_every_entry_is_listed(steps):
    """The undo goes back to before the first Analyze (no undo step), whose rows were
    none: the panel drew the boxes of three of the four entries, the fourth nowhere. The
    list lists them all again."""
    found = {s["name"]: s for s in steps["steps"]}["undo the bake"]["rows"]
    assert len(found) == 4, found
    assert all(r["row"] is not None for r in found.values()), found


def test_a_bake_left_pending_is_pending_again_after_its_undo_and_redo(steps):
    """A review: after undo and redo of a bake whose refresh was left pending, each box
    read "Out of date: the keys changed since this analysis" (the analysis before the
    bake, kept for the undo), not "Not re-analysed after the bake". The undo brings back
    the analysis of the keys before it, current; the redo the bake's pending entry."""
    by_step = {s["name"]: s["rows"] for s in steps["steps"]}
    assert all(r["pending"] for r in by_step["bake again, left pending"].values())
    undone = by_step["undo the second bake"]
    assert len(undone) == 4 and all(r["current"] and not r["pending"]
                                    for r in undone.values()), undone
    assert undone == by_step["redo the bake"], undone
    redone = by_step["redo the second bake"]
    assert len(redone) == 4 and all(r["pending"] for r in redone.values()), redone
