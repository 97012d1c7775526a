"""The command line ends when its work is done, with every bpy module the matrix tests.

The bpy 4.5 module deadlocks while the interpreter exits (a static destructor waits on
its file-closing thread) when a file was opened with QuatBake registered: before the
fix every command wrote its outputs, then never ended (a farm task would hang). The
command line now unregisters QuatBake before it returns (cli.scenes.release_quatbake).
"""
import json
import subprocess
import sys

import bpy
import pytest

pytestmark = pytest.mark.skipif(
    bool(bpy.app.binary_path),
    reason="inside a Blender program the command line runs as blender -b --python "
           "(tests/cli); this checks the bpy module's process")

# A demo or a report of it takes seconds; a process still running after this has hung.
EXIT_WITHIN_S = 240


def _run(*args):
    try:
        return subprocess.run([sys.executable, "-m", "quatbake", *args], capture_output=True,
                              text=True, timeout=EXIT_WITHIN_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"quatbake {args[0]} did not end within {EXIT_WITHIN_S} s "
                    f"(bpy {bpy.app.version_string})")


def test_demo_report_and_bake_end_when_their_work_is_done(tmp_path):
    demo = _run("demo", "--out", str(tmp_path / "demo"), "--quiet")
    assert demo.returncode == 0, demo.stderr
    blend = tmp_path / "demo" / "demo.blend"
    report = _run("report", str(blend), "--json", str(tmp_path / "r.json"), "--quiet")
    assert report.returncode == 0, report.stderr
    names = {o["name"] for o in json.loads((tmp_path / "r.json").read_text())["objects"]}
    assert names, "the report lists the demo's objects"
    baked = _run("bake", str(blend), "--out", str(tmp_path / "b.blend"), "--quiet")
    assert baked.returncode == 0, baked.stderr
    assert (tmp_path / "b.blend").stat().st_size > 0
