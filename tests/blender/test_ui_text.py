"""addon/ui/texts: labels wrapped to a width without cutting a word (bpy module and
Blender 3.4.1; headless, so widths come from the per-character estimate)."""
import bpy
import pytest

from quatbake.addon.ui import texts as ui_text

pytestmark = pytest.mark.bpy

ADVICE = "keys 60-120 take the long way: re-bake with SLERP"


@pytest.mark.parametrize("width", [60.0, 100.0, 166.0, 400.0])
def test_latin_text_wraps_at_spaces_and_every_line_fits(width):
    ctx = bpy.context
    lines = ui_text.wrap(ctx, ADVICE, width)
    assert " ".join(lines).split() == ADVICE.split()        # every word whole, in order
    for line in lines:
        if " " in line:                                     # a lone word may be wider
            assert ui_text.text_width(ctx, line) <= width, (line, width)
    if width >= 400.0:
        assert lines == [ADVICE]


def test_a_word_wider_than_the_line_gets_its_own_line_uncut():
    lines = ui_text.wrap(bpy.context, "a supercalifragilisticexpialidocious b", 50.0)
    assert lines == ["a", "supercalifragilisticexpialidocious", "b"]


def test_a_snake_case_name_wider_than_the_line_breaks_after_an_underscore():
    """The window walk: at a 150 px sidebar Blender cut "cubic_vs_bezier: 2 interval(s)"
    to "cubic_vs_bezi...". A snake_case word wider than the line breaks after an
    underscore, which ends the line; put together the lines are the text again."""
    ctx = bpy.context
    text = "cubic_vs_bezier: 2 intervals"
    width = ui_text.text_width(ctx, "cubic_vs_") + 1.0
    lines = ui_text.wrap(ctx, text, width)
    # Joined again: no space after a line ending in an underscore, one after any other.
    joined = lines[0]
    for line in lines[1:]:
        joined += line if joined.endswith("_") else " " + line
    assert joined == text, lines
    assert lines[0] == "cubic_vs_" and lines[1].startswith("bezier:"), lines
    for line in lines:
        assert ui_text.text_width(ctx, line) <= width or " " not in line, (line, width)
    # Names that fit, and underscores at a word's ends, are never broken.
    assert ui_text.wrap(ctx, text, 400.0) == [text]
    assert ui_text.wrap(ctx, "__init__", 10.0) == ["__init__"]


def test_words_kept_together_share_a_line_while_they_fit_one():
    """texts.KEEP_TOGETHER joins a control and its value ("Keys: Linear"): they move to
    the next line together; wider than a line together, they break as plain words."""
    ctx = bpy.context
    glue = ui_text.KEEP_TOGETHER
    text = f"Re-bake with Keys:{glue}Linear for this engine"
    width = ui_text.text_width(ctx, "Re-bake with Keys:") + 1.0
    lines = ui_text.wrap(ctx, text, width)
    assert lines[0] == "Re-bake with" and lines[1].startswith(f"Keys:{glue}Linear"), lines
    narrow = ui_text.text_width(ctx, "Linear") + 1.0
    lines = ui_text.wrap(ctx, text, narrow)
    assert "Keys:" in lines and "Linear" in lines, lines
    assert all(glue not in line for line in lines), lines


def test_chinese_breaks_between_characters():
    text = "路径颜色：物体转动的快慢，°/帧"
    lines = ui_text.wrap(bpy.context, text, 60.0)
    assert len(lines) > 1 and "".join(lines) == text
    for line in lines:
        assert ui_text.text_width(bpy.context, line) <= 60.0 or len(line) == 1


# Issue 24: "合计：31 根骨骼（属于“cmu_12_01_walk”），16244 帧" wrapped with a line starting
# "，16244" and, once that was forbidden, with "于“cmu_12_01_walk”），16244" as one piece
# wider than the line (Blender cut it with "...").
TOTAL_ZH = "合计：31 根骨骼（属于“cmu_12_01_walk”），16244 帧."


@pytest.mark.parametrize("width", [60.0, 90.0, 133.0, 166.0])
def test_chinese_lines_never_start_with_closing_or_end_with_opening_punctuation(width):
    lines = ui_text.wrap(bpy.context, TOTAL_ZH, width)
    assert "".join(lines).replace(" ", "") == TOTAL_ZH.replace(" ", "")
    for line in lines:
        assert line[0] not in ui_text.NO_BREAK_BEFORE, lines
        assert line[-1] not in ui_text.NO_BREAK_AFTER, lines
    # the Latin run is never cut, and after the comma it may start a line
    assert any("cmu_12_01_walk" in line for line in lines)
    for line in lines:
        if ui_text.text_width(bpy.context, line) > width:
            # only a piece that cannot break: one Latin run with its punctuation
            assert "cmu_12_01_walk" in line and len(line) <= len("“cmu_12_01_walk”），"), line


def test_a_latin_run_after_chinese_punctuation_may_start_a_line():
    lines = ui_text.wrap(bpy.context, "于“cmu_12_01_walk”），16244", 140.0)
    assert lines[-1].startswith("16244"), lines
