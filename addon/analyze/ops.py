# SPDX-License-Identifier: GPL-3.0-or-later
"""The Analyze and Jump to Worst Frame operators: they fill and use the Difference
Report's entries (``analyze.entries``); ``analyze.panel`` draws them."""
from __future__ import annotations

import bpy
from bpy.app.handlers import persistent
from bpy.props import EnumProperty, StringProperty
from bpy.types import Operator

from ...core.frames import label
from .. import versions
from ..ui import translations
from ..ui.compare import compare_method
from ..ui.counts import count_phrase, tally
from ..ui.guard import guarded
from ..ui.polls import has_selection
from ..ui.props import METHOD_ITEMS
from ..ui.texts import one_line_tooltips
from .entries import (
    FINE_DEG,
    analyze_into,
    follow_undo,
    forget_all,
    largest,
    named_transform,
    results,
    worst_first,
    worst_frame,
)

# Objects named in the status line after Analyze; more are counted.
STATUS_NAMES = 4

rpt_ = translations.report


def _status_part(name: str, entry: dict) -> str:
    """"Swing 12.34 deg at frame 13 (visible)": one entry in the status line, its verdict
    in the report's language. No frame when it has none or nothing is off (a 0.00 has no
    worst frame to look at)."""
    verdict = rpt_(entry["verdict"])
    if "worst_frame" not in entry or largest(entry) < FINE_DEG:
        return rpt_("{} {:.2f} deg ({})").format(name, largest(entry), verdict)
    return rpt_("{} {:.2f} deg at frame {} ({})").format(
        name, largest(entry), label(worst_frame(entry)), verdict)


class QUATBAKE_OT_analyze(Operator):
    """Compare Blender's own rotation interpolation of the selected objects with the chosen
    method. Verdicts: fine, to check (under 0.1 deg, with advice), visible (0.1 deg or more),
    long way round (a key interval past 180 deg), within tolerance"""

    # Blender 3.4 keeps the first 240 characters of an operator's description.
    bl_idname = "quatbake.analyze"
    bl_label = "Analyze"
    bl_options = {'REGISTER'}

    method: EnumProperty(
        name="Method", items=METHOD_ITEMS, default='SLERP',
        description="Interpolation to compare Blender's with (default: the panel's Compare With)",
    )
    object_name: StringProperty(
        name="Object", default="", options={'SKIP_SAVE'},
        description="Analyze only this object (default: the selected objects)",
    )

    @classmethod
    def poll(cls, context) -> bool:
        return has_selection(cls, context, "Select the animated objects to analyze")

    @guarded("Analyze")
    def execute(self, context):
        # Left out, the method comes from the scene settings (as for quatbake.bake).
        method = (self.method.lower() if self.properties.is_property_set("method")
                  else compare_method(context.scene.quatbake))
        scene = context.scene
        from ..transform import as_transforms, selected_items
        from ..ui.polls import no_bones_selected

        sentence = no_bones_selected(context, "analyze") if not self.object_name else ""
        if sentence:
            self.report({'ERROR'}, sentence)
            return {'CANCELLED'}
        # An armature means the bones keyed in the Clip field's clip, as for Re-bake.
        transforms = as_transforms(selected_items(context), scene.quatbake.clip)
        if self.object_name:
            obj = named_transform(scene, self.object_name)
            if obj is None:
                self.report({'ERROR'}, rpt_("Object \"{}\" is not in this scene.").format(
                    self.object_name))
                return {'CANCELLED'}
            found = analyze_into(scene, [obj], method)
        else:
            found = analyze_into(scene, transforms, method, replace=True)
        for entry in found.values():
            if entry.get("error"):
                self.report({'WARNING'}, entry["error"])
        skipped = {n: s for n, s in found.items() if s.get("skipped")}
        done = {n: s for n, s in found.items() if not s.get("error") and not s.get("skipped")}
        if not done:
            if skipped and len(skipped) == len(found):
                # Nothing to compare, but the panel says why for each (and what their
                # location keys show): not a failure.
                for entry in list(skipped.values())[:STATUS_NAMES]:
                    self.report({'WARNING'}, entry["skipped"])
                self.report({'WARNING'}, rpt_(
                    "None of the selected objects has rotation keys to analyze; {:d} skipped "
                    "(see the Difference Report).").format(len(skipped)))
                return {'FINISHED'}
            errors = [e for e in found.values() if e.get("error")]
            if errors:
                # Each said why above (a walk: a cache camera whose file is missing, then
                # "None of the selected objects has rotation keys", which it had not to
                # have: its cache animates it).
                self.report({'ERROR'}, rpt_(
                    "None of the selected objects could be analysed ({:d} failed; the "
                    "warnings above say why).").format(len(errors)))
            else:
                self.report({'ERROR'}, rpt_("None of the selected objects has rotation keys "
                                            "to analyze."))
            return {'CANCELLED'}
        # Every object named (the first few), worst first: the status line once
        # named only the worst of two.
        ordered = [(n, e) for n, e in worst_first(done)]
        # Each piece translated on its own pattern, then joined (the list's "; " too).
        parts = [_status_part(n, e) for n, e in ordered[:STATUS_NAMES]]
        more = len(ordered) - STATUS_NAMES
        if more > 0:
            parts.append(rpt_("{:d} more").format(more))
        # Objects and bones counted apart, each once (an object analysed by its NLA clips
        # has an entry per clip), in the words of the bake's report.
        count = count_phrase(*tally((e["object"], e["bone"]) for e in done.values()),
                             translate=rpt_)
        listed = rpt_("; ").join(parts)
        if skipped:
            # Counted, not each named: a Rigify rig has dozens of location-only controls.
            left = count_phrase(*tally((e['object'], e['bone']) for e in skipped.values()),
                                translate=rpt_)
            self.report({'INFO'}, rpt_(
                "Analyzed {}: {}. Skipped {} without rotation keys (see the Difference "
                "Report).").format(count, listed, left))
        else:
            self.report({'INFO'}, rpt_("Analyzed {}: {}.").format(count, listed))
        return {'FINISHED'}


class QUATBAKE_OT_jump_to_worst(Operator):
    """Set the current frame to the frame where this object deviates most"""

    bl_idname = "quatbake.jump_to_worst"
    bl_label = "Jump to Worst Frame"
    bl_options = {'REGISTER', 'UNDO'}

    object_name: StringProperty(name="Object", description="Object whose worst frame to show")

    @classmethod
    def description(cls, context, properties):
        # The box under the row shows the advice cut short (entries.panel_sentence): the
        # whole of it is here, where the pointer rests on the button.
        doc = "Set the current frame to the frame where this object deviates most"
        entry = results(context.scene).get(properties.object_name) or {}
        findings = entry.get("findings") or ([entry["advice"]] if entry.get("advice") else [])
        if not findings:
            return doc
        return doc + ".\n" + "\n".join(f[:1].upper() + f[1:] + "." for f in findings[:3])

    @guarded("Jump to Worst Frame")
    def execute(self, context):
        result = results(context.scene).get(self.object_name)
        if result and result.get("skipped"):
            self.report({'ERROR'}, result["skipped"])
            return {'CANCELLED'}
        if not result or result.get("error") or "worst_frame" not in result:
            self.report({'ERROR'}, rpt_("Object \"{}\" has not been analyzed yet: run Analyze "
                                        "first.").format(self.object_name))
            return {'CANCELLED'}
        # The subframe between frames where that is worse (a wrap from one frame to the
        # next): the panel's "Between frames" line names it. It is a time of the keys;
        # under Time Remapping the scene plays it at another frame.
        from .. import animdata  # numpy's import waits for a click (bench_register)

        time = worst_frame(result)
        owner = bpy.data.objects.get(result.get("object", ""))
        if result.get("clip") and owner is not None:
            time = animdata.clip_time(owner, result["clip"], time)
        animdata.show_time(context.scene, time)
        if result.get("bone"):
            _select_bone(context, result["object"], result["bone"])
        return {'FINISHED'}


def _select_bone(context, object_name: str, bone_name: str) -> None:
    """Make the worst bone the only selected (and active) bone of its armature, so the
    Graph Editor and the overlay show it."""
    rig = bpy.data.objects.get(object_name)
    if rig is None or rig.type != 'ARMATURE' or bone_name not in rig.data.bones:
        return
    for bone in rig.data.bones:
        versions.select_bone(rig, bone.name, bone.name == bone_name)
    rig.data.bones.active = rig.data.bones[bone_name]


classes = one_line_tooltips(QUATBAKE_OT_analyze, QUATBAKE_OT_jump_to_worst)
_register_classes, _unregister_classes = bpy.utils.register_classes_factory(classes)


@persistent
def _on_undo_redo(*_args) -> None:
    """Each scene's entries follow the keys an undo or redo step brings back."""
    try:
        for scene in bpy.data.scenes:
            follow_undo(scene)
    except Exception:  # noqa: BLE001 - a handler must never raise into Blender
        print("QuatBake: following the undo step in the Difference Report failed")


@persistent
def _on_load_post(*_args) -> None:
    """Another file: the entries of the one before describe nothing in it (they were kept
    by scene name, and a new file's "Scene" showed them, out of date)."""
    forget_all()


_HANDLERS = (("undo_post", _on_undo_redo), ("redo_post", _on_undo_redo),
             ("load_post", _on_load_post))


def register() -> None:
    _register_classes()
    for name, func in _HANDLERS:
        getattr(bpy.app.handlers, name).append(func)


def unregister() -> None:
    for name, func in _HANDLERS:
        handlers = getattr(bpy.app.handlers, name)
        for existing in [h for h in handlers if getattr(h, "__qualname__", None)
                         == func.__qualname__ and h.__module__ == func.__module__]:
            handlers.remove(existing)
    _unregister_classes()
    forget_all()
