# SPDX-License-Identifier: GPL-3.0-or-later
"""How the bake and revert messages count what they touched: objects and pose bones.

The operators (translated reports) and the command line (English) say the same
count the same way: "1 object", "12 bones of "Rig"", "2 objects and 12 bones".
No bpy here: it takes transforms (``transform.AnimatedTransform`` or anything with
``is_bone`` and the owner's ``name``) and a translate function, so both callers and
the tests use one piece of phrasing.
"""

# (singular, plural) message ids; the translation table keys on these exact strings.
OBJECT_COUNT = ("{:d} object", "{:d} objects")
BONE_COUNT = ("{:d} bone", "{:d} bones")
RIG_BONE_COUNT = ("{:d} bone of \"{}\"", "{:d} bones of \"{}\"")
OBJECTS_AND_BONES = "{} and {}"
MESSAGE_IDS = (*OBJECT_COUNT, *BONE_COUNT, *RIG_BONE_COUNT, OBJECTS_AND_BONES)


def _untranslated(text: str) -> str:
    return text


def _counted(forms: tuple, count: int, translate, *more) -> str:
    return translate(forms[0] if count == 1 else forms[1]).format(count, *more)


def transform_count(transforms, translate=_untranslated) -> str:
    """"3 objects", "12 bones of "Rig"" (every bone from one armature, no object),
    "5 bones" (several armatures) or "2 objects and 12 bones"; "0 objects" for none."""
    bones = [t for t in transforms if t.is_bone]
    objects = len(transforms) - len(bones)
    if not bones:
        return _counted(OBJECT_COUNT, objects, translate)
    rigs = {t.name for t in bones}
    if objects:
        return translate(OBJECTS_AND_BONES).format(
            _counted(OBJECT_COUNT, objects, translate), _counted(BONE_COUNT, len(bones), translate))
    if len(rigs) == 1:
        return _counted(RIG_BONE_COUNT, len(bones), translate, rigs.pop())
    return _counted(BONE_COUNT, len(bones), translate)
