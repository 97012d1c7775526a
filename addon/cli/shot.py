# SPDX-License-Identifier: GPL-3.0-or-later
"""One shot of ``batch``, in this Blender process: the command run, its outputs written
into DIR under the shot's name, and its result recorded in ``DIR/shots/<name>.json``.

The commands themselves do the work (``run_report``, ``run_bake``, ``run_export_check``
with the same options as on their own); this module names the outputs and reads the
numbers the summary shows back from what they wrote. Whatever goes wrong with one
shot - a missing, corrupt or truncated file, an object that cannot be analysed, a
bug - becomes that shot's record (exit code 3 and one sentence), never an exception.
"""
from __future__ import annotations

import json
import os
import sys
import time
import traceback

from ...report import batch_report, files
from ...report.json_report import largest_deviation, largest_frame, max_deviation
from .args import build_parser
from .headless import BadInput, NothingToDo


def record_path(out_dir: str, name: str) -> str:
    return os.path.join(out_dir, "shots", name + ".json")


def output_paths(command: str, out_dir: str, name: str) -> dict:
    """Every file a shot of ``command`` writes, by kind: json, html and (bake) blend."""
    kinds = ("json", "html", "blend") if command == "bake" else ("json", "html")
    return {kind: os.path.join(out_dir, f"{name}.{kind}") for kind in kinds}


def partial_path(out_dir: str, name: str) -> str:
    """Where a bake shot's .blend is written before it takes its own name (run_shot):
    hidden, and not a .blend to a glob."""
    return os.path.join(out_dir, f".quatbake-{name}.blend.part")


def peak_memory_mb() -> float | None:
    """This process's peak resident memory so far, in MB (None where unknown: Windows)."""
    try:
        import resource
    except ImportError:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux counts kilobytes, macOS bytes.
    return round(peak / (1024.0 * 1024.0 if sys.platform == "darwin" else 1024.0), 1)


def new_record(command: str, shot: str, name: str, index: int, options: dict,
               fail_above: float | None) -> dict:
    """A shot's record before it runs (the fields every record has)."""
    return {"schema": batch_report.SHOT_SCHEMA, "command": command, "options": options,
            "fail_above_deg": fail_above, "index": index, "file": shot, "name": name,
            "status": "failed", "exit_code": batch_report.EXIT_SHOT_FAILED, "message": "",
            "max_deviation_deg": None, "worst": None, "keys_before": None, "keys_after": None,
            "outputs": {}, "blender_version": None, "seconds": None, "peak_memory_mb": None}


def _namespace(command: str, shot: str, options: dict, outputs: list[str]):
    """The command's own arguments, as its parser makes them, with ``options`` applied."""
    args = build_parser().parse_args([command, shot, *outputs, "--quiet"])
    for dest, value in options.items():
        setattr(args, dest, value)
    return args


def _largest(entry: dict) -> float:
    return largest_deviation(entry) or 0.0


def _worst(entries: list[dict]) -> dict | None:
    """{object, bone?, frame} of the entry with the largest deviation, at its frames or
    between them (the frame is then the subframe)."""
    found = [e for e in entries if e.get("max_deviation_deg") is not None]
    if not found:
        return None
    e = max(found, key=_largest)
    worst = {"object": e["name"], "frame": largest_frame(e)}
    if e.get("bone"):
        worst["bone"] = e["bone"]
    if e.get("clip"):
        worst["clip"] = e["clip"]
    return worst


def _advice(report: dict) -> str:
    """The worst entry's one-line advice, as the command's table prints it; with nothing
    compared, why (the first skipped entry's sentence: a pipeline walk found a shot "ok,
    0 deg" with an empty message whose only animation was in a muted NLA track)."""
    found = [e for e in report["objects"] if e.get("max_deviation_deg") is not None]
    if not found:
        skipped = report.get("skipped") or []
        if not skipped:
            return ""
        more = f" (and {len(skipped) - 1} more skipped)" if len(skipped) > 1 else ""
        return f"Nothing compared: {skipped[0]['message']}{more}"
    e = max(found, key=_largest)
    name = f"{e['name']}: {e['bone']}" if e.get("bone") else e["name"]
    return f"{name}: {e['advice']}" if e.get("advice") else ""


def _errors(report: dict, record: dict) -> str:
    """The report's errors, led by the shot's file (a pipeline walk: a NaN key's sentence
    named its object, not which of the show's files holds it)."""
    said = " ".join(e["message"] for e in report.get("errors", []))
    return f"{record['file']}: {said}" if said else ""


def _read(path: str) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _report(shot: str, paths: dict, options: dict, record: dict) -> None:
    from .report import run_report

    code = run_report(_namespace("report", shot, options,
                                 ["--json", paths["json"], "--html", paths["html"]]))
    report = _read(paths["json"])
    record["outputs"] = {k: os.path.basename(p) for k, p in paths.items()}
    record.update(
        max_deviation_deg=_compared_largest(report),
        worst=_worst(report["objects"]),
        keys_before=sum(len(o["keys"]) for o in report["objects"]),
        blender_version=report["blender_version"])
    _finish(record, code, report)


def _export_check(shot: str, paths: dict, options: dict, record: dict) -> None:
    from .export_check import run_export_check

    code = run_export_check(_namespace("export-check", shot, options,
                                       ["--json", paths["json"], "--html", paths["html"]]))
    report = _read(paths["json"])
    record["outputs"] = {k: os.path.basename(p) for k, p in paths.items()}
    record.update(
        max_deviation_deg=_compared_largest(report),
        worst=_worst(report["objects"]),
        # The rotation keys the exporter wrote (the glTF's, not Blender's).
        keys_after=sum(o["key_count"] for o in report["objects"]),
        blender_version=report["blender_version"])
    _finish(record, code, report)


def _compared_largest(report: dict) -> float | None:
    """The report's largest deviation, or None where it compared nothing (a pipeline
    walk: an export-check shot with nothing compared read 0.0 in the summary, as if
    checked and fine)."""
    return max_deviation(report) if report["objects"] else None


def _finish(record: dict, code: int, report: dict) -> None:
    """Status and message of a shot whose command returned ``code`` (0, or 2 when some
    object could not be analysed: the report is written, the shot counts as failed)."""
    if code == 0:
        record.update(status="ok", exit_code=0, message=_advice(report))
    else:
        record.update(status="failed", exit_code=batch_report.EXIT_SHOT_FAILED,
                      message=_errors(report, record)
                      or f"{record['file']}: {record['command']} exited with code {code}.")


def _bake(shot: str, paths: dict, options: dict, record: dict) -> None:
    """The bake, then its report from the baked scene still open: per baked transform,
    the keys it replaced (what Blender played, against the bake's method) and, in the
    after-bake section, what plays now."""
    import bpy

    from ...core import analysis as core_analysis
    from ...report import html_report, json_report
    from .. import record as bake_record
    from ..analyze import engine as analyze
    from ..transform import AnimatedTransform
    from ..ui.counts import transform_count
    from .bake import run_bake

    args = _namespace("bake", shot, options, ["--output", paths["blend"]])
    made: list = []
    run_bake(args, made)
    record["outputs"] = {"blend": os.path.basename(paths["blend"])}
    baked = []
    for obj in sorted(bpy.data.objects, key=lambda o: o.name):
        if bake_record.is_baked(AnimatedTransform(obj)):
            baked.append(AnimatedTransform(obj))
        if obj.type == 'ARMATURE' and obj.pose is not None:
            baked += [t for t in (AnimatedTransform(obj, b.name) for b in obj.pose.bones)
                      if bake_record.is_baked(t)]
    turns, timing = args.turns.upper(), args.timing.upper()
    before, after, skipped = [], [], []
    # Transforms left as they were for broken input while the others were baked: the
    # shot fails with their sentences (exit 3), its baked .blend and reports written.
    # Named by their object, as ``report`` names what it cannot analyse.
    errors = [(i.object_name, i.message) for i in made[0].failed]
    for t in baked:
        try:
            b = analyze.analyze_object(t, args.method, turns=turns, timing=timing, original=True)
            a = analyze.analyze_object(t, args.method, turns=turns, timing=timing)
        except analyze.NoRotationKeys as exc:
            # Its location baked (--location linear), its rotation unkeyed: listed as
            # ``report`` lists it (a TD walk: a rig's IK controls failed the shot).
            skipped.append(analyze.skipped_transform(t, str(exc)))
            continue
        except Exception as exc:   # the bake is saved; say which transform has no report
            errors.append((getattr(t, "display_name", t.name), f"{t.name} was baked but "
                           f"cannot be reported: {exc}"))
            continue
        core_analysis.after_bake(b, a)     # a tolerance bake against its own path
        before.append(b)
        entry = json_report.after_bake_entry(b, a)
        if getattr(t, "bone_name", ""):
            entry["bone"] = t.bone_name
        entry["keys"] = len(a.keys)
        after.append(entry)
    report = json_report.build_report(before, blender_version=bpy.app.version_string,
                                      file=os.path.basename(shot), method=args.method,
                                      errors=errors, skipped=skipped)
    from ..analyze.export import saved_by

    report["saved_by_blender"] = saved_by(bpy.data)   # "3.4": the file has no patch release
    report["after_bake"] = after
    json_report.write_json(report, paths["json"])
    html_report.write_html(report, paths["html"])
    record["outputs"] = {k: os.path.basename(p) for k, p in paths.items()}
    record.update(
        # What the bake changed: Blender's playback of the original keys against the bake,
        # as the analysis of those keys finds it and as the bake measured it (which counts
        # the poses a Custom Range holds beyond it: a review found --frames under-reported
        # here, where bake alone said 130 deg).
        max_deviation_deg=max([made[0].max_deviation_deg] + [
            max(b.max_deviation_deg, b.max_between_deviation_deg) for b in before]),
        worst=_worst(report["objects"]),
        keys_before=sum(len(b.keys) for b in before),
        keys_after=sum(e["keys"] for e in after),
        blender_version=bpy.app.version_string)
    if errors:
        record.update(status="failed", exit_code=batch_report.EXIT_SHOT_FAILED,
                      message=_errors(report, record))
    else:
        record.update(status="ok", exit_code=0,
                      message=f"Baked {transform_count(baked)} with {args.method}: largest "
                              f"change {record['max_deviation_deg']:.2f} deg, rotation keys "
                              f"{record['keys_before']} -> {record['keys_after']}.")


RUNNERS = {"report": _report, "bake": _bake, "export-check": _export_check}


def run_shot(command: str, shot: str, out_dir: str, name: str, index: int, options: dict,
             fail_above: float | None) -> dict:
    """Run ``command`` on ``shot`` here; write its outputs and its record; return the record.

    Never raises for a bad shot: a BadInput sentence, or any other error (named with its
    type, the traceback on stderr), becomes the record's message with exit code 3.
    """
    start = time.monotonic()
    record = new_record(command, shot, name, index, options, fail_above)
    final = output_paths(command, out_dir, name)
    paths = dict(final)
    if "blend" in paths:
        # Baked under a hidden name, which it leaves only beside its record: a farm
        # cancelling the task while it wrote the reports left a whole baked .blend with no
        # record, for a publish step to pick up (a pipeline walk).
        paths["blend"] = partial_path(out_dir, name)
    try:
        RUNNERS[command](shot, paths, options, record)
    except NothingToDo as exc:
        # A locked-off shot: nothing to check is not a failure of the batch (a pipeline
        # walk: one camera-only shot failed the whole farm job, exit 3).
        record.update(status="ok", exit_code=0, message=f"Nothing to check: {exc}")
    except BadInput as exc:
        # Led by the file where the sentence does not name it (a NaN key's names its object).
        # One line: a refused bake says each transform's sentence on a line of its own.
        text = " ".join(str(exc).splitlines())
        said = text if shot in text else f"{shot}: {text}"
        record.update(status="failed", exit_code=batch_report.EXIT_SHOT_FAILED, message=said)
    except Exception as exc:
        traceback.print_exc()
        record.update(status="failed", exit_code=batch_report.EXIT_SHOT_FAILED,
                      message=f"{command} failed on {shot} ({type(exc).__name__}: "
                              f"{str(exc).rstrip('.')}).")
    if record["blender_version"] is None:
        # The Blender that ran it, also when it refused the shot (a TD walk: null for a
        # truncated file whose message said "could not be read by Blender 5.0.1").
        import bpy

        record["blender_version"] = bpy.app.version_string
    # Only what is there now: a command that refused the shot wrote nothing.
    record["outputs"] = {k: os.path.basename(final[k]) for k in record["outputs"]
                         if os.path.exists(paths[k])}
    record = batch_report.judged(record, fail_above)
    record["seconds"] = round(time.monotonic() - start, 3)
    record["peak_memory_mb"] = peak_memory_mb()
    files.write_text(batch_report.dumps(record), record_path(out_dir, name))
    # The record first: a task stopped between the two leaves a record whose .blend is
    # missing (a retry clears both), never a .blend nobody recorded (a review).
    if paths != final and os.path.exists(paths["blend"]):
        os.replace(paths["blend"], final["blend"])
    return record
