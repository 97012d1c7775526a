"""The Flamenco 3 job type (farm/flamenco/quatbake_batch.js), loaded in node and compiled
against a stand-in of Flamenco's job-compiler API written here (author.Job, author.Task,
author.Command, print): one `blender` task per shot, then a summary task depending on
them all. The compiled commands are then run as Flamenco's worker runs a
`blender-render` command ({exe} {exeArgs} {argsBefore} {blendfile} {args}) inside
Debian's Blender 3.4.1, on shots built here, one of them truncated."""
import json
import os
import pathlib
import shlex
import subprocess

import pytest
from batch_shots import SHOTS, build, truncated_copy, worst_deviation_deg

from programs import require_program
from report_schema import load_batch

ROOT = pathlib.Path(__file__).resolve().parents[2]
JOB_TYPE = ROOT / "farm" / "flamenco" / "quatbake_batch.js"
BLENDER = os.environ.get("BLENDER", "/usr/bin/blender")
DEG_TOL = 1e-3      # float32 keys and matrix_world: see tests/cli/test_batch.py

# The stand-in: what a job compiler script may call, as Flamenco's Manager offers it
# (internal/manager/job_compilers: author.Task(name, type), task.addCommand,
# task.addDependency, job.addTask, author.Command(name, parameters)), with what the
# Manager does that a script can trip on: it compiles the script in strict mode, and
# job.addTask keeps a copy of the task as it is then (a command added afterwards is
# lost). It records the job as plain data and refuses what the Manager would refuse.
HARNESS = r"""
const fs = require("fs");
const vm = require("vm");
const [scriptPath, settingsJson] = process.argv.slice(2);
const TASK_TYPES = ["blender", "ffmpeg", "file-management", "misc"];
const author = {
  Job(name, settings) {
    const job = { name, settings, tasks: [],
      addTask(task) {
        if (job.tasks.some(t => t.name === task.name)) throw new Error(`task ${task.name} twice`);
        job.tasks.push({ name: task.name, type: task.type, commands: [...task.commands],
                         dependencies: task.dependencies.map(d => d.name) });
      } };
    return job;
  },
  Task(name, type) {
    if (typeof name !== "string" || !name) throw new Error("a task needs a name");
    if (!TASK_TYPES.includes(type)) throw new Error(`unknown task type ${type}`);
    const task = { name, type, commands: [], dependencies: [],
      addCommand(cmd) { task.commands.push(cmd); },
      addDependency(other) { task.dependencies.push(other); } };
    return task;
  },
  Command(name, parameters) {
    return { name, parameters: JSON.parse(JSON.stringify(parameters)) };
  },
};
const logged = [];
const context = vm.createContext({ author, print: (...a) => logged.push(a.join(" ")) });
vm.runInContext('"use strict";\n' + fs.readFileSync(scriptPath, "utf8"), context,
                { filename: scriptPath });
const jobType = vm.runInContext("JOB_TYPE", context);
const settings = JSON.parse(settingsJson);
for (const s of jobType.settings) {          // the Manager fills in the defaults
  if (!(s.key in settings) && s.default !== undefined) settings[s.key] = s.default;
}
const job = author.Job("test job", settings);
let error = null;
try { context.compileJob(job); } catch (e) { error = String(e); }
for (const task of job.tasks) {
  for (const dep of task.dependencies) {
    if (!job.tasks.some(t => t.name === dep)) throw new Error(`${task.name} needs ${dep}, not in the job`);
  }
}
console.log(JSON.stringify({ jobType, error, logged, tasks: job.tasks }));
"""


def compile_job(tmp_path, settings: dict) -> dict:
    node = require_program("node", "to load the Flamenco job type")
    harness = tmp_path / "harness.js"
    harness.write_text(HARNESS)
    done = subprocess.run([node, str(harness), str(JOB_TYPE), json.dumps(settings)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


SETTINGS = {"command": "report", "manifest": "/show/shots.txt", "shots": "0-2",
            "output_dir": "/show/qc", "quatbake": "/opt/quatbake/"}


def test_one_blender_task_per_shot_then_the_summary(tmp_path):
    result = compile_job(tmp_path, SETTINGS)
    assert result["error"] is None
    settings = {s["key"]: s for s in result["jobType"]["settings"]}
    assert settings["command"]["choices"] == ["report", "bake", "export-check"]
    assert {s["type"] for s in settings.values()} <= {"string", "int32", "float", "bool"}
    tasks = result["tasks"]
    shots, summary = tasks[:-1], tasks[-1]
    assert [t["name"] for t in shots] == ["report-0", "report-1", "report-2"]
    assert all(t["type"] == "blender" and t["dependencies"] == [] for t in shots)
    assert summary["name"] == "summary" and summary["type"] == "blender"
    assert summary["dependencies"] == [t["name"] for t in shots]
    for task, index in zip(shots, range(3)):
        (cmd,) = task["commands"]
        p = cmd["parameters"]
        assert cmd["name"] == "blender-render" and p["exe"] == "{blender}"
        # What the worker builds: the manifest sits after "--", as batch's --manifest value.
        argv = p["argsBefore"] + [p["blendfile"]] + p["args"]
        assert argv[argv.index("--") + 1:] == [
            "batch", "report", "--manifest", "/show/shots.txt", "--index", str(index),
            "--out", "/show/qc", "--jobs", "1", "--defer-exit"]
        assert argv[argv.index("-P") + 1] == "/opt/quatbake/__main__.py"
    p = summary["commands"][0]["parameters"]
    argv = p["argsBefore"] + [p["blendfile"]] + p["args"]
    assert argv[argv.index("--") + 1:] == ["batch", "summarize", "/show/qc", "--manifest",
                                           "/show/shots.txt", "--shots", SETTINGS["shots"],
                                           "--fail-above", "180"]


@pytest.mark.parametrize("bad, says", [({"command": "render"}, "command must be one of"),
                                       ({"shots": "5-2"}, "goes nowhere"),
                                       ({"shots": "all"}, "is not a range")])
def test_bad_settings_are_refused_when_the_job_is_compiled(tmp_path, bad, says):
    result = compile_job(tmp_path, {**SETTINGS, **bad})
    assert says in result["error"]


def test_shot_ranges_take_steps_and_lists(tmp_path):
    result = compile_job(tmp_path, {**SETTINGS, "shots": "0-6:3,10, 3"})
    assert [t["name"] for t in result["tasks"]] == ["report-0", "report-3", "report-6",
                                                    "report-10", "summary"]


@pytest.mark.bpy
def test_compiled_commands_run_in_blender_34(tmp_path):
    blender = require_program(BLENDER, "to run the Flamenco tasks inside Blender 3.4.1")
    folder = tmp_path / "shots"
    folder.mkdir()
    played = build([blender, "-b", "--factory-startup", "--python"], folder,
                   {"sh020.blend": SHOTS["seq/sh020/anim.blend"]})
    truncated_copy(folder / "sh020.blend", folder / "broken.blend")
    (folder / "shots.txt").write_text("sh020.blend\nbroken.blend\n")
    out = tmp_path / "out"
    result = compile_job(tmp_path, {**SETTINGS, "manifest": str(folder / "shots.txt"),
                                    "shots": "0-1", "output_dir": str(out),
                                    "quatbake": str(ROOT), "fail_above": 5.0})
    # Flamenco's variables as a Linux worker would expand them (its default blenderArgs).
    variables = {"{blender}": blender, "{blenderArgs}": "-b -y"}
    codes, logs = {}, {}
    for task in result["tasks"]:                 # listed after everything they depend on
        assert all(dep in codes for dep in task["dependencies"])
        p = task["commands"][0]["parameters"]
        argv = ([variables.get(p["exe"], p["exe"])] + shlex.split(variables[p["exeArgs"]])
                + p["argsBefore"] + [p["blendfile"]] + p["args"])
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        codes[task["name"]], logs[task["name"]] = done.returncode, done.stdout + done.stderr
    assert codes == {"report-0": 0, "report-1": 0, "summary": 3}, logs
    # The lines the worker registers outputs by.
    assert f"Saved: '{out / 'sh020.json'}'" in logs["report-0"]
    assert f"Saved: '{out / 'summary.html'}'" in logs["summary"]
    summary = load_batch(out / "summary.json")
    ok, broken = summary["shots"]
    assert (ok["status"], ok["blender_version"], broken["status"]) == ("ok", "3.4.1", "failed")
    assert ok["max_deviation_deg"] == pytest.approx(worst_deviation_deg(played["sh020.blend"]),
                                                    abs=DEG_TOL)
