# SPDX-License-Identifier: GPL-3.0-or-later
"""Operator ``quatbake.export_check``; ``export_check.panel`` shows its results.

Exports the selected objects with Blender's own glTF exporter into a
temporary folder, plays the file back per the glTF 2.0 spec and compares it
with Blender (see ``export_check.engine``). The .blend is not changed: the
current frame and the selection are restored and nothing is keyed.
"""


import bpy
from bpy.props import StringProperty
from bpy.types import Operator

from ...core.frames import label
from ..ui import translations
from ..ui.counts import OBJECT_COUNT, OBJECTS_AND_BONES, counted
from ..ui.guard import guarded
from ..ui.polls import poll_message
from ..ui.texts import one_line_tooltips

# The engine (.export_check: core's glTF reader and sampler) is imported when
# the operator runs: registering must not load it (bench_register).

_RESULTS: dict = {}

rpt_ = translations.report
# The status line's count: "2 objects and 1 pose bone" (a bone is a pose bone here, as in
# the panel's boxes), each piece a pattern of its own.
POSE_BONE_COUNT = ("{:d} pose bone", "{:d} pose bones")


def _checked(objects: int, bones: int) -> str:
    """"1 object", "0 objects and 3 pose bones": what the status line says was checked."""
    if not bones:
        return counted(OBJECT_COUNT, objects, rpt_)
    return rpt_(OBJECTS_AND_BONES).format(counted(OBJECT_COUNT, objects, rpt_),
                                          counted(POSE_BONE_COUNT, bones, rpt_))


def results(scene) -> dict:
    """Per object name ("Rig: arm" for a pose bone): the last export check's summary in
    ``scene`` (empty before any run)."""
    return _RESULTS.get(scene.name, {})


def _found(report: dict) -> dict:
    """The panel's boxes, worst first (what to fix on top, as the Difference Report lists
    them): each object, each pose bone with a cause, and per armature one box for its
    bones that play as in Blender (a Rigify rig's 200 controls would otherwise be 200
    boxes in the sidebar)."""
    from ...report.export_check_report import entry_label

    found: dict = {}
    for error in report["errors"]:
        where = error["object"] + (f": {error['bone']}" if error.get("bone") else "")
        found[where] = {"error": error["message"]}
    for skipped in report.get("skipped", []):
        found[skipped["object"]] = {"skipped": skipped["message"]}
    fine: dict = {}
    for o in report["objects"]:
        s = _summary(o)
        if o.get("bone") and not s["causes"] and not s["linear_is_better"]:
            fine.setdefault(o["name"], []).append((o["bone"], s))
        else:
            found[entry_label(o)] = s
    for armature, bones in fine.items():
        if len(bones) == 1:
            bone, s = bones[0]
            found[f"{armature}: {bone}"] = s
            continue
        _bone, worst = max(bones, key=lambda b: b[1]["max_deviation_deg"])
        found[f"{armature}: {len(bones)} bones"] = dict(
            worst, keys_text=f"Up to {max(s['key_count'] for _b, s in bones)} rotation keys "
                             "each",
            note=f"{len(bones)} pose bones play as in Blender, within "
                 f"{worst['max_deviation_deg']:.2g}\u00b0.")
    ordered = sorted(found.items(), key=lambda item: (
        not item[1].get("error"), not item[1].get("causes"),
        -float(item[1].get("max_deviation_deg") or 0.0)))
    return dict(ordered)


def _summary(entry: dict) -> dict:
    return {
        "max_deviation_deg": entry["max_deviation_deg"],
        "worst_frame": entry["worst_frame"],
        "key_count": entry["key_count"],
        "interpolation": entry["interpolation"] or "-",
        "causes": dict(entry["causes"]),
        "advice": entry["advice"],
        "note": entry.get("note", ""),
        # Bezier keys: the quarter-frame judgement, and whether Linear keys play better.
        "bezier_max_deg": (entry.get("bezier") or {}).get("max_deviation_deg"),
        "linear_is_better": bool((entry.get("bezier") or {}).get("linear_is_better")),
        "error": "",
    }


class QUATBAKE_OT_export_check(Operator):
    """Export the selected objects with Blender's glTF exporter and measure how far a glTF
    player's playback of the file is from Blender's, frame by frame"""

    bl_idname = "quatbake.export_check"
    bl_label = "Check glTF Export"
    bl_options = {'REGISTER'}

    exporter_options: StringProperty(
        name="Exporter Options",
        default="",
        options={'SKIP_SAVE'},
        description="Options for Blender's glTF exporter, NAME=VALUE separated by commas "
        "(e.g. export_force_sampling=False); empty: the exporter's defaults",
    )
    json_path: StringProperty(
        name="JSON Report",
        default="",
        subtype='FILE_PATH',
        options={'SKIP_SAVE'},
        description="Also write the quatbake.export-check/1 JSON report here (optional)",
    )
    html_path: StringProperty(
        name="HTML Report",
        default="",
        subtype='FILE_PATH',
        options={'SKIP_SAVE'},
        description="Also write the HTML report here (optional)",
    )

    @classmethod
    def poll(cls, context) -> bool:
        if not getattr(context, "selected_objects", None):
            poll_message(cls, "Select the animated objects to check")
            return False
        return True

    @guarded("Check glTF Export")
    def execute(self, context):
        from ...report import export_check_report
        from .. import export_check  # the package: engine and exporter names alike

        pairs = [p.strip() for p in self.exporter_options.split(",") if p.strip()]
        objects = sorted(context.selected_objects, key=lambda o: o.name)
        try:
            options = export_check.parse_exporter_options(pairs)
            report = export_check.check_objects(context, objects, options, only_these=True)
        except export_check.ExportCheckError as exc:
            self.report({'ERROR'}, str(exc).replace("--exporter-option ", "Exporter option "))
            return {'CANCELLED'}
        for error in report["errors"]:
            self.report({'WARNING'}, error["message"])
        if report.get("time_note"):
            self.report({'INFO'}, report["time_note"])
        for skipped in report.get("skipped", []):
            self.report({'INFO'}, skipped["message"])
        _RESULTS[context.scene.name] = _found(report)
        for path, write in (
            (self.json_path, export_check_report.write_json),
            (self.html_path, export_check_report.write_html),
        ):
            if path:
                try:
                    write(report, bpy.path.abspath(path))
                except OSError as exc:
                    self.report({'ERROR'}, rpt_(
                        "The report could not be written to {} ({}).").format(path, exc.strerror))
                    return {'CANCELLED'}
        if not report["objects"]:
            if report.get("skipped") and not report["errors"]:
                return {'FINISHED'}   # each said why (a clip Blender does not play)
            self.report({'ERROR'}, rpt_("None of the selected objects is in the exported glTF "
                                        "file."))
            return {'CANCELLED'}
        worst = max(report["objects"], key=lambda o: o["max_deviation_deg"])
        bones = sum(1 for o in report["objects"] if o.get("bone"))
        self.report({'INFO'}, rpt_(
            "Checked {}: a glTF player plays {} up to {:.3g} deg off Blender (frame {})."
        ).format(_checked(len(report['objects']) - bones, bones),
                 export_check_report.entry_label(worst), worst['max_deviation_deg'],
                 label(worst['worst_frame'])))
        return {'FINISHED'}


classes = one_line_tooltips(QUATBAKE_OT_export_check)
_register_classes, _unregister_classes = bpy.utils.register_classes_factory(classes)


def register() -> None:
    _register_classes()


def unregister() -> None:
    _unregister_classes()
    _RESULTS.clear()
