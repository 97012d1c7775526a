# SPDX-License-Identifier: GPL-3.0-or-later
"""The command line's arguments and exit codes (docs/cli.md), and the checks made on its
paths before anything is loaded or written. No bpy here: usage errors never load Blender."""
from __future__ import annotations

import argparse
import os

from .headless import BadInput

EXIT_OK = 0
EXIT_FAIL_ABOVE = 1
EXIT_BAD_INPUT = 2
EXIT_SHOT_FAILED = 3      # batch: some shot could not be read or processed (the others are done)
# QuatBake itself failed (a bug): its traceback on stderr. Never 0, so a gate never passes
# a shot nothing checked; never 1 or 2, which say something of the scene.
EXIT_INTERNAL_ERROR = 4

METHODS = ("lerp", "nlerp", "slerp", "squad")
LOCATION_METHODS = ("keep", "linear", "catmull_rom")
KEY_INTERPOLATIONS = ("linear", "bezier")
# convert --to (addon/bake/settings.py CONVERT_MODES, lower case; spelled out here so that
# usage errors never import the bake).
CONVERT_MODES = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX", "QUATERNION", "AXIS_ANGLE", "AUTO")

# First bytes of a .blend: plain, gzip (Blender < 3.0 compression) or zstd (3.0+).
_BLEND_MAGICS = (b"BLENDER", b"\x1f\x8b", b"\x28\xb5\x2f\xfd")


class _Parser(argparse.ArgumentParser):
    """argparse that raises BadInput (one sentence) instead of printing usage and exiting."""

    def error(self, message):
        raise BadInput(f"{self.prog}: {message} (see --help).")


# --------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------

def _names(text: str) -> list[str]:
    """Names separated by commas, each without the spaces around it; a backslash makes the
    next character literal (``\\,`` a comma in a name, ``\\ `` a space kept at its end,
    ``\\\\`` a backslash), as in --bones. (A pipeline walk: objects named "Cam,A" or
    " lead" could not be named.)"""
    return _split_unescaped(text, ",", strip=True)


def _object_list(text: str) -> list[str]:
    names = _names(text)
    if not all(names):
        raise argparse.ArgumentTypeError(f"--objects {text!r} has an empty name; give names like A,B")
    return list(dict.fromkeys(names))          # each object once, in the order given


def _degrees(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of degrees") from None
    if not (value >= 0.0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"{text!r} must be a finite angle >= 0 degrees")
    return value


def _positive_degrees(text: str) -> float:
    """convert's --tolerance: above 0 (a walk read ">= 0" for -1, then "must be above 0"
    for 0)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of degrees") from None
    if not (value > 0.0 and value < float("inf")):
        raise argparse.ArgumentTypeError(
            f"{text!r} must be a finite angle above 0 degrees: how far the converted keys "
            "may play from what Blender plays now")
    return value


def _pixels(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of pixels") from None
    if not (value >= 0.0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"{text!r} must be a finite number >= 0 pixels")
    return value


def _distance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a distance in scene units") from None
    if not (value >= 0.0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"{text!r} must be a finite distance >= 0 scene units "
                                         "(0: bones use --tolerance)")
    return value


def _step(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of frames") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be 1 or more frames")
    return value


def _frame_range(text: str) -> list[int] | str:
    """``START-END`` or ``START..END`` (Blender's own ``-f 1..10``): whole frames, either
    may be negative (``-10..50``, ``-10--5``); or ``scene``, each file's own scene range.
    A list, so that ``batch`` hands it to each shot's process as JSON unchanged."""
    import re

    if text.strip().lower() == "scene":
        return "scene"
    found = re.fullmatch(r"\s*(-?\d+)\s*(?:\.\.|-)\s*(-?\d+)\s*", text)
    if found is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a frame range: give START-END in "
                                         "whole frames, like 1001-1100 (a negative start with =: "
                                         "--frames=-10..50)")
    start, end = int(found[1]), int(found[2])
    if end < start:
        raise argparse.ArgumentTypeError(f"{text!r} ends on frame {end}, before it starts on "
                                         f"frame {start}")
    return [start, end]


def _turn_arguments(parser) -> None:
    """--turns and --timing (issue 11), the same for report and bake."""
    parser.add_argument("--turns", choices=("auto", "shortest", "keyed"), default="auto",
                        help="whole turns: auto (keep keyed spins, fix flips and wraps; "
                        "default), shortest (always the short arc), keyed (as Blender plays)")
    parser.add_argument("--timing", choices=("even", "keyed"), default="even",
                        help="even (constant speed per key interval; default) or keyed "
                        "(the keys' ease)")


def _clips(text: str) -> str | list[str]:
    """``active``, ``all`` or a comma-separated list of clip (action) names."""
    if text in ("active", "all"):
        return text
    names = _names(text)
    if not all(names):
        raise argparse.ArgumentTypeError(f"--clips {text!r} has an empty name; give active, all "
                                         "or clip names like Walk,Run")
    return list(dict.fromkeys(names))


def _split_unescaped(text: str, sep: str, limit: int = -1, strip: bool = False) -> list[str]:
    """Split at ``sep`` not preceded by a backslash; ``\\x`` stands for ``x``. ``strip``:
    each part without the whitespace around it that no backslash escaped."""
    parts, current, escaped, i, splits = [], [], [], 0, 0

    def close():
        while strip and current and current[0].isspace() and not escaped[0]:
            current.pop(0), escaped.pop(0)
        while strip and current and current[-1].isspace() and not escaped[-1]:
            current.pop(), escaped.pop()
        parts.append("".join(current))
        current.clear(), escaped.clear()

    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            current.append(text[i + 1])
            escaped.append(True)
            i += 2
            continue
        if c == sep and (limit < 0 or splits < limit):
            close()
            splits += 1
        else:
            current.append(c)
            escaped.append(False)
        i += 1
    close()
    return parts


def _bone_list(text: str) -> tuple[str, list[str]]:
    """``--bones ARMATURE:BONE[,BONE...]`` -> (armature, [bones]).

    The first unescaped ``:`` ends the armature's name (so ``Rig:mixamorig:Hips``
    is the bone ``mixamorig:Hips``); bones are separated by unescaped commas. A
    backslash makes the next character literal: ``\\,`` a comma in a name,
    ``\\:`` a colon in the armature's name, ``\\\\`` a backslash. Quotes,
    brackets, dots and non-ASCII characters are written as they are.
    """
    head = _split_unescaped(text, ":", 1)
    if len(head) != 2 or not head[0]:
        raise argparse.ArgumentTypeError(
            f"--bones {text!r} needs the armature's name, a colon, then bone names: "
            "--bones \"Rig:spine,neck\"")
    # The armature part was unescaped by the split; the bone part is split again raw.
    raw_bones = text[_raw_colon(text) + 1:]
    bones = _split_unescaped(raw_bones, ",", strip=True)
    if not all(bones):
        raise argparse.ArgumentTypeError(f"--bones {text!r} has an empty bone name")
    return head[0], list(dict.fromkeys(bones))


def _raw_colon(text: str) -> int:
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == ":":
            return i
        i += 1
    return -1


BONES_HELP = ("pose bones to {verb}: ARMATURE:BONE[,BONE...], repeatable. The first ':' ends "
              "the armature's name (Rig:mixamorig:Hips is bone mixamorig:Hips); a backslash "
              "makes the next character literal (\\, for a comma in a name). Without it, an "
              "armature named by --objects (or found keyed) means all its keyed bones")


CLIPS_HELP = ("which actions of each object: 'active' (default: the active action; an object "
              "animated only by NLA clips is reported through those clips), 'all' (the active "
              "action and every action in its NLA strips and stashes), or clip names A,B. "
              "A clip is evaluated in its own action time: strip time, scale, repeat and "
              "blending are not applied")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="quatbake", description="Rotation-aware re-bake and difference "
                     "report for Blender animation (headless).", epilog=(
                         "Exit codes: 0 done; 1 over --fail-above (the report is written); 2 "
                         "bad usage or bad input (one sentence on stderr); 3 (batch) some shot "
                         "could not be done; 4 QuatBake itself failed (a bug: the traceback is "
                         "on stderr); 130 interrupted; 143 (batch) stopped by SIGTERM. See "
                         "docs/cli.md."))
    sub = parser.add_subparsers(dest="command",
                                metavar="{demo,report,bake,convert,export-check,batch}",
                                parser_class=_Parser)
    sub.required = True

    demo = sub.add_parser("demo", help="build a demo scene, re-bake it, write demo.blend, "
                          "report.json and report.html")
    demo.add_argument("--out", default=os.path.join("out", "demo"), metavar="DIR",
                      help="output folder (default out/demo)")
    demo.add_argument("--quiet", action="store_true", help="no progress or table")

    rep = sub.add_parser("report", help="compare Blender's rotation interpolation with a method")
    rep.add_argument("scene", metavar="SCENE.blend")
    rep.add_argument("--objects", type=_object_list, metavar="A,B",
                     help="objects to analyse (default: every object with rotation keys)")
    rep.add_argument("--bones", type=_bone_list, action="append", metavar="RIG:A,B",
                     help=BONES_HELP.format(verb="analyse"))
    rep.add_argument("--method", choices=METHODS, default="slerp", help="default slerp")
    _turn_arguments(rep)
    rep.add_argument("--clips", type=_clips, default="active", metavar="active|all|A,B",
                     help=CLIPS_HELP)
    rep.add_argument("--json", metavar="OUT.json", help="write the JSON report here")
    rep.add_argument("--html", metavar="OUT.html", help="write the HTML report here")
    rep.add_argument("--fail-above", type=_degrees, metavar="DEG",
                     help="exit 1 when any object deviates more than DEG degrees, at a "
                          "frame or between frames where a channel jumps (a wrap)")
    rep.add_argument("--quiet", action="store_true", help="no progress or table")

    bake = sub.add_parser("bake", help="re-bake rotation (and location) keys into a new file")
    bake.add_argument("scene", metavar="SCENE.blend")
    bake.add_argument("--output", required=True, metavar="OUT.blend")
    bake.add_argument("--objects", type=_object_list, metavar="A,B",
                      help="objects to bake (default: every object with rotation keys)")
    bake.add_argument("--bones", type=_bone_list, action="append", metavar="RIG:A,B",
                      help=BONES_HELP.format(verb="bake"))
    bake.add_argument("--method", choices=METHODS, default="slerp", help="default slerp")
    bake.add_argument("--clips", type=_clips, default="active", metavar="active|NAME",
                      help="'active' (default) bakes each object's active action; NAME bakes the "
                      "clip (action) NAME, in its own action time, on every object that has it: "
                      "the baked clip becomes the object's active action (revert puts back the "
                      "previous one) and the NLA strips are left as they are")
    bake.add_argument("--location", choices=LOCATION_METHODS, default="keep", help="default keep")
    bake.add_argument("--constant-speed", action="store_true",
                      help="retime by arc length (needs --location linear or catmull_rom)")
    _turn_arguments(bake)
    bake.add_argument("--step", type=_step, default=1, metavar="N",
                      help="a key every N frames, and on each key further than N frames from "
                      "the keys beside it (the animator's poses; a mocap clip's keys are "
                      "thinned)")
    bake.add_argument("--frames", type=_frame_range, default=None, metavar="START-END|scene",
                      help="bake frames START to END (the panel's Custom Range) instead of "
                      "each transform's keyed range, or 'scene': the file's own scene range "
                      "(a shot's cut and handles, each shot its own in a batch). Keys outside "
                      "it are not kept, the bake holds the range's first and last pose beyond "
                      "it, and a warning names the keys left out (a range that starts below "
                      "0: --frames=-10..50)")
    bake.add_argument("--rotation-mode", choices=("keep", "quaternion"), default="keep",
                      help="the rotation mode the baked keys are written in (the panel's "
                      "Output): keep (default) the mode of the object's keys, or quaternion "
                      "(Blender's glTF exporter writes Euler orders other than XYZ wrong "
                      "when it does not sample)")
    bake.add_argument("--merge-keys", action="store_true",
                      help="bake a rotation (or location) whose channels are keyed on different "
                      "frames from the union of their keys (the panel's Merge Key Frames); "
                      "without it such a transform is left as it is, named, and the others "
                      "baked")
    bake.add_argument("--tolerance", type=_degrees, default=0.0, metavar="DEG",
                      help="keep only the keys needed for Blender's playback (and, with --keys "
                      "linear, a glTF player's slerp) to stay within DEG degrees of the bake "
                      "(default 0: a key on every step frame)")
    bake.add_argument("--tolerance-px", type=_pixels, default=0.0, metavar="PX",
                      help="for perspective cameras: keep only the keys that move no pixel of "
                      "the rendered image more than PX (from the lens, sensor fit and render "
                      "size; with --tolerance too, the smaller of the two). Other objects use "
                      "--tolerance (default 0: every key)")
    bake.add_argument("--tolerance-tip", type=_distance, default=0.0, metavar="DIST",
                      help="for pose bones: keep only the keys that move the bone's tip (tail) "
                      "no more than DIST scene units (the angle DIST / the bone's length "
                      "times the armature's largest axis scale; with --tolerance too, the "
                      "smaller of the two). Objects use --tolerance (default 0: every key)")
    bake.add_argument("--keys", choices=KEY_INTERPOLATIONS, default=None,
                      help="what --tolerance writes: linear (default here: LINEAR keys, what "
                      "glTF engines play, as before) or bezier (few editable Bezier keys, "
                      "Blender's playback within DEG at every quarter frame; the panel's "
                      "default)")
    bake.add_argument("--overwrite", action="store_true",
                      help="allow --output to be the input file")
    bake.add_argument("--quiet", action="store_true", help="no progress or summary")

    conv = sub.add_parser("convert", help="change the rotation mode, keeping what Blender "
                          "plays now (in-betweens included) in few Bezier keys")
    conv.add_argument("scene", metavar="SCENE.blend")
    conv.add_argument("--to", required=True, type=str.lower, metavar="MODE",
                      choices=[m.lower() for m in CONVERT_MODES],
                      help="xyz, xzy, yxz, yzx, zxy, zyx, quaternion, axis_angle, or auto (the "
                      "Euler order farthest from gimbal lock over the clip, named in a note)")
    conv.add_argument("--output", required=True, metavar="OUT.blend")
    conv.add_argument("--tolerance", type=_positive_degrees, default=0.01, metavar="DEG",
                      help="how far Blender's playback of the converted keys may be from what it "
                      "plays now, at every quarter frame (default 0.01)")
    conv.add_argument("--objects", type=_object_list, metavar="A,B",
                      help="objects to convert (default: every object with rotation keys)")
    conv.add_argument("--bones", type=_bone_list, action="append", metavar="RIG:A,B",
                      help=BONES_HELP.format(verb="convert"))
    conv.add_argument("--overwrite", action="store_true",
                      help="allow --output to be the input file")
    conv.add_argument("--quiet", action="store_true", help="no summary")

    check = sub.add_parser("export-check", help="export with Blender's glTF exporter and compare "
                           "what a glTF player plays with Blender, per object")
    check.add_argument("scene", metavar="SCENE.blend")
    check.add_argument("--objects", type=_object_list, metavar="A,B",
                       help="objects to export and check (default: the whole scene is exported "
                       "and every object with rotation keys checked)")
    check.add_argument("--json", metavar="OUT.json", help="write the JSON report here")
    check.add_argument("--html", metavar="OUT.html", help="write the HTML report here")
    check.add_argument("--fail-above", type=_degrees, metavar="DEG",
                       help="exit 1 when any object plays more than DEG degrees off Blender")
    check.add_argument("--exporter-option", action="append", default=[], metavar="NAME=VALUE",
                       help="an option of bpy.ops.export_scene.gltf, e.g. "
                       "export_force_sampling=False (repeatable)")
    check.add_argument("--quiet", action="store_true", help="no progress or table")
    _batch_parser(sub, {"report": rep, "bake": bake, "export-check": check})
    return parser


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or more")
    return value


# What ``batch`` leaves out of each command's own options: it names every output
# itself (DIR/<name>.json, .html, .blend), never replaces a shot, has its own --quiet.
_BATCH_LEAVES_OUT = {"help", "scene", "json", "html", "output", "overwrite", "quiet"}


def _batch_parser(sub, commands: dict) -> None:
    """``batch report|bake|export-check`` (the command's own options, shared with it) and
    ``batch summarize``."""
    batch = sub.add_parser("batch", help="run report, bake or export-check over many .blend "
                           "files, one Blender process per shot, with a summary")
    kinds = batch.add_subparsers(dest="batch_command", parser_class=_Parser,
                                 metavar="{report,bake,export-check,summarize}")
    kinds.required = True
    for name, single in commands.items():
        run = kinds.add_parser(name, help=f"{name} every shot into DIR", description=(
            f"Run {name} on every shot, one Blender process per shot, --jobs at a time; "
            "write DIR/<name>.json and .html per shot (and the baked .blend for bake), "
            "DIR/summary.json and DIR/summary.html. Exit 0: every shot done and within "
            "--fail-above; 1: some shot over --fail-above; 2: bad usage; 3: some shot could "
            "not be read or processed (named in the summary, the others done); 4: the batch "
            "itself failed (a bug, its traceback on stderr)."))
        run.add_argument("shots", nargs="*", metavar="SHOT.blend")
        run.add_argument("--manifest", metavar="LIST.txt", help="a text file with one .blend "
                         "path per line (relative paths: from the file's folder; blank lines "
                         "and lines starting with # are skipped), after any SHOT.blend given")
        run.add_argument("--index", type=_count, metavar="N", help="run only shot N (0-based) "
                         "of the list, and write no summary: one farm task per shot")
        run.add_argument("--out", required=True, metavar="DIR", help="output folder (made "
                         "when missing)")
        run.add_argument("--jobs", type=_count, metavar="N", help="Blender processes at a time "
                         "(default: the CPU count); 0 runs the shots in this process")
        run.add_argument("--blender", metavar="PATH", help="run each shot in this Blender "
                         "executable (blender -b), or in this Python with the bpy module when "
                         "its file name starts with python (default: this Python, or this "
                         "Blender when batch runs inside one)")
        run.add_argument("--defer-exit", action="store_true", help="for farm tasks: exit 0 once "
                         "the shot's result is recorded, findings and unreadable files included "
                         "(batch summarize gives the job's exit code); 3 only when a shot's "
                         "Blender crashed, so the farm retries it")
        run.add_argument("--quiet", action="store_true", help="no progress or Saved: lines")
        run.add_argument("--worker", help=argparse.SUPPRESS)   # one shot, spawned by batch
        own = run.add_argument_group(f"options of {name} (see quatbake {name} --help)")
        dests = []
        for action in single._actions:
            if action.dest in _BATCH_LEAVES_OUT:
                continue
            # The same action objects as the command's own parser (as argparse's
            # parents= shares them): one definition of every option, so the batch
            # takes each option the command takes, checked the same way.
            own._add_action(action)
            dests.append(action.dest)
        if "fail_above" not in dests:
            own.add_argument("--fail-above", type=_degrees, metavar="DEG", help="exit 1 when "
                             "the bake changes some shot's playback by more than DEG degrees")
        run.set_defaults(command_options=[d for d in dests if d != "fail_above"])

    summ = kinds.add_parser("summarize", help="merge the per-shot results in DIR into "
                            "DIR/summary.json and summary.html (a farm's last task)")
    summ.add_argument("out", metavar="DIR")
    summ.add_argument("--manifest", metavar="LIST.txt", help="the shots expected: each one "
                      "without a result in DIR is listed as missing (exit 3)")
    summ.add_argument("--shots", metavar="RANGE", help="with --manifest: only these of its "
                      "shots are expected, 0-based, as the farm job ran them: 0-39, 0-39:2, "
                      "3,7")
    summ.add_argument("--fail-above", type=_degrees, metavar="DEG", help="exit 1 when some "
                      "shot deviates more than DEG degrees (default: the --fail-above the shots "
                      "ran with)")
    summ.add_argument("--quiet", action="store_true", help="no Saved: lines")


# --------------------------------------------------------------------------
# Checks before anything is loaded or written
# --------------------------------------------------------------------------

def check_blend_file(path: str) -> str:
    """Absolute path of a readable .blend file, or BadInput saying what is wrong."""
    if not os.path.exists(path):
        raise BadInput(f"{path} does not exist.")
    if os.path.isdir(path):
        raise BadInput(f"{path} is a folder, not a .blend file.")
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 64))
            tail = fh.read()
    except OSError as exc:
        raise BadInput(f"{path} cannot be read ({exc.strerror}).") from None
    if not head.startswith(_BLEND_MAGICS):
        raise BadInput(f"{path} is not a .blend file (it does not start with a Blender header).")
    # An uncompressed .blend ends with its ENDB block; without it the file was cut short.
    if head.startswith(b"BLENDER") and b"ENDB" not in tail:
        raise BadInput(f"{path} is truncated (its end block is missing); re-save or restore it.")
    return os.path.abspath(path)


def check_output(path: str, what: str) -> str:
    """Absolute path of a file we may create or replace, or BadInput."""
    if not path.strip():
        raise BadInput(f"{what} is empty: give the file to write.")
    full = os.path.abspath(path)
    folder = os.path.dirname(full)
    if os.path.isdir(full):
        raise BadInput(f"{what} {path} is a folder, not a file.")
    if not os.path.isdir(folder):
        raise BadInput(f"{what} {path} cannot be written: folder {folder} does not exist.")
    if not os.access(folder, os.W_OK) or (os.path.exists(full) and not os.access(full, os.W_OK)):
        raise BadInput(f"{what} {path} cannot be written: permission denied.")
    return full


def same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


