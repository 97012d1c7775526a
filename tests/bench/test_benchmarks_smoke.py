"""Every benchmark still runs (``python -m benchmarks --smoke``: small sizes, in
subprocesses as a developer runs them). This proves they work, not how fast
anything is: speed is never asserted in tests (a shared machine is noisy); the
figures come from the full-size runs, benchmarks/README.md."""
import pathlib
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.bpy

ROOT = pathlib.Path(__file__).resolve().parents[2]
BENCHMARKS = sorted(p.stem for p in (ROOT / "benchmarks").glob("bench_*.py"))


@pytest.mark.parametrize("name", BENCHMARKS)
def test_benchmark_runs_in_smoke_size_and_prints_its_comparison(name):
    done = subprocess.run([sys.executable, "-m", f"benchmarks.{name}", "--smoke"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    # Each compares QuatBake with its peer in the same run and prints the ratio ("17.2x").
    assert re.search(r"\d(\.\d+)?x\b", done.stdout), done.stdout
