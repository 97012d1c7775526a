"""Fixtures for tests that need Blender's Python API.

The same files run with the ``bpy`` module (venv) and inside Debian's Blender
3.4.1 program (pytest-blender), so nothing here assumes one Blender version.
"""
import bpy
import pytest

import quatbake


@pytest.fixture
def clean_blender():
    """An empty scene from factory settings, with QuatBake registered."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    quatbake.register()
    try:
        yield bpy.context
    finally:
        quatbake.unregister()
