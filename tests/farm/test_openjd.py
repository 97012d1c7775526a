"""The Open Job Description template (farm/openjd/quatbake-batch.yaml), checked by the
openjd CLI itself and run locally with `openjd run` on shots built here, one of them
truncated: one task per manifest line with --defer-exit, then the summary step."""
import pathlib
import subprocess
import sys

import pytest
import yaml
from batch_shots import SHOTS, build, sha256, truncated_copy, worst_deviation_deg

from report_schema import load_batch, load_report

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "farm" / "openjd" / "quatbake-batch.yaml"
OPENJD = pathlib.Path(sys.executable).with_name("openjd")
# float32 keys and matrix_world: see tests/cli/test_batch.py.
DEG_TOL = 1e-3


def openjd(*args, timeout=600):
    assert OPENJD.exists(), f"{OPENJD} is missing: `make venv` installs openjd-cli"
    return subprocess.run([str(OPENJD), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def test_template_passes_openjd_check_and_has_the_promised_parameters():
    res = openjd("check", TEMPLATE)
    assert res.returncode == 0 and "passes validation" in res.stdout, res.stdout + res.stderr
    template = yaml.safe_load(TEMPLATE.read_text())
    assert template["specificationVersion"] == "jobtemplate-2023-09"
    params = {p["name"]: p for p in template["parameterDefinitions"]}
    assert params["Manifest"]["type"] == "PATH" and params["OutputDir"]["type"] == "PATH"
    assert params["Command"]["allowedValues"] == ["report", "bake", "export-check"]
    assert "Python" in params
    shot, summary = template["steps"]
    assert [p["name"] for p in shot["parameterSpace"]["taskParameterDefinitions"]] == ["Index"]
    assert summary["dependencies"] == [{"dependsOn": shot["name"]}]


@pytest.mark.bpy
def test_openjd_run_makes_one_task_per_shot_then_the_summary(tmp_path):
    folder = tmp_path / "shots"
    folder.mkdir()
    played = build([sys.executable], folder, {"seq/sh010/anim.blend":
                                              SHOTS["seq/sh010/anim.blend"]})
    truncated_copy(folder / "seq" / "sh010" / "anim.blend", folder / "broken.blend")
    digests = {p: sha256(p) for p in (folder / "seq/sh010/anim.blend", folder / "broken.blend")}
    manifest = folder / "shots.txt"
    manifest.write_text("seq/sh010/anim.blend\nbroken.blend\n")
    out = tmp_path / "out"
    res = openjd("run", TEMPLATE, "--step", "Summary", "--run-dependencies",
                 "-p", f"Manifest={manifest}", "-p", "Shots=0-1", "-p", f"OutputDir={out}",
                 "-p", "Command=report", "-p", f"Python={sys.executable}",
                 "-p", f"QuatBake={ROOT}", "-p", "FailAbove=10")
    log = res.stdout + res.stderr
    # Both shot tasks succeed (the broken shot is recorded, not a failed task); the
    # summary step exits 3, which fails the job.
    exits = [line.split("exited with code:")[1].split()[0]
             for line in log.splitlines() if "exited with code:" in line]
    assert exits == ["0", "0", "3"], log[-3000:]
    assert res.returncode != 0
    summary = load_batch(out / "summary.json")
    assert summary["exit_code"] == 3 and summary["fail_above_deg"] == 10
    first, broken = summary["shots"]
    assert (first["name"], first["status"], broken["name"], broken["status"]) == (
        "anim", "over", "broken", "failed")
    assert first["max_deviation_deg"] == pytest.approx(
        worst_deviation_deg(played["seq/sh010/anim.blend"]), abs=DEG_TOL)
    load_report(out / "anim.json")
    assert "truncated" in broken["message"]
    assert f"Saved: '{out / 'anim.json'}'" in log
    for path, digest in digests.items():
        assert sha256(path) == digest


@pytest.mark.bpy
@pytest.mark.parametrize("python", ["bpy module", "Blender 3.4.1"])
def test_a_quatbake_folder_missing_on_the_workers_fails_every_task(tmp_path, python):
    """A pipeline walk: with the QuatBake parameter mistyped, Blender (the template's
    default Python) said it could not open __main__.py and ended with 0, so every task
    and the summary passed and the job "ended successfully" with nothing checked. Each
    task now ends with 4 and says where it looked; the job fails."""
    from programs import require_program

    exe = sys.executable if python == "bpy module" else require_program(
        "blender", "to run the template's tasks inside Blender 3.4.1")
    folder = tmp_path / "shots"
    folder.mkdir()
    build([sys.executable], folder, {"seq/sh010/anim.blend": SHOTS["seq/sh010/anim.blend"]})
    manifest = folder / "shots.txt"
    manifest.write_text("seq/sh010/anim.blend\n")
    missing = tmp_path / "no_such_quatbake"
    res = openjd("run", TEMPLATE, "--step", "Shot", "-p", f"Manifest={manifest}",
                 "-p", "Shots=0", "-p", f"OutputDir={tmp_path / 'out'}",
                 "-p", f"Python={exe}", "-p", f"QuatBake={missing}")
    log = res.stdout + res.stderr
    exits = [line.split("exited with code:")[1].split()[0]
             for line in log.splitlines() if "exited with code:" in line]
    assert exits == ["4"], log[-3000:]
    assert res.returncode != 0
    assert f"QuatBake's __main__.py is not in {missing}" in log, log[-3000:]


@pytest.mark.bpy
def test_a_job_of_some_shots_is_summarized_on_those_shots(tmp_path):
    """A pipeline walk: docs/farm.md offers 0-39:2 for every other shot, and the summary
    then failed the job (exit 3) on the shots it was never asked to run. The Summary step
    passes the job's Shots range: here shot 0 alone, over FailAbove (exit 1), the broken
    shot 1 not run and not missing."""
    folder = tmp_path / "shots"
    folder.mkdir()
    build([sys.executable], folder, {"seq/sh010/anim.blend": SHOTS["seq/sh010/anim.blend"]})
    truncated_copy(folder / "seq" / "sh010" / "anim.blend", folder / "broken.blend")
    manifest = folder / "shots.txt"
    manifest.write_text("seq/sh010/anim.blend\nbroken.blend\n")
    out = tmp_path / "out"
    res = openjd("run", TEMPLATE, "--step", "Summary", "--run-dependencies",
                 "-p", f"Manifest={manifest}", "-p", "Shots=0", "-p", f"OutputDir={out}",
                 "-p", f"Python={sys.executable}", "-p", f"QuatBake={ROOT}",
                 "-p", "FailAbove=10")
    log = res.stdout + res.stderr
    exits = [line.split("exited with code:")[1].split()[0]
             for line in log.splitlines() if "exited with code:" in line]
    assert exits == ["0", "1"], log[-3000:]
    summary = load_batch(out / "summary.json")
    assert [(s["name"], s["status"]) for s in summary["shots"]] == [("anim", "over")]
