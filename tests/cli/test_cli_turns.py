"""`python -m quatbake report|bake --turns ... --timing ...` (issue 11) as a
pipeline runs it: subprocesses on a saved .blend with a keyed turntable and an
Euler wrap, the baked file replayed by a fresh Blender process."""
import json
import pathlib

import pytest

pytestmark = pytest.mark.bpy

from cli_processes import run_python, run_quatbake

ROOT = pathlib.Path(__file__).resolve().parents[2]

_BUILD = """
import sys, bpy
from quatbake.addon import demo
for name, frames, z in (("Turntable", [1, 51, 101], [0, 360, 720]),
                        ("Wrap", [1, 41], [170, -170])):
    obj = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(obj)
    demo.key(obj, "rotation_euler", frames, [[0, 0, math.radians(v)] for v in z], "LINEAR")
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
""".replace("import sys, bpy", "import math, sys, bpy")

# Z angle (deg) of each object's matrix at the given frames, from a fresh process.
_READ = """
import json, math, sys, bpy
bpy.ops.wm.open_mainfile(filepath=sys.argv[1])
out = {}
for name in ("Turntable", "Wrap"):
    obj = bpy.data.objects[name]
    vals = []
    for f in json.loads(sys.argv[2]):
        bpy.context.scene.frame_set(f)
        vals.append(math.degrees(obj.matrix_basis.to_euler('XYZ').z))
    out[name] = vals
print("RESULT" + json.dumps(out))
"""


_python = run_python
_run = run_quatbake


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    path = tmp_path_factory.mktemp("turns") / "turns.blend"
    _python(_BUILD, path)
    return path


def _z_at(path, frames):
    line = next(ln for ln in _python(_READ, path, json.dumps(frames)).splitlines()
                if ln.startswith("RESULT"))
    return json.loads(line[len("RESULT"):])


def _same_angle(a, b, tol=0.01):
    # Angles from matrices are in (-180, 180]: compare modulo a whole turn.
    return abs((a - b + 180.0) % 360.0 - 180.0) < tol


def test_report_names_kinds_and_turns(scene, tmp_path):
    js = tmp_path / "r.json"
    res = _run("report", scene, "--json", js, "--quiet")
    assert res.returncode == 0, res.stderr
    objects = {o["name"]: o for o in json.loads(js.read_text())["objects"]}
    spin = objects["Turntable"]
    assert [iv["kind"] for iv in spin["key_intervals"]] == ["spin", "spin"]
    assert spin["turns"] == "AUTO" and spin["max_deviation_deg"] < 0.01
    wrap = objects["Wrap"]
    assert [iv["kind"] for iv in wrap["key_intervals"]] == ["wrap"]
    assert wrap["key_intervals"][0]["keyed_turn_deg"] == pytest.approx(340, abs=0.01)
    res = _run("report", scene, "--json", js)
    assert "1-51 spin,51-101 spin" in res.stdout and "off path" in res.stdout
    res = _run("report", scene, "--json", js, "--quiet", "--turns", "shortest")
    spin = {o["name"]: o for o in json.loads(js.read_text())["objects"]}["Turntable"]
    assert spin["turns"] == "SHORTEST" and spin["max_deviation_deg"] > 170
    assert "Turns: Auto or Keyed" in spin["advice"]


@pytest.mark.parametrize("turns", ["auto", "shortest", "keyed"])
def test_bake_turns(scene, tmp_path, turns):
    out = tmp_path / f"{turns}.blend"
    res = _run("bake", scene, "--output", out, "--turns", turns)
    assert res.returncode == 0, res.stderr
    assert "note: Object \"Turntable\": keys 1-51: Blender turns 360 deg" in res.stdout
    frames = [1, 14, 26, 51, 76, 101]
    z = _z_at(out, frames + [21])
    spin = [7.2 * (f - 1) for f in frames] if turns != "shortest" else [0.0] * len(frames)
    assert all(_same_angle(a, b) for a, b in zip(z["Turntable"][:-1], spin)), z
    # The wrap half-way (frame 21): 180 deg on the short arc, 0 deg the long way.
    assert _same_angle(z["Wrap"][-1], 0.0 if turns == "keyed" else 180.0), z


def test_timing_keyed_and_constant_speed_refused(scene, tmp_path):
    res = _run("bake", scene, "--output", tmp_path / "x.blend", "--timing", "keyed",
               "--constant-speed", "--location", "linear")
    assert res.returncode == 2 and "--timing keyed" in res.stderr
    assert not (tmp_path / "x.blend").exists()
