"""Every QuatBake operator driven over the current selection, for the "no operator ever
shows a Python traceback" tests of issue 21 (test_rigify.py, test_no_traceback.py).

An operator that fails must say so in one sentence: Blender turns an ERROR report into
``RuntimeError("Error: ...")`` for the caller, but an exception escaping the operator
becomes ``RuntimeError("Error: Python: Traceback ...")`` and a traceback on stderr. Both
the raised messages and what was printed (file-descriptor level, so Blender's own C
printing counts too) are checked for "Traceback".
"""
from __future__ import annotations

import os

import bpy

from quatbake.addon.analyze import entries
from quatbake.addon.bake import presets

# Every operator QuatBake registers, by its bpy.ops.quatbake name: a new one must join
# the sweep (test_every_operator_is_swept fails otherwise).
SWEPT = ("analyze", "jump_to_worst", "bake", "revert", "export_report", "export_check",
         "apply_preset", "preset_add", "convert_rotation_mode", "demo_scene")


def registered_operators() -> set[str]:
    """The names under bpy.ops.quatbake (what a user can call)."""
    return {name for name in dir(bpy.ops.quatbake) if not name.startswith("_")}


def _call(operator: str, said: list, **kwargs) -> None:
    try:
        getattr(bpy.ops.quatbake, operator)(**kwargs)
    except RuntimeError as exc:   # an ERROR report (a sentence) or an escaped exception
        said.append(f"{operator}: {exc}")
    except TypeError as exc:      # bad arguments from this sweep itself: a test bug
        raise AssertionError(f"{operator}({kwargs}): {exc}") from exc


def drive_every_operator(folder, export_check: bool = True) -> list[str]:
    """Call each operator of SWEPT on what is selected now (Object or Pose Mode), in an
    animator's order: analyse, jump to each entry's worst frame, export the report, bake,
    bake again with a location bake, revert, revert again (nothing left), convert the
    rotation mode and revert it, apply a shipped preset, add and remove a preset of one's
    own, check the glTF export, load the demo scene. Returns the messages of the calls
    that raised (each should be one sentence)."""
    said: list[str] = []
    folder = os.fspath(folder)
    _call("analyze", said)
    for name in list(entries.results(bpy.context.scene)):
        _call("jump_to_worst", said, object_name=name)
    _call("jump_to_worst", said, object_name="no such entry")
    _call("export_report", said, filepath=os.path.join(folder, "sweep.html"),
          open_in_browser=False)
    _call("bake", said)
    _call("bake", said, location_method='LINEAR')
    _call("analyze", said)
    _call("revert", said)
    _call("revert", said)
    _call("convert_rotation_mode", said, mode='QUATERNION')
    _call("revert", said)
    shipped = sorted(f for f in os.listdir(presets.SHIPPED_PRESETS_DIR) if f.endswith(".py"))
    _call("apply_preset", said, filepath=os.path.join(presets.SHIPPED_PRESETS_DIR, shipped[0]))
    _call("apply_preset", said, filepath=os.path.join(folder, "missing preset.py"))
    _call("preset_add", said, name="quatbake sweep preset")
    _call("preset_add", said, name="quatbake sweep preset", remove_name=True)
    if export_check:
        _call("export_check", said, json_path=os.path.join(folder, "check.json"))
    _call("demo_scene", said)   # last: it adds a scene (and switches to it in a window)
    return said


def assert_no_traceback(said: list[str], printed: str) -> None:
    """No raised message and nothing printed carries a Python traceback."""
    for message in said:
        assert "Traceback" not in message, message
    assert "Traceback" not in printed, printed[-4000:]
