"""A show's shots at once: ``batch report --jobs 2`` vs one ``report`` process per shot.

    python -m benchmarks.bench_batch [--smoke] [--shots N] [--jobs N]

Issue 25's target: over 40 shots, ``batch report --jobs 2`` at least 1.7x faster
than 40 sequential ``python -m quatbake report SHOT --json --html`` processes on
this 2-core machine. Both sides start one Blender (the bpy module) per shot, which
is most of a shot's time, so what the batch wins is running two at once; the peer
is what a pipeline script does today. The shots are built here with plain bpy
(three objects each, Euler keys every 10 frames over 200 frames) and saved once;
both runs read the same files and write the same outputs (each into its own
folder). Wall-clock seconds are what a farm user waits for, so they are quoted,
with the load average beside them, and the CPU seconds of all the processes each
side started (which a busy machine disturbs much less: on cores other jobs keep
busy, running two at once cannot win wall time, and equal CPU says it costs
nothing either); the peak memory of each shot's process is the summary's
``peak_memory_mb``.
"""
import json
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

SHOTS, SMOKE_SHOTS = 40, 2
TARGET = 1.7

_BUILD = r"""
import math, os, sys
import bpy

folder, count = sys.argv[1], int(sys.argv[2])
for n in range(count):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    for i in range(3):
        obj = bpy.data.objects.new(f"Obj{i}", None)
        bpy.context.scene.collection.objects.link(obj)
        for k, frame in enumerate(range(1, 201, 10)):
            obj.rotation_euler = (math.radians(17 * k + n), math.radians(5 * i), math.radians(31 * k))
            obj.keyframe_insert("rotation_euler", frame=frame)
    bpy.ops.wm.save_as_mainfile(filepath=os.path.join(folder, f"sh{n:03d}.blend"))
"""


def _quatbake(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "quatbake", *map(str, args)],
                          capture_output=True, text=True)


def _children_cpu() -> float:
    """CPU seconds (user + system) of every finished process this one started, their
    own children included."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str]) -> int:
    shots = SMOKE_SHOTS if "--smoke" in argv else SHOTS
    jobs = 2
    for flag in ("--shots", "--jobs"):
        if flag in argv:
            value = int(argv[argv.index(flag) + 1])
            shots, jobs = (value, jobs) if flag == "--shots" else (shots, value)
    with tempfile.TemporaryDirectory(prefix="quatbake-bench-batch-") as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "shots").mkdir()
        subprocess.run([sys.executable, "-c", _BUILD, str(tmp / "shots"), str(shots)],
                       check=True, capture_output=True)
        files = sorted((tmp / "shots").glob("*.blend"))
        (tmp / "list.txt").write_text("".join(f"shots/{f.name}\n" for f in files))
        load = os.getloadavg()[0]

        (tmp / "peer").mkdir()
        c0, t0 = _children_cpu(), time.perf_counter()
        for f in files:
            done = _quatbake("report", f, "--json", tmp / "peer" / f"{f.stem}.json",
                             "--html", tmp / "peer" / f"{f.stem}.html", "--quiet")
            if done.returncode != 0:
                print(done.stderr, file=sys.stderr)
                return 1
        peer, peer_cpu = time.perf_counter() - t0, _children_cpu() - c0

        c0, t0 = _children_cpu(), time.perf_counter()
        done = _quatbake("batch", "report", "--manifest", tmp / "list.txt", "--out",
                         tmp / "batch", "--jobs", jobs, "--quiet")
        batch, batch_cpu = time.perf_counter() - t0, _children_cpu() - c0
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            return 1
        summary = json.loads((tmp / "batch" / "summary.json").read_text())
        memory = [s["peak_memory_mb"] for s in summary["shots"]]
        seconds = [s["seconds"] for s in summary["shots"]]
        load = (load + os.getloadavg()[0]) / 2

    ratio = peer / batch
    print(f"{shots} shots, load average {load:.1f} ({os.cpu_count()} CPUs)")
    print(f"  {shots} sequential report processes: {peer:6.1f} s wall ({peer / shots:.2f} s/shot), "
          f"{peer_cpu:.1f} s CPU")
    print(f"  batch report --jobs {jobs}:            {batch:6.1f} s wall "
          f"(each shot's process {min(seconds):.1f}-{max(seconds):.1f} s), {batch_cpu:.1f} s CPU")
    print(f"  batch is {ratio:.2f}x faster (target {TARGET}x at 40 shots, --jobs 2, 2 CPUs)")
    if all(m is not None for m in memory):
        print(f"  peak memory per worker: {max(memory):.0f} MB (mean {sum(memory) / len(memory):.0f}"
              " MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
