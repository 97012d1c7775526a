# QuatBake preset: Camera move, even speed (Slerp, Linear location, constant speed).
# Why (seeds' selection guide, /work/shared/seeds): a camera move is one object
# turning through large angles, where an even angular speed is visible; the guide
# puts "camera moves" under slerp (相机过场 ... 优先 Slerp), nlerp being slow at the
# ends and fast mid-way on big turns. Timing by frame count between unevenly
# spaced keys makes the camera speed up and slow down ("线性"和"匀速"不是自动绑定:
# time must follow arc length), so constant speed retimes the move by arc length
# along straight segments between the location keys.
# Turns Auto: an orbit keyed 0 -> 360 deg stays an orbit, a flipped quaternion key or
# an Euler wrap is still fixed (issue 11). Timing Even: constant speed retimes the
# move by arc length, which the keys' own ease would contradict.
import bpy
op = bpy.context.active_operator

op.method = 'SLERP'
op.location_method = 'LINEAR'
op.constant_speed = True
op.frame_step = 1
op.turns = 'AUTO'
op.timing = 'EVEN'
