"""core.rotation against Blender's own mathutils, for all six Euler orders.

Runs with the bpy module (5.0.1) and inside the Blender 3.4.1 program.
"""
import numpy as np
import pytest

mathutils = pytest.importorskip("mathutils")

from quatbake.core import quat, rotation  # noqa: E402

pytestmark = pytest.mark.bpy

# mathutils stores and computes in float32 (eps 1.2e-7): a quaternion built
# from three half-angle sin/cos products is good to a few 1e-7 rad.
FLOAT32_TOL = 2e-6


@pytest.mark.parametrize("order", rotation.EULER_ORDERS)
def test_euler_to_quat_matches_mathutils(order):
    euler = np.random.default_rng(7).uniform(-4.0, 4.0, size=(200, 3))
    ours = rotation.euler_to_quat(euler, order)
    theirs = np.array([list(mathutils.Euler(e.tolist(), order).to_quaternion()) for e in euler])
    assert quat.angle_between(ours, theirs).max() < FLOAT32_TOL


@pytest.mark.parametrize("order", rotation.EULER_ORDERS)
def test_quat_to_matrix_and_axis_angle_match_mathutils(order):
    q = rotation.euler_to_quat(np.random.default_rng(8).uniform(-4.0, 4.0, size=(50, 3)), order)
    ours = rotation.quat_to_matrix(q)
    theirs = np.array([np.array(mathutils.Quaternion(x.tolist()).to_matrix()) for x in q])
    assert np.abs(ours - theirs).max() < FLOAT32_TOL
    axis, angle = zip(*(mathutils.Quaternion(x.tolist()).to_axis_angle() for x in q))
    blender_aa = np.column_stack((angle, np.array([list(a) for a in axis])))
    assert quat.angle_between(rotation.axis_angle_to_quat(blender_aa), q).max() < FLOAT32_TOL
