"""Characterisation tests: what Blender ITSELF does with rotation keys.

These freeze the behaviour QuatBake exists to fix (and the facts the bake engine
relies on), measured through Blender's own evaluation (frame_set + matrix_basis).
If a Blender release changes any of it, a test here fails instead of the
product silently drifting.
"""
import bpy
import numpy as np
import pytest

from quatbake.core import interp, quat

from scenes import make_animated_object, matrix_quat, new_object

pytestmark = pytest.mark.bpy

SUBSTEPS = 50   # subframes per frame: steps of a few degrees, so no step is ambiguous


def _turned_deg(obj, first: int, last: int) -> float:
    """Angle (degrees) the object turns from ``first`` to ``last``, summed over subframe steps."""
    scene = bpy.context.scene
    quats = []
    for f in range(first, last):
        for s in range(SUBSTEPS):
            scene.frame_set(f, subframe=s / SUBSTEPS)
            quats.append(matrix_quat(obj))
    scene.frame_set(last)
    quats.append(matrix_quat(obj))
    q = np.array(quats)
    steps = quat.angle_between(q[:-1], q[1:])
    assert steps.max() < np.radians(90)   # resolution check: summing is unambiguous
    return float(np.degrees(steps.sum()))


def _axis_quat(angle_deg, axis):
    axis = np.asarray(axis, dtype=np.float64) / np.linalg.norm(axis)
    half = np.radians(angle_deg) / 2
    return np.concatenate([[np.cos(half)], np.sin(half) * axis])


@pytest.mark.parametrize("interpolation", ('LINEAR', 'BEZIER'))
def test_flipped_sign_quaternion_key_goes_the_long_way(clean_blender, interpolation):
    """Keys 30 deg apart, the second stored as -q: Blender turns 330 deg, not 30."""
    q0 = _axis_quat(0, (0, 0, 1))
    q1 = -_axis_quat(30, (0, 0, 1))
    obj = make_animated_object("Flip", 'QUATERNION', [1, 11], [q0, q1], interpolation)
    shortest = np.degrees(quat.angle_between(q0, q1))
    assert shortest == pytest.approx(30, abs=1e-9)
    turned = _turned_deg(obj, 1, 11)
    # Per-channel interpolation passes close to (0,0,0,0): the object spins the
    # other way round the same axis, 360 - 30 degrees (float32: ~1e-4 deg).
    assert turned > 180
    assert turned == pytest.approx(330, abs=0.01)


def test_euler_wrap_170_to_minus_170_turns_340_degrees(clean_blender):
    keys = np.radians([[0, 0, 170], [0, 0, -170]])
    obj = make_animated_object("Wrap", 'XYZ', [1, 11], keys, 'LINEAR')
    start, end = (np.array(_axis_quat(a, (0, 0, 1))) for a in (170, -170))
    assert np.degrees(quat.angle_between(start, end)) == pytest.approx(20, abs=1e-9)
    assert _turned_deg(obj, 1, 11) == pytest.approx(340, abs=0.01)


def test_linear_quaternion_keys_are_nlerp_not_slerp(clean_blender):
    """'Linear' on quaternion channels: per-channel lerp, normalised when the matrix is built."""
    q0, q1 = _axis_quat(0, (1, 0, 0)), _axis_quat(150, (1, 1, 0))
    obj = make_animated_object("Nlerp", 'QUATERNION', [1, 11], [q0, q1], 'LINEAR')
    frames = np.arange(1, 12)
    scene = bpy.context.scene
    blender = []
    for f in frames:
        scene.frame_set(int(f))
        blender.append(matrix_quat(obj))
    blender = np.array(blender)
    nlerp = interp.interpolate([1, 11], [q0, q1], frames, "nlerp")
    slerp = interp.interpolate([1, 11], [q0, q1], frames, "slerp")
    # float32 channels and matrix: ~1e-7 rad.
    assert quat.angle_between(blender, nlerp).max() < 2e-6
    assert np.degrees(quat.angle_between(blender, slerp).max()) > 3


def test_bezier_quaternion_channels_leave_the_unit_sphere(clean_blender):
    """Bezier quaternion channels are evaluated one by one; their 4-vector is not unit."""
    q0, q1 = _axis_quat(0, (0, 1, 0)), _axis_quat(120, (0, 1, 0))
    obj = make_animated_object("Norm", 'QUATERNION', [1, 11], [q0, q1], 'BEZIER')
    bpy.context.scene.frame_set(6)
    raw = np.array(obj.rotation_quaternion)
    assert np.linalg.norm(raw) < 0.9   # the chord of a 60 deg half-arc: |q| = cos(30 deg)
    assert np.linalg.norm(raw) == pytest.approx(np.cos(np.radians(30)), abs=1e-6)


@pytest.mark.parametrize("stored, shown", [
    ((0.0, 0.0, 0.0, 0.0), (0.0, 1.0, 0.0, 0.0)),   # normalize_qt's fallback: 180 deg about X
    ((1e20, 1e20, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0)),  # float32 dot overflows: no rotation at all
])
def test_degenerate_quaternion_values(clean_blender, stored, shown):
    """Why the bake engine refuses quaternion keys of length < 1e-12 or > 1e18."""
    obj = new_object("Degenerate", 'QUATERNION')
    obj.rotation_quaternion = stored
    bpy.context.view_layer.update()
    assert quat.angle_between(matrix_quat(obj), np.array(shown)) < 1e-6


def test_setting_rotation_mode_converts_the_stored_rotation(clean_blender):
    """Assigning rotation_mode rewrites the new mode's property (the bake saves and restores it)."""
    obj = new_object("Convert", 'XYZ')
    obj.rotation_euler = (0.0, 0.0, 7.0)          # beyond 2*pi
    obj.rotation_mode = 'QUATERNION'
    expected = _axis_quat(np.degrees(7.0), (0, 0, 1))
    assert quat.angle_between(np.array(obj.rotation_quaternion), expected) < 1e-6
    obj.rotation_mode = 'XYZ'
    # Converted back, the winding is gone: 7 rad comes back as 7 - 2*pi.
    assert obj.rotation_euler[2] == pytest.approx(7.0 - 2 * np.pi, abs=1e-6)


@pytest.mark.skipif(bpy.app.version[:2] != (4, 2) or bool(bpy.app.binary_path),
                    reason="the teardown crash is the bpy 4.2 module's only")
def test_bpy42_module_crashes_at_exit_after_a_gltf_export(tmp_path):
    """Why tests/blender/conftest.py leaves a bpy 4.2 session with os._exit: after
    its glTF exporter ran, the process segfaults in interpreter teardown. When a
    later 4.2 wheel fixes it, this fails: drop the os._exit there."""
    import subprocess
    import sys

    script = tmp_path / "export.py"
    script.write_text(
        "import bpy\n"
        "bpy.ops.wm.read_factory_settings(use_empty=True)\n"
        "obj = bpy.data.objects.new('E', None)\n"
        "bpy.context.scene.collection.objects.link(obj)\n"
        "obj.keyframe_insert('rotation_euler', frame=1)\n"
        f"bpy.ops.export_scene.gltf(filepath={str(tmp_path / 'e.gltf')!r}, "
        "export_format='GLTF_SEPARATE')\n"
        "print('exported')\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300)
    assert "exported" in done.stdout and (tmp_path / "e.gltf").exists()
    assert done.returncode in (-11, 139), done.returncode     # SIGSEGV at teardown
