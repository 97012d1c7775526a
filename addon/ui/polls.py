# SPDX-License-Identifier: GPL-3.0-or-later
"""Operator polls every feature shares: the scene settings are there, and something
is selected; greyed-out buttons say why (``poll_message_set``)."""
from .translations import report, tip

MISSING_SETTINGS = "QuatBake's scene settings are missing: enable the add-on again"


def poll_message(cls, message: str) -> None:
    """Say why an operator is greyed out (the status bar's tooltip on the button)."""
    cls.poll_message_set(tip(message))


def has_settings(cls, context) -> bool:
    """Operator poll: the scene carries QuatBake's settings (else say why, greyed out)."""
    if getattr(context.scene, "quatbake", None) is None:
        poll_message(cls, MISSING_SETTINGS)
        return False
    return True


def has_selection(cls, context, hint: str = "Select at least one object") -> bool:
    """Operator poll: ``has_settings`` and something selected (else ``hint``)."""
    if not has_settings(cls, context):
        return False
    if not getattr(context, "selected_objects", None):
        poll_message(cls, hint)
        return False
    return True


def no_bones_selected(context, doing: str) -> str:
    """The sentence for Pose Mode with no pose bone selected ("" otherwise): the armature is
    selected and keyed, so "select the animated objects" would point at the wrong thing.
    In the report's language: ``doing`` ("analyze", "bake" ...) is a message id too."""
    if getattr(context, "mode", "") != 'POSE' or getattr(context, "selected_pose_bones", None):
        return ""
    return report("No pose bones are selected in Pose Mode: select the bones to {}, or go "
                  "back to Object Mode to take the whole armature.").format(report(doing))
