# SPDX-License-Identifier: GPL-3.0-or-later
"""Operator polls every feature shares: the scene settings are there, and something
is selected; greyed-out buttons say why (``poll_message_set``)."""
from .translations import tip

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
