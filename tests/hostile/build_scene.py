"""Save a small keyed scene with whichever Blender runs this (3.4.1 program or bpy 5.0.1).

    blender -b --factory-startup --python build_scene.py -- OUT.blend [plain]
    python build_scene.py OUT.blend [plain]

"Cam" (a camera, Euler XYZ, 170 -> -170 degree wrap on Z) and "Spin"
(quaternion, the same turn: the -170 degree key lies in the
other hemisphere, so Blender goes the long way), both with location keys. Plain bpy API
only (keyframe_insert), so the same file works on every version; ``plain``
saves uncompressed.
"""
import math
import sys

import bpy

argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
out = argv[0]
plain = "plain" in argv[1:]
bpy.ops.wm.read_factory_settings(use_empty=True)
for name, mode in (("Cam", 'XYZ'), ("Spin", 'QUATERNION')):
    data = bpy.data.cameras.new(name + "Data") if name == "Cam" else None
    obj = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(obj)
    obj.rotation_mode = mode
    for frame, deg in ((1, 0.0), (21, 170.0), (41, -170.0)):
        if mode == 'XYZ':
            obj.rotation_euler = (math.radians(deg / 4), 0.0, math.radians(deg))
            obj.keyframe_insert("rotation_euler", frame=frame)
        else:
            h = math.radians(deg) / 2
            obj.rotation_quaternion = (math.cos(h), 0.0, 0.0, math.sin(h))
            obj.keyframe_insert("rotation_quaternion", frame=frame)
        obj.location = (frame * 0.1, 0.0, 0.0)
        obj.keyframe_insert("location", frame=frame)
bpy.ops.wm.save_as_mainfile(filepath=out, compress=not plain)
