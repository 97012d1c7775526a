# SPDX-License-Identifier: GPL-3.0-or-later
"""Operators ``quatbake.bake`` and ``quatbake.revert``.

They act on the selected objects (cameras are objects) and take their
defaults from the scene settings (``scene.quatbake``). The work itself is done
by :mod:`.bake`; this module only turns operator properties into
:class:`bake.BakeSettings`, drives the progress bar and reports the outcome.
"""
from typing import TYPE_CHECKING

import bpy
from bpy.props import EnumProperty, FloatProperty, StringProperty
from bpy.types import Operator

from .. import versions
from ..transform import selected_items, selected_objects, transforms_named  # first 2: public
from ..ui import translations
from ..ui.counts import tally, transform_count, transform_pairs
from ..ui.guard import guarded, unexpected
from ..ui.polls import has_selection
from ..ui.props import BAKE_METHOD_ITEMS, SETTING_NAMES, QUATBAKE_PG_settings
from ..ui.texts import one_line_tooltips
from .panel import draw_bake_settings, forget_last_bake, remember_last_bake

# The engine (.bake, with core's interpolation) is imported inside the
# functions that bake: registering must not load it (measured in
# benchmarks/bench_register.py; the first enable compiles what it imports).
if TYPE_CHECKING:
    from .. import animdata, bake

rpt_ = translations.report


# Objects named in the bake's status line; more are only counted.
MAX_NAMED = 4

# More error reports than this would bury the first (most useful) ones in the
# status bar; the rest go to the console.
MAX_REPORTED_ISSUES = 5


def _mirror(name: str):
    """The scene setting ``name`` as an operator property (same name, items,
    limits and tooltip), with SKIP_SAVE.

    SKIP_SAVE matters: without it Blender remembers the last call's values and
    marks them "set", so a later ``bpy.ops.quatbake.bake()`` would silently use
    the previous call's values instead of the scene settings.
    """
    deferred = QUATBAKE_PG_settings.__annotations__[name]
    keywords = dict(deferred.keywords)
    keywords["options"] = {'SKIP_SAVE'}
    return deferred.function(**keywords)


def _report_issues(operator: Operator, issues, severity: str) -> None:
    """Report the first few issues with ``severity``; print all to the console."""
    # The turn notes are Phrases (core.words), said in the interface's language; the
    # console keeps the English, as the CLI and the reports do.
    for issue in issues[:MAX_REPORTED_ISSUES]:
        operator.report({severity}, translations.translated(issue.message))
    hidden = len(issues) - MAX_REPORTED_ISSUES
    if hidden > 0:
        # Notes after a bake that went well are no problems.
        text = {'INFO': "...and {:d} more notes; the console lists them all",
                'WARNING': "...and {:d} more warnings; the console lists them all"}.get(
            severity, "...and {:d} more problems; the console lists them all")
        operator.report({severity}, rpt_(text).format(hidden))
        for issue in issues:
            print(f"QuatBake {issue.severity.lower()}: {issue.message}")


def _report_failed(operator: Operator, result, done: str) -> None:
    """The transforms left exactly as they were for their broken input (a NaN key, a
    driver ...) while the others were ``done``: counted first, then each one's sentences.
    Warnings, as the bake happened: an error would make ``bpy.ops`` raise after it."""
    from .. import bake

    if not result.failed:
        return
    names = list(dict.fromkeys(result.failed_transforms))
    operator.report({'WARNING'}, rpt_("Not {}, left exactly as they were: {} (the notes say "
                                      "why)").format(rpt_(done), transform_count(
                                          transforms_named(names), rpt_)))
    _report_issues(operator, bake.merge_bone_issues(result.failed), 'WARNING')


def _no_bones(operator: Operator, context, doing: str) -> bool:
    """Report Pose Mode with no pose bone selected (ui.polls.no_bones_selected); True
    when it did, and the operator is to cancel."""
    from ..ui.polls import no_bones_selected

    sentence = no_bones_selected(context, doing)
    if sentence:
        operator.report({'ERROR'}, sentence)
    return bool(sentence)


def _error_issues(err: Exception) -> list:
    """The issues carried by a BakeError, or one issue made from any other error."""
    from .. import bake

    issues = list(getattr(err, "issues", None) or [])
    if not issues:
        issues = [bake.BakeIssue('ERROR', "", "", None, str(err))]
    return bake.merge_bone_issues(issues)


class _Progress:
    """``progress(done, total)`` callback driving the window manager's progress
    bar. Headless-safe: without a window manager (or its progress functions)
    it does nothing."""

    def __init__(self, window_manager) -> None:
        self._wm = window_manager if hasattr(window_manager, "progress_begin") else None
        self._started = False

    def __call__(self, done: int, total: int) -> None:
        if self._wm is None:
            return
        if not self._started:
            self._wm.progress_begin(0, max(int(total), 1))
            self._started = True
        self._wm.progress_update(int(done))

    def end(self) -> None:
        if self._started:
            self._wm.progress_end()
            self._started = False


def _bake_method():
    """The scene's ``method`` without 'LERP' (for comparisons only): what a bake writes."""
    deferred = QUATBAKE_PG_settings.__annotations__["method"]
    keywords = dict(deferred.keywords, items=BAKE_METHOD_ITEMS, options={'SKIP_SAVE'})
    keywords["description"] = "How rotations are interpolated between keys (always on the " \
        "short arc)"
    return deferred.function(**keywords)


LERP_REFUSED = ("The scene's method is Lerp, which is for comparisons only (Analyze and the "
                "overlay): choose Nlerp, Slerp or Squad in the Re-bake panel to bake")

class QUATBAKE_OT_bake(Operator):
    """Re-bake the rotation (and location) keys of the selected objects with real
    rotation interpolation. The original action is kept; Revert puts it back"""

    bl_idname = "quatbake.bake"
    bl_label = "Re-bake Rotations"
    bl_options = {'REGISTER', 'UNDO'} | versions.REDO_PRESET_OPTIONS

    method: _bake_method()
    location_method: _mirror("location_method")
    constant_speed: _mirror("constant_speed")
    frame_step: _mirror("frame_step")
    use_frame_range: _mirror("use_frame_range")
    frame_start: _mirror("frame_start")
    frame_end: _mirror("frame_end")
    output_mode: _mirror("output_mode")
    union_keys: _mirror("union_keys")
    turns: _mirror("turns")
    timing: _mirror("timing")
    tolerance: _mirror("tolerance")
    key_interpolation: _mirror("key_interpolation")
    tolerance_px: _mirror("tolerance_px")
    tolerance_tip: _mirror("tolerance_tip")
    # Not stored in presets: which action to bake is a choice per shot. Left unset, the
    # scene's Clip (the Re-bake panel's choice) is used.
    clip: StringProperty(
        name="Clip", default="", options={'SKIP_SAVE'},
        description="Bake this NLA clip (an action's name, evaluated in its own action time) "
        "instead of the active action; the baked clip becomes the active action and Revert "
        "puts back the previous one. Empty: the active action",
    )

    @classmethod
    def poll(cls, context) -> bool:
        return has_selection(cls, context)

    def _fill_from_scene(self, context) -> None:
        """Copy each scene setting the caller did not set explicitly.

        A scene method of 'LERP' is left out (the operator cannot hold it;
        execute refuses it). Without a custom range, Start and End show the
        keyed range of the selection (what is baked), not the scene's 1-250.
        """
        settings = context.scene.quatbake
        # Before copying: a copied value counts as "set" afterwards.
        explicit = {name for name in SETTING_NAMES if self.properties.is_property_set(name)}
        for name in SETTING_NAMES:
            if name in explicit:
                continue
            if name == "method" and settings.method == 'LERP':
                continue
            setattr(self, name, getattr(settings, name))
        if not self.properties.is_property_set("clip"):
            self.clip = getattr(settings, "clip", "")
        if not self.use_frame_range and not explicit & {"frame_start", "frame_end"}:
            from ..keyed import keyed_range

            found = keyed_range(selected_objects(context))
            if found is not None:
                self.frame_start, self.frame_end = found

    def _lerp_requested(self, context) -> bool:
        return (not self.properties.is_property_set("method")
                and context.scene.quatbake.method == 'LERP')

    def draw(self, context):
        """The redo panel (F9): the sidebar's Re-bake fields, in its order and greying."""
        draw_bake_settings(self.layout, self)

    def bake_settings(self) -> "bake.BakeSettings":
        from .. import bake

        frame_range = (self.frame_start, self.frame_end) if self.use_frame_range else None
        return bake.BakeSettings(
            method=self.method,
            location_method=self.location_method,
            constant_speed=self.constant_speed,
            frame_step=self.frame_step,
            frame_range=frame_range,
            output_mode=self.output_mode,
            union_keys=self.union_keys,
            turns=self.turns,
            timing=self.timing,
            tolerance_deg=self.tolerance,
            key_interpolation=self.key_interpolation,
            tolerance_px=self.tolerance_px,
            tolerance_tip=self.tolerance_tip,
            clip=self.clip,
        )

    def _settings_error(self) -> str:
        """A sentence about settings no bake can use, or "" when they are usable.
        The properties' limits already prevent most of these; scripts and
        presets can still reach the engine with odd values, so check here too."""
        if self.frame_step < 1:
            return rpt_(
                "Frame step is {:d}; it must be 1 or more (1 = a key on every frame)"
            ).format(self.frame_step)
        if self.use_frame_range and self.frame_end < self.frame_start:
            return rpt_(
                "The custom frame range ends on frame {:d}, before it starts on frame {:d}: "
                "set End to Start or later"
            ).format(self.frame_end, self.frame_start)
        return ""

    @guarded("Re-bake")
    def invoke(self, context, event):
        # The contract: the operators take their defaults from the scene settings.
        self._fill_from_scene(context)
        return self.execute(context)

    @guarded("Re-bake")
    def execute(self, context):
        from .. import animdata, bake
        from ..analyze import entries

        lerp = self._lerp_requested(context)
        self._fill_from_scene(context)
        message = rpt_(LERP_REFUSED) if lerp else self._settings_error()
        if message:
            self.report({'ERROR'}, message)
            return {'CANCELLED'}

        if _no_bones(self, context, "bake"):
            return {'CANCELLED'}
        objects = selected_items(context)
        progress = _Progress(getattr(context, "window_manager", None))
        try:
            # The keys it writes are kept for the report's refresh below, which then reads
            # none of them back from Blender.
            with animdata.recording_writes(entries.REFRESH_KEY_LIMIT) as written:
                result = bake.bake_objects(objects, self.bake_settings(), progress=progress)
        except (bake.BakeError, ValueError) as err:
            # The engine validates every object before writing anything, so the
            # scene is as it was: say what is wrong and stop.
            _report_issues(self, _error_issues(err), 'ERROR')
            return {'CANCELLED'}
        finally:
            progress.end()

        # What could not be baked comes first: the animator must see it.
        _report_failed(self, result, "baked")
        _report_issues(self, list(result.warnings), 'WARNING')
        # What was left as it is comes first: a rig's location-only controls, an object
        # animated only by NLA clips (Clip bakes it), one without the named clip.
        # One line for a rig's many bones left alike (a walk: an unanimated metarig left
        # selected printed a hundred).
        _report_issues(self, bake.merge_bone_issues(result.skipped), 'INFO')
        _report_issues(self, list(result.notes), 'INFO')
        # A tolerance bake is counted in keys (per channel), not frames baked.
        from .engine import location_words, within_words
        from .settings import has_tolerance

        # Keys: Bezier with only a Bone Tip or Camera tolerance, on transforms it does not
        # apply to, wrote a Linear key on every frame (a walk read 'BEZIER' for them).
        tolerance_asked = has_tolerance(self.bake_settings())
        settings = _remember(context, result, self.key_interpolation
                             if tolerance_asked and result.thinned else "")
        baked = transforms_named(result.objects)
        # Close the loop: the Difference Report describes the baked objects now.
        # Judged as made: its method, Turns and Timing (an argument, or the redo panel's,
        # may differ from the sidebar's; a walk found a SQUAD bake judged against slerp).
        _refresh_report(self, context, baked, "Re-bake", written,
                        compare_with=(self.method, self.turns, self.timing))
        names = _first_names(result.objects)
        if result.rotations_written and location_words(result):
            # The rotation's keys, named so where the location kept others (a triage: "2
            # keys per channel in all" beside 480 location keys).
            summary = rpt_(
                "Baked {} ({}), {:d} rotation keys per channel in all; largest difference "
                "from Blender's own interpolation: {:.3f} deg"
            ).format(transform_count(baked, rpt_), names, settings.last_frames_written,
                     settings.last_max_deviation_deg)
        elif result.rotations_written:
            summary = rpt_(
                "Baked {} ({}), {:d} keys per channel in all; largest difference from "
                "Blender's own interpolation: {:.3f} deg"
            ).format(transform_count(baked, rpt_), names, settings.last_frames_written,
                     settings.last_max_deviation_deg)
        else:
            # Location only (a rig's IK controls): no rotation was written to compare.
            summary = rpt_(
                "Baked the location of {} ({}), {:d} keys per channel in all; the rotation "
                "is left as it is"
            ).format(transform_count(baked, rpt_), names, settings.last_frames_written)
        self.report({'INFO'}, summary)
        if result.skipped:
            left = transforms_named([i.transform_name for i in result.skipped])
            self.report({'INFO'}, rpt_("Left as they were: {} (nothing to bake; the notes say "
                                       "why)").format(transform_count(left, rpt_)))
        if tolerance_asked:
            counts = rpt_("Keys per channel: {:d} dense -> {:d} {}")
            self.report({'INFO'}, counts.format(result.keys_dense, result.keys_written,
                                                within_words(result, rpt_))
                        + location_words(result, rpt_))
        return {'FINISHED'}


class QUATBAKE_OT_revert(Operator):
    """Put back the original action of the selected objects: the keys exactly as
    they were before QuatBake baked them"""

    bl_idname = "quatbake.revert"
    bl_label = "Revert Bake"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context) -> bool:
        # Cheap on purpose: whether anything can be reverted is checked in
        # execute() (which then says so) and by the panel, which greys the
        # button out.
        return has_selection(cls, context)

    @guarded("Revert")
    def execute(self, context):
        from .. import bake

        if _no_bones(self, context, "revert"):
            return {'CANCELLED'}
        objects = selected_items(context)
        notes, left_baked = [], []
        try:
            names = bake.revert_objects(objects, notes, left_baked)
        except (bake.BakeError, ValueError) as err:
            _report_issues(self, _error_issues(err), 'ERROR')
            return {'CANCELLED'}
        # What could not be reverted comes first, counted, as after a Re-bake; its
        # sentences lead the notes.
        if left_baked:
            notes.insert(0, rpt_("Not reverted, left baked: {} (the notes say why)").format(
                transform_count(transforms_named(left_baked), rpt_)))
        # The summary described the bake that was just taken back. The notes behind the i
        # button now say what this Revert left baked and why (a partial Revert left them
        # empty: the bake's notes went, and nothing in the panel said a rig was still baked).
        settings = context.scene.quatbake
        settings.has_last_bake = False
        settings.last_turn_notes = "\n".join(notes) if left_baked else ""
        forget_last_bake(context.scene)
        reverted = transforms_named(names)
        _refresh_report(self, context, reverted, "Revert")
        for note in notes:
            self.report({'WARNING'}, note)
        self.report({'INFO'}, rpt_("Reverted {}: {}").format(transform_count(reverted, rpt_),
                                                             _first_names(names)))
        return {'FINISHED'}


CONVERT_MODE_ITEMS = (
    ('AUTO', "Auto (Euler)", "The Euler order that stays farthest from gimbal lock over the "
     "clip (the bake's notes say which)"),
    ('QUATERNION', "Quaternion", "Quaternion (WXYZ)"),
    ('AXIS_ANGLE', "Axis Angle", "Axis Angle (W+XYZ)"),
) + tuple((order, order + " Euler", f"Euler angles, {order} order")
          for order in ('XYZ', 'XZY', 'YXZ', 'YZX', 'ZXY', 'ZYX'))


class QUATBAKE_OT_convert_rotation_mode(Operator):
    """Convert the selected objects' (or pose bones') rotation to another mode, keeping
    what Blender plays now, in-betweens included, in few Bezier keys. Revert puts the
    original keys back"""

    bl_idname = "quatbake.convert_rotation_mode"
    bl_label = "Convert Rotation Mode"
    bl_options = {'REGISTER', 'UNDO'}

    mode: EnumProperty(name="Mode", items=CONVERT_MODE_ITEMS, default='AUTO',
                       description="The rotation mode to convert to")
    tolerance: FloatProperty(
        name="Tolerance", default=0.01, min=1e-4, soft_max=1.0, precision=3, step=1,
        description="Degrees: Blender's playback of the converted keys stays this close to "
        "what it plays now, at every quarter frame")

    @classmethod
    def poll(cls, context) -> bool:
        return has_selection(cls, context)

    def invoke(self, context, event):
        # From the Animation menu: the mode and tolerance are chosen first (its "...").
        return context.window_manager.invoke_props_dialog(self)

    @guarded("Convert Rotation Mode")
    def execute(self, context):
        from .. import animdata, bake
        from ..analyze import entries

        if _no_bones(self, context, "convert"):
            return {'CANCELLED'}
        progress = _Progress(getattr(context, "window_manager", None))
        try:
            with animdata.recording_writes(entries.REFRESH_KEY_LIMIT) as written:
                result = bake.convert_objects(selected_items(context), self.mode,
                                              self.tolerance, progress=progress)
        except (bake.BakeError, ValueError) as err:
            _report_issues(self, _error_issues(err), 'ERROR')
            return {'CANCELLED'}
        finally:
            progress.end()
        # What could not be converted comes first, as after a Re-bake.
        _report_failed(self, result, "converted")
        if not result.objects:
            # Every one already in the mode: nothing changed, no undo step.
            _report_issues(self, bake.merge_bone_issues(result.skipped), 'INFO')
            self.report({'INFO'}, rpt_("Nothing to convert: each selected transform is "
                                       "already in {} or has no rotation keys").format(
                rpt_("the Euler order Auto picks") if self.mode == 'AUTO' else self.mode))
            return {'CANCELLED'}
        _report_issues(self, list(result.warnings), 'WARNING')
        _report_issues(self, bake.merge_bone_issues(result.skipped), 'INFO')
        _report_issues(self, list(result.notes), 'INFO')
        # The panel's last bake and its notes (the i button), as after a Re-bake: the
        # status line pointed at notes that only the console had (a Rigify walk).
        _remember(context, result, 'BEZIER')
        baked = transforms_named(result.objects)
        _refresh_report(self, context, baked, "Convert Rotation Mode", written)
        # One key: a single-key transform converted alone (a walk: "1 keys per channel").
        converted = (rpt_("Converted {}: one key per channel") if result.keys_written == 1
                     else rpt_("Converted {}: {:d} keys per channel in all"))
        self.report({'INFO'}, converted.format(transform_count(baked, rpt_),
                                               int(result.keys_written)))
        return {'FINISHED'}


def _remember(context, result, keys_kind: str):
    """The Re-bake panel's record of the last bake (or conversion) ``result``: what it
    wrote per transform and in all, and its warnings and notes behind the i button, which
    name every bone, one line per rig. ``keys_kind``: the keys' interpolation for a tolerance bake,
    "" for a key on every frame. Returns the scene's settings."""
    from .. import bake

    settings = context.scene.quatbake
    every = bake.merge_bone_issues(result.failed + result.skipped,
                                   shown=len(result.failed + result.skipped))
    # The warnings first (a Rigify walk: "its baked keys were changed since the bake ...
    # this one replaced those changes" flashed in the status bar, and the notes, where an
    # animator looks again, did not have it).
    # Shown in the panel (the i button): its turn notes in the interface's language.
    settings.last_turn_notes = "\n".join(
        translations.translated(n.message, translations.iface)
        for n in [*result.warnings, *every, *result.notes])
    settings.has_last_bake = True
    _, bones, rig = tally(transform_pairs(transforms_named(result.objects)))
    settings.last_objects_baked = len(result.objects)
    settings.last_bones_baked = bones
    settings.last_bones_rig = rig
    settings.last_frames_written = int(result.frames_written)
    settings.last_max_deviation_deg = float(result.max_deviation_deg)
    settings.last_keys_kind = keys_kind
    # Keys written per channel, each transform's and (last_frames_written) their sum.
    remember_last_bake(context.scene, result.keys_per_object)
    return settings


def _first_names(names) -> str:
    """The first MAX_NAMED names, then "...": the status line of a Rigify rig's revert
    listed all 216 controls; the count before it says how many. Bones of one armature
    go by their own names, since the count names the armature ("31 bones of "Walk""): a
    walk read "(Walk: Hips, Walk: LHipJoint, ...)"."""
    pairs = transform_pairs(transforms_named(names))
    _objects, bones, rig = tally(pairs)
    if rig and bones == len(pairs) == len(names):
        names = [bone for _owner, bone in pairs]
    shown = ", ".join(names[:MAX_NAMED])
    return shown + ", ..." if len(names) > MAX_NAMED else shown


def _refresh_report(operator: Operator, context, transforms, doing: str,
                    written: "animdata.Written | None" = None,
                    compare_with: tuple[str, str, str] | None = None) -> None:
    """Re-run the Difference Report on what a bake or revert changed (``written``: the
    keys the bake wrote, animdata.recording_writes; ``compare_with``: the bake's method,
    Turns and Timing, else the scene's). The bake or revert is done by then: a failure
    here is said as a warning, and never undoes it."""
    from ..analyze import entries
    from ..ui import compare

    settings = context.scene.quatbake
    method, path = compare.compare_method(settings), None
    if compare_with is not None:
        method = compare.compare_method(settings, compare_with[0])
        path = compare_with[1:]
    try:
        entries.refresh(context.scene, transforms, method, written, path)
    except Exception as exc:   # the report is a view: it must not turn a bake into a failure
        operator.report({'WARNING'}, unexpected(
            rpt_("{} done; refreshing the Difference Report").format(rpt_(doing)), exc,
            "press Analyze again"))


def animation_menu(self, context) -> None:
    """Object > Animation and Pose > Animation, beside Blender's Bake Action: Convert has no
    button in the sidebar, whose panels are sized to keep the overlay's legend on a
    900-pixel screen (a review found it only through F3 with Developer Extras on)."""
    self.layout.operator(QUATBAKE_OT_convert_rotation_mode.bl_idname,
                         text="Convert Rotation Mode (QuatBake)...",
                         text_ctxt=translations.CONTEXT)


classes = one_line_tooltips(QUATBAKE_OT_bake, QUATBAKE_OT_revert,
                            QUATBAKE_OT_convert_rotation_mode)
_register_classes, _unregister_classes = bpy.utils.register_classes_factory(classes)


def register() -> None:
    _register_classes()
    bpy.types.VIEW3D_MT_object_animation.append(animation_menu)


def unregister() -> None:
    bpy.types.VIEW3D_MT_object_animation.remove(animation_menu)
    _unregister_classes()
