# SPDX-License-Identifier: GPL-3.0-or-later
"""How the bake and revert messages count what they touched: objects and pose bones.

The operators (translated reports) and the command line (English) say the same
count the same way: "1 object", "12 bones of "Rig"", "2 objects and 12 bones".
The panel's "Total:" line and the Analyze report say it the same way too.
No bpy here: it takes transforms (``transform.AnimatedTransform`` or anything with
``is_bone``, ``bone_name`` and the owner's ``name``), (owner, bone) name pairs or plain
counts, and a translate function, so every caller and the tests use one phrasing.
"""

# (singular, plural) message ids; the translation table keys on these exact strings.
OBJECT_COUNT = ("{:d} object", "{:d} objects")
BONE_COUNT = ("{:d} bone", "{:d} bones")
RIG_BONE_COUNT = ("{:d} bone of \"{}\"", "{:d} bones of \"{}\"")
OBJECTS_AND_BONES = "{} and {}"
MESSAGE_IDS = (*OBJECT_COUNT, *BONE_COUNT, *RIG_BONE_COUNT, OBJECTS_AND_BONES)


def _untranslated(text: str) -> str:
    return text


def counted(forms: tuple, count: int, translate=_untranslated, *more) -> str:
    """``count`` in the singular or plural of ``forms`` (one of the pairs above, or a
    caller's own), through ``translate``: "1 object", "3 objects"."""
    return translate(forms[0] if count == 1 else forms[1]).format(count, *more)


def tally(pairs) -> tuple[int, int, str]:
    """(objects, bones, rig) of (owner name, bone name or "") pairs, each pair counted once.

    ``rig`` is the armature every bone belongs to; "" when there are no bones or they
    come from several armatures (the wording then leaves the armature out).
    """
    unique = set(pairs)
    bones = [owner for owner, bone in unique if bone]
    rigs = set(bones)
    return len(unique) - len(bones), len(bones), rigs.pop() if len(rigs) == 1 else ""


def count_phrase(objects: int, bones: int, rig: str = "", translate=_untranslated) -> str:
    """"3 objects", "12 bones of "Rig"" (``rig`` given, no object), "5 bones" (no
    ``rig``: several armatures) or "2 objects and 12 bones"; "0 objects" for none."""
    if not bones:
        return counted(OBJECT_COUNT, objects, translate)
    if objects:
        return translate(OBJECTS_AND_BONES).format(
            counted(OBJECT_COUNT, objects, translate), counted(BONE_COUNT, bones, translate))
    if rig:
        return counted(RIG_BONE_COUNT, bones, translate, rig)
    return counted(BONE_COUNT, bones, translate)


def transform_pairs(transforms) -> list[tuple[str, str]]:
    """(owner name, bone name or "") of each transform, as ``tally`` counts them."""
    return [(t.name, t.bone_name if t.is_bone else "") for t in transforms]


def transform_count(transforms, translate=_untranslated) -> str:
    """``count_phrase`` of the transforms (each one once): "3 objects", "12 bones of
    "Rig"", "5 bones" (several armatures) or "2 objects and 12 bones"."""
    return count_phrase(*tally(transform_pairs(transforms)), translate=translate)
