# QuatBake preset: Exact turns, keep timing (Slerp, Linear location). Was "Robot arm - VR".
# Why (seeds' selection guide, /work/shared/seeds): few objects that must turn
# exactly and evenly - robot arm paths and VR controllers - are the guide's slerp
# cases (机械臂路径、VR 手柄平滑: 数量少、平滑要求高, 优先 Slerp), with plain linear
# interpolation for position (位置部分用普通 Lerp). The keyed timing is kept
# (no constant-speed retiming): a robot arm or a tracked controller moves on
# its own schedule.
# Turns Keyed: a joint's keys are commanded angles, and the way round they go may be
# the only way past a joint limit or a cable, so every interval turns exactly as
# Blender plays the keys, long way and whole turns included. Timing Even: the arm
# must turn evenly between its keys.
import bpy
op = bpy.context.active_operator

op.method = 'SLERP'
op.location_method = 'LINEAR'
op.constant_speed = False
op.frame_step = 1
op.turns = 'KEYED'
op.timing = 'EVEN'
