"""Hostile scenes for the read-only entry points (issue 7): the viewport overlay's
geometry rebuild and the quatbake.analyze operator.

Neither may raise on broken keys, draw NaN, or change the scene: each bad
object is named with its problem, the good ones are still drawn / analysed.
Runs with the bpy module and inside Blender 3.4.1 (pytest-blender); the
overlay's rebuild is pure data (no GPU), so it runs headless.
"""
import bpy
import numpy as np
import pytest

from quatbake.addon import animdata
from quatbake.addon.overlay import draw as overlay

import scenes
from test_hostile_bake import EULERS, _euler_object, _refresh

pytestmark = pytest.mark.bpy


def _hostile_objects() -> dict:
    """name -> words its problem report must contain (None: must be drawn fine)."""
    values = EULERS.copy()
    values[1, 1] = np.nan
    _euler_object("NaNKey", values=values, interpolation='LINEAR')
    _euler_object("ZeroQuat", 'QUATERNION', values=[[1, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0]])
    _euler_object("HugeQuat", 'QUATERNION', values=[[1, 0, 0, 0], [0, 1e20, 0, 0], [0, 1, 0, 0]])
    _euler_object("FarKeys", frames=np.array([1.0, 11.0, 5_000_001.0]))
    _euler_object("Lonely", frames=[7.0], values=EULERS[:1])
    _euler_object("Sub", frames=[1.0, 5.5, 10.0])
    bare = scenes.new_object("Bare")
    action = scenes.ensure_action(bare)
    for i in range(3):
        animdata.new_fcurve(action, animdata.get_slot_identifier(bare), "rotation_euler", i)
    _euler_object("Good", 'ZYX', location=np.array([[0, 0, 0], [1, 0, 0], [2, 2, 0]]))
    return {"NaNKey": ("rotation_euler[1]", "frame 11"), "ZeroQuat": ("frame 11", "zero"),
            "HugeQuat": ("frame 11", "too large"), "FarKeys": ("5000000 frames",),
            "Lonely": None, "Sub": None, "Bare": None, "Good": None}


def test_overlay_rebuild_names_broken_objects_and_draws_the_rest(clean_blender):
    expected = _hostile_objects()
    scenes.select_only(*[bpy.data.objects[n] for n in expected])
    _refresh()
    before = scenes.scene_snapshot()
    legend = overlay.rebuild()     # called directly: a handler would swallow an exception
    problems = {p.split(":")[0]: p for p in legend.problems}
    for name, words in expected.items():
        if words is None:
            continue
        assert name in problems, (name, legend.problems)
        for word in words:
            assert word in problems[name], problems[name]
    assert "Good" in legend.objects and "Lonely" in legend.objects
    for key, (points, colors) in overlay.cached_arrays().items():
        assert np.isfinite(points).all() and np.isfinite(colors).all(), key
    assert overlay.cached_arrays()["triads"][0].shape[0] > 0
    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def test_analyze_reports_broken_objects_and_analyses_the_rest(clean_blender):
    expected = _hostile_objects()
    scenes.select_only(*[bpy.data.objects[n] for n in expected])
    _refresh()
    before = scenes.scene_snapshot()
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    from quatbake.addon.analyze import entries as report_results
    found = report_results.results(bpy.context.scene)
    for name in ("NaNKey", "ZeroQuat", "HugeQuat", "FarKeys"):
        assert found[name].get("error") and name in found[name]["error"], (name, found[name])
    # Issue 21: F-curves without keys are no rotation keys: left out with the reason, not
    # an error of the file.
    assert not found["Bare"].get("error") and "Bare" in found["Bare"]["skipped"], found["Bare"]
    # Refused by the bake's frame cap (it took a minute), naming the key range.
    assert "frames 1 to 5000001" in found["FarKeys"]["error"], found["FarKeys"]
    assert "rotation_euler[1]" in found["NaNKey"]["error"] \
        and "frame 11" in found["NaNKey"]["error"], found["NaNKey"]
    assert not found["Good"].get("error")
    assert np.isfinite(found["Good"]["max_deviation_deg"])
    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def test_analyze_with_only_broken_objects_is_a_sentence(clean_blender):
    _hostile_objects()
    broken = [bpy.data.objects[n] for n in ("NaNKey", "ZeroQuat", "Bare")]
    scenes.select_only(*broken)
    _refresh()
    before = scenes.scene_snapshot()
    with pytest.raises(RuntimeError) as info:
        bpy.ops.quatbake.analyze()
    # Two fail (a NaN key, a zero quaternion) and one has no keys: none could be analysed,
    # which is not "none has rotation keys" (a walk, of a cache whose file was gone).
    said = str(info.value)
    assert "Traceback" not in said and "could be analysed (2 failed" in said, said
    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())
