"""Issue 21's mixed selection in a real Blender window (Debian's Blender 3.4.1 under
Xvfb; skipped_gui_script.py): what cannot be baked is named and drawn, the Clip field
bakes the NLA-only parent, and no panel or operator prints a traceback."""
import pathlib

import pytest

from harness import assert_ran_cleanly, script_result

pytestmark = pytest.mark.gui

SCRIPT = pathlib.Path(__file__).with_name("skipped_gui_script.py")


gui_result = script_result(SCRIPT, "skipped_gui")


def test_script_ran_without_errors_or_tracebacks(gui_result):
    assert_ran_cleanly(gui_result)
    failed = [s for s in gui_result["steps"] if not s["ok"]]
    assert not failed and len(gui_result["steps"]) == 3, gui_result["steps"]


def test_the_panels_drew_the_skipped_entries_and_the_notes(gui_result):
    for panel in ("QUATBAKE_PT_analyze", "QUATBAKE_PT_rebake", "QUATBAKE_PT_rebake_settings"):
        assert gui_result["draws"][panel] >= 3, (panel, gui_result["draws"])


def test_what_has_no_rotation_keys_is_skipped_and_named(gui_result):
    verdicts = gui_result["verdicts"]
    assert verdicts["Cube"] == "long way round"
    assert verdicts["Dolly"] == "skipped"
    assert "location segments move at speeds" in gui_result["dolly_advice"]
    notes = gui_result["notes"]
    assert 'Object "Dolly" has no keys on rotation_euler' in notes
    assert 'Object "Parent" has no active action' in notes


def test_the_clip_bakes_the_nla_only_parent(gui_result):
    assert gui_result["parent_baked"]
    assert 'Object "Cube" has no clip "ParentClip"' in gui_result["clip_notes"]
