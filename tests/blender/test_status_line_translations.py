"""The status-bar reports of Analyze, Jump to Worst Frame, Export Report and Export Check:
in English exactly as before, and in Chinese when Blender's interface is.

A walk of the interface in Chinese found them still in English: they were f-strings
that never went through ``ui.translations.report``. Each is now a pattern looked up in
QuatBake's own table, its pieces (counts, verdicts, the "; " between objects)
translated before they are put in. The English lines are written out here as the
f-strings made them (docs and other tests quote them). The Chinese runs need a Blender
with interface translations: Debian's Blender 3.4.1 program (make
test-blender-program); the bpy module has none and skips them.
"""
import os
import re

import bpy
import pytest

from quatbake.addon.export_check import ops as export_check_ops
from quatbake.addon.ui import translations
from quatbake.core import findings

import scenes
from export_scenes import build_three_empties
from in_chinese import needs_translations, said
from test_ui import _translated_literals

pytestmark = pytest.mark.bpy

ZH = translations.ZH_HANS

# The report patterns these operators hand to the translation (the scan of the source in
# test_ui finds each one only if it is a literal given to report/rpt_).
PATTERNS = (
    "Analyzed {}: {}.",
    "Analyzed {}: {}. Skipped {} without rotation keys (see the Difference Report).",
    "{} {:.2f} deg ({})",
    "{} {:.2f} deg at frame {} ({})",
    "{:d} more",
    "; ",
    "Object \"{}\" is not in this scene.",
    "None of the selected objects has rotation keys to analyze; {:d} skipped (see the "
    "Difference Report).",
    "None of the selected objects could be analysed ({:d} failed; the warnings above say "
    "why).",
    "None of the selected objects has rotation keys to analyze.",
    "Object \"{}\" has not been analyzed yet: run Analyze first.",
    "None of the selected objects has rotation keys to report on; nothing was written.",
    "The report could not be written ({}: {}); choose another folder.",
    "Wrote {} and {}.",
    "The report could not be written to {} ({}).",
    "None of the selected objects is in the exported glTF file.",
    "Checked {}: a glTF player plays {} up to {:.3g} deg off Blender (frame {}).",
)


def test_the_operators_hand_every_status_line_pattern_to_the_translation():
    handed = {text for _file, _line, text in _translated_literals()}
    assert not [p for p in PATTERNS if p not in handed], [p for p in PATTERNS if p not in handed]
    assert not [p for p in PATTERNS if p not in ZH], [p for p in PATTERNS if p not in ZH]


def test_the_pieces_put_into_the_status_lines_have_chinese():
    # Handed over as values, not literals: the source scan cannot see them.
    pieces = [*findings.VERDICTS, *export_check_ops.POSE_BONE_COUNT]
    assert not [p for p in pieces if p not in ZH], [p for p in pieces if p not in ZH]


def _swing_and_slide():
    """"Swing", keyed on rotation (Blender's playback is visibly off the slerp), and
    "Slide", keyed on location only (Analyze skips it), both selected."""
    import numpy as np

    swing = scenes.make_animated_object("Swing", 'XYZ', [1, 21],
                                        np.radians([[0, 0, 0], [90, 40, 120]]))
    slide = scenes.new_object("Slide", 'XYZ')
    scenes.key_channels(slide, "location", [1, 21], [[0, 0, 0], [3, 0, 0]])
    scenes.select_only(swing, slide)


def _analyze_line(capfd, prefix: str) -> str:
    """Analyze of the selection: its one status line that starts with ``prefix``."""
    capfd.readouterr()
    assert bpy.ops.quatbake.analyze(method='SLERP') == {'FINISHED'}
    lines = [ln for ln in said(capfd) if ln.startswith(prefix)]
    assert len(lines) == 1, lines
    return lines[0]


# ------------------------------------------------------------------------- English

def test_analyze_status_line_in_english_as_before(clean_blender, capfd):
    _swing_and_slide()
    line = _analyze_line(capfd, "Analyzed")
    assert re.fullmatch(r"Analyzed 1 object: Swing \d+\.\d\d deg at frame \d+ \(visible\)\. "
                        r"Skipped 1 object without rotation keys \(see the Difference "
                        r"Report\)\.", line), line
    with pytest.raises(RuntimeError, match=re.escape('Object "Nobody" is not in this scene.')):
        bpy.ops.quatbake.analyze(object_name="Nobody")
    with pytest.raises(RuntimeError, match=re.escape(
            'Object "Nobody" has not been analyzed yet: run Analyze first.')):
        bpy.ops.quatbake.jump_to_worst(object_name="Nobody")
    scenes.select_only(bpy.data.objects["Slide"])
    capfd.readouterr()
    assert bpy.ops.quatbake.analyze(method='SLERP') == {'FINISHED'}
    out = capfd.readouterr().out
    assert ("None of the selected objects has rotation keys to analyze; 1 skipped (see the "
            "Difference Report).") in out, out


def _report_and_check(capfd, tmp_path, checked: str) -> tuple:
    """Export Report then Export Check of three empties: (what Export Report said, the
    line of Export Check that starts with ``checked``, the HTML report's path)."""
    scenes.select_only(*build_three_empties(with_camera=False))
    capfd.readouterr()
    assert bpy.ops.quatbake.export_report(filepath=str(tmp_path) + os.sep,
                                          open_in_browser=False) == {'FINISHED'}
    wrote = said(capfd)
    assert bpy.ops.quatbake.export_check(
        exporter_options="export_force_sampling=False") == {'FINISHED'}
    lines = [ln for ln in said(capfd) if ln.startswith(checked)]
    assert len(lines) == 1, lines
    return wrote, lines[0], str(tmp_path / "quatbake_report.html")


def test_export_report_and_export_check_status_lines_in_english_as_before(clean_blender,
                                                                         capfd, tmp_path):
    wrote, line, html = _report_and_check(capfd, tmp_path, "Checked")
    assert f"Wrote {html} and quatbake_report.json." in wrote
    assert re.fullmatch(r"Checked 3 objects: a glTF player plays Windmill up to \S+ deg off "
                        r"Blender \(frame \d+\)\.", line), line


# ------------------------------------------------------------------------- Chinese

@needs_translations
def test_analyze_reports_in_chinese(chinese_reports, capfd):
    _swing_and_slide()
    line = _analyze_line(capfd, "已分析")
    assert re.fullmatch(r"已分析 1 个物体：Swing \d+\.\d\d 度，位于第 \d+ 帧（可见）。"
                        r"已跳过没有旋转关键帧的 1 个物体（见差异报告）。", line), line
    with pytest.raises(RuntimeError, match="此场景中没有物体“Nobody”。"):
        bpy.ops.quatbake.analyze(object_name="Nobody")
    with pytest.raises(RuntimeError, match="物体“Nobody”尚未分析：请先运行“分析”。"):
        bpy.ops.quatbake.jump_to_worst(object_name="Nobody")


@needs_translations
def test_export_report_and_export_check_report_in_chinese(chinese_reports, capfd, tmp_path):
    wrote, line, html = _report_and_check(capfd, tmp_path, "已检查")
    assert f"已写入 {html} 和 quatbake_report.json。" in wrote
    assert re.fullmatch(r"已检查 3 个物体：glTF 播放器播放 Windmill 时与 Blender 最多相差 \S+ 度"
                        r"（第 \d+ 帧）。", line), line


# ------------------------------------------- the error sentences every operator may say

def test_the_last_net_s_default_ending_has_chinese():
    # unexpected(doing, exc) ends with its default "then": no literal at the call to scan.
    import inspect

    from quatbake.addon.ui import guard

    then = inspect.signature(guard.unexpected).parameters["then"].default
    assert then == "nothing was changed" and then in ZH


def _rig_in_pose_mode_with_no_bone_selected():
    from quatbake.addon import versions

    rig = scenes.make_rig("Rig", [("root", None, (0, 0, 0), (0, 0, 1)),
                                  ("arm", "root", (0, 0, 1), (0, 1, 1))])
    scenes.key_bone(rig, "arm", "rotation_quaternion", [1, 11],
                    [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
    scenes.select_only(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode='POSE')
    for name in ("root", "arm"):
        versions.select_bone(rig, name, False)


def _analyze_meets_the_unforeseen(monkeypatch, sentence: str) -> None:
    """Analyze whose engine raises what nothing foresaw says ``sentence`` (ui.guard's last
    net), not a traceback."""
    from quatbake.addon.analyze import ops as analyze_ops

    def broken(*_args, **_kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(analyze_ops, "analyze_into", broken)
    with pytest.raises(RuntimeError, match=re.escape(sentence)):
        bpy.ops.quatbake.analyze()


def test_no_bones_and_the_last_net_in_english_as_before(clean_blender, monkeypatch):
    _rig_in_pose_mode_with_no_bone_selected()
    for operator, doing in ((bpy.ops.quatbake.analyze, "analyze"),
                            (bpy.ops.quatbake.bake, "bake"),
                            (bpy.ops.quatbake.revert, "revert"),
                            (bpy.ops.quatbake.convert_rotation_mode, "convert")):
        with pytest.raises(RuntimeError, match=re.escape(
                f"No pose bones are selected in Pose Mode: select the bones to {doing}, or go "
                "back to Object Mode to take the whole armature.")):
            operator()
    bpy.ops.object.mode_set(mode='OBJECT')
    _analyze_meets_the_unforeseen(monkeypatch, (
        "Analyze failed: QuatBake did not expect ZeroDivisionError (division by zero); "
        "nothing was changed. Please report this with the file."))


@needs_translations
def test_no_bones_and_the_last_net_in_chinese(chinese_reports, monkeypatch):
    _rig_in_pose_mode_with_no_bone_selected()
    with pytest.raises(RuntimeError, match=re.escape(
            "姿态模式下没有选中任何姿态骨骼：请选择要烘焙的骨骼，或回到物体模式以使用整个骨架。")):
        bpy.ops.quatbake.bake()
    bpy.ops.object.mode_set(mode='OBJECT')
    _analyze_meets_the_unforeseen(monkeypatch, (
        "分析失败：QuatBake 未预料到 ZeroDivisionError（division by zero）；未做任何更改。"
        "请连同文件一起报告此问题。"))


# ------------------------------------------- a line's other pieces (a review: untested)

def _swings_and_a_still(count: int):
    """``count`` objects swinging like "Swing" (each a little further), and "Still", keyed
    on rotation but never turning (0.00 deg: no worst frame to name)."""
    import numpy as np

    made = [scenes.make_animated_object(f"Swing{i}", 'XYZ', [1, 21], np.radians(
        [[0, 0, 0], [90 + 5 * i, 40, 120]])) for i in range(count)]
    still = scenes.make_animated_object("Still", 'XYZ', [1, 21], np.zeros((2, 3)))
    return made, still


def _still_then_five(capfd, prefix: str) -> tuple:
    """The Analyze lines starting with ``prefix`` of Swing0 with Still, then of five
    swings."""
    swings, still = _swings_and_a_still(5)
    scenes.select_only(swings[0], still)
    two = _analyze_line(capfd, prefix)
    scenes.select_only(*swings)
    return two, _analyze_line(capfd, prefix)


def test_a_still_object_and_more_than_four_in_english_as_before(clean_blender, capfd):
    two, five = _still_then_five(capfd, "Analyzed")
    assert re.fullmatch(r"Analyzed 2 objects: Swing0 \d+\.\d\d deg at frame \d+ \(visible\); "
                        r"Still 0\.00 deg \(fine\)\.", two), two
    assert re.fullmatch(r"Analyzed 5 objects: (Swing\d \d+\.\d\d deg at frame \d+ \(visible\); )"
                        r"{4}1 more\.", five), five


@needs_translations
def test_a_still_object_and_more_than_four_in_chinese(chinese_reports, capfd):
    two, five = _still_then_five(capfd, "已分析")
    assert re.fullmatch(r"已分析 2 个物体：Swing0 \d+\.\d\d 度，位于第 \d+ 帧（可见）；"
                        r"Still 0\.00 度（良好）。", two), two
    assert re.fullmatch(r"已分析 5 个物体：(Swing\d \d+\.\d\d 度，位于第 \d+ 帧（可见）；){4}"
                        r"另有 1 个。", five), five


def _export_check_rig(capfd, prefix: str) -> str:
    """Export Check of the flipped rig (export_scenes): the armature and its two keyed pose
    bones."""
    from export_scenes import build_flipped_rig

    scenes.select_only(build_flipped_rig())
    capfd.readouterr()
    assert bpy.ops.quatbake.export_check(
        exporter_options="export_force_sampling=False") == {'FINISHED'}
    lines = [ln for ln in said(capfd) if ln.startswith(prefix)]
    assert len(lines) == 1, lines
    return lines[0]


def test_export_check_of_pose_bones_in_english(clean_blender, capfd):
    line = _export_check_rig(capfd, "Checked")
    assert re.fullmatch(r"Checked 1 object and 2 pose bones: a glTF player plays Rig: \w+ up "
                        r"to \S+ deg off Blender \(frame \d+\)\.", line), line


@needs_translations
def test_export_check_of_pose_bones_in_chinese(chinese_reports, capfd):
    line = _export_check_rig(capfd, "已检查")
    assert re.fullmatch(r"已检查 1 个物体和 2 根姿态骨骼：glTF 播放器播放 Rig: \w+ 时与 Blender "
                        r"最多相差 \S+ 度（第 \d+ 帧）。", line), line


@needs_translations
def test_the_short_pieces_are_quatbake_s_own_words_only(chinese_reports):
    """A piece as common as "; " is registered in QuatBake's context alone: in Blender's
    default contexts it stays as another add-on wrote it (a review), while QuatBake's own
    lookup still says it in Chinese."""
    pgettext = bpy.app.translations.pgettext_iface
    for piece in ("; ", "a flipped quaternion sign"):
        assert piece in translations.OWN_CONTEXT_ONLY
        assert pgettext(piece) == piece, pgettext(piece)
        assert pgettext(piece, "Operator") == piece
        assert translations.iface(piece) == ZH[piece]
