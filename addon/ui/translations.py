# SPDX-License-Identifier: GPL-3.0-or-later
"""Simplified Chinese for QuatBake's interface, through ``bpy.app.translations``.

The people this add-on grew from write Chinese. Labels of properties,
operators, panels and menus are translated by Blender itself once the strings
are registered here; text drawn dynamically goes through ``iface`` (labels),
``tip`` and ``report`` (tooltips, reports) below, in QuatBake's own CONTEXT, so
each format string below is the untranslated pattern, placeholders and all.

The dictionary is registered under both names Simplified Chinese has had
(``versions.SIMPLIFIED_CHINESE_LOCALES``).
"""
import bpy

from ...core.words import Phrase
from .. import versions

# Translations are registered under the add-on's package name, whatever it is
# (``quatbake``, ``bl_ext.user_default.quatbake`` ...), never a literal one.
_OWNER = __package__.rpartition(".")[0] or __package__

# Blender looks a label up in the translation context of what draws it:
# properties, panels and menus use the default context "*", operator buttons
# and the redo panel use "Operator". Every string is registered in both, and in
# QuatBake's own CONTEXT: where Blender's own catalogue has the same word, it answers
# first in "*" and "Operator" (Blender 3.4.1 in Chinese: "Revert" 重新加载, reload;
# "Keys" 关键体, shape keys; "Fastest" 最远, farthest; "Clip" 剪辑(裁切)), so what
# QuatBake translates itself (iface, report, tip) and the buttons it labels
# (text_ctxt=CONTEXT) are looked up where only its own table is. Enum items and
# property names Blender draws stay in "*" (3.4's bpy.props has no
# translation_context).
CONTEXT = "QuatBake"
_CONTEXTS = ("*", "Operator", CONTEXT)

# Pieces QuatBake alone looks up (through report, iface and translated, in CONTEXT), so
# short and common that another add-on could draw the same text: registered in CONTEXT
# only, or a Chinese interface would show QuatBake's words in that add-on's labels too
# (a review: "; " became "；" wherever a label was exactly that).
OWN_CONTEXT_ONLY = frozenset({
    "; ", "{}: {}", "{}, {}", "{} or {}",
    "fine", "to check", "visible", "long way round", "within tolerance",
    "analyze", "report on", "bake", "revert", "convert",
    "nothing was changed", "press Analyze again",
    "a flipped quaternion sign", "an Euler wrap", "a keyed spin",
})

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
    "Camera move, even speed": "相机运镜，匀速",
    "Exact turns, keep timing": "精确转动，保留时间",
    "Many objects, quick": "大量物体，快速",
    "Smooth through every key": "平滑穿过每个关键帧",
    # Poll messages and reports
    "Select at least one object": "请至少选择一个物体",
    "Select the animated objects to analyze": "请选择要分析的动画物体",
    "Select the animated objects to report on": "请选择要生成报告的动画物体",
    "Select the animated objects to check": "请选择要检查的动画物体",
    "QuatBake's scene settings are missing: enable the add-on again":
        "缺少 QuatBake 的场景设置：请重新启用该插件",
    "...and {:d} more problems; the console lists them all":
        "……另有 {:d} 个问题；控制台中列出了全部问题",
    "...and {:d} more notes; the console lists them all":
        "……另有 {:d} 条说明；控制台中列出了全部说明",
    "...and {:d} more warnings; the console lists them all":
        "……另有 {:d} 条警告；控制台中列出了全部警告",
    "Frame step is {:d}; it must be 1 or more (1 = a key on every frame)":
        "帧步长为 {:d}；必须为 1 或更大（1 = 每帧一个关键帧）",
    "The custom frame range ends on frame {:d}, before it starts on frame {:d}: "
    "set End to Start or later":
        "自定义帧范围的结束帧 {:d} 早于起始帧 {:d}：请将结束帧设为不早于起始帧",
    "Reverted {}: {}": "已还原 {}：{}",
    # Counts in the bake and revert reports (ui/counts.py)
    "{:d} object": "{:d} 个物体",
    "{:d} objects": "{:d} 个物体",
    "{:d} bone": "{:d} 根骨骼",
    "{:d} bones": "{:d} 根骨骼",
    "{:d} bone of \"{}\"": "{:d} 根骨骼（属于“{}”）",
    "{:d} bones of \"{}\"": "{:d} 根骨骼（属于“{}”）",
    "{} and {}": "{}和 {}",
    "Preset file {!r} does not exist": "预设文件 {!r} 不存在",
    "Preset \"{}\" was not applied: {}": "预设“{}”未应用：{}",
    "Preset \"{}\" sets settings QuatBake does not have, ignored: {}":
        "预设“{}”设置了 QuatBake 没有的选项，已忽略：{}",
    "Applied preset \"{}\" to the scene settings": "已将预设“{}”应用到场景设置",
    "Preset \"{}\" comes with QuatBake and cannot be removed":
        "预设“{}”随 QuatBake 提供，不能删除",
    "A bake preset cannot use Lerp (it is for comparisons only): choose Nlerp, Slerp or "
    "Squad first":
        "烘焙预设不能使用 Lerp（它仅用于对比）：请先选择 Nlerp、Slerp 或 Squad",
    # Scene settings (ui/props.py) and the operator properties mirroring them
    "Method": "方法",
    "How rotations are interpolated between keys (always on the short arc)":
        "关键帧之间旋转的插值方式（始终走最短弧）",
    "Lerp (comparison only)": "Lerp（仅用于对比）",
    "Each channel blended on its own and not normalised: what goes wrong without "
    "rotation interpolation. For Analyze and the overlay only; the bake refuses it":
        "逐通道单独插值且不归一化：展示没有旋转插值时会出什么问题。仅用于分析和叠加显示；"
        "烘焙不接受它",
    "Nlerp": "Nlerp",
    "Quick, and looks like Slerp for small turns. Choose it for many objects, or keys "
    "close together":
        "速度快，小角度转动时与 Slerp 看起来一样。适合大量物体或关键帧很密的情况",
    "Slerp": "Slerp",
    "Turns at one even speed from key to key. Choose it for camera moves and anything "
    "that must turn steadily":
        "在关键帧之间以均匀的速度转动。适合相机运镜以及任何需要平稳转动的物体",
    "Squad": "Squad",
    "Curves smoothly through the keys, with no jolt as a key passes. Choose it for "
    "organic motion with many keys":
        "平滑地穿过各个关键帧，经过关键帧时不会顿挫。适合关键帧较多的自然运动",
    "Frames the last bake wrote keys on, summed over the baked objects":
        "上次烘焙写入关键帧的帧数（所有已烘焙物体之和）",
    # Panels added for the animator's loop (issue 14)
    "Difference Report": "差异报告",
    "Overlay": "叠加显示",
    "Compare With": "对比对象",
    "Bake Method": "烘焙方法",
    "Compare with the method the bake uses": "与烘焙所用的方法对比",
    "What Analyze and the overlay compare Blender's own interpolation with (Lerp shows "
    "what goes wrong without rotation interpolation)":
        "分析和叠加显示将 Blender 自身插值与什么对比（Lerp 展示没有旋转插值时的问题）",
    "Preset": "预设",
    "Presets": "预设",
    "{} (changed)": "{}（已修改）",
    "Name of the bake preset last applied to these settings": "最近应用到这些设置的烘焙预设名称",
    "Add Bake Preset": "添加烘焙预设",
    "Save the scene's bake settings as a preset of your own, or remove one":
        "将场景的烘焙设置保存为自己的预设，或删除一个预设",
    "Export Report": "导出报告",
    "Write the Difference Report of the selected objects as a web page, with its JSON "
    "beside it":
        "将所选物体的差异报告写成网页，并在旁边写出 JSON",
    "Open in Web Browser": "在网页浏览器中打开",
    "Open the page in the web browser once written": "写出后在网页浏览器中打开该页面",
    "What Blender's own interpolation is compared with": "Blender 自身插值的对比对象",
    "Largest change from Blender's own: {:.2f}\u00b0": "与 Blender 自身插值的最大变化：{:.2f}\u00b0",
    "Baked {} ({}), {:d} keys per channel in all; largest difference from "
    "Blender's own interpolation: {:.3f} deg":
        "已烘焙 {}（{}），共每通道 {:d} 个关键帧；与 Blender 自身插值的最大差异：{:.3f} 度",
    "Baked {} ({}), {:d} rotation keys per channel in all; largest difference "
    "from Blender's own interpolation: {:.3f} deg":
        "已烘焙 {}（{}），共每通道 {:d} 个旋转关键帧；与 Blender 自身插值的最大差异：{:.3f} 度",
    "Baked the location of {} ({}), {:d} keys per channel in all; the rotation "
    "is left as it is":
        "已烘焙 {}（{}）的位置，共每通道 {:d} 个关键帧；旋转保持不变",
    "The scene's method is Lerp, which is for comparisons only (Analyze and the "
    "overlay): choose Nlerp, Slerp or Squad in the Re-bake panel to bake":
        "场景的方法是 Lerp，它仅用于对比（分析和叠加显示）：请在“重新烘焙”面板中选择 "
        "Nlerp、Slerp 或 Squad 再烘焙",
    "Out of date: the keys changed since this analysis.": "已过期：分析之后关键帧有变化。",
    "Select animated objects and press Analyze.": "选择带动画的物体并点击“分析”。",
    "Path colour: how fast the object turns, \u00b0/frame": "路径颜色：物体转动的快慢，\u00b0/帧",
    "Keys: white \u25b3": "关键帧：白色 \u25b3",
    "Turn speed, \u00b0/frame": "转动速度，\u00b0/帧",
    "Keys: white \u25b3; camera view: dashes": "关键帧：白色 \u25b3；相机视线：虚线",
    # The legend's counts (overlay.legend.Legend.lines): patterns, the numbers put in after
    "Long way: {}{}": "绕远路：{}{}",
    "none": "无",
    ", {:d} fixed": "，已修正 {:d} 处",
    "Ghosts: {}": "虚影：{}",
    "before the bake": "烘焙之前",
    "Blender now": "Blender 当前",
    "Keyed spins, kept: {:d} (green band)": "保留的关键帧旋转：{:d}（绿色带）",
    "Stepped keys: {:d} (grey band)": "阶梯关键帧：{:d}（灰色带）",
    "Lerp is for comparisons only: pick Nlerp, Slerp or Squad to bake.":
        "Lerp 仅用于对比：请选择 Nlerp、Slerp 或 Squad 进行烘焙。",
    "Re-run": "重新运行",
    "Not re-analysed after the bake (too long to do at once): press Re-run.":
        "烘焙后未重新分析（一次处理太长）：请点击“重新运行”。",
    "Compare": "对比",
    "Ghosts": "虚影",
    "Pin": "固定",
    "Settings": "设置",
    "Display": "显示",
    "Select or pin an animated object": "选择或固定一个带动画的物体",
    "Analyze": "分析",
    "Still": "静止",
    "Slow": "慢",
    "Fast": "快",
    "Fastest": "最快",
    "Long Way Round": "绕远路",
    "Ghost": "虚影",
    "A colour of the overlay, as drawn (read-only)": "叠加显示所用的颜色（只读）",
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
    "Write a key every this many frames (1 = every frame), and on each of the animator's "
    "keys further apart than that":
        "每隔这么多帧写入一个关键帧（1 = 每帧），并在间隔大于此值的每个动画师关键帧上写入",
    "Key Tolerance": "关键帧容差",
    "Degrees: keep only the keys Blender's playback (and, for Linear keys, a glTF player's "
    "slerp) needs to stay this close to the bake; 0 keeps a key on every step frame":
        "角度（度）：只保留 Blender 的播放（线性关键帧还包括 glTF 播放器的球面插值）保持在此误差内"
        "所需的关键帧；0 表示每个步长帧都保留关键帧",
    "Keys": "关键帧",
    "Convert Rotation Mode": "转换旋转模式",
    "Convert Rotation Mode (QuatBake)...": "转换旋转模式（QuatBake）...",
    "Mode": "模式",
    "The rotation mode to convert to": "要转换到的旋转模式",
    "Auto (Euler)": "自动（欧拉）",
    "The Euler order that stays farthest from gimbal lock over the clip (the bake's notes say "
    "which)": "在整段动画中离万向节锁最远的欧拉顺序（烘焙说明会指出是哪一个）",
    "Quaternion (WXYZ)": "四元数（WXYZ）",
    "Axis Angle": "轴角",
    "Axis Angle (W+XYZ)": "轴角（W+XYZ）",
    "XYZ Euler": "XYZ 欧拉",
    "XZY Euler": "XZY 欧拉",
    "YXZ Euler": "YXZ 欧拉",
    "YZX Euler": "YZX 欧拉",
    "ZXY Euler": "ZXY 欧拉",
    "ZYX Euler": "ZYX 欧拉",
    "Euler angles, XYZ order": "欧拉角，XYZ 顺序",
    "Euler angles, XZY order": "欧拉角，XZY 顺序",
    "Euler angles, YXZ order": "欧拉角，YXZ 顺序",
    "Euler angles, YZX order": "欧拉角，YZX 顺序",
    "Euler angles, ZXY order": "欧拉角，ZXY 顺序",
    "Euler angles, ZYX order": "欧拉角，ZYX 顺序",
    "Tolerance": "容差",
    "Degrees: Blender's playback of the converted keys stays this close to what it plays "
    "now, at every quarter frame":
        "度：转换后的关键帧在 Blender 中的播放与现在播放的结果之差，在每个四分之一帧处都不超过此值",
    # Analyze, Jump to Worst Frame, the demo and Export Check
    # Blender 3.4 keeps the first 240 characters of an operator's description.
    "Compare Blender's own rotation interpolation of the selected objects with the chosen "
    "method. Verdicts: fine, to check (under 0.1 deg, with advice), visible (0.1 deg or more), "
    "long way round (a key interval past 180 deg), within tolerance":
        "将所选物体在 Blender 中自身的旋转插值与所选方法进行比较。结论：良好、待检查（低于 0.1 度，"
        "但有建议）、可见（0.1 度或以上）、绕远路（某个关键帧区间转过 180 度以上）、在容差内",
    "Interpolation to compare Blender's with (default: the panel's Compare With)":
        "与 Blender 的插值进行对比的插值方法（默认：面板中的“对比对象”）",
    "Object": "物体",
    "Analyze only this object (default: the selected objects)": "只分析此物体（默认：所选物体）",
    "Jump to Worst Frame": "跳到最差帧",
    "Set the current frame to the frame where this object deviates most":
        "将当前帧设为该物体偏差最大的那一帧",
    "Object whose worst frame to show": "要显示其最差帧的物体",
    "Load Demo Scene": "加载演示场景",
    "Add a scene with five objects, each showing one classic rotation pitfall (not baked), "
    "and switch to it. Your own scenes stay as they are":
        "添加一个包含五个物体的场景（未烘焙），每个物体展示一种经典的旋转陷阱，并切换到该场景。"
        "你自己的场景保持不变",
    "Check glTF Export": "检查 glTF 导出",
    "Export Check (glTF)": "导出检查（glTF）",
    "Select objects and check their glTF export.": "选择物体并检查它们的 glTF 导出。",
    # The Export Check panel's lines and the Difference Report box's extra line (patterns)
    "Max deviation {:.3g}\u00b0 at frame {}": "最大偏差 {:.3g}\u00b0，位于第 {} 帧",
    "{:d} rotation keys, {}": "{:d} 个旋转关键帧，{}",
    "Quarter frames: {:.3g}\u00b0": "四分之一帧：{:.3g}\u00b0",
    "Off the path: {:.2f}\u00b0 (the rest is timing)": "偏离路径：{:.2f}\u00b0（其余是时间差异）",
    "Between frames: {:.1f}\u00b0 at frame {}": "帧之间：{:.1f}\u00b0，位于第 {} 帧",
    "Keyed spins: {}": "关键帧旋转：{}",
    "Stepped intervals: {:d}": "阶梯区间：{:d}",
    # Analyze's, Jump to Worst Frame's, Export Report's and Export Check's status-bar
    # reports: each piece a pattern of its own, joined after it is translated.
    "Analyzed {}: {}.": "已分析 {}：{}。",
    "Analyzed {}: {}. Skipped {} without rotation keys (see the Difference Report).":
        "已分析 {}：{}。已跳过没有旋转关键帧的 {}（见差异报告）。",
    "{} {:.2f} deg ({})": "{} {:.2f} 度（{}）",
    "{} {:.2f} deg at frame {} ({})": "{} {:.2f} 度，位于第 {} 帧（{}）",
    "{:d} more": "另有 {:d} 个",
    "; ": "；",
    # The verdicts (core.findings.VERDICTS), as the status line names them
    "fine": "良好",
    "to check": "待检查",
    "visible": "可见",
    "long way round": "绕远路",
    "within tolerance": "在容差内",
    "Object \"{}\" is not in this scene.": "此场景中没有物体“{}”。",
    "None of the selected objects has rotation keys to analyze; {:d} skipped (see the "
    "Difference Report).":
        "所选物体都没有可分析的旋转关键帧；已跳过 {:d} 个（见差异报告）。",
    "None of the selected objects could be analysed ({:d} failed; the warnings above say "
    "why).":
        "所选物体都无法分析（{:d} 个失败；原因见上方的警告）。",
    "None of the selected objects has rotation keys to analyze.": "所选物体都没有可分析的旋转关键帧。",
    "Object \"{}\" has not been analyzed yet: run Analyze first.":
        "物体“{}”尚未分析：请先运行“分析”。",
    "None of the selected objects has rotation keys to report on; nothing was written.":
        "所选物体都没有可生成报告的旋转关键帧；未写入任何文件。",
    "The report could not be written ({}: {}); choose another folder.":
        "无法写入报告（{}：{}）；请选择其他文件夹。",
    "Wrote {} and {}.": "已写入 {} 和 {}。",
    "The report could not be written to {} ({}).": "无法将报告写入 {}（{}）。",
    "None of the selected objects is in the exported glTF file.":
        "所选物体都不在导出的 glTF 文件中。",
    "{:d} pose bone": "{:d} 根姿态骨骼",
    "{:d} pose bones": "{:d} 根姿态骨骼",
    "Checked {}: a glTF player plays {} up to {:.3g} deg off Blender (frame {}).":
        "已检查 {}：glTF 播放器播放 {} 时与 Blender 最多相差 {:.3g} 度（第 {} 帧）。",
    # Pose Mode with no bone selected (ui.polls.no_bones_selected), what each operator does
    "No pose bones are selected in Pose Mode: select the bones to {}, or go back to Object "
    "Mode to take the whole armature.":
        "姿态模式下没有选中任何姿态骨骼：请选择要{}的骨骼，或回到物体模式以使用整个骨架。",
    "analyze": "分析",
    "report on": "生成报告",
    "bake": "烘焙",
    "revert": "还原",
    "convert": "转换",
    # The last net under every operator (ui.guard.unexpected)
    "{} failed: QuatBake did not expect {} ({}); {}. Please report this with the file.":
        "{}失败：QuatBake 未预料到 {}（{}）；{}。请连同文件一起报告此问题。",
    "nothing was changed": "未做任何更改",
    "{} done; refreshing the Difference Report": "{}已完成，但刷新差异报告",
    "press Analyze again": "请再次点击“分析”",
    # The demo scene's report
    "Scene \"{}\": {:d} objects, each one pitfall, selected and not baked. Press Analyze to "
    "see what Blender plays, then Re-bake.":
        "场景“{}”：{:d} 个物体，各展示一个陷阱，已选中且未烘焙。点击“分析”查看 Blender 播放的结果，"
        "然后点击“重新烘焙”。",
    "Export the selected objects with Blender's glTF exporter and measure how far a glTF "
    "player's playback of the file is from Blender's, frame by frame":
        "用 Blender 的 glTF 导出器导出所选物体，并逐帧测量 glTF 播放器播放该文件时与 Blender "
        "的差距",
    "Exporter Options": "导出器选项",
    "Options for Blender's glTF exporter, NAME=VALUE separated by commas (e.g. "
    "export_force_sampling=False); empty: the exporter's defaults":
        "Blender glTF 导出器的选项，以逗号分隔的 NAME=VALUE（例如 export_force_sampling=False）；"
        "留空：使用导出器的默认值",
    "JSON Report": "JSON 报告",
    "Also write the quatbake.export-check/1 JSON report here (optional)":
        "同时将 quatbake.export-check/1 JSON 报告写到这里（可选）",
    "HTML Report": "HTML 报告",
    "Also write the HTML report here (optional)": "同时将 HTML 报告写到这里（可选）",
    "Convert the selected objects' (or pose bones') rotation to another mode, keeping what "
    "Blender plays now, in-betweens included, in few Bezier keys. Revert puts the original "
    "keys back":
        "将所选物体（或姿态骨骼）的旋转转换为另一种模式，保留 Blender 当前播放的运动（包括中间帧），"
        "写成少量贝塞尔关键帧。“还原”可恢复原关键帧",
    "Converted {}: {:d} keys per channel in all": "已转换 {}：共每通道 {:d} 个关键帧",
    "Converted {}: one key per channel": "已转换 {}：每通道 1 个关键帧",
    "Camera Tolerance (px)": "相机容差（像素）",
    "Pixels of the rendered image: perspective cameras keep only the keys that move no "
    "pixel more than this (worked out from the lens, sensor fit and render size; with a "
    "Key Tolerance too, the smaller of the two); 0: Key Tolerance for cameras too":
        "渲染图像的像素：透视相机只保留使任何像素移动不超过此值的关键帧（由焦距、传感器适配和"
        "渲染尺寸算出；同时设置关键帧容差时取两者中较小者）；0：相机也使用关键帧容差",
    "Bone Tip Tolerance": "骨骼末端容差",
    "Scene units at each bone's tip: pose bones keep only the keys that move the bone's tip "
    "no more than this from the bake (the angle this distance over the bone's length, times "
    "the armature's largest scale; with a Key Tolerance too, the smaller of the two); objects "
    "use the Key Tolerance. 0: Key Tolerance for bones too":
        "每根骨骼末端的场景单位：姿态骨骼只保留使骨骼末端偏离烘焙结果不超过此距离的关键帧"
        "（角度为此距离除以骨骼长度乘以骨架的最大缩放；同时设置关键帧容差时取两者中较小者）；"
        "物体使用关键帧容差。0：骨骼也使用关键帧容差",
    "What a bake with a Key Tolerance writes: few editable Bezier keys, or LINEAR keys for "
    "glTF engines":
        "带关键帧容差的烘焙写入什么：少量可编辑的贝塞尔关键帧，或供 glTF 引擎使用的线性关键帧",
    "Bezier": "贝塞尔",
    "Editable: few Bezier keys with handles, on the same frames for every rotation channel "
    "and on the animator's own key frames: Blender plays them within Key Tolerance of the "
    "bake at every quarter frame, and they can still be edited":
        "可编辑：少量带控制柄的贝塞尔关键帧，所有旋转通道位于相同的帧上，并保留动画师自己的关键帧："
        "Blender 在每个四分之一帧上的播放都在关键帧容差之内，而且仍可继续编辑",
    "What glTF engines play: LINEAR keys that both Blender and a glTF player's slerp play "
    "within Key Tolerance of the bake at every frame":
        "glTF 引擎播放的方式：线性关键帧，Blender 与 glTF 播放器的球面插值在每一帧上都在关键帧容差之内",
    "Keys Written": "写入的关键帧",
    "'BEZIER' or 'LINEAR' when the last bake kept only the keys within a Key Tolerance "
    "(the panel then counts keys), empty for a key on every step frame":
        "上次烘焙只保留关键帧容差内所需关键帧时为 'BEZIER' 或 'LINEAR'（面板随即按关键帧计数），"
        "每个步长帧都有关键帧时为空",
    "{}: {:d} keys": "{}：{:d} 个关键帧",
    "{}: {:d} keys each": "{}：各 {:d} 个关键帧",
    "Total: {}, {:d} keys per channel": "总计：{}，每通道 {:d} 个关键帧",
    "Keys per channel: {:d} dense -> {:d} {}": "每通道关键帧：密集 {:d} -> {:d} {}",
    "; location {:d} LINEAR keys per channel": "；位置每通道 {:d} 个线性关键帧",
    "Nothing to convert: each selected transform is already in {} or has no rotation keys":
        "无需转换：所选变换均已是 {} 或没有旋转关键帧",
    "the Euler order Auto picks": "自动选取的欧拉顺序",
    "within {}": "（容差 {}）",
    "(not all within {}; see the warnings)": "（并非全部在 {} 内；见警告）",
    "(the tolerance applied to none of them; see the notes)": "（容差不适用于其中任何一个；见说明）",
    "{:g} deg": "{:g} 度",
    "{:g} px on cameras": "相机 {:g} 像素",
    "{:g} scene units at bone tips": "骨骼末端 {:g} 场景单位",
    " and ": "、",
    "Custom Range": "自定义范围",
    "Bake a chosen frame range instead of the keyed range. Keys outside it are not kept: "
    "the bake holds the range's first and last pose beyond it":
        "烘焙指定的帧范围，而不是关键帧覆盖的范围。范围之外的关键帧不会保留：范围之前和之后保持范围首尾两帧的姿势",
    "Start": "起始",
    "First frame to bake": "烘焙的第一帧",
    "End": "结束",
    "Last frame to bake": "烘焙的最后一帧",
    "Output": "输出",
    "Rotation mode the baked keys are written in": "烘焙关键帧所用的旋转模式",
    "Object's Mode": "物体自身模式",
    "Write the bake in the rotation mode of the object's keys, as it was before any "
    "QuatBake bake or conversion (Euler written continuous, no 360 degree jumps)":
        "以物体关键帧的旋转模式写入，即任何 QuatBake 烘焙或转换之前的模式（欧拉角连续写入，"
        "没有 360 度跳变）",
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
    "What the last bake said: its warnings, the transforms it left as they were, and how "
    "it turned where the keys turn differently (one line each)":
        "上次烘焙的说明：其警告、保持原样的变换，以及在关键帧转动不同之处如何转动（每条一行）",
    "...and {:d} more (see the Info editor)": "……还有 {:d} 条（见信息编辑器）",
    "...and {:d} more armatures": "……另有 {:d} 个骨架",
    "Bake Notes": "烘焙说明",
    "Merge Key Frames": "合并关键帧",
    "Clip": "片段",
    "Bake this NLA clip (an action's name, evaluated in its own action time) instead of the "
    "active action; the baked clip becomes the active action and Revert puts back the "
    "previous one. Empty: the active action":
        "烘焙此 NLA 片段（动作名称，按其自身的动作时间求值）而不是活动动作；烘焙后的片段成为"
        "活动动作，还原会恢复之前的动作。留空：活动动作",
    "Bake and analyze this NLA clip (an action's name) of the selected objects that have "
    "it, for objects animated only by NLA clips (a glTF import's parent, say); the others "
    "are left as they are. Empty: the active actions":
        "烘焙并分析所选物体中拥有此 NLA 片段（动作名称）的物体，用于只由 NLA 片段驱动动画的物体"
        "（例如 glTF 导入的父物体）；其余物体保持原样。留空：活动动作",
    "{} plays only NLA clips: choose the Clip to bake.": "{} 只播放 NLA 片段：请选择要烘焙的片段。",
    "Left as they were: {} (nothing to bake; the notes say why)":
        "保持原样：{}（没有可烘焙的内容；说明中给出原因）",
    "Not {}, left exactly as they were: {} (the notes say why)":
        "未{}，完全保持原样：{}（说明中给出原因）",
    "baked": "烘焙",
    "converted": "转换",
    "Not reverted, left baked: {} (the notes say why)": "未还原，仍为烘焙结果：{}（说明中给出原因）",
    "When the rotation channels are keyed on different frames, use the union of "
    "their key frames instead of refusing to bake":
        "当各旋转通道的关键帧不在同一帧上时，使用它们关键帧的并集，而不是拒绝烘焙",
    "Has Last Bake": "有上次烘焙",
    "Whether the fields below describe a bake of this scene": "下面的字段是否描述了此场景的一次烘焙",
    "Objects Baked": "已烘焙物体",
    "Number of objects and pose bones the last bake wrote (each bone counts as one; "
    "Bones Baked says how many were bones)":
        "上次烘焙写入的物体和姿态骨骼数（每根骨骼计为一个；“已烘焙骨骼”给出其中骨骼的数量）",
    "Bones Baked": "已烘焙骨骼",
    "How many of Objects Baked were pose bones": "“已烘焙物体”中姿态骨骼的数量",
    "Armature Baked": "已烘焙骨架",
    "The armature all the bones of the last bake belong to (empty when they come from "
    "several, or no bone was baked)":
        "上次烘焙的所有骨骼所属的骨架（骨骼来自多个骨架或未烘焙骨骼时为空）",
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
    # The overlay's display settings (overlay/panel.py draws them with these labels)
    "Triad Every": "三元组间隔",
    "Draw a triad every this many frames (key poses are always drawn; zoomed out, dense "
    "keys are thinned to the ones where the rotation changes most)":
        "每隔这么多帧绘制一个三元组（关键姿态总会绘制；缩小视图时，密集的关键帧只保留旋转变化最大的那些）",
    "Triad Size": "三元组大小",
    "Length of each triad axis (key poses 1.5x, the current frame 1.8x)":
        "每个三元组坐标轴的长度（关键姿态 1.5 倍，当前帧 1.8 倍）",
    "Line Width": "线宽",
    "Width of the triad and path lines, in pixels": "三元组和路径线条的宽度（像素）",
    "Names": "名称",
    "Write each drawn object's (or bone's) name at the end of its path; a name that would "
    "overlap another is left out":
        "在每个已绘制物体（或骨骼）路径的末端写出其名称；会与其他名称重叠的名称不写",
    "Legend in Viewport": "视图中的图例",
    "Draw the overlay's legend (speed colours, long-way band, ghosts, keys) in the 3D "
    "Viewport's lower right corner":
        "在 3D 视图右下角绘制叠加层的图例（速度颜色、绕远路色带、虚影、关键帧）",
    "Ghost Triads": "虚影三元组",
    "Also draw Blender's own interpolation of the keys as faded triads at the same "
    "positions: where they fan out from QuatBake's, the two differ":
        "同时在相同位置以淡色三元组绘制 Blender 自身对关键帧的插值：它们与 QuatBake 的三元组散开之处，"
        "就是两者不同的地方",
    "Pin in Overlay": "在叠加层中固定",
    "Draw this object's triads and path even when it is not selected":
        "即使此物体未被选中，也绘制它的三元组和路径",
    # The Difference Report's list and the last bake's record (tooltips, Data API view)
    "Verdict": "结论",
    "fine, to check, within tolerance, visible or long way round":
        "良好、待检查、在容差内、可见或绕远路",
    "Largest difference from the compared method, in degrees": "与所比较方法的最大差异（度）",
    "Report Rows": "报告行",
    "The Difference Report's results, worst first": "差异报告的结果，最差的在前",
    "Selected Result": "所选结果",
    "The result whose details the report shows": "报告显示其详情的结果",
    "Keys per Transform": "每个变换的关键帧",
    "The last bake's keys per channel for each transform it wrote, as JSON (the Re-bake "
    "panel's lines; their sum is Frames Written)":
        "上次烘焙为其写入的每个变换每通道的关键帧数，以 JSON 保存（“重新烘焙”面板中的各行；"
        "其总和即“已写入帧数”）",
    "What QuatBake's last bake changed on this object, for Re-bake and Revert":
        "QuatBake 上次烘焙对此物体所做的更改，供重新烘焙和还原使用",
    "What QuatBake's last bake changed on this bone, for Re-bake and Revert":
        "QuatBake 上次烘焙对此骨骼所做的更改，供重新烘焙和还原使用",
    "QuatBake's settings and Difference Report for this scene": "此场景的 QuatBake 设置和差异报告",
    # The Re-bake's turn notes (Phrases: core/turns.py describe, with the transform named
    # first by bake/turns.py turn_notes); "Auto", "Shortest", "Keyed" go in as above
    "{}: {}": "{}：{}",
    "Object \"{}\"": "物体“{}”",
    "Armature \"{}\", bone \"{}\"": "骨架“{}”，骨骼“{}”",
    "keys {}: Blender turns {:.0f} deg ({})": "关键帧 {}：Blender 转动 {:.0f} 度（{}）",
    "a flipped quaternion sign": "四元数符号翻转",
    "an Euler wrap": "欧拉角回绕",
    "Euler channels interpolated one by one": "欧拉通道逐个插值",
    "a keyed spin": "关键帧中的旋转",
    "{}; baked the long way, as keyed, because Turns is {} (Turns: Auto or Shortest would "
    "take the {:.0f} deg short way)":
        "{}；已按关键帧走长路径烘焙，因为“转数”为“{}”（“转数：自动”或“转数：最短”会走 {:.0f} 度的最短弧）",
    "{}; baked as keyed, because Turns is {} (Turns: Shortest would take the {:.0f} deg "
    "short way)":
        "{}；已按关键帧烘焙，因为“转数”为“{}”（“转数：最短”会走 {:.0f} 度的最短弧）",
    "{}; baked the {:.0f} deg short way instead (Turns: Keyed would keep Blender's {:.0f} "
    "deg turn)":
        "{}；改为沿 {:.0f} 度的最短弧烘焙（“转数：按关键帧”会保留 Blender 的 {:.0f} 度转动）",
    "{}; baked the {:.0f} deg short way instead (Turns: Auto or Keyed would keep the spin)":
        "{}；改为沿 {:.0f} 度的最短弧烘焙（“转数：自动”或“转数：按关键帧”会保留这一旋转）",
    # The bake's other notes and warnings on turns (Phrases: bake/turns.py, bake/cache.py;
    # core/words.py lists with LIST and EITHER)
    "{}, {}": "{}、{}",
    "{} or {}": "{}或{}",
    "{}: {:d} more key interval like these ({}); the report (Analyze, or python -m quatbake "
    "report) lists them all.":
        "{}：另有 {:d} 个这样的关键帧区间（{}）；报告（“分析”，或 python -m quatbake report）"
        "列出了全部区间。",
    "{}: {:d} more key intervals like these ({}); the report (Analyze, or python -m quatbake "
    "report) lists them all.":
        "{}：另有 {:d} 个这样的关键帧区间（{}）；报告（“分析”，或 python -m quatbake report）"
        "列出了全部区间。",
    "{:d} flip": "{:d} 处四元数符号翻转",
    "{:d} wrap": "{:d} 处欧拉角回绕",
    "{:d} euler": "{:d} 处欧拉通道逐个插值",
    "{:d} spin": "{:d} 处关键帧中的旋转",
    "{}: {} (CONSTANT keys) kept stepped: held until the next key, then the jump on that "
    "key's frame, as Blender plays them.":
        "{}：{}（CONSTANT 关键帧）保持阶梯：保持到下一个关键帧，然后在该关键帧所在的帧上跳变，"
        "与 Blender 的播放一致。",
    "{:d} stepped interval": "{:d} 个阶梯区间",
    "{:d} stepped intervals": "{:d} 个阶梯区间",
    "{}: {} {:.0f} deg per frame, {:.0f} deg per baked step: the baked keys cannot show "
    "that turn. Lower Step{}.":
        "{}：{}每帧转动 {:.0f} 度，每个烘焙步长转动 {:.0f} 度：烘焙的关键帧无法表现这一转动。"
        "请降低“步长”{}。",
    "keys {} turn": "关键帧 {} 之间",
    "its Transform Cache between samples {} and {} turns": "其变换缓存在采样 {} 与 {} 之间",
    " (or space the keys further apart)": "（或把关键帧间隔拉开）",
    "{}: converted as Blender plays it, the long way round between keys {} ({}); a Re-bake "
    "with Slerp takes the short way.":
        "{}：已按 Blender 的播放转换，在以下关键帧区间绕远路：{}（{}）；用 Slerp 重新烘焙会走最短弧。",
    "a quaternion key's sign flipped": "四元数关键帧的符号翻转",
    "{} and {:d} more": "{}，另有 {:d} 个",
    # The same warning of several bones (bake/settings.py merge_bone_issues)
    "Armature \"{}\", {:d} bones ({})": "骨架“{}”，{:d} 根骨骼（{}）",
    "an Euler angle wrapping past 180 deg": "欧拉角越过 180 度回绕",
}


def iface(text: str) -> str:
    """``text`` as the interface shows it, from QuatBake's own table (CONTEXT)."""
    return bpy.app.translations.pgettext_iface(text, CONTEXT)


def report(text: str) -> str:
    """``text`` as a report (status bar, Info editor) shows it, from QuatBake's own table."""
    return versions.report_text(text, CONTEXT)


def tip(text: str) -> str:
    """``text`` as a tooltip shows it, from QuatBake's own table."""
    return bpy.app.translations.pgettext_tip(text, CONTEXT)


def translated(text: str, translate=report) -> str:
    """``text`` in the interface's language when it is a ``core.words.Phrase`` (the
    Re-bake's turn notes, made in core, which cannot call Blender's translation): its
    pattern through ``translate`` (``report`` for the status bar, ``iface`` for the
    panel), each Phrase among its arguments likewise, then the arguments put in. A plain
    string is returned as it is (numbers, names; sentences QuatBake does not translate)."""
    if not isinstance(text, Phrase):
        return text
    pattern = translate(text.pattern)
    if not text.args:
        return pattern
    return pattern.format(*(translated(arg, translate) for arg in text.args))


def translations_dict() -> dict:
    """{locale: {(context, msgid): msgstr}} as ``bpy.app.translations.register`` takes it."""
    table = {(context, msgid): msgstr for msgid, msgstr in ZH_HANS.items()
             for context in ((CONTEXT,) if msgid in OWN_CONTEXT_ONLY else _CONTEXTS)}
    return {locale: table for locale in versions.SIMPLIFIED_CHINESE_LOCALES}


def register() -> None:
    # A previous run that failed half-way may have left the name registered.
    try:
        bpy.app.translations.unregister(_OWNER)
    except Exception:  # noqa: BLE001 - not registered: nothing to remove
        pass
    bpy.app.translations.register(_OWNER, translations_dict())


def unregister() -> None:
    bpy.app.translations.unregister(_OWNER)
