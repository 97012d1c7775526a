# SPDX-License-Identifier: GPL-3.0-or-later
"""Simplified Chinese for QuatBake's interface, through ``bpy.app.translations``.

The people this add-on grew from write Chinese. Labels of properties,
operators, panels and menus are translated by Blender itself once the strings
are registered here; text drawn dynamically goes through ``pgettext_iface``
(labels) or ``pgettext_tip`` / ``pgettext_rpt`` (tooltips, reports), so each
format string below is the untranslated pattern, placeholders and all.

Blender 4.0 renamed the locale ``zh_CN`` to ``zh_HANS``; both are registered so
3.4 and current versions find the same dictionary.
"""
import bpy

# Translations are registered under the add-on's package name, whatever it is
# (``quatbake``, ``bl_ext.user_default.quatbake`` ...), never a literal one.
_OWNER = __package__.rpartition(".")[0] or __package__

# Blender looks a label up in the translation context of what draws it:
# properties, panels and menus use the default context "*", operator buttons
# and the redo panel use "Operator". Every string is registered in both.
_CONTEXTS = ("*", "Operator")
_LOCALES = ("zh_HANS", "zh_CN")

ZH_HANS = {
    # Panel, menus, buttons
    "QuatBake": "QuatBake",
    "Re-bake": "重新烘焙",
    "Revert": "还原",
    "Bake Presets": "烘焙预设",
    "Bake presets; choosing one copies its values into the scene settings":
        "烘焙预设；选择其中一个会把它的值复制到场景设置中",
    "No presets found": "未找到预设",
    "No bake in this scene yet": "此场景尚未烘焙",
    "Last bake": "上次烘焙",
    "Objects baked: {:d}": "已烘焙物体：{:d}",
    "Frames written: {:d}": "已写入帧数：{:d}",
    "Largest difference: {:.3f}\u00b0": "最大差异：{:.3f}\u00b0",
    "Re-bake rotations with real rotation interpolation": "用真正的旋转插值重新烘焙旋转",
    # Operators
    "Re-bake Rotations": "重新烘焙旋转",
    "Re-bake the rotation (and location) keys of the selected objects with real "
    "rotation interpolation. The original action is kept; Revert puts it back":
        "用真正的旋转插值重新烘焙所选物体的旋转（及位置）关键帧。原动作会被保留，"
        "“还原”可将其恢复",
    "Revert Bake": "还原烘焙",
    "Put back the original action of the selected objects: the keys exactly as "
    "they were before QuatBake baked them":
        "恢复所选物体的原动作：关键帧与 QuatBake 烘焙之前完全相同",
    "Apply Bake Preset": "应用烘焙预设",
    "Copy this preset's values into the scene's QuatBake settings (the Re-bake "
    "button uses them)":
        "将此预设的值复制到场景的 QuatBake 设置中（“重新烘焙”按钮会使用这些值）",
    "Preset File": "预设文件",
    "Path of the preset file to apply": "要应用的预设文件路径",
    # Shipped presets (file names shown in the preset menu)
    "Camera move (slerp, constant speed)": "相机运镜（Slerp，匀速）",
    "Robot arm - VR (slerp)": "机械臂 / VR（Slerp）",
    "Many objects, fast (nlerp)": "大量物体，快速（Nlerp）",
    "Smooth through keys (Squad + Catmull-Rom)": "平滑穿过关键帧（Squad + Catmull-Rom）",
    # Poll messages and reports
    "Select at least one object": "请至少选择一个物体",
    "QuatBake's scene settings are missing: enable the add-on again":
        "缺少 QuatBake 的场景设置：请重新启用该插件",
    "...and {:d} more problems; the console lists them all":
        "……另有 {:d} 个问题；控制台中列出了全部问题",
    "Frame step is {:d}; it must be 1 or more (1 = a key on every frame)":
        "帧步长为 {:d}；必须为 1 或更大（1 = 每帧一个关键帧）",
    "The custom frame range ends on frame {:d}, before it starts on frame {:d}: "
    "set End to Start or later":
        "自定义帧范围的结束帧 {:d} 早于起始帧 {:d}：请将结束帧设为不早于起始帧",
    "Baked {:d} objects, {:d} frames; largest difference from Blender's own "
    "interpolation: {:.3f} deg":
        "已烘焙 {:d} 个物体，{:d} 帧；与 Blender 自身插值的最大差异：{:.3f} 度",
    "Reverted {:d} objects: {}": "已还原 {:d} 个物体：{}",
    "Preset file {!r} does not exist": "预设文件 {!r} 不存在",
    "Preset \"{}\" was not applied: {}": "预设“{}”未应用：{}",
    "Preset \"{}\" sets settings QuatBake does not have, ignored: {}":
        "预设“{}”设置了 QuatBake 没有的选项，已忽略：{}",
    "Applied preset \"{}\" to the scene settings": "已将预设“{}”应用到场景设置",
    # Scene settings (addon/props.py) and the operator properties mirroring them
    "Method": "方法",
    "How rotations are interpolated between keys (always on the short arc)":
        "关键帧之间旋转的插值方式（始终走最短弧）",
    "Lerp (naive)": "Lerp（朴素）",
    "Raw per-component lerp, not normalised: the baseline that shrinks and speeds "
    "up mid-way; kept only to show the damage":
        "逐分量线性插值且不归一化：中段会收缩并加速的基准做法，仅用于展示其问题",
    "Nlerp": "Nlerp",
    "Normalised lerp on the short arc: cheap, slightly faster mid-way than at the "
    "keys; fine for small turns and many objects":
        "最短弧上的归一化线性插值：计算便宜，中段比关键帧处略快；适合小角度转动和大量物体",
    "Slerp": "Slerp",
    "Spherical linear interpolation: constant angular speed on the shortest arc "
    "between each pair of keys":
        "球面线性插值：在每对关键帧之间沿最短弧匀角速度转动",
    "Squad": "Squad",
    "Spherical cubic (Shoemake 1985): passes through every key with smooth angular "
    "velocity across keys":
        "球面三次插值（Shoemake 1985）：穿过每个关键帧，且跨关键帧的角速度平滑",
    "Location": "位置",
    "How locations are interpolated between keys": "关键帧之间位置的插值方式",
    "Keep": "保持",
    "Leave location keys as they are": "位置关键帧保持不变",
    "Linear": "线性",
    "Straight lines between location keys": "位置关键帧之间走直线",
    "Catmull-Rom": "Catmull-Rom",
    "Centripetal Catmull-Rom spline through the location keys (no cusps or "
    "overshoot loops)":
        "穿过位置关键帧的向心 Catmull-Rom 样条（无尖点，无过冲回环）",
    "Constant Speed": "匀速",
    "Retime the move so the object travels at one speed along its path (by arc "
    "length); rotation is retimed with it, so each key orientation is still "
    "reached where the object stands at that key":
        "按弧长重新分配时间，使物体沿路径匀速运动；旋转随之重新定时，"
        "因此物体到达每个关键帧位置时仍处于该关键帧的朝向",
    "Step": "步长",
    "Write a key every this many frames (1 = every frame)": "每隔这么多帧写入一个关键帧（1 = 每帧）",
    "Key Tolerance": "关键帧容差",
    "Degrees: keep only the keys Blender's LINEAR playback and a glTF player's slerp need "
    "to stay this close to the bake (never more than 180 degrees between keys); 0 keeps a "
    "key on every step frame":
        "角度（度）：只保留 Blender 的线性播放和 glTF 播放器的球面插值保持在此误差内所需的关键帧"
        "（相邻关键帧之间从不超过 180 度）；0 表示每个步长帧都保留关键帧",
    "Keys per channel: {:d} dense -> {:d} within {:g} deg":
        "每通道关键帧：密集 {:d} -> {:d}（容差 {:g} 度）",
    "Custom Range": "自定义范围",
    "Bake a chosen frame range instead of the keyed range": "烘焙指定的帧范围，而不是关键帧覆盖的范围",
    "Start": "起始",
    "First frame to bake": "烘焙的第一帧",
    "End": "结束",
    "Last frame to bake": "烘焙的最后一帧",
    "Output": "输出",
    "Rotation mode the baked keys are written in": "烘焙关键帧所用的旋转模式",
    "Object's Mode": "物体自身模式",
    "Write the bake in the object's own rotation mode (Euler written continuous, "
    "no 360 degree jumps)":
        "以物体自身的旋转模式写入（欧拉角连续写入，没有 360 度跳变）",
    "Quaternion": "四元数",
    "Switch the object to Quaternion rotation and write quaternion keys":
        "将物体切换为四元数旋转并写入四元数关键帧",
    "Turns": "转数",
    "How far each key interval turns: whole turns and the long way kept where keyed, or "
    "always the short arc":
        "每个关键帧区间转多远：按关键帧保留整圈和长路径，或总是走最短弧",
    "Auto": "自动",
    "Keep the turns the keys show intent for (Euler or axis-angle values keyed past 180 "
    "degrees: 0 -> 360 turns once) and take the short arc where the keys are a known defect "
    "(a flipped quaternion sign, an Euler wrap between values inside +-180)":
        "保留关键帧有意表达的转动（欧拉角或轴角的值超过 180 度：0 -> 360 转一整圈），"
        "在关键帧属于已知缺陷处走最短弧（四元数符号翻转、在 +-180 以内的值之间的欧拉角回绕）",
    "Shortest": "最短",
    "Always the short arc between key orientations (at most 180 degrees): fixes every flip "
    "and wrap, and drops keyed whole turns":
        "关键帧朝向之间总是走最短弧（最多 180 度）：修正所有翻转和回绕，但会丢掉关键帧中的整圈",
    "Keyed": "按关键帧",
    "Turn as far as Blender's own playback of the keys turns between them, whole turns and "
    "the long way included":
        "转动幅度与 Blender 自身播放关键帧时相同，包括整圈和长路径",
    "Timing": "时间分布",
    "Where along its path the rotation is at each frame: even speed, or the ease of the keys":
        "每一帧旋转位于路径上的何处：匀速，或关键帧的缓入缓出",
    "Even": "匀速",
    "Constant angular speed within each key interval": "每个关键帧区间内角速度恒定",
    "Travel the method's path with the ease of the keys: as far along each interval as "
    "Blender's own playback is at that frame":
        "以关键帧的缓入缓出沿该方法的路径运动：每一帧在区间中的进度与 Blender 自身播放相同",
    "Turn Notes": "转动说明",
    "How the last bake turned where the keys turn differently (one line per interval)":
        "上次烘焙在关键帧转动不同之处如何转动（每个区间一行）",
    "...and {:d} more (see the Info editor)": "……还有 {:d} 条（见信息编辑器）",
    "Merge Key Frames": "合并关键帧",
    "Clip": "片段",
    "Bake this NLA clip (an action's name, evaluated in its own action time) instead of the "
    "active action; the baked clip becomes the active action and Revert puts back the "
    "previous one. Empty: the active action":
        "烘焙此 NLA 片段（动作名称，按其自身的动作时间求值）而不是活动动作；烘焙后的片段成为"
        "活动动作，还原会恢复之前的动作。留空：活动动作",
    "When the rotation channels are keyed on different frames, use the union of "
    "their key frames instead of refusing to bake":
        "当各旋转通道的关键帧不在同一帧上时，使用它们关键帧的并集，而不是拒绝烘焙",
    "Has Last Bake": "有上次烘焙",
    "Whether the fields below describe a bake of this scene": "下面的字段是否描述了此场景的一次烘焙",
    "Objects Baked": "已烘焙物体",
    "Number of objects the last bake wrote": "上次烘焙写入的物体数",
    "Frames Written": "已写入帧数",
    "Number of frames the last bake wrote keys on": "上次烘焙写入关键帧的帧数",
    "Largest Difference": "最大差异",
    "Largest angle, in degrees, between the baked rotation and Blender's own "
    "interpolation of the same keys, over all baked objects and frames":
        "在所有已烘焙物体和帧上，烘焙后的旋转与 Blender 自身对相同关键帧插值之间的最大角度（度）",
    "Show Overlay": "显示叠加",
    "Draw axis triads (X red, Y green, Z blue) along the path of the selected "
    "animated objects in every 3D Viewport":
        "在每个 3D 视图中沿所选动画物体的路径绘制坐标轴三元组（X 红，Y 绿，Z 蓝）",
}


def translations_dict() -> dict:
    """{locale: {(context, msgid): msgstr}} as ``bpy.app.translations.register`` takes it."""
    table = {(context, msgid): msgstr for msgid, msgstr in ZH_HANS.items() for context in _CONTEXTS}
    return {locale: table for locale in _LOCALES}


def register() -> None:
    # A previous run that failed half-way may have left the name registered.
    try:
        bpy.app.translations.unregister(_OWNER)
    except Exception:  # noqa: BLE001 - not registered: nothing to remove
        pass
    bpy.app.translations.register(_OWNER, translations_dict())


def unregister() -> None:
    bpy.app.translations.unregister(_OWNER)
