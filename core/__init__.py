# SPDX-License-Identifier: GPL-3.0-or-later
"""QuatBake's math: pure numpy float64. Never imports bpy or mathutils.

Quaternions are arrays of shape (..., 4) in Blender's order (w, x, y, z);
times are frames (floats); positions are (..., 3).
"""
