"""Load Demo Scene (quatbake.demo_scene): the five pitfalls, un-baked, in a scene of
their own in the running Blender, the user's scenes untouched, and the Difference
Report showing the problems before any bake."""
import bpy
import numpy as np
import pytest

from scenes import assert_same_snapshot, make_animated_object, scene_snapshot

pytestmark = pytest.mark.bpy


def test_the_demo_scene_is_added_beside_the_users_scene_and_shows_its_problems(clean_blender):
    from quatbake.addon.analyze import entries

    mine = make_animated_object("FlipCam", 'XYZ', [1, 10], np.radians([[0, 0, 0], [0, 0, 90]]))
    own_scene = bpy.context.scene
    before = scene_snapshot()
    assert bpy.ops.quatbake.demo_scene() == {'FINISHED'}
    demo = bpy.context.scene
    assert demo != own_scene and demo.name.startswith("QuatBake Demo")
    # The user's scene, object and action are as they were (the demo's camera is FlipCam.001).
    after = scene_snapshot()
    # What was there before, as it is now (the demo only adds).
    mine_now = {part: {name: after[part][name] for name in before[part]} for part in before}
    assert_same_snapshot(before, mine_now)
    assert mine.name == "FlipCam" and own_scene.objects.keys() == ["FlipCam"]
    names = sorted(demo.objects.keys())
    assert names == ["Dolly", "EulerCam", "FlipCam.001", "FollowCam", "Turn170"]
    assert all(not o.quatbake.baked_action for o in demo.objects)   # nothing baked
    with bpy.context.temp_override(scene=demo, selected_objects=list(demo.objects)):
        assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    found = entries.results(demo)
    problems = [n for n, e in found.items() if e.get("verdict") != entries.VERDICT_FINE
                or "location segments" in e.get("advice", "") or "creep" in e.get("advice", "")]
    assert len(problems) >= 3, found
    assert found["FlipCam.001"]["verdict"] == entries.VERDICT_LONG_WAY
    assert found["EulerCam"]["verdict"] == entries.VERDICT_LONG_WAY


def test_loading_the_demo_twice_adds_a_second_scene(clean_blender):
    assert bpy.ops.quatbake.demo_scene() == {'FINISHED'}
    assert bpy.ops.quatbake.demo_scene() == {'FINISHED'}
    demos = [s for s in bpy.data.scenes if s.name.startswith("QuatBake Demo")]
    assert len(demos) == 2 and all(len(s.objects) == 5 for s in demos)
