# SPDX-License-Identifier: GPL-3.0-or-later
"""``quatbake.export_report``: the HTML report, with its JSON beside it, from Blender.

What ``python -m quatbake report`` writes, for the selected objects, through
Blender's file browser, so nobody needs a terminal. For an object that plays
a QuatBake bake the report describes the keys before the bake (what was
wrong) and its after-bake section what plays now.
"""
from __future__ import annotations

import os

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty
from bpy.types import Operator
from bpy_extras.io_utils import ExportHelper

from ..ui import translations
from ..ui.guard import guarded
from ..ui.polls import has_selection
from ..ui.props import COMPARE_ITEMS
from ..ui.texts import one_line_tooltips

rpt_ = translations.report


def page_path(path: str, blend_path: str = "") -> str:
    """Where Export Report writes its page for ``path`` as given: a folder (the file
    browser's name left empty) gets the .blend's name (``blend_path``), or quatbake_report,
    and .html is added when missing. (A walk: a folder made the hidden ".html" and
    ".html.json".)"""
    folder, name = os.path.split(path)
    if not name or os.path.isdir(path):
        stem = os.path.splitext(os.path.basename(blend_path))[0] or "quatbake_report"
        path = os.path.join(path if os.path.isdir(path) else folder, stem)
    return path if path.lower().endswith(".html") else path + ".html"


def json_path_for(html_path: str) -> str:
    """The JSON file written beside ``html_path`` (same name, .json)."""
    return os.path.splitext(html_path)[0] + ".json"


def saved_by(data) -> str:
    """The Blender release that last saved the open file, as far as the file tells: "3.4"
    ("" for a file never saved).

    ``bpy.data.version`` is (major, minor, file subversion), not the release: a file saved
    by Blender 3.4.1 gives (3, 4, 6), its BLENDER_FILE_SUBVERSION (measured with Debian's
    3.4.1, whose bpy.app.version_file is (3, 4, 6) too; bpy 5.0.1 reads the same file as
    (3, 4, 6)). The header of the .blend holds "v304" and no patch release, so "3.4" is
    all that can be said (issue 24 saw "saved by Blender 3.4.6" for a 3.4.1 file)."""
    if not data.filepath:
        return ""
    major, minor = tuple(data.version)[:2]
    return f"{major}.{minor}"


def build(objects, method: str, clip_name: str = "", turns: str = "AUTO",
          timing: str = "EVEN") -> dict:
    """The report dict for ``objects`` (schema quatbake.report/1, with
    ``saved_by_blender`` and ``after_bake`` added): what the Difference Report analyses
    of them (entries.panel_targets: an armature stands for its keyed bones, the clip
    ``clip_name`` where a transform has it), compared with the method's path under
    ``turns`` and ``timing``. A transform without rotation keys is listed under
    ``skipped`` with its reason and location findings."""
    from ...core import analysis as core_analysis
    from ...report import json_report
    from .. import animdata, record
    from ..transform import as_transforms
    from . import engine as analyze
    from .entries import ENTRY_BATCH, panel_targets, unexpected_sentence

    analyses, errors, after, skipped = [], [], [], []
    pairs = [t if isinstance(t, tuple) else (t, None)
             for obj in as_transforms(objects, clip_name) for t in panel_targets(obj, clip_name)]
    # As the panel analyses them (engine.analyze_many, a batch at a time: a rig's bones
    # compared together), a baked transform's keys before its bake and what plays now;
    # one transform's problem is its own entry's.
    for start in range(0, len(pairs), ENTRY_BATCH):
        batch = pairs[start:start + ENTRY_BATCH]
        baked = [clip is None and record.is_baked(obj) for obj, clip in batch]
        requests = [(obj, clip, was) for (obj, clip), was in zip(batch, baked)]
        requests += [(obj, None, False) for (obj, _clip), was in zip(batch, baked) if was]
        found = analyze.analyze_many(requests, method, turns, timing)
        nows = iter(found[len(batch):])
        for (obj, _clip), was, first in zip(batch, baked, found):
            now = next(nows) if was else None
            problem = next((a for a in (first, now) if isinstance(a, BaseException)), None)
            if problem is None:
                analyses.append(first)
                if was:
                    core_analysis.after_bake(first, now)   # its path; a creep it kept
                    after.append(json_report.after_bake_entry(first, now))
            elif isinstance(problem, analyze.NoRotationKeys):
                try:
                    skipped.append(analyze.skipped_transform(obj, str(problem)))
                except (animdata.ChannelError, ValueError) as loc_exc:
                    errors.append((obj.name, f"{problem} {loc_exc}"))
                except Exception as loc_exc:   # not foreseen: one sentence, no traceback
                    errors.append((obj.name, unexpected_sentence(obj, "analysing it",
                                                                 loc_exc)))
            elif isinstance(problem, (animdata.ChannelError, ValueError)):
                errors.append((obj.name, str(problem)))
            else:   # not foreseen: one sentence naming it, never a traceback
                errors.append((obj.name, unexpected_sentence(obj, "analysing it", problem)))
    report = json_report.build_report(
        analyses, blender_version=bpy.app.version_string,
        file=os.path.basename(bpy.data.filepath) or "(unsaved file)", method=method,
        errors=errors, skipped=skipped)
    report["saved_by_blender"] = saved_by(bpy.data)
    report["after_bake"] = after
    return report


class QUATBAKE_OT_export_report(Operator, ExportHelper):
    """Write the Difference Report of the selected objects as a web page, with its JSON beside it"""

    bl_idname = "quatbake.export_report"
    bl_label = "Export Report"
    bl_options = {'REGISTER'}

    filename_ext = ".html"
    filter_glob: StringProperty(default="*.html", options={'HIDDEN'})
    method: EnumProperty(
        name="Compare With", items=COMPARE_ITEMS, default='BAKE',
        description="What Blender's own interpolation is compared with",
    )
    open_in_browser: BoolProperty(
        name="Open in Web Browser", default=True,
        description="Open the page in the web browser once written",
    )

    @classmethod
    def poll(cls, context) -> bool:
        return has_selection(cls, context, "Select the animated objects to report on")

    @guarded("Export Report")
    def execute(self, context):
        from ...report import html_report, json_report
        from ..transform import selected_items
        from ..ui import compare
        from ..ui.polls import no_bones_selected

        settings = context.scene.quatbake
        method = (compare.compare_method(settings) if self.method == 'BAKE'
                  else self.method.lower())
        sentence = no_bones_selected(context, "report on")
        if sentence:
            self.report({'ERROR'}, sentence)
            return {'CANCELLED'}
        # What Analyze takes (a walk: in Pose Mode the panel listed the 2 bones selected
        # and the page all 12 of the rig's): the selected pose bones in Pose Mode, the
        # Clip field's clip, the Turns and Timing of the scene.
        items = selected_items(context)
        if context.mode != 'POSE':
            items = sorted(items, key=lambda o: o.name)
        report = build(items, method, settings.clip, settings.turns, settings.timing)
        for error in report["errors"]:
            self.report({'WARNING'}, error["message"])
        if not report["objects"] and not report.get("skipped"):
            self.report({'ERROR'}, rpt_("None of the selected objects has rotation keys to "
                                        "report on; nothing was written."))
            return {'CANCELLED'}
        html_path = page_path(bpy.path.abspath(self.filepath), bpy.data.filepath)
        json_path = json_path_for(html_path)
        written = []
        try:
            json_report.write_json(report, json_path)
            written.append(json_path)
            html_report.write_html(report, html_path)
            written.append(html_path)
        except OSError as exc:
            # Both or neither: a page without its data (or the reverse) misleads.
            for path in written:
                os.unlink(path)
            self.report({'ERROR'}, rpt_("The report could not be written ({}: {}); choose "
                                        "another folder.").format(exc.strerror, exc.filename))
            return {'CANCELLED'}
        self.report({'INFO'}, rpt_("Wrote {} and {}.").format(html_path,
                                                             os.path.basename(json_path)))
        if self.open_in_browser:
            bpy.ops.wm.url_open(url="file://" + html_path)
        return {'FINISHED'}


classes = one_line_tooltips(QUATBAKE_OT_export_report)
register, unregister = bpy.utils.register_classes_factory(classes)
