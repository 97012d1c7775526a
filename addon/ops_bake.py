# SPDX-License-Identifier: GPL-3.0-or-later
"""Operators ``quatbake.bake`` and ``quatbake.revert``.

They act on the selected objects (cameras are objects) and take their
defaults from the scene settings (``scene.quatbake``). The work itself is done
by :mod:`.bake`; this module only turns operator properties into
:class:`bake.BakeSettings`, drives the progress bar and reports the outcome.
"""
from typing import TYPE_CHECKING

import bpy
from bpy.app.translations import pgettext_tip
from bpy.props import StringProperty
from bpy.types import Operator

from .props import QUATBAKE_PG_settings

# The engine (.bake, with core's interpolation) is imported inside the
# functions that bake: registering must not load it (measured in
# benchmarks/bench_register.py; the first enable compiles what it imports).
if TYPE_CHECKING:
    from . import bake

# `pgettext_rpt` (report context) exists from Blender 4.0; 3.4 translates
# reports with the tooltip function.
rpt_ = getattr(bpy.app.translations, "pgettext_rpt", pgettext_tip)

# Operator properties that mirror the scene settings of the same name, so the
# redo panel edits them and operator presets store them.
SETTING_NAMES = (
    "method",
    "location_method",
    "constant_speed",
    "frame_step",
    "use_frame_range",
    "frame_start",
    "frame_end",
    "output_mode",
    "union_keys",
)

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


def selected_objects(context) -> list:
    """The selected objects, sorted by name so reports come in a stable order."""
    objects = getattr(context, "selected_objects", None) or []
    return sorted(objects, key=lambda obj: obj.name)


def selected_items(context) -> list:
    """What the operators act on: in Pose Mode the selected pose bones (as
    ``transform.AnimatedTransform``), otherwise the selected objects (an armature
    then stands for all its keyed bones, see ``transform.transforms_of_objects``)."""
    if getattr(context, "mode", "") == 'POSE':
        from .transform import selected_transforms

        return selected_transforms(context)
    return selected_objects(context)


MISSING_SETTINGS = "QuatBake's scene settings are missing: enable the add-on again"


def poll_message(cls, message: str) -> None:
    """Say why an operator is greyed out (``poll_message_set`` is 3.0+)."""
    if hasattr(cls, "poll_message_set"):
        cls.poll_message_set(pgettext_tip(message))


def _poll_selection(cls, context) -> bool:
    if getattr(context.scene, "quatbake", None) is None:
        poll_message(cls, MISSING_SETTINGS)
        return False
    if not getattr(context, "selected_objects", None):
        poll_message(cls, "Select at least one object")
        return False
    return True


def _report_issues(operator: Operator, issues, severity: str) -> None:
    """Report the first few issues with ``severity``; print all to the console."""
    for issue in issues[:MAX_REPORTED_ISSUES]:
        operator.report({severity}, issue.message)
    hidden = len(issues) - MAX_REPORTED_ISSUES
    if hidden > 0:
        operator.report(
            {severity}, rpt_("...and {:d} more problems; the console lists them all").format(hidden)
        )
        for issue in issues:
            print(f"QuatBake {issue.severity.lower()}: {issue.message}")


def _error_issues(err: Exception) -> list:
    """The issues carried by a BakeError, or one issue made from any other error."""
    from . import bake

    issues = list(getattr(err, "issues", None) or [])
    if not issues:
        issues = [bake.BakeIssue('ERROR', "", "", None, str(err))]
    return issues


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


class QUATBAKE_OT_bake(Operator):
    """Re-bake the rotation (and location) keys of the selected objects with real
    rotation interpolation. The original action is kept; Revert puts it back"""

    bl_idname = "quatbake.bake"
    bl_label = "Re-bake Rotations"
    bl_options = {'REGISTER', 'UNDO', 'PRESET'}

    method: _mirror("method")
    location_method: _mirror("location_method")
    constant_speed: _mirror("constant_speed")
    frame_step: _mirror("frame_step")
    use_frame_range: _mirror("use_frame_range")
    frame_start: _mirror("frame_start")
    frame_end: _mirror("frame_end")
    output_mode: _mirror("output_mode")
    union_keys: _mirror("union_keys")
    # Not a scene setting: which action to bake is a per-call choice (scripts).
    clip: StringProperty(
        name="Clip", default="", options={'SKIP_SAVE'},
        description="Bake this NLA clip (an action's name, evaluated in its own action time) "
        "instead of the active action; the baked clip becomes the active action and Revert "
        "puts back the previous one. Empty: the active action",
    )

    @classmethod
    def poll(cls, context) -> bool:
        return _poll_selection(cls, context)

    def _fill_from_scene(self, context) -> None:
        """Copy each scene setting the caller did not set explicitly."""
        settings = context.scene.quatbake
        for name in SETTING_NAMES:
            if not self.properties.is_property_set(name):
                setattr(self, name, getattr(settings, name))

    def bake_settings(self) -> "bake.BakeSettings":
        from . import bake

        frame_range = (self.frame_start, self.frame_end) if self.use_frame_range else None
        return bake.BakeSettings(
            method=self.method,
            location_method=self.location_method,
            constant_speed=self.constant_speed,
            frame_step=self.frame_step,
            frame_range=frame_range,
            output_mode=self.output_mode,
            union_keys=self.union_keys,
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

    def invoke(self, context, event):
        # The contract: the operators take their defaults from the scene settings.
        self._fill_from_scene(context)
        return self.execute(context)

    def execute(self, context):
        from . import bake

        self._fill_from_scene(context)
        message = self._settings_error()
        if message:
            self.report({'ERROR'}, message)
            return {'CANCELLED'}

        objects = selected_items(context)
        progress = _Progress(getattr(context, "window_manager", None))
        try:
            result = bake.bake_objects(objects, self.bake_settings(), progress=progress)
        except (bake.BakeError, ValueError) as err:
            # The engine validates every object before writing anything, so the
            # scene is as it was: say what is wrong and stop.
            _report_issues(self, _error_issues(err), 'ERROR')
            return {'CANCELLED'}
        finally:
            progress.end()

        _report_issues(self, list(result.warnings), 'WARNING')
        settings = context.scene.quatbake
        settings.has_last_bake = True
        settings.last_objects_baked = len(result.objects)
        settings.last_frames_written = int(result.frames_written)
        settings.last_max_deviation_deg = float(result.max_deviation_deg)
        summary = rpt_(
            "Baked {:d} objects, {:d} frames; largest difference from Blender's own "
            "interpolation: {:.3f} deg"
        )
        self.report({'INFO'}, summary.format(
            settings.last_objects_baked, settings.last_frames_written,
            settings.last_max_deviation_deg,
        ))
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
        return _poll_selection(cls, context)

    def execute(self, context):
        from . import bake

        objects = selected_items(context)
        try:
            names = bake.revert_objects(objects)
        except (bake.BakeError, ValueError) as err:
            _report_issues(self, _error_issues(err), 'ERROR')
            return {'CANCELLED'}
        # The summary described the bake that was just taken back.
        context.scene.quatbake.has_last_bake = False
        self.report(
            {'INFO'}, rpt_("Reverted {:d} objects: {}").format(len(names), ", ".join(names))
        )
        return {'FINISHED'}


classes = (QUATBAKE_OT_bake, QUATBAKE_OT_revert)
register, unregister = bpy.utils.register_classes_factory(classes)
