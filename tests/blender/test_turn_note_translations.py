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
from test_status_line_translations import _said, chinese_reports, needs_translations  # noqa: F401

from quatbake.addon import bake
from quatbake.addon.ui import translations
from quatbake.core import turns
from quatbake.core.words import Phrase

import scenes

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


def test_turn_notes_in_english_as_before(clean_blender, capfd):
    _flip_and_spin()
    capfd.readouterr()
    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    said = _said(capfd)
    assert not [line for line in ENGLISH if line not in said], said
    notes = bpy.context.scene.quatbake.last_turn_notes.splitlines()
    assert not [line for line in ENGLISH if line not in notes], notes


@needs_translations
@pytest.mark.usefixtures("chinese_reports")
def test_turn_notes_in_chinese(capfd):
    _flip_and_spin()
    capfd.readouterr()
    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    said = _said(capfd)
    assert not [line for line in CHINESE if line not in said], said
    notes = bpy.context.scene.quatbake.last_turn_notes.splitlines()
    assert not [line for line in CHINESE if line not in notes], notes
