"""The command line and bpy scripts run as processes, as a user or a farm runs them
(tests/cli): from the repository's folder, with the interpreter running the tests."""
from __future__ import annotations

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def run_quatbake(*args) -> subprocess.CompletedProcess:
    """``python -m quatbake ARGS``; the caller checks its exit code."""
    return subprocess.run([sys.executable, "-m", "quatbake", *map(str, args)],
                          check=False, capture_output=True, text=True, cwd=ROOT, timeout=300)


def run_python(code: str, *args) -> str:
    """The standard output of ``python -c CODE ARGS``, which must succeed."""
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)], check=False,
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout
