"""Fuzz ``quatbake``'s command line in one process (started by test_cli_fuzz.py).

    python cli_fuzz_runner.py WORK_DIR SCENE.blend MAX_EXAMPLES RESULT.json

Runs from WORK_DIR (every relative output lands there). Hypothesis draws
argument lists (commands, options, odd values, paths to the real scene, to
random-byte ".blend" files with and without Blender headers, to folders,
/proc) and calls ``cli.main(argv)`` with stdout/stderr captured, as
``python -m quatbake`` would. The contract checked for every call: an exit
code 0, 1 or 2 (argparse's --help exits 0), no exception escaping, no
traceback text, and exit 2 comes with a sentence on stderr. A crash of
Blender's file reader kills this process, which the test sees as a missing
result file. The whole failing example goes into RESULT.json.
"""
import contextlib
import io
import json
import os
import sys
import traceback

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

WORK, SCENE, MAX_EXAMPLES, RESULT = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
os.chdir(WORK)

from quatbake.addon import cli  # noqa: E402  (after chdir: relative paths land in WORK)

HEADERS = [b"", b"BLENDER-v300", b"BLENDER_V304", b"BLENDER-v999", b"BLENDER17-01v0500",
           b"\x28\xb5\x2f\xfd", b"\x1f\x8b"]
FOLDER = os.path.join(WORK, "a folder.blend")
os.makedirs(FOLDER, exist_ok=True)
counter = {"n": 0}

odd_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                   max_size=12)
numbers = st.sampled_from(["0", "-1", "1", "2", "1.5", "nan", "inf", "-inf", "1e309", "",
                           "9" * 30, "0x10", " 3 ", "٣"])


@st.composite
def blend_path(draw):
    kind = draw(st.sampled_from(["scene", "scene", "random", "random", "missing", "folder",
                                 "proc", "text"]))
    if kind == "scene":
        return SCENE
    if kind == "random":
        counter["n"] += 1
        path = os.path.join(WORK, f"random {counter['n'] % 50} é.blend")
        body = draw(st.binary(max_size=4096))
        tail = draw(st.sampled_from([b"", b"ENDB", b"ENDB", b"ENDB" + bytes(20)]))
        header = draw(st.sampled_from(HEADERS + [b"BLENDER-v300"] * 3))
        with open(path, "wb") as fh:
            fh.write(header + body + tail)
        return path
    if kind == "missing":
        return os.path.join(WORK, "missing.blend")
    if kind == "folder":
        return FOLDER
    if kind == "proc":
        return "/proc/quatbake-fuzz.blend"
    return draw(odd_text)


def out_path(ext):
    return st.one_of(
        st.sampled_from([f"out{ext}", f"sub dir/out{ext}", f"ü é{ext}", "/proc/x" + ext, FOLDER,
                         SCENE, "", "."]),
        odd_text.map(lambda t: t + ext),
    )


@st.composite
def argv(draw):
    if draw(st.booleans()):
        return draw(well_formed_argv())
    return draw(chaotic_argv())


@st.composite
def well_formed_argv(draw):
    """Arguments argparse accepts, so the file (often random bytes) reaches Blender."""
    command = draw(st.sampled_from(["report", "bake", "export-check"]))
    args = [command, draw(blend_path()), "--quiet"]
    if command == "bake":
        args += ["--output", draw(st.sampled_from(["out.blend", "ü é.blend", "/proc/x.blend"]))]
        args += draw(st.sampled_from([[], ["--method", "squad"], ["--location", "catmull_rom",
                                                                   "--constant-speed"],
                                      ["--step", "3"], ["--objects", "Spin"],
                                      ["--tolerance", "0.01"]]))
    elif command == "export-check":
        args += draw(st.sampled_from([[], ["--json", "r.json"], ["--objects", "Cam"],
                                      ["--exporter-option", "export_force_sampling=False"],
                                      ["--exporter-option", "export_frame_step=0"],
                                      ["--exporter-option", "nope=1"], ["--fail-above", "0"]]))
    else:
        args += draw(st.sampled_from([[], ["--json", "r.json"], ["--html", "r é.html"],
                                      ["--fail-above", "1"], ["--objects", "Cam,Ghost"],
                                      ["--method", "lerp", "--json", "/proc/r.json"]]))
    return args


@st.composite
def chaotic_argv(draw):
    command = draw(st.sampled_from(["report", "bake", "report", "bake", "export-check",
                                    "nonsense", ""]))
    args = [command] if command else []
    if draw(st.integers(0, 9)):
        args.append(draw(blend_path()))
    options = {
        "--objects": st.one_of(st.sampled_from(["Cam", "Spin", "Cam,Spin", "Ghost", ",", "Cam,,"]),
                               odd_text),
        "--method": st.one_of(st.sampled_from(["slerp", "squad", "SLERP", "lerp"]), odd_text),
        "--json": out_path(".json"),
        "--html": out_path(".html"),
        "--fail-above": numbers,
        "--output": out_path(".blend"),
        "--location": st.sampled_from(["keep", "linear", "catmull_rom", "spline"]),
        "--step": numbers,
        "--tolerance": numbers,
        "--exporter-option": st.one_of(st.sampled_from(["export_yup=0", "export_yup", "=1",
                                                        "export_frame_step=-3"]), odd_text),
    }
    flags = ["--constant-speed", "--overwrite", "--quiet", "--help", "--bogus", "-x", "--"]
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            name = draw(st.sampled_from(sorted(options)))
            args.append(name)
            if draw(st.integers(0, 7)):
                args.append(draw(options[name]))
        else:
            args.append(draw(st.sampled_from(flags)))
    if "--help" in args and draw(st.integers(0, 3)):
        args.remove("--help")   # mostly exercise real runs
    return args


failures = []
# What the examples reached, so the test can check the fuzzing got past argparse.
stats = {"exit": {}, "blender_refused": 0, "baked_or_reported": 0}


@settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(args=argv())
def fuzz(args):
    out, err = io.StringIO(), io.StringIO()
    code = None
    escaped = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(list(args))
        except SystemExit as exc:   # argparse --help
            code = exc.code if isinstance(exc.code, int) else 2
        except BaseException:
            escaped = traceback.format_exc()
    text = err.getvalue()
    stats["exit"][str(code)] = stats["exit"].get(str(code), 0) + 1
    stats["blender_refused"] += "could not be read by Blender" in text
    stats["baked_or_reported"] += code in (0, 1) and "--help" not in args
    problem = None
    if escaped is not None:
        problem = "exception escaped"
    elif code not in (0, 1, 2):
        problem = f"exit code {code!r}"
    elif "Traceback" in text + out.getvalue():
        problem = "traceback printed"
    elif code == 2:
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if not lines or not lines[-1].rstrip().endswith((".", ")")):
            problem = "exit 2 without a sentence"
    if problem:
        failures.append({"argv": args, "problem": problem, "code": code,
                         "stderr": text[-2000:], "exception": escaped})
        raise AssertionError(problem)


try:
    fuzz()
    status = "passed"
except AssertionError:
    status = "failed"
with open(RESULT, "w", encoding="utf-8") as fh:
    json.dump({"status": status, "examples": MAX_EXAMPLES, "stats": stats,
               "failures": failures[-3:]}, fh,
              indent=1)
