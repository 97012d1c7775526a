"""Runs inside a real Blender window (Blender 3.4.1 under Xvfb), started by
test_skipped_gui.py:

    blender --factory-startup --python skipped_gui_script.py -- RESULT.json REPO_ROOT

Issue 21's mixed selection in the panel: a cube keyed on rotation, a dolly keyed on
location only and a parent animated only by an NLA clip, all selected. Analyze and
Re-bake as button presses (window context), then the Difference Report and Re-bake
panels drawn for real as popovers (the skipped entries, the last bake's notes, the Clip
field), the Clip set and Re-bake pressed again; writes RESULT.json and quits.
"""
import functools
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gui_session  # noqa: E402  (a sibling file: importable only after the line above)
from gui_session import view3d_context  # noqa: E402

result = {"steps": [], "errors": [], "draws": {}}
step = functools.partial(gui_session.record_step, result)
instrument_draw = functools.partial(gui_session.count_draws, result)
PANELS = ("QUATBAKE_PT_main", "QUATBAKE_PT_analyze", "QUATBAKE_PT_rebake",
          "QUATBAKE_PT_rebake_settings")


def _scene():
    import numpy as np

    from quatbake.addon import animdata

    import scenes

    gui_session.clear_objects()
    keys = [1, 11, 31]
    cube = scenes.make_animated_object("Cube", 'XYZ', keys,
                                       np.radians([[0, 0, 0], [0, 0, 170], [0, 0, -170]]))
    dolly = scenes.new_object("Dolly", 'XYZ')
    scenes.key_channels(dolly, "location", keys, [[0, 0, 0], [1, 0, 0], [10, 0, 0]])
    parent = scenes.make_animated_object("Parent", 'QUATERNION', [1, 21],
                                         [[1, 0, 0, 0], [0, 0, 0, 1]])
    clip = animdata.get_action(parent)
    clip.name = "ParentClip"
    track = parent.animation_data.nla_tracks.new()
    track.strips.new("ParentClip", 1, clip)
    track.mute = True
    animdata.assign_action(parent, None)
    for obj in (cube, dolly, parent):
        obj.select_set(True)
    bpy.context.view_layer.objects.active = cube


def _draw_panels(override) -> None:
    with bpy.context.temp_override(**override):
        for panel in PANELS:
            bpy.ops.wm.call_panel('INVOKE_DEFAULT', name=panel, keep_open=False)
    override["region"].tag_redraw()


def run() -> None:
    from quatbake.addon.analyze import entries

    _scene()
    for panel in PANELS:
        instrument_draw(panel)
    override = view3d_context()
    with bpy.context.temp_override(**override):
        ret = bpy.ops.quatbake.analyze('INVOKE_DEFAULT', True)
    step("analyze finished", ret == {'FINISHED'}, ret)
    found = entries.results(bpy.context.scene)
    result["verdicts"] = {name: e.get("verdict", "") for name, e in found.items()}
    result["dolly_advice"] = found.get("Dolly", {}).get("advice", "")
    _draw_panels(override)

    with bpy.context.temp_override(**override):
        ret = bpy.ops.quatbake.bake('INVOKE_DEFAULT', True, method='SLERP')
    step("bake finished", ret == {'FINISHED'}, ret)
    result["notes"] = bpy.context.scene.quatbake.last_turn_notes
    _draw_panels(override)

    bpy.context.scene.quatbake.clip = "ParentClip"
    _draw_panels(override)
    with bpy.context.temp_override(**override):
        ret = bpy.ops.quatbake.bake('INVOKE_DEFAULT', True, method='SLERP')
    step("clip bake finished", ret == {'FINISHED'}, ret)
    parent = bpy.data.objects["Parent"]
    result["parent_baked"] = bool(parent.quatbake.baked_action)
    result["clip_notes"] = bpy.context.scene.quatbake.last_turn_notes
    _draw_panels(override)


gui_session.start(run, result, quit_after=1.0)
