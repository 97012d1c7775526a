"""`python -m quatbake batch` over shots built independently, one of them truncated, one
that crashes Blender and one missing: through a pool, through --index and summarize,
and as bake; exit codes, per-shot outputs and the summary checked each time.

Each shot's worst deviation is checked against an oracle (scipy's slerp between the
keyed orientations against Blender's own matrix_world, frame by frame), its key
counts against the file's own keys, its outputs against the report schemas, and
every input file is checked unchanged.
"""
import contextlib
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest
from batch_shots import (
    SHOTS,
    build,
    crashing_copy,
    opens_or_crashes,
    sha256,
    truncated_copy,
    worst_deviation_deg,
)
from cli_processes import import_bvh_as_objects

from programs import require_program
from report_schema import load_batch, load_report, validate_export_check

pytestmark = pytest.mark.bpy

ROOT = pathlib.Path(__file__).resolve().parents[2]
BLENDER = os.environ.get("BLENDER", "/usr/bin/blender")
# matrix_world and the F-curves are float32 (about 6e-8 relative): the oracle and the
# report agree to far better than this; 1e-3 deg still catches a wrong frame or method.
DEG_TOL = 1e-3
NAMES = ["sh010__anim", "sh020__anim", "sh030", "broken", "crash", "missing"]


def run(*args, cwd=None, timeout=600):
    return subprocess.run([sys.executable, "-m", "quatbake", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd or ROOT, timeout=timeout)


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shots")
    played = build([sys.executable], folder)
    truncated_copy(folder / "sh030.blend", folder / "broken.blend")
    crashing_copy(folder / "sh030.blend", folder / "crash.blend")
    # The crash is Blender's own: a bare bpy process opening the file dies on a signal.
    code = opens_or_crashes(sys.executable, folder / "crash.blend")
    assert code < 0, f"Blender opened crash.blend (exit {code}): the crash shot needs a new recipe"
    files = [folder / rel for rel in SHOTS] + [folder / "broken.blend", folder / "crash.blend",
                                               folder / "missing.blend"]
    return {"folder": folder, "files": files, "played": played,
            "sha": {f: sha256(f) for f in files if f.exists()}}


def _unchanged(shots):
    for path, digest in shots["sha"].items():
        assert sha256(path) == digest, f"{path} was modified"


def _by_name(summary):
    return {s["name"]: s for s in summary["shots"]}


def _check_done_shot(shot, played, out):
    """A shot that was done: its numbers against the oracle and the file's own keys, its
    report against the report schema."""
    assert shot["max_deviation_deg"] == pytest.approx(worst_deviation_deg(played), abs=DEG_TOL)
    assert shot["keys_before"] == sum(len(o["keys"]) for o in played.values())
    assert shot["blender_version"] == "5.0.1"
    assert shot["peak_memory_mb"] > 50          # a process that loaded Blender
    report = load_report(out / shot["outputs"]["json"])
    assert {o["name"] for o in report["objects"]} == set(played)
    assert (out / shot["outputs"]["html"]).read_text().startswith("<!DOCTYPE html>")


def test_pool_reports_every_shot_and_names_the_broken_ones(shots, tmp_path):
    out = tmp_path / "out"
    res = run("batch", "report", *shots["files"], "--out", out, "--jobs", "2",
              "--fail-above", "12")
    assert res.returncode == 3, res.stderr
    summary = load_batch(out / "summary.json")
    assert [s["name"] for s in summary["shots"]] == NAMES      # list order, stems made unique
    assert summary["exit_code"] == 3 and summary["fail_above_deg"] == 12
    assert summary["counts"] == {"shots": 6, "ok": 2, "over": 1, "failed": 2, "crashed": 1,
                                 "missing": 0}
    by = _by_name(summary)
    played = shots["played"]
    for name, rel in (("sh010__anim", "seq/sh010/anim.blend"),
                      ("sh020__anim", "seq/sh020/anim.blend"), ("sh030", "sh030.blend")):
        _check_done_shot(by[name], played[rel], out)
    # sh010 turns 170 deg with Blender's ease: far over 12 deg; sh030 (10.4) and sh020 are not.
    assert [by[n]["status"] for n in NAMES[:3]] == ["over", "ok", "ok"]
    assert [by[n]["exit_code"] for n in NAMES[:3]] == [1, 0, 0]
    assert by["broken"]["status"] == "failed" and "truncated" in by["broken"]["message"]
    assert by["missing"]["status"] == "failed" and "does not exist" in by["missing"]["message"]
    assert by["crash"]["status"] == "crashed" and "SIGSEGV" in by["crash"]["message"]
    # The Blender that ran them, also where it refused the file (a TD walk: it was null).
    assert by["broken"]["blender_version"] == by["missing"]["blender_version"] == "5.0.1"
    for name in ("broken", "crash", "missing"):
        assert by[name]["exit_code"] == 3 and by[name]["outputs"] == {}
        assert str(shots["folder"]) in by[name]["message"]
        assert not (out / f"{name}.json").exists()
    for name in NAMES:
        record = load_batch(out / "shots" / f"{name}.json", record=True)
        assert record["status"] == by[name]["status"] and record["command"] == "report"
    # Progress: one line per finished shot on stderr; a Saved: line per output on stdout.
    # Each names its place in the manifest, whichever order they finish in.
    progress = [ln for ln in res.stderr.splitlines() if ln.startswith("shot ")]
    places = {re.match(r"shot (\d+)/6 (\S+):", ln).groups() for ln in progress}
    assert places == {(str(k + 1), name) for k, name in enumerate(NAMES)}, progress
    saved = re.findall(r"^Saved: '(.*)'$", res.stdout, re.M)
    assert sorted(saved) == sorted(
        [str(out / f"{n}.{k}") for n in NAMES[:3] for k in ("json", "html")]
        + [str(out / "summary.json"), str(out / "summary.html")])
    # The page: one table, failed shots first, then the worst deviation first, each
    # shot that has a page linking it.
    page = (out / "summary.html").read_text()
    rows = re.findall(r'<tr class="(\w+)"><td>(?:<a href="([^"]+)">)?([^<]+)', page)
    assert [r[2] for r in rows] == ["broken", "crash", "missing", "sh010__anim", "sh030",
                                    "sh020__anim"]
    assert [r[1] for r in rows] == ["", "", "", "sh010__anim.html", "sh030.html",
                                    "sh020__anim.html"]
    _unchanged(shots)


def test_index_runs_one_shot_and_summarize_merges_them(shots, tmp_path):
    folder = shots["folder"]
    manifest = folder / "list.txt"
    # Relative paths are read from the manifest's folder; comments and blank lines skipped.
    manifest.write_text("# the sequence\nseq/sh010/anim.blend\n\nseq/sh020/anim.blend\n"
                        "sh030.blend\nbroken.blend\ncrash.blend\nmissing.blend\n")
    out = tmp_path / "out"
    base = ("batch", "report", "--manifest", manifest, "--out", out, "--fail-above", "10")
    first = run(*base, "--index", "0")
    assert first.returncode == 1, first.stderr                 # over --fail-above
    assert re.findall(r"^shot (\d+/\d+) (\S+):", first.stderr, re.M) == [("1/6", "sh010__anim")]
    assert not (out / "summary.json").exists()                 # a farm task writes no summary
    record = load_batch(out / "shots" / "sh010__anim.json", record=True)
    assert record["index"] == 0 and record["status"] == "over"
    assert record["max_deviation_deg"] == pytest.approx(
        worst_deviation_deg(shots["played"]["seq/sh010/anim.blend"]), abs=DEG_TOL)
    broken = run(*base, "--index", "3")
    assert broken.returncode == 3
    # A farm task: the unreadable shot is recorded and the task succeeds.
    deferred = run(*base, "--index", "3", "--defer-exit")
    assert deferred.returncode == 0, deferred.stderr
    assert load_batch(out / "shots" / "broken.json", record=True)["status"] == "failed"

    merged = run("batch", "summarize", out, "--manifest", manifest)
    assert merged.returncode == 3
    summary = load_batch(out / "summary.json")
    # Readable by the farm's other accounts as the umask allows (a walk: mkstemp's 0600
    # kept the summary task, run as another worker, from the shots' records).
    mask = os.umask(0o022)
    os.umask(mask)
    for written in (out / "summary.json", out / "summary.html",
                    out / "shots" / "sh010__anim.json"):
        assert os.stat(written).st_mode & 0o777 == 0o666 & ~mask, written
    assert [(s["name"], s["status"]) for s in summary["shots"]] == [
        ("sh010__anim", "over"), ("sh020__anim", "missing"), ("sh030", "missing"),
        ("broken", "failed"), ("crash", "missing"), ("missing", "missing")]
    assert summary["fail_above_deg"] == 10                     # the one the shots ran with
    assert "did not run or did not finish" in _by_name(summary)["sh030"]["message"]
    # The farm job's own range (a pipeline walk: a job of every other shot, 0-5:3, always
    # failed its summary on the shots it never ran): only those are expected.
    picked = run("batch", "summarize", out, "--manifest", manifest, "--shots", "0-5:3")
    assert picked.returncode == 3, picked.stderr               # broken.blend is shot 3
    assert [(s["name"], s["status"], s["index"]) for s in load_batch(
        out / "summary.json")["shots"]] == [("sh010__anim", "over", 0), ("broken", "failed", 3)]
    assert run("batch", "summarize", out, "--manifest", manifest, "--shots", "0",
               "--fail-above", "20").returncode == 0
    # Any whitespace, as Flamenco's own parser of the same setting takes it (a review).
    assert run("batch", "summarize", out, "--manifest", manifest, "--shots", "0,\t3",
               "--fail-above", "20").returncode == 3
    # Why it does not pass, one sentence never silenced (a pipeline walk: a --quiet batch
    # exited 3 with nothing said).
    quiet = run("batch", "summarize", out, "--manifest", manifest, "--shots", "0-5:3",
                "--quiet")
    assert quiet.returncode == 3 and quiet.stdout == "" and quiet.stderr == (
        f"batch: 1 over --fail-above (sh010__anim); 1 failed (broken) of 2 shots; see "
        f"{out / 'summary.json'}.\n")
    for bad, says in (("0-6", "past the manifest's last shot"), ("4-2", "runs backwards"),
                      ("all", "is not a shot number"), ("0-5:0", "step below 1")):
        assert says in _one_sentence(run("batch", "summarize", out, "--manifest", manifest,
                                         "--shots", bad)), bad
    assert "give both" in _one_sentence(run("batch", "summarize", out, "--shots", "0"))
    # Without the manifest: the shots that have results; a higher --fail-above passes sh010.
    alone = run("batch", "summarize", out, "--fail-above", "20")
    assert alone.returncode == 3
    summary = load_batch(out / "summary.json")
    assert [(s["name"], s["status"]) for s in summary["shots"]] == [
        ("sh010__anim", "ok"), ("broken", "failed")]
    # A record cut short, or without its status (a walk: the first vanished from the
    # summary with exit 0, the second was a traceback, exit 4): each shot failed, named.
    record = (out / "shots" / "sh010__anim.json").read_text()
    (out / "shots" / "cut.json").write_text(record[: len(record) // 2])
    (out / "shots" / "odd.json").write_text(json.dumps(
        {k: v for k, v in json.loads(record).items() if k != "status"} | {"name": "odd"}))
    merged = run("batch", "summarize", out, "--fail-above", "20")
    assert merged.returncode == 3, merged.stderr
    summary = load_batch(out / "summary.json")
    status = {s["name"]: (s["status"], s["message"]) for s in summary["shots"]}
    assert status["cut"][0] == "failed" and "shots/cut.json cannot be read" in status["cut"][1]
    assert status["odd"] == ("failed", "odd: its record shots/odd.json lacks status.")
    assert "note: cut: its record shots/cut.json cannot be read" in merged.stderr
    _unchanged(shots)


def test_summarize_counts_a_shot_once_when_an_earlier_batch_named_it_otherwise(shots,
                                                                            tmp_path):
    """A pipeline walk: a batch of sh010/anim.blend alone (its outputs named "anim"), then
    one of sh010 and sh020 (their stems collide: "sh010__anim", "sh020__anim") into the
    same folder; summarize without a manifest counted sh010 twice."""
    folder, out = shots["folder"], tmp_path / "out"
    one = folder / "seq" / "sh010" / "anim.blend"
    assert run("batch", "report", one, "--out", out, "--jobs", "0").returncode in (0, 1)
    assert (out / "shots" / "anim.json").exists()
    both = run("batch", "report", one, folder / "seq" / "sh020" / "anim.blend", "--out", out,
               "--jobs", "0")
    assert both.returncode in (0, 1), both.stderr
    merged = run("batch", "summarize", out)
    summary = load_batch(out / "summary.json")
    assert [s["name"] for s in summary["shots"]] == ["sh010__anim", "sh020__anim"]
    assert "shots/anim.json is an older result of the same shot as shots/sh010__anim.json" \
        in merged.stderr, merged.stderr
    # With a manifest its names decide, older or not (a review: sh010 re-run alone after
    # the manifest's batch, its manifest record was dropped and it read "missing").
    manifest = folder / "two.txt"
    manifest.write_text("seq/sh010/anim.blend\nseq/sh020/anim.blend\n")
    assert run("batch", "report", one, "--out", out, "--jobs", "0").returncode in (0, 1)
    merged = run("batch", "summarize", out, "--manifest", manifest)
    assert merged.returncode in (0, 1), merged.stderr
    assert [(s["name"], s["status"] != "missing") for s in load_batch(
        out / "summary.json")["shots"]] == [("sh010__anim", True), ("sh020__anim", True)]


def test_a_shot_killed_after_writing_leaves_no_outputs(shots, tmp_path):
    """A pipeline walk: a shot's Blender killed while it saved (an out-of-memory kill)
    left its baked .blend, complete, beside a record saying "crashed, no outputs", for the
    next step of the pipeline to publish. The shot's process here is the real command,
    killed by SIGKILL once its outputs are written and before its record is."""
    out = tmp_path / "out"
    killed = tmp_path / "python-killed-after-writing"
    killed.write_text(
        "#!/bin/sh\n"
        f"{sys.executable} \"$@\"\n"
        f"rm -f {out}/shots/*.json\n"
        "kill -9 $$\n")
    killed.chmod(0o755)
    res = run("batch", "bake", shots["files"][0], "--out", out, "--jobs", "1",
              "--blender", killed)
    assert res.returncode == 3, res.stderr
    summary = load_batch(out / "summary.json")
    (shot,) = summary["shots"]
    assert shot["status"] == "crashed" and shot["outputs"] == {}
    assert "SIGKILL" in shot["message"]
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == ["summary.html",
                                                                    "summary.json"]
    _unchanged(shots)


def test_bake_writes_the_baked_file_and_its_report_and_keeps_the_input(shots, tmp_path):
    out = tmp_path / "out"
    files = shots["files"][:2]
    res = run("batch", "bake", *files, "--out", out, "--jobs", "0", "--step", "4")
    assert res.returncode == 0, res.stderr
    summary = load_batch(out / "summary.json")
    assert summary["command"] == "bake" and summary["options"]["step"] == 4
    counted = _key_counts([out / "sh010__anim.blend", out / "sh020__anim.blend"])
    for shot, rel in zip(summary["shots"], SHOTS):
        played = shots["played"][rel]
        assert shot["status"] == "ok"
        assert set(shot["outputs"]) == {"json", "html", "blend"}
        # What the bake changed is what the report measures on the original keys.
        assert shot["max_deviation_deg"] == pytest.approx(worst_deviation_deg(played),
                                                          abs=DEG_TOL)
        assert shot["keys_before"] == 2
        # The baked file's own keys, counted by a separate Blender.
        assert shot["keys_after"] == counted[shot["outputs"]["blend"]]
        assert counted[shot["outputs"]["blend"]] > 2
        report = load_report(out / shot["outputs"]["json"])
        assert [a["name"] for a in report["after_bake"]] == list(played)
        assert report["after_bake"][0]["keys"] == shot["keys_after"]
    _unchanged(shots)


_KILLED_WHILE_REPORTING = """
import os, sys
from quatbake.addon.cli import shot
from quatbake.report import batch_report, html_report

def killed(*_args, **_kwargs):   # the farm's SIGKILL, at that point of the task
    os._exit(137)

if sys.argv[3] == "page":
    html_report.write_html = killed
else:                            # judging the shot, just before its record is written
    shot.batch_report.judged = killed
shot.run_shot("bake", sys.argv[1], sys.argv[2], "anim", 0, {}, None)
"""


@pytest.mark.parametrize("when", ["page", "judged"])
def test_a_bake_shot_killed_while_reporting_leaves_no_baked_file_to_publish(shots, tmp_path,
                                                                            when):
    """A pipeline walk: a farm cancelled a bake task (SIGKILL) after its .blend was saved,
    while it wrote the reports, and left a whole baked .blend with no record, for a publish
    step to pick up. The .blend takes its name only once its record is written (a review:
    a kill just before the record did it again); a retry clears what the killed one left."""
    out = tmp_path / "out"
    (out / "shots").mkdir(parents=True)
    killed = subprocess.run([sys.executable, "-c", _KILLED_WHILE_REPORTING,
                             str(shots["files"][0]), str(out), when], capture_output=True,
                            text=True, cwd=ROOT, timeout=600)
    assert killed.returncode == 137, killed.stderr
    left = sorted(p.name for p in out.rglob("*") if p.is_file())
    assert not [n for n in left if n.endswith(".blend")], left
    assert not list((out / "shots").glob("*.json")), left
    res = run("batch", "bake", shots["files"][0], "--out", out, "--jobs", "1", "--index", "0")
    assert res.returncode == 0, res.stderr
    # --index: a farm task, no summary.
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == [
        "anim.blend", "anim.html", "anim.json", "shots/anim.json"]


def _shot(path, script: str):
    """``path``, a .blend that ``script`` (bpy, given the path) builds in a process of its
    own."""
    made = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                          text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    return path


_NAN_KEY = """
import sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
obj = bpy.data.objects.new("Cam", None)
bpy.context.scene.collection.objects.link(obj)
for frame in (1, 21):
    obj.keyframe_insert("rotation_euler", frame=frame)
curve = [fc for fc in bpy.data.actions[0].layers[0].strips[0].channelbags[0].fcurves
         if fc.array_index == 2][0] if bpy.app.version >= (4, 4) else \
    bpy.data.actions[0].fcurves[2]
curve.keyframe_points[1].co = (21.0, float("nan"))
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


def test_a_failed_shot_names_its_file(tmp_path):
    """A pipeline walk: a shot with a NaN key failed with its object's sentence only; the
    summary's message is to name the file (docs/cli.md), among forty of a show's."""
    shot = _shot(tmp_path / "sh040.blend", _NAN_KEY)
    out = tmp_path / "out"
    run("batch", "report", shot, "--out", out, "--jobs", "0")
    (entry,) = load_batch(out / "summary.json")["shots"]
    assert entry["status"] == "failed" and entry["message"].startswith(f"{shot}: "), entry
    assert "Cam" in entry["message"] and ".." not in entry["message"], entry["message"]


_NAN_KEY_AND_GOOD = _NAN_KEY.replace("bpy.ops.wm.save_as_mainfile", """
good = bpy.data.objects.new("Good", None)
bpy.context.scene.collection.objects.link(good)
for frame, z in ((1, 0.0), (21, 2.0)):
    good.rotation_euler = (0.0, 0.5, z)
    good.keyframe_insert("rotation_euler", frame=frame)
bpy.ops.wm.save_as_mainfile""")


def test_a_bake_shot_with_one_broken_object_bakes_the_others_and_fails(tmp_path):
    """One transform's problem never stops the others: the shot's good object is baked
    (its baked .blend and report written), the object with a NaN key is left as it was,
    and the shot fails (exit 3) naming the file and that object."""
    shot = _shot(tmp_path / "sh050.blend", _NAN_KEY_AND_GOOD)
    out = tmp_path / "out"
    res = run("batch", "bake", shot, "--out", out, "--jobs", "0")
    assert res.returncode == 3, res.stderr
    (entry,) = load_batch(out / "summary.json")["shots"]
    assert entry["status"] == "failed" and entry["message"].startswith(f"{shot}: "), entry
    assert '"Cam"' in entry["message"] and "rotation_euler[2]" in entry["message"], entry
    assert set(entry["outputs"]) == {"json", "html", "blend"}
    report = load_report(out / entry["outputs"]["json"])
    assert [a["name"] for a in report["after_bake"]] == ["Good"]
    assert [e["object"] for e in report["errors"]] == ["Cam"]
    counted = _key_counts([out / entry["outputs"]["blend"]])
    assert counted[entry["outputs"]["blend"]] == 21     # Good, a key on every frame


@pytest.mark.parametrize("jobs", ["0", "1"])
@pytest.mark.parametrize("quiet", [False, True])
def test_every_shot_error_printed_names_its_file(tmp_path, jobs, quiet):
    """`--jobs 0` (with --quiet or without) printed a NaN key's sentence, and bake's count
    of what it left, without the shot's file, where --jobs 1 and 2 print the progress
    line, which names it: among a show's forty shots nothing said which file held the
    key. Whatever --jobs and --quiet, every line on stderr about the shot names its file
    (the batch's verdict names the shot and the summary), and the sentence is printed
    unless --quiet silences the progress lines."""
    shot = _shot(tmp_path / "sh045.blend", _NAN_KEY_AND_GOOD)
    for command in ("report", "bake"):
        res = run("batch", command, shot, "--out", tmp_path / command, "--jobs", jobs,
                  *(["--quiet"] if quiet else []))
        assert res.returncode == 3, res.stderr
        about_shot = [ln for ln in res.stderr.splitlines()
                      if ln.strip() and not ln.startswith("batch: ")]
        assert all(str(shot) in ln for ln in about_shot), (command, about_shot)
        said = [ln for ln in about_shot if "rotation_euler[2]" in ln]
        assert said or (quiet and jobs != "0"), (command, res.stderr)
        (verdict,) = [ln for ln in res.stderr.splitlines() if ln.startswith("batch: ")]
        assert "sh045" in verdict and "summary.json" in verdict, verdict


_SPIN_AND_SLIDE = """
import sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
for name, path, values in (("Spin", "rotation_euler", (0.0, 2.0)),
                           ("Slide", "location", (0.0, 3.0))):
    obj = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(obj)
    for frame, value in zip((1, 24), values):
        getattr(obj, path)[2] = value
        obj.keyframe_insert(path, frame=frame)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


def test_a_bake_shot_with_location_only_objects_is_ok_and_lists_them_skipped(tmp_path):
    """A TD walk: with --location linear a rig's IK controls (keyed on location only) are
    baked, as `bake` alone does (exit 0), and the shot failed (3): "Slide was baked but
    cannot be reported". Its report lists it under skipped, as `report` does."""
    shot = _shot(tmp_path / "sh060.blend", _SPIN_AND_SLIDE)
    out = tmp_path / "out"
    res = run("batch", "bake", shot, "--out", out, "--jobs", "0", "--location", "linear")
    assert res.returncode == 0, res.stderr
    (entry,) = load_batch(out / "summary.json")["shots"]
    assert entry["status"] == "ok", entry
    report = load_report(out / entry["outputs"]["json"])
    assert [a["name"] for a in report["after_bake"]] == ["Spin"] and report["errors"] == []
    assert [s["object"] for s in report["skipped"]] == ["Slide"]
    # Slide's location was baked: a key on every frame, by a separate Blender.
    assert report["skipped"][0]["location_keys"] == list(range(1, 25))


def test_export_check_records_what_the_exported_file_plays(shots, tmp_path):
    out = tmp_path / "out"
    res = run("batch", "export-check", shots["files"][1], "--out", out, "--jobs", "1")
    assert res.returncode == 0, res.stderr
    (shot,) = load_batch(out / "summary.json")["shots"]
    check = validate_export_check(json.loads((out / shot["outputs"]["json"]).read_text()))
    # The summary's numbers are the export check's own: its worst object and the
    # rotation keys the exporter wrote (a sampled export: one per frame, 1 to 20).
    assert shot["max_deviation_deg"] == max(o["max_deviation_deg"] for o in check["objects"])
    assert shot["keys_after"] == 20 and shot["keys_before"] is None
    assert shot["worst"]["object"] == "Calm"
    _unchanged(shots)


_COUNT = """
import json, sys, bpy
counts = {}
for path in sys.argv[1:]:
    bpy.ops.wm.open_mainfile(filepath=path, load_ui=False, use_scripts=False)
    frames = set()
    for obj in bpy.data.objects:
        action = obj.animation_data.action
        curves = action.fcurves if hasattr(action, "fcurves") else [
            fc for layer in action.layers for strip in layer.strips
            for bag in strip.channelbags for fc in bag.fcurves]
        for fc in curves:
            if fc.data_path == "rotation_euler":
                frames.update(k.co[0] for k in fc.keyframe_points)
    counts[path.rsplit("/", 1)[-1]] = len(frames)
print("COUNTS " + json.dumps(counts))
"""


def _key_counts(paths):
    done = subprocess.run([sys.executable, "-c", _COUNT, *map(str, paths)], capture_output=True,
                          text=True, timeout=300)
    line = [ln for ln in done.stdout.splitlines() if ln.startswith("COUNTS ")]
    assert done.returncode == 0 and line, done.stderr
    return json.loads(line[0][7:])


def test_shot_saved_by_blender_34_runs_in_the_blender_program(tmp_path):
    blender = require_program(BLENDER, "to run batch shots inside Blender 3.4.1")
    folder = tmp_path / "shots"
    folder.mkdir()
    played = build([blender, "-b", "--factory-startup", "--python"], folder,
                   {"old.blend": SHOTS["sh030.blend"]})
    out = tmp_path / "out"
    res = run("batch", "report", folder / "old.blend", "--out", out, "--blender", blender)
    assert res.returncode == 0, res.stdout + res.stderr
    shot = load_batch(out / "summary.json")["shots"][0]
    assert shot["blender_version"] == "3.4.1"
    assert shot["max_deviation_deg"] == pytest.approx(worst_deviation_deg(played["old.blend"]),
                                                      abs=DEG_TOL)


def _one_sentence(res) -> str:
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert res.returncode == 2 and len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    return lines[0]


def test_bad_usage_is_exit_2_with_one_sentence_and_nothing_written(shots, tmp_path):
    out = tmp_path / "out"
    one = shots["files"][0]
    assert "needs shots" in _one_sentence(run("batch", "report", "--out", out))
    assert "does not exist" in _one_sentence(run("batch", "report", "--manifest",
                                                 tmp_path / "none.txt", "--out", out))
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing yet\n\n")
    assert "lists no shots" in _one_sentence(run("batch", "report", "--manifest", empty,
                                                 "--out", out))
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("sh\xe9.blend\n".encode("latin-1"))
    assert "cannot be read" in _one_sentence(run("batch", "report", "--manifest", latin1,
                                                 "--out", out))
    assert "is a folder" in _one_sentence(run("batch", "report", "--manifest", tmp_path,
                                              "--out", out))
    assert "cannot be created" in _one_sentence(run("batch", "report", one, "--out",
                                                    "/proc/quatbake-batch"))
    assert "is not a folder" in _one_sentence(run("batch", "summarize", tmp_path / "none"))
    # A file where the shots' records go: said of that file, not of --out (a TD walk).
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "shots").write_text("not a folder")
    said = _one_sentence(run("batch", "report", one, "--out", taken))
    assert "shots (inside --out" in said and "not a folder" in said, said
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "shots").symlink_to(tmp_path / "nowhere")
    said = _one_sentence(run("batch", "report", one, "--out", broken))
    assert "shots (inside --out" in said and "broken link" in said, said
    (tmp_path / "m.txt").write_text("sh010.blend\n")
    assert "has no shot results" in _one_sentence(run("batch", "summarize", tmp_path,
                                                      "--manifest", tmp_path / "m.txt"))
    assert "past the last shot" in _one_sentence(run("batch", "report", one, "--index", "1",
                                                     "--out", out))
    assert "listed twice" in _one_sentence(run("batch", "report", one, one, "--out", out))
    assert "needs --location" in _one_sentence(run("batch", "bake", one, "--constant-speed",
                                                   "--out", out))
    assert "--json" in _one_sentence(run("batch", "report", one, "--json", "x.json",
                                         "--out", out))
    a_file = tmp_path / "file"
    a_file.write_text("")
    assert "is a file" in _one_sentence(run("batch", "report", one, "--out", a_file))
    # An option Blender's glTF exporter does not take failed every shot, exit 3 (a walk):
    # it is checked once, in a Blender process, before any shot; a farm task too.
    for option, why in (("export_force_samplin=0", "did you mean export_force_sampling"),
                        ("export_force_sampling=perhaps", "takes a boolean value"),
                        ("export_anim_slide_to_zero=True", "shifts the exported times")):
        # Blender 3.4.1's exporter has no export_anim_slide_to_zero: its own sentence.
        blender = () if "slide" in option else (("--blender", BLENDER),)
        for extra in ((), ("--index", "0", "--defer-exit"), *blender):
            if extra and extra[0] == "--blender":
                require_program(BLENDER, "to check exporter options in the Blender program")
            res = run("batch", "export-check", one, "--out", out, "--exporter-option", option,
                      *extra)
            assert why in _one_sentence(res), (option, extra)
    # A wrong --blender was a traceback and exit 4 (a walk), with --defer-exit too.
    for program, why in ((tmp_path / "no-blender", "does not exist"),
                         (tmp_path, "is a folder"), (a_file, "is not executable")):
        for extra in ((), ("--index", "0", "--defer-exit")):
            res = run("batch", "report", one, "--out", out, "--blender", program, *extra)
            assert res.returncode == 2 and why in _one_sentence(res), (program, res.stderr)
    assert not out.exists()
    # --out the shots' own folder: bake would write anim.blend over anim.blend.
    inside = shutil.copy(one, tmp_path / "sh.blend")
    digest = sha256(inside)
    res = run("batch", "bake", inside, "--out", tmp_path)
    assert "would replace the shot" in _one_sentence(res)
    assert sha256(inside) == digest and not (tmp_path / "summary.json").exists()
    # A folder where a shot's report (or its record) goes stopped the batch mid-way on a
    # traceback, exit 4, no summary (a pipeline walk): refused before any shot runs.
    for where in (f"{pathlib.Path(one).stem}.json", f"shots/{pathlib.Path(one).stem}.json"):
        blocked = tmp_path / "blocked"
        shutil.rmtree(blocked, ignore_errors=True)
        (blocked / where).mkdir(parents=True)
        for extra in ((), ("--index", "0", "--defer-exit")):
            res = run("batch", "report", one, "--out", blocked, *extra)
            said = _one_sentence(res)
            assert res.returncode == 2 and "is a folder" in said and "nothing was run" in said, \
                (where, extra, res.stderr)
            assert sorted(str(p.relative_to(blocked)) for p in blocked.rglob("*")) == sorted(
                {where, str(pathlib.Path(where).parent)} - {"."}), where


MOCAPBANK = ROOT / "tests" / "data" / "realdata" / "bvh" / "test_mocapbank.bvh"


def test_a_shot_whose_mocap_wraps_between_frames_is_over_at_that_subframe(tmp_path):
    """A real BVH imported as objects: 0 deg off at every whole frame, 180 deg half-way
    between two (a one-frame wrap). The shot is over --fail-above 1 and its worst frame is
    the subframe the shot's own report gives (report.md: max_between_deviation_deg)."""
    blend = tmp_path / "mocap.blend"
    import_bvh_as_objects(MOCAPBANK, blend)
    out = tmp_path / "out"
    res = run("batch", "report", blend, "--out", out, "--fail-above", "1")
    assert res.returncode == 1, res.stderr
    shot, = load_batch(out / "summary.json")["shots"]
    assert shot["status"] == "over"
    report = load_report(out / shot["outputs"]["json"])
    worst = max(report["objects"], key=lambda o: o["max_between_deviation_deg"])
    assert shot["max_deviation_deg"] == worst["max_between_deviation_deg"] > 90.0
    assert shot["worst"] == {"object": worst["name"], "frame": worst["worst_between_frame"]}
    assert max(o["max_deviation_deg"] for o in report["objects"]) < 1.0


_DOLLY_ONLY = """
import sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
cam = bpy.data.objects.new("Dolly", bpy.data.cameras.new("Dolly"))
bpy.context.scene.collection.objects.link(cam)
for frame, x in ((1, 0.0), (21, 4.0)):
    cam.location.x = x
    cam.keyframe_insert("location", index=0, frame=frame)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


def test_a_shot_with_nothing_to_compare_says_why_in_the_summary(tmp_path):
    """A pipeline walk: a dolly-only shot failed the batch (exit 2 of report), and a shot
    whose only animation was skipped read "ok, 0 deg" with an empty message."""
    shot = _shot(tmp_path / "dolly.blend", _DOLLY_ONLY)
    out = tmp_path / "out"
    res = run("batch", "report", shot, "--out", out, "--jobs", "0", "--fail-above", "1")
    assert res.returncode == 0, res.stderr
    (entry,) = load_batch(out / "summary.json")["shots"]
    assert entry["status"] == "ok"
    assert entry["message"].startswith('Nothing compared: Object "Dolly" has no keys on ')


_STILL = """
import sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
cam = bpy.data.objects.new("LockedOff", bpy.data.cameras.new("LockedOff"))
bpy.context.scene.collection.objects.link(cam)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


@pytest.mark.parametrize("command", ["report", "bake", "export-check"])
def test_a_shot_with_no_animation_at_all_does_not_fail_the_batch(tmp_path, command):
    """A pipeline walk: a locked-off camera shot (nothing animated) made report exit 2, so
    the batch, and the farm job, failed (exit 3). Alone the command still says "nothing to
    do" (exit 2: most likely the wrong file); in a batch the shot has nothing to check."""
    shot = _shot(tmp_path / "still.blend", _STILL)
    alone = run(command, shot, *(["--output", tmp_path / "o.blend"] if command == "bake"
                                 else []))
    assert alone.returncode == 2 and "nothing to do" in alone.stderr, alone.stderr
    out = tmp_path / "out"
    res = run("batch", command, shot, "--out", out, "--jobs", "0", "--fail-above", "1")
    assert res.returncode == 0, res.stderr
    summary = load_batch(out / "summary.json")
    (entry,) = summary["shots"]
    assert entry["status"] == "ok" and entry["exit_code"] == 0, entry
    assert entry["message"].startswith("Nothing to check: ") and "no object with rotation " \
        "keys" in entry["message"], entry["message"]
    # Nothing compared is no figure (a pipeline walk read 0.0, as if checked and fine).
    assert entry["max_deviation_deg"] is None, entry


_NOT_COMPARED = """
import sys, math, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
obj = bpy.data.objects.new("Blend", None)
bpy.context.scene.collection.objects.link(obj)
for frame, deg in ((1, 0.0), (21, 30.0)):      # a lean about X, pushed down to a track
    obj.rotation_euler = (math.radians(deg), 0.0, 0.0)
    obj.keyframe_insert("rotation_euler", index=0, frame=frame)
ad = obj.animation_data
lean, ad.action = ad.action, None
ad.nla_tracks.new().strips.new("Lean", 1, lean)
for frame, deg in ((1, 0.0), (21, 90.0)):      # the active action turns Z over it
    obj.rotation_euler = (0.0, 0.0, math.radians(deg))
    obj.keyframe_insert("rotation_euler", index=2, frame=frame)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


def test_a_shot_whose_objects_are_all_left_uncompared_has_no_figure(tmp_path):
    """A pipeline walk: an export-check shot whose only object was not compared (an NLA
    strip plays with its action, which no one glTF animation holds) read 0.0 deg in the
    summary, as if checked and fine. It has no figure (null), and its record says why."""
    shot = _shot(tmp_path / "blend.blend", _NOT_COMPARED)
    out = tmp_path / "out"
    res = run("batch", "export-check", shot, "--out", out, "--jobs", "0")
    summary = load_batch(out / "summary.json")
    (entry,) = summary["shots"]
    report = json.loads((out / entry["outputs"]["json"]).read_text())
    assert report["objects"] == [] and report["skipped"], report
    assert entry["max_deviation_deg"] is None, (entry, res.stderr)


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM"])
def test_ctrl_c_records_no_crash_for_the_shot_it_stops(shots, tmp_path, how):
    """A docs walk: Ctrl+C while a shot ran recorded it "crashed" (its Blender stopped on
    SIGTERM), and a later summarize failed the batch with exit 3 for a shot the user
    stopped. The shot's Blender here is a stand-in that waits (a Python, by its name),
    so the batch is stopped while it runs, whatever the machine's speed. A pipeline walk:
    SIGTERM to the batch alone (`timeout`, a farm's cancel) left its shots running; they
    are stopped too (exit 143), the stand-in with them."""
    waiting = tmp_path / "python-waits"
    started = tmp_path / "started"
    waiting.write_text(f"#!{sys.executable}\nimport pathlib, time\n"
                       f"pathlib.Path({str(started)!r}).write_text('')\ntime.sleep(120)\n")
    waiting.chmod(0o755)
    out = tmp_path / "out"
    # The batch takes SIGINT as a terminal delivers it, whatever the test run does with
    # it: an ignored signal stays ignored across exec (and Python then installs no
    # handler), and a local CI run started in the background by a script, whose pytest
    # processes ignored SIGINT (/proc's SigIgn), waited out the 60 s below (2026-12-08).
    proc = subprocess.Popen([sys.executable, "-m", "quatbake", "batch", "report",
                             shots["files"][0], "--out", out, "--blender", waiting],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        for _ in range(600):
            if started.exists():
                break
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.1)
        assert started.exists(), "the shot's process never started"
        # The batch's own process only, as a farm stops it.
        proc.send_signal(getattr(signal, how))
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == {"SIGINT": 130, "SIGTERM": 143}[how] and "Interrupted." in err, err
    assert not list((out / "shots").glob("*.json")), "a stopped shot was recorded"
    # The shot's process went with it: no process left running the stand-in (Linux /proc).
    left = []
    for cmdline in pathlib.Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if str(waiting).encode() in cmdline.read_bytes():
                left.append(cmdline.parent.name)
        except OSError:
            pass                                    # ended while looked at
    assert left == [], left


_TWO_KEYS = """
import sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
obj = bpy.data.objects.new("Cam", None)
bpy.context.scene.collection.objects.link(obj)
for frame, z in ((1, 0.0), (21, 2.0)):
    obj.rotation_euler = (0.0, 0.5, z)
    obj.keyframe_insert("rotation_euler", frame=frame)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


@pytest.mark.parametrize("jobs", ["0", "1"])
def test_an_earlier_output_that_cannot_be_removed_fails_that_shot_only(tmp_path, jobs):
    """A TD walk: an earlier run's output that could not be removed (a read-only report
    under a sticky shared folder, owned by another farm user; here, where every user can
    reproduce it, a folder on the hidden path a bake writes its .blend to first) stopped
    the whole batch on a traceback, exit 4, no summary. Only that shot fails (exit 3),
    named with the file in the way and why; the other shot is baked and the summary
    written, and both inputs are left as they were."""
    one = _shot(tmp_path / "sh050.blend", _TWO_KEYS)
    two = shutil.copy(one, tmp_path / "sh060.blend")
    digests = {p: sha256(pathlib.Path(p)) for p in (one, two)}
    out = tmp_path / "out"
    (out / ".quatbake-sh050.blend.part").mkdir(parents=True)
    res = run("batch", "bake", one, two, "--out", out, "--jobs", jobs)
    assert res.returncode == 3, res.stderr
    assert "Traceback" not in res.stderr and "a bug" not in res.stderr, res.stderr
    summary = load_batch(out / "summary.json")
    first, second = _by_name(summary)["sh050"], _by_name(summary)["sh060"]
    assert first["status"] == "failed" and first["exit_code"] == 3, first
    assert first["message"].startswith(f"{one} was not run: "), first["message"]
    assert ".quatbake-sh050.blend.part" in first["message"], first["message"]
    assert "cannot be removed" in first["message"], first["message"]
    assert first["outputs"] == {}
    assert second["status"] == "ok" and set(second["outputs"]) == {"json", "html", "blend"}
    assert (out / "sh060.blend").is_file() and not (out / "sh050.blend").exists()
    assert load_batch(out / "shots" / "sh050.json", record=True)["message"] == first["message"]
    assert {p: sha256(pathlib.Path(p)) for p in (one, two)} == digests


@contextlib.contextmanager
def _immutable(path: pathlib.Path):
    """``path`` made immutable (chattr +i: neither removed nor replaced, by root either)
    for the block; skips where this machine does not allow it (no root, or a file system
    without the attribute)."""
    made = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True) \
        if shutil.which("chattr") else None
    if made is None or made.returncode != 0:
        pytest.skip("chattr +i is not allowed here: " + (made.stderr.strip() if made else
                                                         "no chattr"))
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@pytest.mark.parametrize("extra", [("--index", "0"), ("--index", "0", "--defer-exit"), ()])
def test_a_farm_task_whose_record_cannot_be_written_is_not_done(tmp_path, extra):
    """A TD walk: a farm task (--index, --defer-exit) over an earlier run's record that it
    could neither remove nor rewrite (read-only, under a sticky shared folder owned by
    another farm user; here an immutable file) exited 0, "done", and a later summarize
    counted the earlier run's record as this one's. It is bad usage of that --out, exit
    2, the sentence naming the shot and the record; the shot is not run, and its file and
    the earlier record are left as they were."""
    one = _shot(tmp_path / "sh090.blend", _TWO_KEYS)
    digest = sha256(one)
    out = tmp_path / "out"
    res = run("batch", "report", one, "--out", out, "--index", "0", "--defer-exit")
    record = out / "shots" / "sh090.json"
    assert res.returncode == 0 and record.is_file(), res.stderr
    earlier = sha256(record)
    (out / "sh090.json").unlink()
    with _immutable(record):
        res = run("batch", "report", one, "--out", out, "--jobs", "1", "--quiet", *extra)
        lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
        assert res.returncode == (2 if extra else 3) and "Traceback" not in res.stderr, \
            res.stderr
        said = [ln for ln in lines if ln.startswith(f"{one} was not run: {record}, left by "
                                                    "an earlier run, cannot be removed (")]
        assert len(said) == 1 and (said[0] == lines[-1]) == bool(extra), lines
        assert f"remove it, or give another --out. Its record {record} cannot be written " \
            "either (" in said[0], lines
        assert said[0].endswith("or count an earlier run's in its place."), lines
        assert sha256(record) == earlier
    assert not (out / "sh090.json").exists()
    if extra:
        assert not (out / "summary.json").exists()
    else:
        (shot,) = load_batch(out / "summary.json")["shots"]
        assert shot["status"] == "failed" and shot["exit_code"] == 3, shot
    assert sha256(one) == digest


@pytest.mark.parametrize("extra", [(), ("--index", "0", "--defer-exit")])
def test_a_blender_that_cannot_be_run_is_exit_2_with_one_sentence(tmp_path, extra):
    """A TD walk: --blender naming an executable file this system cannot run (a Blender
    for another system on a shared path; here a text file with no "#!" line) ended in a
    traceback and exit 4, "a bug". It is bad usage, exit 2: one sentence naming the
    program and why, no shot recorded, no summary, the shots left as they were."""
    one = _shot(tmp_path / "sh070.blend", _TWO_KEYS)
    digest = sha256(one)
    program = tmp_path / "blender"
    program.write_text("not a program\n")
    program.chmod(0o755)
    out = tmp_path / "out"
    res = run("batch", "report", one, "--out", out, "--blender", program, "--jobs", "2", *extra)
    said = _one_sentence(res)
    assert res.returncode == 2, res.stderr
    assert said.startswith(f"--blender {program} cannot be run ("), said
    assert not (out / "summary.json").exists() and not list((out / "shots").glob("*"))
    assert sha256(one) == digest


def test_a_blender_that_cannot_be_run_leaves_an_earlier_runs_outputs(tmp_path):
    """A rerun over an earlier run's --out with a --blender this system cannot run removed
    the shot's earlier report and record before finding that out, then stopped with exit 2
    ("bad usage"), the earlier summary still naming what was gone. The program is tried
    before anything is removed: exit 2, the same sentence, every file as it was."""
    one = _shot(tmp_path / "sh080.blend", _TWO_KEYS)
    out = tmp_path / "out"
    res = run("batch", "report", one, "--out", out, "--jobs", "1")
    assert res.returncode == 0, res.stderr
    before = {p: sha256(p) for p in out.rglob("*") if p.is_file()}
    assert out / "shots" / "sh080.json" in before and out / "sh080.json" in before
    program = tmp_path / "blender"
    program.write_text("not a program\n")
    program.chmod(0o755)
    for extra in ((), ("--index", "0", "--defer-exit")):
        res = run("batch", "report", one, "--out", out, "--blender", program, "--jobs", "1",
                  *extra)
        assert res.returncode == 2, res.stderr
        assert _one_sentence(res).startswith(f"--blender {program} cannot be run ("), res.stderr
        assert {p: sha256(p) for p in out.rglob("*") if p.is_file()} == before
