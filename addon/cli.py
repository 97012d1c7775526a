# SPDX-License-Identifier: GPL-3.0-or-later
"""Command line: ``python -m quatbake demo|report|bake|export-check`` (with the bpy module).

Also runs inside a Blender program:
``blender -b --python /path/to/quatbake/__main__.py -- report SCENE.blend ...``.

Exit codes (docs/cli.md): 0 done; 1 ``--fail-above`` exceeded (the report is
still written); 2 bad usage or bad input - one sentence on stderr, no
traceback, nothing written. Progress goes to stderr, one percentage line per
object, silenced by ``--quiet``; tables go to stdout.

bpy is imported only after the arguments are checked, so usage errors are
instant and never load Blender.
"""
from __future__ import annotations

import argparse
import os
import sys

from .headless import BadInput, Progress, quiet_fds, save_blend_copy

EXIT_OK = 0
EXIT_FAIL_ABOVE = 1
EXIT_BAD_INPUT = 2

METHODS = ("lerp", "nlerp", "slerp", "squad")
LOCATION_METHODS = ("keep", "linear", "catmull_rom")

# First bytes of a .blend: plain, gzip (Blender < 3.0 compression) or zstd (3.0+).
_BLEND_MAGICS = (b"BLENDER", b"\x1f\x8b", b"\x28\xb5\x2f\xfd")




class _Parser(argparse.ArgumentParser):
    """argparse that raises BadInput (one sentence) instead of printing usage and exiting."""

    def error(self, message):
        raise BadInput(f"{self.prog}: {message} (see --help).")


# --------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------

def _object_list(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",")]
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


def _step(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of frames") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be 1 or more frames")
    return value


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
    names = [n.strip() for n in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"--clips {text!r} has an empty name; give active, all "
                                         "or clip names like Walk,Run")
    return list(dict.fromkeys(names))


def _split_unescaped(text: str, sep: str, limit: int = -1) -> list[str]:
    """Split at ``sep`` not preceded by a backslash; ``\\x`` stands for ``x``."""
    parts, current, i, splits = [], [], 0, 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            current.append(text[i + 1])
            i += 2
            continue
        if c == sep and (limit < 0 or splits < limit):
            parts.append("".join(current))
            current = []
            splits += 1
        else:
            current.append(c)
        i += 1
    parts.append("".join(current))
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
    bones = [b.strip() for b in _split_unescaped(raw_bones, ",")]
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
                     "report for Blender animation (headless).")
    sub = parser.add_subparsers(dest="command", metavar="{demo,report,bake,export-check}",
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
                     help="exit 1 when any object deviates more than DEG degrees")
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
    bake.add_argument("--step", type=_step, default=1, metavar="N", help="a key every N frames")
    bake.add_argument("--tolerance", type=_degrees, default=0.0, metavar="DEG",
                      help="keep only the keys needed for Blender's LINEAR playback and a glTF "
                      "player's slerp to stay within DEG degrees of the bake (default 0: a key "
                      "on every step frame)")
    bake.add_argument("--overwrite", action="store_true",
                      help="allow --output to be the input file")
    bake.add_argument("--quiet", action="store_true", help="no progress or summary")

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
    return parser


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
    full = os.path.abspath(path)
    folder = os.path.dirname(full)
    if os.path.isdir(full):
        raise BadInput(f"{what} {path} is a folder, not a file.")
    if not os.path.isdir(folder):
        raise BadInput(f"{what} {path} cannot be written: folder {folder} does not exist.")
    if not os.access(folder, os.W_OK) or (os.path.exists(full) and not os.access(full, os.W_OK)):
        raise BadInput(f"{what} {path} cannot be written: permission denied.")
    return full


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


# --------------------------------------------------------------------------
# Blender
# --------------------------------------------------------------------------



def _import_bpy():
    try:
        import bpy  # noqa: F401
    except ImportError:
        raise BadInput("QuatBake's command line needs Blender's Python module: install it with "
                       "`pip install bpy` or run it inside Blender "
                       "(blender -b --python __main__.py -- ...).") from None
    return bpy


def load_blend(path: str):
    """Open ``path`` as the current Blender file, or BadInput for a corrupt file."""
    bpy = _import_bpy()
    with quiet_fds():
        try:
            # use_scripts=False: inspecting a file must never run the code inside it.
            bpy.ops.wm.open_mainfile(filepath=path, load_ui=False, use_scripts=False)
        except RuntimeError:
            failed = True
        else:
            failed = False
    if failed:
        saved = saved_by_version(path)
        if saved is not None and saved > tuple(bpy.app.version[:2]):
            raise BadInput(f"{path} was saved by Blender {saved[0]}.{saved[1]}, newer than this "
                           f"Blender {bpy.app.version_string}, which cannot read it: use Blender "
                           f"{saved[0]}.{saved[1]} or later.")
        raise BadInput(f"{path} could not be read by Blender {bpy.app.version_string}: "
                       "the file is corrupt or truncated (or saved by a newer Blender).")
    return bpy


def saved_by_version(path: str) -> tuple[int, int] | None:
    """(major, minor) of the Blender that saved ``path``, from its header; None if unknown.

    Headers: ``BLENDER-v304`` (up to 4.x) and ``BLENDER17-01v0500`` (5.0+),
    possibly inside gzip or zstd compression (zstd needs the ``zstandard``
    module, which some Blender builds lack: then None).
    """
    import re

    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
            fh.seek(0)
            if head.startswith(b"\x28\xb5\x2f\xfd"):
                import zstandard

                head = zstandard.ZstdDecompressor().stream_reader(fh).read(32)
            elif head.startswith(b"\x1f\x8b"):
                import gzip

                head = gzip.GzipFile(fileobj=fh).read(32)
            else:
                head = fh.read(32)
    except Exception:   # unreadable, bad compression, no zstandard: the version is unknown
        return None
    match = re.match(rb"BLENDER(?:[-_][vV](\d)(\d\d)|\d\d-\d\d[vV](\d\d)(\d\d))", head)
    if match is None:
        return None
    digits = [g for g in match.groups() if g is not None]
    return int(digits[0]), int(digits[1])


def _register_quatbake():
    """Register the add-on (its operators and properties) once per process."""
    bpy = _import_bpy()
    if getattr(bpy.types.Scene, "quatbake", None) is None:
        from .. import register

        register()


def _has_rotation_keys(obj, fcurves=None) -> bool:
    from . import analyze

    return analyze.has_rotation_keys(obj, fcurves)


def rotation_keyed_objects(bpy) -> list:
    """Objects of the open file with keys on their rotation mode's channels (delta rotation
    included) in their active action or in one of their NLA clips, and armatures with keyed
    pose bones, by name."""
    from . import animdata
    from .transform import keyed_bone_names

    found = []
    for obj in bpy.data.objects:
        if _has_rotation_keys(obj) or keyed_bone_names(obj) or any(_has_rotation_keys(obj, c.fcurves())
                                          for c in animdata.object_clips(obj) if not c.active):
            found.append(obj)
    return sorted(found, key=lambda o: o.name)


def bone_keyed_sentences(bpy) -> list[tuple[str, str]]:
    """(name, sentence) for each armature whose pose bones are keyed only in NLA clips."""
    from . import analyze, animdata
    from .transform import keyed_bone_names

    return [(obj.name, analyze.no_keys_sentence(obj, "", obj.rotation_mode))
            for obj in sorted(bpy.data.objects, key=lambda o: o.name)
            if animdata.bone_key_count(obj) and not _has_rotation_keys(obj)
            and not keyed_bone_names(obj)]


def resolve_bones(bpy, specs, path: str) -> list:
    """``--bones`` specs -> transforms (BadInput naming an unknown armature or bone)."""
    from .transform import AnimatedTransform, keyed_bone_names

    found = []
    for rig_name, bones in specs or []:
        rig = bpy.data.objects.get(rig_name)
        if rig is None or rig.type != 'ARMATURE':
            what = "is not an armature" if rig is not None else f"is not in {path}"
            raise BadInput(f"--bones: object \"{rig_name}\" {what}; name an armature, then "
                           "its bones: --bones \"Rig:spine,neck\".")
        for bone in bones:
            if rig.pose is None or rig.pose.bones.get(bone) is None:
                keyed = ", ".join(keyed_bone_names(rig)[:10]) or "none"
                raise BadInput(f"--bones: armature \"{rig_name}\" has no bone \"{bone}\" "
                               f"(its keyed bones: {keyed}).")
            found.append(AnimatedTransform(rig, bone))
    return found


def resolve_targets(bpy, args) -> list:
    """What --objects and --bones name: objects (armatures: all their keyed bones) and bones;
    every rotation-keyed object when neither is given."""
    bones = resolve_bones(bpy, getattr(args, "bones", None), args.scene)
    if bones and args.objects is None:
        return bones
    return resolve_objects(bpy, args.objects, args.scene) + bones


def resolve_objects(bpy, names: list[str] | None, path: str) -> list:
    """The objects named (BadInput for an unknown one) or every rotation-keyed object."""
    if names is None:
        objects = rotation_keyed_objects(bpy)
        if not objects:
            bones = bone_keyed_sentences(bpy)
            extra = f" {bones[0][1]}" if bones else ""
            raise BadInput(f"{path} has no object with rotation keys: nothing to do.{extra}")
        return objects
    objects = []
    for name in names:
        obj = bpy.data.objects.get(name)
        if obj is None:
            keyed = ", ".join(o.name for o in rotation_keyed_objects(bpy)[:10]) or "none"
            raise BadInput(f"Object \"{name}\" is not in {path} (objects with rotation keys: {keyed}).")
        objects.append(obj)
    return objects


def clip_targets(objects, clips) -> list:
    """What to analyse: obj (its active action) or (obj, animdata.Clip) pairs
    (analyze.analysis_targets per object); BadInput when no object has a named clip."""
    from . import analyze
    from .transform import as_transforms

    targets = [t for obj in as_transforms(objects) for t in analyze.analysis_targets(obj, clips)]
    if isinstance(clips, list) and not targets:
        raise BadInput(f"No object has a clip named {', '.join(clips)}; name an action of the "
                       "file (report --clips all lists every clip).")
    return targets


# --------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------

def _who(entry: dict) -> str:
    name = f"{entry['name']}: {entry['bone']}" if entry.get("bone") else entry["name"]
    return f"{name} / {entry['clip']}" if entry.get("clip") else name


def _table(report: dict) -> str:
    rows = [("object", "mode", "frames", "max dev", "off path", "rms", "worst", "long arcs")]
    for o in report["objects"]:
        # Keyed spins go the long way on purpose (key_intervals[*].kind, issue 11).
        spins = {tuple(iv["frames"]) for iv in o.get("key_intervals", [])
                 if iv.get("kind") == "spin"}
        arcs = ",".join(f"{a:g}-{b:g}" + (" spin" if (a, b) in spins else "")
                        for a, b in o["long_arc_segments"]) or "-"
        path = o.get("max_path_deviation_deg")
        rows.append((_who(o), o["rotation_mode"], f"{o['frames'][0]:g}-{o['frames'][1]:g}",
                     f"{o['max_deviation_deg']:.2f}", "-" if path is None else f"{path:.2f}",
                     f"{o['rms_deviation_deg']:.2f}", f"{o['worst_frame']:g}", arcs))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    for o in report["objects"]:
        lines.append(f"{_who(o)}: {o['advice']}")
    for e in report.get("errors", []) + report.get("skipped", []):
        lines.append(e["message"])
    return "\n".join(lines)


def analyse_objects(objects, method: str, progress: Progress, turns: str = "AUTO",
                    timing: str = "EVEN"):
    """(analyses, errors): errors are (name, sentence) for objects without rotation keys."""
    from . import analyze, animdata

    analyses, errors = [], []
    for item in objects:
        obj, clip = item if isinstance(item, tuple) else (item, None)
        try:
            analyses.append(analyze.analyze_object(obj, method, clip=clip, turns=turns,
                                                   timing=timing))
        except (analyze.NoRotationKeys, analyze.RangeTooLong, animdata.ChannelError) as exc:
            errors.append((obj.name, str(exc)))
        except ValueError as exc:
            # core refuses data it cannot turn into rotations (ValueError by
            # convention): name the object, keep going with the others.
            errors.append((obj.name, f"{animdata.subject(obj)} cannot be analysed: {exc}"))
        progress.step(getattr(obj, "display_name", obj.name))
    return analyses, errors


def _report_outputs(args, path: str) -> tuple[str | None, str | None]:
    """The checked --json / --html paths of ``report`` and ``export-check`` (None when not
    given): writable, two different files, and never the input scene."""
    json_out = check_output(args.json, "--json") if args.json else None
    html_out = check_output(args.html, "--html") if args.html else None
    if json_out and html_out and json_out == html_out:
        raise BadInput("--json and --html name the same file; give two different paths.")
    for flag, out in (("--json", json_out), ("--html", html_out)):
        if out and _same_file(path, out):
            raise BadInput(f"{flag} {out} is the input file; a report never replaces its scene.")
    return json_out, html_out


def run_report(args) -> int:
    path = check_blend_file(args.scene)
    json_out, html_out = _report_outputs(args, path)
    bpy = load_blend(path)
    _register_quatbake()
    objects = clip_targets(resolve_targets(bpy, args), args.clips)

    from ..report import html_report, json_report

    analyses, errors = analyse_objects(objects, args.method,
                                       Progress(len(objects), "report:", args.quiet),
                                       args.turns.upper(), args.timing.upper())
    if not analyses:
        raise BadInput(errors[0][1] if len(errors) == 1 else
                       f"None of the objects has rotation keys: {', '.join(n for n, _ in errors)}.")
    report = json_report.build_report(analyses, blender_version=bpy.app.version_string,
                                      file=os.path.basename(path), method=args.method, errors=errors)
    # The Blender that saved the file, beside the one analysing it (header of the page).
    report["saved_by_blender"] = ".".join(str(v) for v in tuple(bpy.data.version))
    if args.objects is None:
        # Not errors (the exit code stays 0): armatures are left out until pose
        # bones are handled, and the report says so.
        report["skipped"] = [{"object": n, "message": m} for n, m in bone_keyed_sentences(bpy)]
    written = []
    try:
        if json_out:
            json_report.write_json(report, json_out)
            written.append(json_out)
        if html_out:
            html_report.write_html(report, html_out)
            written.append(html_out)
    except OSError as exc:
        # All or nothing: a half-written pair of reports would mislead a pipeline.
        for done in written:
            os.unlink(done)
        raise BadInput(f"The report could not be written ({exc.strerror}: {exc.filename}).") from None
    if not args.quiet:
        print(_table(report))
    for _name, message in errors:
        print(message, file=sys.stderr)
    if errors:
        return EXIT_BAD_INPUT
    worst = json_report.max_deviation(report)
    if args.fail_above is not None and worst > args.fail_above:
        print(f"Largest deviation {worst:.2f} deg is above --fail-above {args.fail_above:g} deg.",
              file=sys.stderr)
        return EXIT_FAIL_ABOVE
    return EXIT_OK




def run_bake(args) -> int:
    path = check_blend_file(args.scene)
    out = check_output(args.output, "--output")
    if _same_file(path, out) and not args.overwrite:
        raise BadInput(f"--output {args.output} is the input file; add --overwrite to replace it.")
    if args.constant_speed and args.timing == "keyed":
        raise BadInput("--timing keyed keeps the keys' ease and --constant-speed retimes by arc "
                       "length: give one of them.")
    if args.constant_speed and args.location == "keep":
        raise BadInput("--constant-speed retimes the path, so it needs --location linear or catmull_rom.")
    if args.clips == "all" or (isinstance(args.clips, list) and len(args.clips) > 1):
        raise BadInput("bake --clips takes one clip name (or active): a baked clip becomes the "
                       "object's active action, so bake one clip per output file.")
    bpy = load_blend(path)
    _register_quatbake()
    objects = resolve_targets(bpy, args)
    clip = ""
    if isinstance(args.clips, list):
        clip = args.clips[0]
        objects = [obj for obj, _c in clip_targets(objects, args.clips)]
    elif args.objects is None:
        # The active actions. Objects animated only by NLA clips are left for
        # --clips NAME (a bake is all or nothing: they would refuse it for all).
        from .transform import keyed_bone_names

        def active(o):
            return _has_rotation_keys(o) or bool(keyed_bone_names(o))

        stashed = [o for o in objects if not active(o)]
        objects = [o for o in objects if active(o)]
        if not objects:
            from . import animdata

            names = ", ".join(f"{o.name} ({', '.join(c.name for c in animdata.object_clips(o))})"
                              for o in stashed[:5])
            raise BadInput(f"{args.scene}: every rotation key is in NLA clips, not in active "
                           f"actions ({names}); bake one with --clips NAME.")

    from . import bake

    settings = bake.BakeSettings(method=args.method.upper(), location_method=args.location.upper(),
                                 constant_speed=args.constant_speed, frame_step=args.step,
                                 turns=args.turns.upper(), timing=args.timing.upper(),
                                 tolerance_deg=args.tolerance, clip=clip)
    from .messages import transform_count
    from .transform import as_transforms, transforms_named

    # What bake_objects will bake (each transform once), for the progress lines.
    baking = transform_count(list({t.key: t for t in as_transforms(objects)}.values()))
    shown = {"pct": -10.0}

    def report_progress(done: int, total: int) -> None:
        # bake_objects counts planning (validation) as the first half: show only
        # the writing half, so bad input still gets exactly one line on stderr.
        half = total // 2
        if done <= half:
            return
        pct = 100.0 * (done - half) / (total - half)
        if not args.quiet and (pct >= shown["pct"] + 10.0 or (done == total and pct > shown["pct"])):
            shown["pct"] = pct
            print(f"bake: {baking} ... {pct:3.0f}%", file=sys.stderr, flush=True)

    try:
        result = bake.bake_objects(objects, settings, progress=report_progress)
    except bake.BakeError as exc:
        raise BadInput(str(exc)) from None
    save_blend_copy(bpy, out)
    if not args.quiet:
        baked = transform_count(transforms_named(result.objects))
        print(f"Baked {baked} with {args.method}: {result.frames_written} "
              f"frames written, largest change from Blender's interpolation "
              f"{result.max_deviation_deg:.2f} deg -> {args.output}")
        if args.tolerance > 0.0:
            print(f"Keys per channel: {result.keys_dense} dense -> {result.keys_written} within "
                  f"{args.tolerance:g} deg")
        for issue in result.warnings:
            print(f"warning: {issue.message}", file=sys.stderr)
        for issue in result.notes:
            print(f"note: {issue.message}")
    return EXIT_OK


def run_demo(args) -> int:
    out_dir = os.path.abspath(args.out)
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise BadInput(f"--out {args.out} is a file, not a folder.")
    parent = out_dir
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.access(parent, os.W_OK):
        raise BadInput(f"--out {args.out} cannot be created: permission denied.")
    _import_bpy()
    from . import demo

    return demo.run(out_dir, quiet=args.quiet)


def _check_table(report: dict) -> str:
    rows = [("object", "sampler", "keys", "bytes", "max dev", "worst", "causes")]
    for o in report["objects"]:
        causes = ",".join(f"{k}x{v}" for k, v in o["causes"].items()) or "-"
        rows.append((o["name"], o["interpolation"] or "-", str(o["key_count"]),
                     str(o["animation_bytes"]), f"{o['max_deviation_deg']:.4g}",
                     f"{o['worst_frame']:g}", causes))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines += [f"{o['name']}: {o['advice']}" for o in report["objects"] if o["causes"]]
    return "\n".join(lines)


def run_export_check(args) -> int:
    path = check_blend_file(args.scene)
    json_out, html_out = _report_outputs(args, path)
    bpy = load_blend(path)
    _register_quatbake()
    from ..report import export_check_report
    from . import export_check

    try:
        options = export_check.parse_exporter_options(args.exporter_option)
        objects = resolve_objects(bpy, args.objects, args.scene)
        progress = Progress(len(objects), "export-check:", args.quiet)
        # quiet_fds: the exporter logs every step on stdout.
        report = export_check.check_objects(bpy.context, objects, options,
                                            only_these=args.objects is not None,
                                            silence=quiet_fds, progress=progress.step)
    except export_check.ExportCheckError as exc:
        raise BadInput(str(exc)) from None
    report["file"] = os.path.basename(path)
    written = []
    try:
        if json_out:
            export_check_report.write_json(report, json_out)
            written.append(json_out)
        if html_out:
            export_check_report.write_html(report, html_out)
            written.append(html_out)
    except OSError as exc:
        for done in written:
            os.unlink(done)
        raise BadInput(f"The report could not be written ({exc.strerror}: "
                       f"{exc.filename}).") from None
    if not args.quiet:
        print(_check_table(report))
    for error in report["errors"]:
        print(error["message"], file=sys.stderr)
    if report["errors"]:
        return EXIT_BAD_INPUT
    worst = export_check_report.max_deviation(report)
    if args.fail_above is not None and worst > args.fail_above:
        print(f"Largest deviation {worst:.4g} deg is above --fail-above {args.fail_above:g} deg.",
              file=sys.stderr)
        return EXIT_FAIL_ABOVE
    return EXIT_OK


COMMANDS = {"demo": run_demo, "report": run_report, "bake": run_bake,
            "export-check": run_export_check}


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (never raises for bad input)."""
    if argv is None:
        argv = sys.argv[1:]
        if "--" in argv:              # blender -b --python __main__.py -- report ...
            argv = argv[argv.index("--") + 1:]
    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args)
    except BadInput as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return 130
