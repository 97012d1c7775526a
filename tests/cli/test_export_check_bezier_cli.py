"""A pipeline's Bezier bake then export-check (issue 22), as subprocesses on real files:
`bake --tolerance 0.1 --keys bezier`, then `export-check` with the exporter's defaults
(sampled) and without sampling, and the same bake with `--keys linear`."""

import json
import pathlib
import subprocess
import sys

import pytest

from report_schema import validate_export_check

pytestmark = pytest.mark.bpy

ROOT = pathlib.Path(__file__).resolve().parents[2]

# A quaternion pan 0 -> 140 deg, 4 Bezier keys over 61 frames (the third stored as -q).
_BUILD = """
import math, sys, bpy, mathutils
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.frame_start, scene.frame_end = 1, 61
pan = bpy.data.objects.new("Pan", None)
scene.collection.objects.link(pan)
pan.rotation_mode = 'QUATERNION'
for i, (frame, deg) in enumerate(zip((1, 21, 41, 61), (0, 50, 100, 140))):
    q = mathutils.Euler((math.radians(90), 0, math.radians(deg))).to_quaternion()
    pan.rotation_quaternion = -q if i == 2 else q
    pan.keyframe_insert("rotation_quaternion", frame=frame)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


def run(*args):
    return subprocess.run([sys.executable, "-m", "quatbake", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


@pytest.fixture(scope="module")
def baked(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bezier")
    scene = folder / "pan.blend"
    done = subprocess.run([sys.executable, "-c", _BUILD, str(scene)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = {}
    for keys in ("bezier", "linear"):
        out[keys] = folder / f"{keys}.blend"
        done = run("bake", scene, "--output", out[keys], "--tolerance", "0.1", "--keys", keys,
                   "--quiet")
        assert done.returncode == 0, done.stderr
    return out


def _check(path, tmp_path, *options):
    report = tmp_path / "check.json"
    done = run("export-check", path, "--json", report, *options)
    assert done.returncode == 0, done.stderr
    return done, validate_export_check(json.loads(report.read_text(encoding="utf-8")))


def test_sampled_bezier_bake_says_linear_keys_are_better(baked, tmp_path):
    done, report = _check(baked["bezier"], tmp_path)
    (o,) = report["objects"]
    b = o["bezier"]
    assert b["exported_as"] == "sampled" and o["key_count"] == 61
    assert b["tolerance_from"] == "bake" and abs(b["tolerance_deg"] - 0.1) < 1e-6
    assert b["linear_is_better"] and b["linear"]["keys"] < 61 / 2
    # No cause at whole frames, yet the table says it, with both figures.
    assert o["causes"] == {}
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("Pan: "))
    assert "--keys linear" in line and "export_force_sampling=False" in line
    assert "61 keys (1220 bytes" in line and f"{b['linear']['keys']} Linear keys" in line


def test_unsampled_bezier_bake_is_cubicspline_at_its_keys(baked, tmp_path):
    _done, report = _check(baked["bezier"], tmp_path,
                           "--exporter-option", "export_force_sampling=False")
    (o,) = report["objects"]
    assert o["interpolation"] == "CUBICSPLINE"
    assert o["bezier"]["exported_as"] == "keys"
    assert o["key_count"] == o["bezier"]["blender_keys"]


def test_linear_bake_has_no_bezier_block(baked, tmp_path):
    _done, report = _check(baked["linear"], tmp_path,
                           "--exporter-option", "export_force_sampling=False")
    (o,) = report["objects"]
    assert "bezier" not in o and o["interpolation"] == "LINEAR"
