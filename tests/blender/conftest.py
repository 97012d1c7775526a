"""Fixtures for tests that need Blender's Python API.

The same files run with the ``bpy`` module (venv) and inside Debian's Blender
3.4.1 program (pytest-blender), so nothing here assumes one Blender version.
"""
import bpy
import pytest

import quatbake


@pytest.fixture
def clean_blender():
    """An empty scene from factory settings, with QuatBake registered."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    quatbake.register()
    try:
        yield bpy.context
    finally:
        quatbake.unregister()


# bpy 4.2 (the module, 4.2.23 here) crashes with a segfault while the Python
# interpreter shuts down once its glTF add-on has exported or imported a file
# (even a single keyed empty; test_blender_characterisation pins it). Every
# test has passed or failed by then, but the crash replaces pytest's exit
# status with 139 and so hides the result from make. On that Blender (and 4.5,
# below), leave with pytest's own status before the interpreter's teardown.
_EXIT_STATUS = {}
# bpy 4.5 (4.5.15) deadlocks instead, in a static destructor waiting on its file-closing
# thread, once the tests have opened files (USD imports among them): CI's run hung
# after its last test until the 90-minute limit. The same exit there.
_TEARDOWN_CRASHES = bpy.app.version[:2] in ((4, 2), (4, 5)) and not bpy.app.binary_path


@pytest.fixture
def chinese_reports(clean_blender):
    """The interface and its reports in Simplified Chinese for one test (zh_HANS from 4.0,
    zh_CN before; 3.4 translates reports with the tooltip switch, 4.0+ has
    use_translate_reports). Only where this Blender has translations (in_chinese)."""
    view = bpy.context.preferences.view
    switches = [s for s in ("use_translate_interface", "use_translate_tooltips",
                            "use_translate_reports") if hasattr(view, s)]
    old = {s: getattr(view, s) for s in ["language", *switches]}
    try:
        view.language = "zh_HANS" if "zh_HANS" in bpy.app.translations.locales else "zh_CN"
        for switch in switches:
            setattr(view, switch, True)
        yield
    finally:
        for name, value in old.items():
            setattr(view, name, value)


def pytest_sessionfinish(session, exitstatus):
    _EXIT_STATUS["status"] = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    # A test that registered QuatBake and left it so: unregistered before the
    # interpreter exits, since the bpy 4.5 module then deadlocks in a static
    # destructor (its file-closing thread) once a file was opened; the command line
    # does the same (cli.scenes.release_quatbake, tests/blender/test_cli_exit.py).
    if getattr(bpy.types.Scene, "quatbake", None) is not None:
        quatbake.unregister()
    if _TEARDOWN_CRASHES and "status" in _EXIT_STATUS:
        import os
        import sys

        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_EXIT_STATUS["status"])
