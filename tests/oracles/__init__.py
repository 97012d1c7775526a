"""Independent readers of animation files, used as test oracles.

Written from the file formats' own specifications (glTF 2.0, BVH), in plain
Python + numpy. Nothing here imports bpy or quatbake, so a test can compare
QuatBake's or Blender's result against what the file itself says.
"""
