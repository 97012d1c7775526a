# SPDX-License-Identifier: GPL-3.0-or-later
"""``demo``: the demo scene (``addon.demo``) built, reported, re-baked and saved."""
from __future__ import annotations

import os
import sys

from ...core.frames import span
from .headless import BadInput, Progress, save_blend_copy
from .scenes import import_bpy


def _analyse(names, method="slerp"):
    import bpy

    from ..analyze import engine as analyze

    return [analyze.analyze_object(bpy.data.objects[n], method) for n in names]


def run(out_dir: str, quiet: bool = False) -> int:
    """Build, report, re-bake and save the demo into ``out_dir``. Returns the exit code (0)."""
    import bpy

    from ...report import html_report, json_report
    from .. import bake
    from ..demo import build_scene
    from .scenes import register_quatbake

    problems = build_scene()
    register_quatbake()
    names = list(problems)
    progress = Progress(len(names) * 2, "demo:", quiet)

    before = []
    for name in names:
        before += _analyse([name])
        progress.step(f"analyse {name}")
    rotation_only = [bpy.data.objects[n] for n in names if n != "Dolly"]
    bake.bake_objects(rotation_only, bake.BakeSettings(method='SLERP'))
    bake.bake_objects([bpy.data.objects["Dolly"]],
                      bake.BakeSettings(method='SLERP', location_method='LINEAR', constant_speed=True))
    after = []
    for name in names:
        after += _analyse([name])
        progress.step(f"re-bake {name}")
    # The report describes the scene as built (before) and, in its after-bake
    # section, what the re-baked scene plays.
    report = json_report.build_report(before, blender_version=bpy.app.version_string,
                                      file="demo.blend (as built, before the re-bake)",
                                      method="slerp")
    report["after_bake"] = [json_report.after_bake_entry(b, a) for b, a in zip(before, after)]
    os.makedirs(out_dir, exist_ok=True)
    json_report.write_json(report, os.path.join(out_dir, "report.json"))
    html_report.write_html(report, os.path.join(out_dir, "report.html"))
    bpy.context.scene.frame_set(1)
    save_blend_copy(bpy, os.path.join(out_dir, "demo.blend"))

    if not quiet:
        rows = [("object", "pitfall", "max dev", "long arcs", "after re-bake")]
        for a, b in zip(before, after):
            arcs = ",".join(span(x, y) for x, y in a.long_arc_segments) or "-"
            after_arcs = ",".join(span(x, y) for x, y in b.long_arc_segments) or "none"
            rows.append((a.name, problems[a.name], f"{a.max_deviation_deg:.1f} deg", arcs,
                         f"long arcs {after_arcs}, max dev {b.max_deviation_deg:.2f} deg"))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        for r in rows:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        print("What the report says (before the re-bake):")
        for a in before:
            print(f"  {a.name}: {a.advice}")
        print(f"Wrote {os.path.join(out_dir, 'demo.blend')}, report.json and report.html "
              f"(open report.html in a browser).")
        sys.stdout.flush()
    return 0


def run_demo(args) -> int:
    out_dir = os.path.abspath(args.out)
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise BadInput(f"--out {args.out} is a file, not a folder.")
    parent = out_dir
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.access(parent, os.W_OK):
        raise BadInput(f"--out {args.out} cannot be created: permission denied.")
    import_bpy()
    return run(out_dir, quiet=args.quiet)
