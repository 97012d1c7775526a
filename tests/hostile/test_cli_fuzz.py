"""The command line fed random arguments and random bytes as a .blend never
prints a traceback: exit 0/1/2, and exit 2 comes with a sentence (issue 7).

Hypothesis runs inside one subprocess (cli_fuzz_runner.py) with the bpy
module, so Blender starts once and a crash of its file reader on random bytes
shows up as a dead process. A few cases also go through the real
``python -m quatbake`` entry point.
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest

pytestmark = pytest.mark.bpy

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
# Each example may load a .blend (~0.1 s): a few hundred by default, the
# hypothesis "slow" profile's 10,000 with QUATBAKE_SLOW=1.
EXAMPLES = (int(os.environ.get("QUATBAKE_SLOW_EXAMPLES", "10000"))
            if os.environ.get("QUATBAKE_SLOW") == "1" else 500)


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    path = tmp_path_factory.mktemp("fuzz scene") / "scène.blend"
    done = subprocess.run([sys.executable, str(HERE / "build_scene.py"), str(path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return path


def test_random_arguments_and_bytes_never_traceback(scene, tmp_path):
    work = tmp_path / "work dir é"
    work.mkdir()
    result = tmp_path / "result.json"
    proc = subprocess.run(
        [sys.executable, str(HERE / "cli_fuzz_runner.py"), str(work), str(scene), str(EXAMPLES),
         str(result)],
        capture_output=True, text=True, timeout=6 * 3600)
    assert result.exists(), f"the runner died (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
    report = json.loads(result.read_text(encoding="utf-8"))
    assert report["status"] == "passed", json.dumps(report["failures"], indent=1)[:4000]
    # The examples got past argparse: Blender's reader refused random bytes and
    # real reports/bakes ran (otherwise this would only fuzz argparse).
    stats = report["stats"]
    print(stats)
    assert stats["blender_refused"] > 0 and stats["baked_or_reported"] > 0, stats


@pytest.mark.parametrize("seed", range(4))
def test_random_bytes_through_the_real_entry_point(tmp_path, seed):
    """Random bytes behind a valid header, so Blender's reader gets them."""
    rng = __import__("random").Random(seed)
    header = [b"BLENDER-v300", b"BLENDER_V304", b"BLENDER17-01v0500", b"BLENDER-v402"][seed]
    path = tmp_path / f"bytes {seed} ü.blend"
    path.write_bytes(header + bytes(rng.getrandbits(8) for _ in range(5000)) + b"ENDB")
    res = subprocess.run([sys.executable, "-m", "quatbake", "bake", str(path), "--output",
                          str(tmp_path / "o.blend")], capture_output=True, text=True, cwd=ROOT,
                         timeout=300)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "Traceback" not in res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and str(path) in lines[0], res.stderr
    assert not (tmp_path / "o.blend").exists()
