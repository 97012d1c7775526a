"""`python -m quatbake export-check` as a pipeline runs it: a subprocess, a real .blend,
Blender's own exporter, exit codes 0 / 1 / 2 and the files written."""

import json
import pathlib
import re
import subprocess
import sys

import pytest

from report_schema import load_report, validate_export_check

pytestmark = pytest.mark.bpy

ROOT = pathlib.Path(__file__).resolve().parents[2]

_BUILD = """
import sys, bpy
sys.path.insert(0, sys.argv[2])
bpy.ops.wm.read_factory_settings(use_empty=True)
from export_scenes import build_three_empties
build_three_empties()
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "quatbake", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    path = tmp_path_factory.mktemp("export") / "three.blend"
    done = subprocess.run(
        [sys.executable, "-c", _BUILD, str(path), str(ROOT / "tests" / "blender")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return path


def load_check(path):
    """A written export-check report, validated against quatbake.export-check/1."""
    return validate_export_check(json.loads(pathlib.Path(path).read_text(encoding="utf-8")))


def _one_sentence(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def test_defaults_pass_and_keys_as_they_are_fail_above(scene, tmp_path):
    out = tmp_path / "sampled.json"
    done = run("export-check", scene, "--json", out, "--fail-above", "0.001")
    assert done.returncode == 0, done.stderr
    report = load_check(out)
    assert sorted(o["name"] for o in report["objects"]) == ["Cam", "Flip", "Swing", "Windmill"]
    # Sampled (the exporter's default): float32 keys, measured <= 5.5e-5 deg.
    assert max(o["max_deviation_deg"] for o in report["objects"]) < 1e-4
    assert "Windmill" in done.stdout  # the table
    # Its columns: degrees and scene units side by side, each as the JSON has it.
    table = [line.split() for line in done.stdout.splitlines()]
    head = table[0]
    assert head[4:7] == ["max", "dev", "max"] and head[7] == "loc", head
    rows = {row[0]: row for row in table[1:] if row and row[0] in ("Cam", "Flip", "Swing",
                                                                  "Windmill")}
    for o in report["objects"]:
        assert rows[o["name"]][4:6] == [f"{o['max_deviation_deg']:.4g}",
                                        f"{o['max_location_deviation']:.4g}"], rows[o["name"]]
    # One progress line per object on stderr, and nothing of the exporter's log.
    lines = done.stderr.splitlines()
    assert len(lines) == 4 and all(ln.startswith("export-check: ") for ln in lines), lines

    out, page = tmp_path / "raw.json", tmp_path / "raw.html"
    done = run(
        "export-check",
        scene,
        "--objects",
        "Windmill,Flip",
        "--json",
        out,
        "--html",
        page,
        "--exporter-option",
        "export_force_sampling=False",
        "--fail-above",
        "1",
        "--quiet",
    )
    assert done.returncode == 1
    assert "above --fail-above 1 deg" in _one_sentence(done.stderr)
    report = load_check(out)
    got = {o["name"]: o for o in report["objects"]}
    assert sorted(got) == ["Flip", "Windmill"]  # only those exported
    assert report["exporter_options"] == {"export_force_sampling": False}
    assert got["Windmill"]["causes"] == {"turn_lost": 1}
    assert "sign_flip" in got["Flip"]["causes"]
    text = page.read_text(encoding="utf-8")
    assert "turn_lost" in text and "<svg" in text and "Windmill" in text


@pytest.mark.parametrize(
    "args, words",
    [
        (["--exporter-option", "export_force_samplin=0"], "did you mean export_force_sampling"),
        (["--exporter-option", "export_force_sampling=perhaps"], "takes a boolean value"),
        (["--exporter-option", "export_anim_slide_to_zero=True"], "shifts the exported times"),
        (["--objects", "Nope"], 'Object "Nope" is not in'),
        (["--fail-above", "-1"], "must be a finite angle"),
    ],
)
def test_bad_input_is_one_sentence_and_writes_nothing(scene, tmp_path, args, words):
    out = tmp_path / "r.json"
    done = run("export-check", scene, "--json", out, *args)
    assert done.returncode == 2
    assert words in _one_sentence(done.stderr)
    assert not out.exists()


def test_missing_file_and_same_output(scene, tmp_path):
    done = run("export-check", tmp_path / "none.blend")
    assert done.returncode == 2 and "does not exist" in _one_sentence(done.stderr)
    done = run("export-check", scene, "--json", scene)
    assert done.returncode == 2 and "is the input file" in _one_sentence(done.stderr)


def test_report_schema_is_not_the_export_check_schema(scene, tmp_path):
    # The two schemas are distinct promises: an export check is not a difference report.
    out = tmp_path / "r.json"
    assert run("export-check", scene, "--json", out, "--quiet").returncode == 0
    with pytest.raises(AssertionError, match="quatbake.report/1"):
        load_report(out)


def test_tolerance_bake_then_keys_as_they_are_play_like_blender(scene, tmp_path):
    # The workflow the two features make: bake few keys, export them without
    # sampling, and the player plays what Blender plays.
    out = tmp_path / "baked.blend"
    done = run("bake", scene, "--output", out, "--objects", "Swing,Flip", "--tolerance", "0.01")
    assert done.returncode == 0, done.stderr
    dense, sparse = map(
        int,
        re.search(r"Keys per channel: (\d+) dense -> (\d+) within 0.01 deg", done.stdout).groups(),
    )
    assert dense == 50 and sparse < dense  # two objects, frames 1..25
    report_path = tmp_path / "check.json"
    done = run(
        "export-check",
        out,
        "--objects",
        "Swing,Flip",
        "--json",
        report_path,
        "--exporter-option",
        "export_force_sampling=False",
        "--fail-above",
        "0.02",
    )
    assert done.returncode == 0, done.stderr
    report = load_check(report_path)
    assert sum(o["key_count"] for o in report["objects"]) == sparse
    assert all(o["interpolation"] == "LINEAR" for o in report["objects"])


def test_bad_tolerance_is_one_sentence(scene, tmp_path):
    done = run("bake", scene, "--output", tmp_path / "x.blend", "--tolerance", "-0.5")
    assert done.returncode == 2
    assert "must be a finite angle" in _one_sentence(done.stderr)
    assert not (tmp_path / "x.blend").exists()


_IMPORT = """
import sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=sys.argv[2])
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


def test_real_import_with_stashed_clips_exits_0_and_names_them(tmp_path):
    # glTF-Blender-IO's 03_all_animations imported by Blender: Cube's only rotation is
    # its muted NLA stash "CubeAction". Every object with rotation keys is checked (Cube
    # too); before issue 21 it came out 180 deg key_mismatch, "bake the object".
    blend = tmp_path / "all animations.blend"
    source = ROOT / "tests" / "data" / "realdata" / "gltf" / "03_all_animations.gltf"
    done = subprocess.run([sys.executable, "-c", _IMPORT, str(blend), str(source)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out, page = tmp_path / "check.json", tmp_path / "check.html"
    done = run("export-check", blend, "--json", out, "--html", page, "--fail-above", "0.01")
    assert done.returncode == 0, done.stderr
    report = load_check(out)
    assert report["objects"] == [] and report["errors"] == []
    (skipped,) = report["skipped"]
    assert skipped["object"] == "Cube"
    assert 'NLA clip "CubeAction" on the muted track "CubeAction"' in skipped["message"]
    notes = [ln for ln in done.stderr.splitlines() if ln.startswith("note: ")]
    assert notes == [f"note: {skipped['message']}"]
    assert "key_mismatch" not in done.stdout + done.stderr and "Traceback" not in done.stderr
    assert "<h2>Not compared</h2>" in page.read_text(encoding="utf-8")


_BUILD_RIG = """
import sys, bpy
sys.path.insert(0, sys.argv[2])
bpy.ops.wm.read_factory_settings(use_empty=True)
from export_scenes import build_flipped_rig
build_flipped_rig()
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


def test_a_rigs_bones_are_checked_and_gate_the_exit_code(tmp_path):
    """A rig whose arm bone has a flipped key: exported as it is, the arm plays the short
    way, the table names it as "Rig: arm", and --fail-above fails on it."""
    path = tmp_path / "rig.blend"
    done = subprocess.run([sys.executable, "-c", _BUILD_RIG, str(path),
                           str(ROOT / "tests" / "blender")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out, page = tmp_path / "rig.json", tmp_path / "rig.html"
    done = run("export-check", path, "--json", out, "--html", page, "--exporter-option",
               "export_force_sampling=False", "--fail-above", "1")
    assert done.returncode == 1, done.stderr
    report = load_check(out)
    bones = {o["bone"]: o for o in report["objects"] if o.get("bone")}
    assert sorted(bones) == ["arm", "root"]
    assert bones["arm"]["max_deviation_deg"] > 90.0 and "sign_flip" in bones["arm"]["causes"]
    table = done.stdout.splitlines()
    assert any(line.startswith("Rig: arm ") for line in table), done.stdout
    # One progress line for the one object asked for (its bones are part of it).
    progress = [ln for ln in done.stderr.splitlines() if ln.startswith("export-check: ")]
    assert len(progress) == 1, done.stderr
    assert "Rig: arm" in page.read_text(encoding="utf-8")


_SHOWN_AND_HIDDEN = """
import sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
for name, hidden in (("Shown", False), ("Hidden", True)):
    obj = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(obj)
    for frame, z in ((1, 0.0), (21, 2.0)):
        obj.rotation_euler = (0.0, 0.5, z)
        obj.keyframe_insert("rotation_euler", frame=frame)
    obj.hide_viewport = hidden
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


def test_an_object_not_compared_is_in_the_table_and_on_stderr(tmp_path):
    """docs/cli.md, "Output streams": the table on stdout lists every object asked for, as
    report's does. An object the exporter cannot animate (disabled in viewports) was said
    on stderr only, so the table saved to a file read as if every object had been checked;
    it is on both now (exit 2), its sentence the one the JSON lists under errors."""
    shot = tmp_path / "hidden.blend"
    made = subprocess.run([sys.executable, "-c", _SHOWN_AND_HIDDEN, str(shot)],
                          capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    out = tmp_path / "check.json"
    done = run("export-check", shot, "--json", out)
    assert done.returncode == 2, done.stderr
    (error,) = load_check(out)["errors"]
    assert error["object"] == "Hidden", error
    table = done.stdout.splitlines()
    assert table[1].startswith("Shown "), done.stdout
    assert error["message"] in table, done.stdout
    assert error["message"] in done.stderr.splitlines(), done.stderr
