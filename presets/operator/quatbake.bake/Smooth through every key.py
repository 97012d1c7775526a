# QuatBake preset: Smooth through every key (Squad, Catmull-Rom location).
# Why (seeds' selection guide, /work/shared/seeds): with more than two keys,
# pairwise slerp has a kink in angular velocity at every key (两两 Slerp 的拼接会
# 造成一阶不连续, 在关键点处会"顿"一下); the guide's answer for multi-key paths is
# a Catmull-Rom spline for position and Squad for orientation (位置部分可以用
# Catmull-Rom 样条, 姿态部分对应的是 Squad). Both pass through every key.
# Turns Auto: keyed spins kept (Squad stays C1 across them), defects fixed. Timing
# Even: the keys' ease would put back the stops at the keys that Squad smooths out.
import bpy
op = bpy.context.active_operator

op.method = 'SQUAD'
op.location_method = 'CATMULL_ROM'
op.constant_speed = False
op.frame_step = 1
op.turns = 'AUTO'
op.timing = 'EVEN'
