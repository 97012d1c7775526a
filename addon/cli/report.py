# SPDX-License-Identifier: GPL-3.0-or-later
"""``report``: the Difference Report of a file, as a table, JSON and HTML."""
from __future__ import annotations

import os
import sys

from ...core.frames import label
from .args import (
    EXIT_BAD_INPUT,
    EXIT_FAIL_ABOVE,
    EXIT_OK,
    check_blend_file,
    check_output,
    same_file,
)
from .headless import BadInput, Progress, write_all_or_none
from .scenes import (
    bone_keyed_sentences,
    clip_targets,
    load_blend,
    missing_library_of,
    missing_library_sentence,
    nothing_to_do,
    register_quatbake,
    resolve_targets,
)
from .tables import past, report_table, who


def analyse_objects(objects, method: str, progress: Progress, turns: str = "AUTO",
                    timing: str = "EVEN", skipped: list | None = None):
    """(analyses, errors): errors are (name, sentence). A transform without rotation keys
    is appended to ``skipped`` (``analyze.Skipped``, with its location findings) when that
    list is given, else it is an error as well."""
    from ...core import analysis as core_analysis
    from .. import animdata, record
    from ..analyze import engine as analyze
    from ..analyze.entries import unexpected_sentence

    analyses, errors = [], []
    items = [item if isinstance(item, tuple) else (item, None) for item in objects]
    # An object of a library that is not there is a placeholder: said as such, not
    # analysed into "no keys" (a pipeline walk).
    present = []
    for obj, clip in items:
        library = missing_library_of(obj)
        if library:
            errors.append((getattr(obj, "display_name", obj.name),
                           missing_library_sentence(obj, library)))
        else:
            present.append((obj, clip))
    items = present
    found, befores = [], []
    for chunk in _by_owner(items):
        # One batched analysis per owner (an armature's bones compared together), so the
        # progress still moves armature by armature; a QuatBake bake's keys before it
        # with them, for what the bake kept (a lerp filter's creep).
        baked = [clip is None and record.is_baked(obj) for obj, clip in chunk]
        requests = [(obj, clip, False) for obj, clip in chunk]
        requests += [(obj, None, True) for (obj, _clip), b in zip(chunk, baked) if b]
        results = analyze.analyze_many(requests, method, turns, timing)
        found += results[:len(chunk)]
        rest = iter(results[len(chunk):])
        befores += [next(rest) if b else None for b in baked]
    for (obj, clip), result, before in zip(items, found, befores):
        try:
            if isinstance(result, BaseException):
                raise result
            if isinstance(before, core_analysis.ObjectAnalysis):
                core_analysis.after_bake(before, result)
            analyses.append(result)
        except analyze.NoRotationKeys as exc:
            if skipped is None:
                errors.append((obj.name, str(exc)))
            else:
                try:
                    skipped.append(analyze.skipped_transform(obj, str(exc), clip))
                except (animdata.ChannelError, ValueError) as loc_exc:
                    errors.append((obj.name, f"{exc} {loc_exc}"))
        except (analyze.RangeTooLong, animdata.ChannelError) as exc:
            errors.append((obj.name, str(exc)))
        except ValueError as exc:
            # core refuses data it cannot turn into rotations (ValueError by
            # convention): name the object, keep going with the others.
            errors.append((obj.name, f"{animdata.subject(obj)} cannot be analysed: {exc}"))
        except Exception as exc:   # not foreseen: one sentence naming it, never a traceback
            errors.append((obj.name, unexpected_sentence(obj, "analysing it", exc)))
        progress.step(getattr(obj, "display_name", obj.name))
    return analyses, errors


def _by_owner(items: list) -> list:
    """``items`` ((transform, clip) pairs) cut into runs of one owner each, in order."""
    runs: list = []
    for item in items:
        owner = getattr(item[0], "owner", item[0])
        if runs and getattr(runs[-1][0][0], "owner", runs[-1][0][0]) == owner:
            runs[-1].append(item)
        else:
            runs.append([item])
    return runs


def unrotated_objects(bpy, targets) -> list:
    """Objects of the open file whose active action keys them (location, scale, custom
    properties ...) but not their rotation, and that ``targets`` leave out: a report of the
    whole file lists them under ``skipped``, so everything animated is accounted for."""
    from .. import animdata
    from ..keyed import keyed_paths

    named = {getattr(t[0] if isinstance(t, tuple) else t, "name", "") for t in targets}
    return [obj for obj in sorted(bpy.data.objects, key=lambda o: o.name)
            if obj.name not in named and animdata.get_action(obj) is not None
            and keyed_paths(obj)]


def report_outputs(args, path: str) -> tuple[str | None, str | None]:
    """The checked --json / --html paths of ``report`` and ``export-check`` (None when not
    given): writable, two different files, and never the input scene."""
    json_out = check_output(args.json, "--json") if args.json else None
    html_out = check_output(args.html, "--html") if args.html else None
    if json_out and html_out and json_out == html_out:
        raise BadInput("--json and --html name the same file; give two different paths.")
    for flag, out in (("--json", json_out), ("--html", html_out)):
        if out and same_file(path, out):
            raise BadInput(f"{flag} {out} is the input file; a report never replaces its scene.")
    return json_out, html_out


def _where(report: dict, worst: float) -> str:
    """Where the largest deviation is, when it lies between frames: ' (Hips, between
    frames, at 212.5)'; empty when it is at a frame (the table's worst column says which)."""
    for o in report["objects"]:
        if (o.get("worst_between_frame") is not None
                and o.get("max_between_deviation_deg") == worst
                and worst > (o.get("max_deviation_deg") or 0.0)):
            return f" ({who(o)}, between frames, at {label(o['worst_between_frame'])})"
    return ""


def run_report(args) -> int:
    path = check_blend_file(args.scene)
    json_out, html_out = report_outputs(args, path)
    bpy = load_blend(path)
    register_quatbake()
    every = args.objects is None and not getattr(args, "bones", None)
    objects = clip_targets(resolve_targets(bpy, args, empty_ok=True), args.clips,
                           sorted(bpy.data.objects, key=lambda o: o.name) if every else ())

    from ...report import html_report, json_report

    if args.objects is None and getattr(args, "bones", None) is None and args.clips == "active":
        # Everything animated is accounted for: what has no rotation keys is skipped.
        objects = objects + unrotated_objects(bpy, objects)
    skipped: list = []
    analyses, errors = analyse_objects(objects, args.method,
                                       Progress(len(objects), "report:", args.quiet),
                                       args.turns.upper(), args.timing.upper(), skipped)
    if args.objects is None:
        # Not errors (the exit code stays 0): armatures whose bones are keyed only in NLA
        # clips, and the report says so.
        analysed = {a.name for a in analyses}   # an armature reported from a named clip
        for name, sentence in bone_keyed_sentences(bpy):
            library = missing_library_of(bpy.data.objects[name])
            if library:       # its bones are in the library that is not there
                errors.append((name, missing_library_sentence(bpy.data.objects[name], library)))
            elif name not in analysed:
                skipped.append((name, sentence))
    if not analyses and not skipped:
        if not errors:
            raise nothing_to_do(bpy, path)
        # Why each failed is its own sentence (no rotation keys, a broken key, a cut): the
        # first one said in full (a walk read "has no rotation keys" for two keys on a frame).
        raise BadInput(errors[0][1] if len(errors) == 1 else
                       f"None of the {len(errors)} objects could be analysed "
                       f"({', '.join(n for n, _ in errors)}); the first: {errors[0][1]}")
    report = json_report.build_report(analyses, blender_version=bpy.app.version_string,
                                      file=os.path.basename(path), method=args.method,
                                      errors=errors, skipped=skipped)
    # The Blender that saved the file, beside the one analysing it (header of the page).
    from ..analyze.export import saved_by

    report["saved_by_blender"] = saved_by(bpy.data)   # "3.4": the file has no patch release
    write_all_or_none([(json_report.write_json, report, json_out),
                       (html_report.write_html, report, html_out)])
    # An object that cannot be analysed is said on both streams, on purpose (docs/cli.md,
    # "Output streams"): the table on stdout is the report in text, every object asked for
    # (as the JSON's objects, skipped and errors), so a table saved to a file never reads
    # as if the broken object were fine or absent; stderr says why the exit code is 2, in a
    # log of stderr alone and with --quiet, which drops the table.
    if not args.quiet:
        print(report_table(report))
    for _name, message in errors:
        print(message, file=sys.stderr)
    if not args.quiet:
        # Left out on purpose, not errors: the exit code stays 0.
        for entry in report.get("skipped", []):
            print(f"skipped: {entry['message']}", file=sys.stderr)
    worst = json_report.max_deviation(report)
    above = args.fail_above is not None and worst > args.fail_above
    if above:
        # Said beside errors too (exit 2 then): a gate's reader learns both (a report walk:
        # a NaN key elsewhere silenced it).
        print(f"Largest deviation {past(worst, args.fail_above)} deg{_where(report, worst)} "
              f"is above --fail-above {args.fail_above:g} deg.", file=sys.stderr)
    if errors:
        return EXIT_BAD_INPUT
    return EXIT_FAIL_ABOVE if above else EXIT_OK
