# SPDX-License-Identifier: GPL-3.0-or-later
"""Registers the Re-bake sub-panels (defined in .ui) after the others, so they come last."""
from .ui import register_rebake as register
from .ui import unregister_rebake as unregister

__all__ = ("register", "unregister")
