"""The Re-bake's turn notes in Chinese: in the status bar and behind the panel's i button.

The notes are made in core (core/turns.py describe), which cannot call Blender's
translation; each is a ``core.words.Phrase``, the English sentence that keeps its pattern
and arguments, and the operator says it in the interface's language
(``ui.translations.translated``). The English lines are written out here as they were
before; the CLI and the JSON/HTML reports keep them. The Chinese runs need a Blender with
interface translations: Debian's Blender 3.4.1 program (make test-blender-program); the
bpy module has none and skips them.
"""
import math

import bpy
import mathutils
import numpy as np
import pytest

from quatbake.addon import bake
from quatbake.addon.ui import translations
from quatbake.core import turns
from quatbake.core.words import Phrase

import scenes
from in_chinese import needs_translations, said

pytestmark = pytest.mark.bpy


def _z(deg) -> tuple:
    return tuple(mathutils.Euler((0.0, 0.0, math.radians(deg)), 'XYZ').to_quaternion())


def _flip_and_spin(with_spin: bool = True) -> list:
    """"Flip", a quaternion key stored with its sign flipped (Blender turns 320 deg, the
    short way is 40), "Spin", keyed 0 -> 360 deg on Z (a keyed spin, kept by Turns:
    Auto), and the bone "arm" of "Rig" with a flipped key too; all selected."""
    flip = scenes.make_animated_object("Flip", 'QUATERNION', np.array([1.0, 21.0]),
                                       np.array([_z(10), [-c for c in _z(50)]]), 'LINEAR')
    made = [flip]
    if with_spin:
        made.append(scenes.make_animated_object(
            "Spin", 'XYZ', np.array([1.0, 51.0]), np.radians([[0, 0, 0], [0, 0, 360]]),
            'LINEAR'))
    rig = scenes.make_rig("Rig", [("arm", None, (0, 0, 0), (0, 0, 1))])
    scenes.key_bone(rig, "arm", "rotation_quaternion", [1, 11],
                    [_z(0), [-c for c in _z(100)]], mode='QUATERNION', interpolation='LINEAR')
    made.append(rig)
    scenes.select_only(*made)
    return made


def _patterns(text) -> list:
    """The patterns a Phrase is made of, its arguments' included."""
    return [text.pattern] + [p for a in text.args if isinstance(a, Phrase) for p in _patterns(a)]


ENGLISH = [
    "Object \"Flip\": keys 1-21: Blender turns 320 deg (a flipped quaternion sign); baked the "
    "40 deg short way instead (Turns: Keyed would keep Blender's 320 deg turn)",
    "Object \"Spin\": keys 1-51: Blender turns 360 deg (a keyed spin); baked as keyed, because "
    "Turns is Auto (Turns: Shortest would take the 0 deg short way)",
    "Armature \"Rig\", bone \"arm\": keys 1-11: Blender turns 260 deg (a flipped quaternion "
    "sign); baked the 100 deg short way instead (Turns: Keyed would keep Blender's 260 deg "
    "turn)",
]

CHINESE = [
    "物体“Flip”：关键帧 1-21：Blender 转动 320 度（四元数符号翻转）；改为沿 40 度的最短弧烘焙"
    "（“转数：按关键帧”会保留 Blender 的 320 度转动）",
    "物体“Spin”：关键帧 1-51：Blender 转动 360 度（关键帧中的旋转）；已按关键帧烘焙，因为“转数”为"
    "“自动”（“转数：最短”会走 0 度的最短弧）",
    "骨架“Rig”，骨骼“arm”：关键帧 1-11：Blender 转动 260 度（四元数符号翻转）；改为沿 100 度的"
    "最短弧烘焙（“转数：按关键帧”会保留 Blender 的 260 度转动）",
]


@pytest.mark.parametrize("setting", turns.TURN_SETTINGS)
def test_every_pattern_of_the_turn_notes_has_chinese(clean_blender, setting):
    """Flipped quaternions (an object's, a bone's), an Euler wrap, a kept or dropped spin
    and Euler channels near gimbal lock, under each Turns setting: every note is a Phrase
    and every pattern in it is in the Chinese table (handed over as values, not literals:
    test_ui's source scan cannot see them)."""
    made = _flip_and_spin()
    made.append(scenes.make_animated_object("Wrap", 'XYZ', np.array([60.0, 100.0]),
                                            np.radians([[0, 0, 170], [0, 0, -170]]), 'LINEAR'))
    made.append(scenes.make_animated_object("Gimbal", 'XYZ', np.array([0.0, 10.0]),
                                            np.radians([[45, 88, 10], [-30, 0, 175]]),
                                            'LINEAR'))
    result = bake.bake_objects(made, bake.BakeSettings(turns=setting))
    notes = [n.message for n in result.notes if n.message.startswith(("Object", "Armature"))]
    assert len(notes) == 5, [n.message for n in result.notes]
    used = {p for note in notes for p in _patterns(note)}
    assert all(isinstance(note, Phrase) for note in notes)
    assert {turns.HEAD, "{}: {}", "Object \"{}\"", "Armature \"{}\", bone \"{}\"",
            *turns.CAUSES.values()} <= used
    assert not used - set(translations.ZH_HANS), used - set(translations.ZH_HANS)
    if setting == 'AUTO':
        assert ENGLISH[0] in notes and ENGLISH[2] in notes


def test_the_patterns_of_every_turn_note_sentence_have_chinese():
    """The four ways a note ends, and the Turns setting's name it gives, all in the table:
    the scenes above do not meet every one under every setting."""
    every = [turns.HEAD, *turns.CAUSES.values(), *turns.SENTENCES.values(),
             *(s.title() for s in turns.TURN_SETTINGS)]
    assert not [p for p in every if p not in translations.ZH_HANS]


def _notes_said_and_kept(capfd) -> tuple:
    """Re-bake of the flip and the spin: (the status-bar lines, the i button's notes)."""
    _flip_and_spin()
    capfd.readouterr()
    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    return said(capfd), bpy.context.scene.quatbake.last_turn_notes.splitlines()


def test_turn_notes_in_english_as_before(clean_blender, capfd):
    lines, notes = _notes_said_and_kept(capfd)
    assert not [line for line in ENGLISH if line not in lines], lines
    assert not [line for line in ENGLISH if line not in notes], notes


@needs_translations
@pytest.mark.usefixtures("chinese_reports")
def test_turn_notes_in_chinese(capfd):
    lines, notes = _notes_said_and_kept(capfd)
    assert not [line for line in CHINESE if line not in lines], lines
    assert not [line for line in CHINESE if line not in notes], notes


# ------------------------------------------ the bake's other notes and warnings on turns
#
# Past ten notes the count of the rest (bake/turns.py MORE_LIKE_THESE), the stepped
# intervals kept stepped (KEPT_STEPPED), a turn too fast for the Step (TOO_FAST) and a
# conversion's long way round (CONVERTED_LONG_WAY): the English lines below are what the
# f-strings before them made (the same scenes, the code of the commit before).

def _euler(name, frames, degrees, interpolation='LINEAR'):
    """An XYZ Euler object keyed at ``frames`` on ``degrees`` (rows of XYZ, or Z alone)."""
    degrees = np.asarray(degrees, dtype=float)
    if degrees.ndim == 1:
        degrees = np.stack([np.zeros_like(degrees), np.zeros_like(degrees), degrees], axis=1)
    return scenes.make_animated_object(name, 'XYZ', np.asarray(frames, dtype=float),
                                       np.radians(degrees), interpolation)


def _many_turns():
    """"Mocap": 12 wraps (175 <-> -175 deg on Z) then 3 keyed spins, a key a frame: ten
    notes, then the rest counted by kind (4 spin, 1 wrap)."""
    return [_euler("Mocap", np.arange(1.0, 17.0),
                   [175, -175] * 6 + [185, 545, 905, 1265])]


def _stepped():
    """"Step", CONSTANT keys (3 stepped intervals), and "Hold" (1: the singular)."""
    return [_euler("Step", [1, 11, 21, 30], [0, 75, -40, 10], 'CONSTANT'),
            _euler("Hold", [1, 11], [0, 75], 'CONSTANT')]


def _quick():
    """"Quick": 90 deg a frame on Z, a key a frame; Step 2 bakes 180 deg apart."""
    frames = np.arange(1.0, 10.0)
    return [_euler("Quick", frames, 90.0 * (frames - 1))]


def _long_ways():
    """Kept the long way round by a conversion: "Wrap", six wraps (four spans named, then
    a count), "Gimbal", Euler channels one by one, and "Both", one of each (the reasons
    joined by "or")."""
    return [_euler("Wrap", [1, 11, 21, 31, 41, 51, 61], [170, -170] * 3 + [170]),
            _euler("Gimbal", [0, 10], [[45, 88, 10], [-30, 0, 175]]),
            _euler("Both", [1, 11, 21, 31], [[0, 0, 170], [0, 0, -170], [45, 88, 10],
                                               [-30, 0, 175]])]


def _quick_bones():
    """"Rig", its bones "a", "b" and "c" keyed alike, 90 deg a frame: at Step 2 the same
    warning of each, said once of the three (bake/settings.py merge_bone_issues)."""
    rig = scenes.make_rig("Rig", [(n, None, (x, 0, 0), (x, 0, 1))
                                  for x, n in enumerate("abc")])
    frames = np.arange(1.0, 10.0)
    for name in "abc":
        scenes.key_bone(rig, name, "rotation_euler", frames,
                        [[0.0, 0.0, math.radians(90.0 * (f - 1))] for f in frames],
                        mode='XYZ', interpolation='LINEAR')
    return [rig]


OTHER_ENGLISH = {
    "more": ['Object "Mocap": 5 more key intervals like these (4 spin, 1 wrap); the report '
             '(Analyze, or python -m quatbake report) lists them all.'],
    "stepped": ['Object "Step": 3 stepped intervals (CONSTANT keys) kept stepped: held until '
                'the next key, then the jump on that key\'s frame, as Blender plays them.',
                'Object "Hold": 1 stepped interval (CONSTANT keys) kept stepped: held until '
                'the next key, then the jump on that key\'s frame, as Blender plays them.'],
    "fast": ['Object "Quick": keys 1-2 turn 90 deg per frame, 180 deg per baked step: the '
             'baked keys cannot show that turn. Lower Step (or space the keys further '
             'apart).'],
    "bones": ['Armature "Rig", 3 bones ("a", "b", "c"): keys 1-2 turn 90 deg per frame, 180 '
              'deg per baked step: the baked keys cannot show that turn. Lower Step (or space '
              'the keys further apart).'],
    "long": ['Object "Wrap": converted as Blender plays it, the long way round between keys '
             '1-11, 11-21, 21-31, 31-41 and 2 more (an Euler angle wrapping past 180 deg); a '
             'Re-bake with Slerp takes the short way.',
             'Object "Gimbal": converted as Blender plays it, the long way round between keys '
             '0-10 (Euler channels interpolated one by one); a Re-bake with Slerp takes the '
             'short way.',
             'Object "Both": converted as Blender plays it, the long way round between keys '
             '1-11, 21-31 (Euler channels interpolated one by one or an Euler angle wrapping '
             'past 180 deg); a Re-bake with Slerp takes the short way.'],
}

OTHER_CHINESE = {
    "more": ["物体“Mocap”：另有 5 个这样的关键帧区间（4 处关键帧中的旋转、1 处欧拉角回绕）；"
             "报告（“分析”，或 python -m quatbake report）列出了全部区间。"],
    "stepped": ["物体“Step”：3 个阶梯区间（CONSTANT 关键帧）保持阶梯：保持到下一个关键帧，"
                "然后在该关键帧所在的帧上跳变，与 Blender 的播放一致。",
                "物体“Hold”：1 个阶梯区间（CONSTANT 关键帧）保持阶梯：保持到下一个关键帧，"
                "然后在该关键帧所在的帧上跳变，与 Blender 的播放一致。"],
    "fast": ["物体“Quick”：关键帧 1-2 之间每帧转动 90 度，每个烘焙步长转动 180 度：烘焙的关键帧"
             "无法表现这一转动。请降低“步长”（或把关键帧间隔拉开）。"],
    "bones": ["骨架“Rig”，3 根骨骼（\"a\"、\"b\"、\"c\"）：关键帧 1-2 之间每帧转动 90 度，每个烘焙"
              "步长转动 180 度：烘焙的关键帧无法表现这一转动。请降低“步长”（或把关键帧间隔拉开）。"],
    "long": ["物体“Wrap”：已按 Blender 的播放转换，在以下关键帧区间绕远路：1-11、11-21、21-31、"
             "31-41，另有 2 个（欧拉角越过 180 度回绕）；用 Slerp 重新烘焙会走最短弧。",
             "物体“Gimbal”：已按 Blender 的播放转换，在以下关键帧区间绕远路：0-10（欧拉通道逐个"
             "插值）；用 Slerp 重新烘焙会走最短弧。",
             "物体“Both”：已按 Blender 的播放转换，在以下关键帧区间绕远路：1-11、21-31（欧拉通道"
             "逐个插值或欧拉角越过 180 度回绕）；用 Slerp 重新烘焙会走最短弧。"],
}

CASES = ("more", "stepped", "fast", "bones", "long")


def _other_issues(case) -> list:
    """The BakeIssues of ``case`` from bake.bake_objects / bake.convert_objects."""
    if case == "more":
        return bake.bake_objects(_many_turns(), bake.BakeSettings()).notes[-1:]
    if case == "stepped":
        return [n for n in bake.bake_objects(_stepped(), bake.BakeSettings()).notes
                if "stepped" in n.message]
    if case in ("fast", "bones"):
        made = _quick() if case == "fast" else _quick_bones()
        return bake.bake_objects(made, bake.BakeSettings(frame_step=2)).warnings
    return [n for n in bake.convert_objects(_long_ways(), 'QUATERNION', 0.01).notes
            if "long way" in n.message]


@pytest.mark.parametrize("case", CASES)
def test_the_other_turn_notes_are_phrases_whose_patterns_have_chinese(clean_blender, case):
    """Each of the four is a Phrase made of bake/turns.py's patterns, every one of them in
    the Chinese table, and its English is the old line byte for byte (the CLI, the
    console and the reports read it)."""
    from quatbake.addon.bake import settings
    from quatbake.addon.bake import turns as bake_turns
    from quatbake.core import words

    heads = {"more": bake_turns.MORE_LIKE_THESE[1], "stepped": bake_turns.KEPT_STEPPED,
             "fast": bake_turns.TOO_FAST, "bones": bake_turns.TOO_FAST,
             "long": bake_turns.CONVERTED_LONG_WAY}
    parts = {"more": {words.LIST, *bake_turns.KIND_COUNTS.values()} - {"{:d} flip", "{:d} euler"},
             "stepped": set(bake_turns.STEPPED_INTERVALS),
             "fast": {bake_turns.KEYS_TURN, bake_turns.OR_SPACE_KEYS},
             "bones": {settings.BONES, words.LIST, bake_turns.KEYS_TURN},
             "long": {words.LIST, words.EITHER, words.AND_MORE}}
    messages = [i.message for i in _other_issues(case)]
    assert messages == OTHER_ENGLISH[case], messages
    assert all(isinstance(m, Phrase) and m.pattern == heads[case] for m in messages), messages
    used = {p for m in messages for p in _patterns(m)}
    assert parts[case] <= used, used
    assert not used - set(translations.ZH_HANS), used - set(translations.ZH_HANS)


def test_the_patterns_of_the_other_turn_notes_have_chinese():
    """Every kind counted, both counts of stepped intervals, a cache's turn and every
    reason for a long way: the scenes above do not meet them all."""
    from quatbake.addon.bake import cache, settings
    from quatbake.addon.bake import turns as bake_turns
    from quatbake.core import words

    every = [*bake_turns.MORE_LIKE_THESE, *bake_turns.KIND_COUNTS.values(),
             bake_turns.KEPT_STEPPED, *bake_turns.STEPPED_INTERVALS, bake_turns.TOO_FAST,
             bake_turns.KEYS_TURN, bake_turns.OR_SPACE_KEYS, cache.CACHE_TURNS,
             bake_turns.CONVERTED_LONG_WAY, *bake_turns._LONG_WAY.values(), words.LIST,
             words.EITHER, words.AND_MORE, settings.BONES]
    assert not [p for p in every if p not in translations.ZH_HANS]


def _other_notes_said(capfd, case) -> tuple:
    """``case`` through its operator (Re-bake; Convert Rotation Mode for the long way):
    (the status-bar lines, the lines behind the i button)."""
    make, options = {"more": (_many_turns, {}), "stepped": (_stepped, {}),
                     "fast": (_quick, {"frame_step": 2}),
                     "bones": (_quick_bones, {"frame_step": 2}), "long": (_long_ways, None)}[case]
    scenes.select_only(*make())
    capfd.readouterr()
    if options is None:
        done = bpy.ops.quatbake.convert_rotation_mode(mode='QUATERNION', tolerance=0.01)
    else:
        done = bpy.ops.quatbake.bake(**options)
    assert done == {'FINISHED'}
    return said(capfd), bpy.context.scene.quatbake.last_turn_notes.splitlines()


def _check_said(capfd, case, lines) -> None:
    """The status bar shows the first five notes (the count past ten is behind the i
    button only); the i button shows them all."""
    status, notes = _other_notes_said(capfd, case)
    if case != "more":
        assert not [line for line in lines if line not in status], status
    assert not [line for line in lines if line not in notes], notes


@pytest.mark.parametrize("case", CASES)
def test_the_other_turn_notes_in_english_as_before(clean_blender, capfd, case):
    _check_said(capfd, case, OTHER_ENGLISH[case])


@needs_translations
@pytest.mark.usefixtures("chinese_reports")
@pytest.mark.parametrize("case", CASES)
def test_the_other_turn_notes_in_chinese(capfd, case):
    _check_said(capfd, case, OTHER_CHINESE[case])
