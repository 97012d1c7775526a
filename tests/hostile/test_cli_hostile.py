"""Hostile files and paths for the command line (issue 7), as a pipeline runs it.

Each case runs ``python -m quatbake`` (bpy 5.0.1) or Debian's Blender 3.4.1
program with ``--python __main__.py --`` in a subprocess, on real .blend files
written by one Blender and read by the other. Every refusal exits 2 with one
sentence on stderr naming the file, no traceback, and writes nothing. The
cases tests/cli/test_cli_subprocess.py already covers (random bytes, empty file,
truncated plain and zstd files, usage errors) are not repeated here.
"""
import hashlib
import os
import pathlib
import subprocess
import sys

import pytest

from programs import require_program
from report_schema import load_report

pytestmark = pytest.mark.bpy

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(__file__).with_name("build_scene.py")
BLENDER = os.environ.get("BLENDER", "/usr/bin/blender")
# A folder with spaces and non-ASCII characters, as artists name them.
ODD = "shot 010 – scène ü 日本"


def run_venv(*args):
    return subprocess.run([sys.executable, "-m", "quatbake", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


def run_blender34(*args):
    return subprocess.run([BLENDER, "-b", "--factory-startup", "--python",
                           str(ROOT / "__main__.py"), "--", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def one_sentence(res) -> str:
    """The single non-empty stderr line (Blender's own banner goes to stdout)."""
    assert "Traceback" not in res.stderr + res.stdout, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, res.stderr
    return lines[0]


def sha(path) -> str:
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def needs_blender34():
    require_program(BLENDER, "to run the CLI inside Debian's Blender 3.4.1 program")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Scenes saved by bpy 5.0.1 (zstd and plain) and by Blender 3.4.1, in ODD."""
    folder = tmp_path_factory.mktemp("hostile") / ODD
    folder.mkdir()
    out = {}
    for key, plain in (("v50", False), ("v50_plain", True)):
        path = folder / f"saved by {key} ü.blend"
        done = subprocess.run([sys.executable, str(BUILD), str(path)] + (["plain"] if plain else []),
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0 and path.exists(), done.stderr
        out[key] = path
    if os.path.exists(BLENDER):
        path = folder / "saved by 3.4 ü.blend"
        done = subprocess.run([BLENDER, "-b", "--factory-startup", "--python", str(BUILD), "--",
                               str(path)], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0 and path.exists(), done.stdout + done.stderr
        out["v34"] = path
    return out


# --------------------------------------------------------------------------
# A .blend saved by another Blender version
# --------------------------------------------------------------------------

def test_file_from_blender_34_is_reported_and_baked_by_bpy_50(files, tmp_path):
    """Legitimate: bpy 5.0.1 reads the 3.4.1 file (its actions become slotted
    on load), reports both objects with their long arcs, and bakes it into a
    file whose Blender interpolation then matches slerp."""
    needs_blender34()
    src = files["v34"]
    before = sha(src)
    js = tmp_path / ODD / "report ü.json"
    js.parent.mkdir()
    res = run_venv("report", src, "--json", js, "--quiet")
    assert res.returncode == 0, res.stderr
    report = load_report(js)
    arcs = {o["name"]: o["long_arc_segments"] for o in report["objects"]}
    assert arcs == {"Cam": [[21, 41]], "Spin": [[21, 41]]}, arcs
    baked = tmp_path / ODD / "baked ü.blend"
    res = run_venv("bake", src, "--output", baked, "--method", "slerp", "--quiet")
    assert res.returncode == 0, res.stderr
    js2 = tmp_path / ODD / "baked ü.json"
    res = run_venv("report", baked, "--json", js2, "--quiet")
    assert res.returncode == 0, res.stderr
    # The baked keys ARE slerp, so Blender's linear replay of them differs only
    # by float32 rounding: 0.001 degrees is ~100x that and far below any bug.
    for obj in load_report(js2)["objects"]:
        assert obj["max_deviation_deg"] < 1e-3 and obj["long_arc_segments"] == [], obj["name"]
    assert sha(src) == before


@pytest.mark.parametrize("key, words", [
    # zstd: Debian's 3.4.1 has no zstandard module to read the header (a pipeline walk:
    # the sentence said "corrupt or truncated" first).
    ("v50", "compressed with Zstandard, as Blender 3.0 and later save files"),
    ("v50_plain", "saved by Blender 5.0"),       # plain: the header names the version
])
def test_file_from_bpy_50_in_blender_34_exits_2_naming_the_cause(files, tmp_path, key, words):
    """Blender 3.4.1 cannot read a 5.0 file: exit 2, one sentence naming the
    file and saying a newer Blender saved it, nothing written."""
    needs_blender34()
    out = tmp_path / "out"
    out.mkdir()
    res = run_blender34("report", files[key], "--json", out / "r.json", "--quiet")
    assert res.returncode == 2, res.stdout + res.stderr
    sentence = one_sentence(res)
    assert str(files[key]) in sentence and words in sentence, sentence
    assert list(out.iterdir()) == []


def test_file_from_blender_34_in_blender_34_with_odd_paths(files, tmp_path):
    """The same CLI inside the 3.4.1 program, input and outputs under a path
    with spaces and non-ASCII characters."""
    needs_blender34()
    out = tmp_path / ODD
    out.mkdir()
    res = run_blender34("bake", files["v34"], "--output", out / "bakéd 1.blend", "--quiet")
    assert res.returncode == 0, res.stderr
    res = run_blender34("report", out / "bakéd 1.blend", "--json", out / "r é.json",
                        "--html", out / "r é.html", "--quiet")
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in out.iterdir()) == ["bakéd 1.blend", "r é.html", "r é.json"]


# --------------------------------------------------------------------------
# Paths
# --------------------------------------------------------------------------

def test_paths_with_spaces_and_non_ascii_everywhere(files, tmp_path):
    out = tmp_path / ODD
    out.mkdir()
    res = run_venv("report", files["v50"], "--json", out / "rapport été.json",
                   "--html", out / "rapport été.html", "--quiet")
    assert res.returncode == 0, res.stderr
    assert load_report(out / "rapport été.json")["file"] \
        == files["v50"].name
    res = run_venv("bake", files["v50"], "--output", out / "cuit ü.blend", "--quiet")
    assert res.returncode == 0, res.stderr
    assert (out / "cuit ü.blend").stat().st_size > 0


@pytest.mark.parametrize("command", ["bake", "json", "html"])
def test_output_that_cannot_be_written_exits_2(files, tmp_path, command):
    """/proc accepts no new files, even for root (os.access says yes there):
    the write itself fails, which must still be one sentence, not a traceback."""
    target = f"/proc/quatbake hostile {os.getpid()}.out"
    args = {"bake": ["bake", files["v50"], "--output", target],
            "json": ["report", files["v50"], "--json", target],
            "html": ["report", files["v50"], "--html", target]}[command]
    res = run_venv(*args, "--quiet")
    assert res.returncode == 2, res.stdout + res.stderr
    sentence = one_sentence(res)
    assert "written" in sentence and ("/proc" in sentence or "report" in sentence), sentence
    assert not os.path.exists(target)


def test_output_that_is_a_folder_exits_2(files, tmp_path):
    folder = tmp_path / "taken.blend"
    folder.mkdir()
    res = run_venv("bake", files["v50"], "--output", folder)
    assert res.returncode == 2
    assert "is a folder" in one_sentence(res)
    assert list(folder.iterdir()) == []


def test_input_that_is_a_folder_exits_2(tmp_path):
    folder = tmp_path / "scene.blend"
    folder.mkdir()
    res = run_venv("report", folder)
    assert res.returncode == 2
    assert "is a folder" in one_sentence(res)


# --------------------------------------------------------------------------
# Damaged files that pass the header checks
# --------------------------------------------------------------------------

@pytest.mark.parametrize("damage", ["middle_cut", "zeroed_blocks", "header_only"])
def test_damaged_file_with_a_valid_header_and_end_exits_2(files, tmp_path, damage):
    """Damage the cheap checks cannot see (header and end block intact), so
    Blender's own reader must refuse it: exit 2, one sentence, nothing written."""
    data = files["v50_plain"].read_bytes()
    if damage == "middle_cut":
        bad = data[: len(data) // 3] + data[2 * len(data) // 3:]
    elif damage == "zeroed_blocks":
        bad = data[:12] + bytes(len(data) - 24) + data[-12:]
    else:
        bad = data[:12] + b"ENDB" + bytes(20)
    path = tmp_path / f"{damage} é.blend"
    path.write_bytes(bad)
    out = tmp_path / "out"
    out.mkdir()
    res = run_venv("bake", path, "--output", out / "o.blend")
    assert res.returncode == 2, res.stdout + res.stderr
    sentence = one_sentence(res)
    assert str(path) in sentence or "no object with rotation keys" in sentence, sentence
    assert list(out.iterdir()) == []
