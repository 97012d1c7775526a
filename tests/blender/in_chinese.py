"""What the tests of QuatBake's Chinese need: whether this Blender can show it, and the
reports an operator printed.

The bpy module has no interface translations, so those tests run in Debian's Blender
3.4.1 program (make test-blender-program); the fixture that switches the interface and
its reports to Chinese for one test is ``chinese_reports`` in conftest.py.
"""
import bpy
import pytest

needs_translations = pytest.mark.skipif(
    not any(loc in bpy.app.translations.locales for loc in ("zh_HANS", "zh_CN")),
    reason="this Blender build has no interface translations (the bpy module)",
)


def said(capfd) -> list[str]:
    """The reports since the last call, without their kind: Blender prints them as
    "Info: ..." ("信息: ..." in Chinese, the kind translated too)."""
    return [ln.split(": ", 1)[1] for ln in capfd.readouterr().out.splitlines()
            if ": " in ln]
