# SPDX-License-Identifier: GPL-3.0-or-later
"""``export-check``: what a glTF player will play of a file, against Blender."""
from __future__ import annotations

import os
import sys

from .args import EXIT_BAD_INPUT, EXIT_FAIL_ABOVE, EXIT_OK, check_blend_file
from .headless import BadInput, Progress, quiet_fds, write_all_or_none
from .report import report_outputs
from .scenes import load_blend, register_quatbake, resolve_objects
from .tables import check_table, past


def run_export_check(args) -> int:
    path = check_blend_file(args.scene)
    json_out, html_out = report_outputs(args, path)
    bpy = load_blend(path)
    register_quatbake()
    from ...report import export_check_report
    from .. import export_check

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
    write_all_or_none([(export_check_report.write_json, report, json_out),
                       (export_check_report.write_html, report, html_out)])
    if not args.quiet:
        print(check_table(report))
        # Bezier keys that play better as Linear keys in an engine, said even when the
        # whole frames have no cause (a sampled export as big as a dense bake).
        for o in report["objects"]:
            bezier = o.get("bezier") or {}
            if bezier.get("linear_is_better") and not o["causes"]:
                print(f"{export_check_report.entry_label(o)}: {o['advice']}")
    for error in report["errors"]:
        print(error["message"], file=sys.stderr)
    if report.get("time_note"):
        print(f"note: {report['time_note']}", file=sys.stderr)
    for skipped in report.get("skipped", []):
        print(f"note: {skipped['message']}", file=sys.stderr)
    worst = export_check_report.max_deviation(report)
    above = args.fail_above is not None and worst > args.fail_above
    if above:
        # Said beside errors too (exit 2 then): a gate's reader learns both (a report walk).
        print(f"Largest deviation {past(worst, args.fail_above)} deg is above --fail-above "
              f"{args.fail_above:g} deg.", file=sys.stderr)
    if report["errors"]:
        return EXIT_BAD_INPUT
    return EXIT_FAIL_ABOVE if above else EXIT_OK
