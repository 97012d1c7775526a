"""Run every benchmark: ``python -m benchmarks [--smoke] [NAME ...]``.

Each ``bench_*.py`` module here is a script of its own (``python -m
benchmarks.bench_interp``) that times QuatBake and its peer in the same run and
prints ratios, which stay meaningful on a shared, noisy machine where absolute
seconds do not. They run in separate processes so one benchmark's imports
(bpy, scipy) and memory do not colour another's timings. ``--smoke`` runs small
sizes (tests/bench runs it in `make test` to prove the benchmarks still work,
not to judge speed).
"""
import pathlib
import subprocess
import sys


def main(argv: list[str]) -> int:
    smoke = "--smoke" in argv
    wanted = [a for a in argv if not a.startswith("-")]
    here = pathlib.Path(__file__).parent
    names = sorted(p.stem for p in here.glob("bench_*.py"))
    if wanted:
        names = [n for n in names if any(w in n for w in wanted)]
    failed = []
    for name in names:
        print(f"== {name}", flush=True)
        cmd = [sys.executable, "-m", f"benchmarks.{name}"] + (["--smoke"] if smoke else [])
        if subprocess.run(cmd, cwd=here.parent).returncode != 0:
            failed.append(name)
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
