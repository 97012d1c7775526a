// SPDX-License-Identifier: GPL-3.0-or-later
//
// QuatBake batch: a Flamenco 3 custom job type. One `blender` task per shot of a
// manifest, each running `python -m quatbake batch COMMAND --index N` inside the
// worker's Blender, then a summary task that depends on all of them and writes
// summary.json and summary.html. Install: copy this file into the `scripts`
// folder beside flamenco-manager and restart the Manager (docs/farm.md).
//
// Every task is a `blender-render` command, so the worker shows the `Saved: '...'`
// lines QuatBake prints as the task's outputs. The worker runs
//   {exe} {exeArgs} {argsBefore} {blendfile} {args}
// and everything after `--` goes to QuatBake, not to Blender: `blendfile` is the
// manifest (for a shot) or the output folder (for the summary), an argument of the
// command line, never a file Blender opens.

const JOB_TYPE = {
    label: "QuatBake Batch",
    description: "Report, re-bake or export-check every shot of a manifest with QuatBake, " +
        "then summarise them (summary.json, summary.html)",
    settings: [
        { key: "command", type: "string", required: true, default: "report",
          choices: ["report", "bake", "export-check"],
          description: "The QuatBake command each shot runs" },
        { key: "manifest", type: "string", subtype: "file_path", required: true,
          description: "Text file listing one .blend per line (paths relative to its folder)" },
        { key: "shots", type: "string", required: true,
          description: "Which shots of the manifest, 0-based: 0-39 for 40 shots (3,7 or 0-39:2 too)" },
        { key: "output_dir", type: "string", subtype: "dir_path", required: true,
          description: "Where each shot's .json, .html (and baked .blend) and the summary go" },
        { key: "quatbake", type: "string", subtype: "dir_path", required: true,
          description: "The quatbake folder on the workers (the one holding __main__.py)" },
        { key: "fail_above", type: "float", default: 180.0,
          description: "The summary task fails (exit 1) when a shot deviates more than this " +
              "many degrees; 180 never fails" },
        { key: "blender", type: "string", default: "{blender}", visible: false,
          description: "The Blender executable on the workers (Flamenco's {blender} variable)" },
    ],
};

const COMMANDS = ["report", "bake", "export-check"];

function compileJob(job) {
    const settings = job.settings;
    if (COMMANDS.indexOf(settings.command) < 0) {
        throw `command must be one of ${COMMANDS.join(", ")}, not "${settings.command}"`;
    }
    const indices = shotIndices(settings.shots);
    const main = settings.quatbake.replace(/[\\/]+$/, "") + "/__main__.py";
    const blender = settings.blender || "{blender}";
    // -b: no window; --factory-startup: the worker's own add-ons and startup file
    // stay out; --python-exit-code 1: a Python error is no success.
    const quatbake = ["-b", "--factory-startup", "--python-exit-code", "1", "-P", main, "--",
                      "batch"];

    const summary = author.Task("summary", "blender");
    summary.addCommand(author.Command("blender-render", {
        exe: blender,
        exeArgs: "{blenderArgs}",
        argsBefore: quatbake.concat(["summarize"]),
        blendfile: settings.output_dir,
        // --shots: the summary expects the shots the job runs, not the whole manifest.
        args: ["--manifest", settings.manifest, "--shots", settings.shots,
               "--fail-above", String(settings.fail_above === undefined ? 180 : settings.fail_above)],
    }));

    for (const index of indices) {
        const task = author.Task(`${settings.command}-${index}`, "blender");
        task.addCommand(author.Command("blender-render", {
            exe: blender,
            exeArgs: "{blenderArgs}",
            argsBefore: quatbake.concat([settings.command, "--manifest"]),
            blendfile: settings.manifest,
            // --defer-exit: a finding or an unreadable shot is recorded and the task
            // succeeds (no worker is blocklisted for it); a crashed Blender exits 3
            // and Flamenco retries the task.
            args: ["--index", String(index), "--out", settings.output_dir, "--jobs", "1",
                   "--defer-exit"],
        }));
        job.addTask(task);
        summary.addDependency(task);
    }
    job.addTask(summary);
}

// "0-39", "3,7", "0-39:2" -> [0, 1, ...]: each shot once, in increasing order.
function shotIndices(text) {
    const found = new Set();
    for (const part of String(text || "").split(",")) {
        const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*(?::\s*(\d+)\s*)?)?$/.exec(part);
        if (!m) {
            throw `shots "${text}" is not a range of shot numbers like 0-39 or 3,7`;
        }
        const first = Number(m[1]);
        const last = m[2] === undefined ? first : Number(m[2]);
        const step = m[3] === undefined ? 1 : Number(m[3]);
        if (last < first || step < 1) {
            throw `shots "${part.trim()}" goes nowhere: write first-last with first <= last`;
        }
        for (let i = first; i <= last; i += step) {
            found.add(i);
        }
    }
    return Array.from(found).sort((a, b) => a - b);
}
