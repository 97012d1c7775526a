# SPDX-License-Identifier: GPL-3.0-or-later
"""Opening a .blend and finding what a command works on: the keyed objects, the
bones named by ``--bones`` and the clips named by ``--clips``."""
from __future__ import annotations

import os
import sys

from .headless import BadInput, NothingToDo, quiet_fds


def import_bpy():
    try:
        import bpy  # noqa: F401
    except ImportError:
        raise BadInput("QuatBake's command line needs Blender's Python module: install it with "
                       "`pip install bpy` or run it inside Blender "
                       "(blender -b --python __main__.py -- ...).") from None
    return bpy


def load_blend(path: str):
    """Open ``path`` as the current Blender file, or BadInput for a corrupt file."""
    bpy = import_bpy()
    with quiet_fds():
        try:
            # use_scripts=False: inspecting a file must never run the code inside it.
            bpy.ops.wm.open_mainfile(filepath=path, load_ui=False, use_scripts=False)
        except RuntimeError:
            failed = True
        else:
            failed = False
    if failed:
        saved = saved_by_version(path)
        if saved is not None and saved > tuple(bpy.app.version[:2]):
            raise BadInput(f"{path} was saved by Blender {saved[0]}.{saved[1]}, newer than this "
                           f"Blender {bpy.app.version_string}, which cannot read it: use Blender "
                           f"{saved[0]}.{saved[1]} or later.")
        if saved is None and _zstd_unread(path):
            # A pipeline walk: a 3.4.1 farm worker given 5.0 shots called each "corrupt".
            raise BadInput(f"{path} could not be read by Blender {bpy.app.version_string}. It "
                           "is compressed with Zstandard, as Blender 3.0 and later save "
                           "files, and this Blender's Python has no zstandard module to read "
                           "which version saved it: most likely a newer Blender, so open it "
                           "with that one; otherwise the file is corrupt or truncated.")
        raise BadInput(f"{path} could not be read by Blender {bpy.app.version_string}: "
                       "the file is corrupt or truncated (or saved by a newer Blender).")
    for library in missing_libraries(bpy):
        print(f"note: {path} links \"{library}\", which is not there: what it links (a "
              "character's rig, its actions) is missing from the scene. Map the library's "
              "path on this machine.", file=sys.stderr)
    return bpy


def _zstd_unread(path: str) -> bool:
    """Whether ``path`` is Zstandard-compressed and this Python cannot decompress it to read
    its header (saved_by_version: Debian's Blender 3.4.1 has no zstandard module)."""
    try:
        with open(path, "rb") as fh:
            if not fh.read(4).startswith(b"\x28\xb5\x2f\xfd"):
                return False
        import zstandard  # noqa: F401
    except ImportError:
        return True
    except OSError:
        return False
    return False


def missing_library_of(obj) -> str:
    """The path of the missing library ``obj`` (an object or transform) comes from: linked
    from it, overriding what it links, or its armature's data linked from it; "" if
    none. Such an object is a placeholder: it has no bones, and its keys key nothing."""
    obj = getattr(obj, "owner", obj)
    override = getattr(obj, "override_library", None)
    for block in (obj, getattr(override, "reference", None), getattr(obj, "data", None)):
        library = getattr(block, "library", None) if block is not None else None
        if library is not None and _is_missing(library):
            return library.filepath
    return ""


def _is_missing(library) -> bool:
    """Whether ``library``'s file is not on this machine (its path made absolute as
    Blender reads it, relative to the open file)."""
    return not os.path.exists(import_bpy().path.abspath(library.filepath))


def missing_library_sentence(obj, library: str) -> str:
    name = getattr(obj, "display_name", None) or getattr(obj, "name", "")
    return (f"Object \"{name}\" comes from the library \"{library}\", which is not there, so "
            "what it animates is missing: map the library's path on this machine.")


def missing_libraries(bpy) -> list[str]:
    """The library files the open file links that are not on this machine (a farm worker
    without the show's path mapped): what they link is missing, and a shot that reads as
    "nothing to do" is in fact unreadable (a pipeline walk)."""
    return [lib.filepath for lib in bpy.data.libraries if _is_missing(lib)]


def saved_by_version(path: str) -> tuple[int, int] | None:
    """(major, minor) of the Blender that saved ``path``, from its header; None if unknown.

    Headers: ``BLENDER-v304`` (up to 4.x) and ``BLENDER17-01v0500`` (5.0+),
    possibly inside gzip or zstd compression (zstd needs the ``zstandard``
    module, which some Blender builds lack: then None).
    """
    import re

    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
            fh.seek(0)
            if head.startswith(b"\x28\xb5\x2f\xfd"):
                import zstandard

                head = zstandard.ZstdDecompressor().stream_reader(fh).read(32)
            elif head.startswith(b"\x1f\x8b"):
                import gzip

                head = gzip.GzipFile(fileobj=fh).read(32)
            else:
                head = fh.read(32)
    except Exception:   # unreadable, bad compression, no zstandard: the version is unknown
        return None
    match = re.match(rb"BLENDER(?:[-_][vV](\d)(\d\d)|\d\d-\d\d[vV](\d\d)(\d\d))", head)
    if match is None:
        return None
    digits = [g for g in match.groups() if g is not None]
    return int(digits[0]), int(digits[1])


# Whether this process's command registered the add-on (release_quatbake undoes it).
_REGISTERED = []


def register_quatbake():
    """Register the add-on (its operators and properties) once per process."""
    bpy = import_bpy()
    if getattr(bpy.types.Scene, "quatbake", None) is None:
        from ... import register

        register()
        _REGISTERED.append(True)


def release_quatbake() -> None:
    """Unregister what register_quatbake registered, when the command is done. The bpy
    4.5 module deadlocks while the interpreter exits (a static destructor waits on its
    file-closing thread) when a file was opened with QuatBake registered: every command
    finished its work and then never ended (a farm task hung). Unregistered first,
    it exits; other Blenders do not mind either way."""
    if not _REGISTERED:
        return
    _REGISTERED.clear()
    from ... import unregister

    unregister()


def rotation_keyed_objects(bpy) -> list:
    """Objects of the open file with keys on their rotation mode's channels (delta rotation
    included) in their active action or in one of their NLA clips, and armatures with keyed
    pose bones, by name."""
    from .. import animdata
    from ..keyed import has_rotation_keys
    from ..transform import keyed_bone_names

    found = []
    for obj in bpy.data.objects:
        if has_rotation_keys(obj) or keyed_bone_names(obj) or any(
                has_rotation_keys(obj, c.fcurves())
                for c in animdata.object_clips(obj) if not c.active):
            found.append(obj)
    return sorted(found, key=lambda o: o.name)


def bone_keyed_sentences(bpy) -> list[tuple[str, str]]:
    """(name, sentence) for each armature whose pose bones are keyed only in NLA clips."""
    from .. import animdata
    from ..analyze import engine as analyze
    from ..keyed import has_rotation_keys
    from ..transform import keyed_bone_names

    return [(obj.name, analyze.no_keys_sentence(obj, obj.rotation_mode))
            for obj in sorted(bpy.data.objects, key=lambda o: o.name)
            if animdata.bone_key_count(obj) and not has_rotation_keys(obj)
            and not keyed_bone_names(obj)]


def resolve_bones(bpy, specs, path: str) -> list:
    """``--bones`` specs -> transforms (BadInput naming an unknown armature or bone)."""
    from ..transform import AnimatedTransform, keyed_bone_names

    found = []
    for rig_name, bones in specs or []:
        rig = bpy.data.objects.get(rig_name)
        if rig is None or rig.type != 'ARMATURE':
            what = "is not an armature" if rig is not None else f"is not in {path}"
            raise BadInput(f"--bones: object \"{rig_name}\" {what}; name an armature, then "
                           "its bones: --bones \"Rig:spine,neck\".")
        for bone in bones:
            if rig.pose is None or rig.pose.bones.get(bone) is None:
                keyed = _some(keyed_bone_names(rig))
                raise BadInput(f"--bones: armature \"{rig_name}\" has no bone \"{bone}\" "
                               f"(its keyed bones: {keyed}).")
            found.append(AnimatedTransform(rig, bone))
    return found


def resolve_targets(bpy, args, empty_ok: bool = False) -> list:
    """What --objects and --bones name: objects (armatures: all their keyed bones) and bones;
    every rotation-keyed object when neither is given (``empty_ok``: see resolve_objects)."""
    bones = resolve_bones(bpy, getattr(args, "bones", None), args.scene)
    if bones and args.objects is None:
        return bones
    if args.objects is None and getattr(args, "clips", "active") != "active":
        # Named clips (or all): clip_targets looks on every object of the file, so an
        # armature keyed only in its NLA is found though no active action keys it.
        return rotation_keyed_objects(bpy)
    return resolve_objects(bpy, args.objects, args.scene, empty_ok) + bones


def nothing_to_do(bpy, path: str) -> BadInput:
    """The refusal of a file with no rotation keys in any active action: NothingToDo when
    it has none anywhere; a plain BadInput when they are in a library that is not there or
    in NLA clips only (what a batch must still count as failed: the shot is not what it
    should be, or needs --clips)."""
    missing = missing_libraries(bpy)
    if missing:
        return BadInput(f"{path} links \"{missing[0]}\", which is not there, and has no "
                        "object with rotation keys of its own: map the library's path on this "
                        "machine (what it links is missing from the scene).")
    bones = bone_keyed_sentences(bpy)
    if bones:
        return BadInput(f"{path} has no object with rotation keys: nothing to do. "
                        f"{bones[0][1]}")
    from .. import animdata

    unplayed = animdata.unplayed_rotation_actions()
    if unplayed:
        names = animdata.first_of([f"\"{name}\"" for name in unplayed], 3)
        return NothingToDo(f"{path} has no object with rotation keys: nothing to do. The "
                           f"rotation keys of {names} play on no object: assign one as an "
                           "object's action, or in an NLA strip, to report or bake it.")
    return NothingToDo(f"{path} has no object with rotation keys: nothing to do.")


def resolve_objects(bpy, names: list[str] | None, path: str, empty_ok: bool = False) -> list:
    """The objects named (BadInput for an unknown one) or every rotation-keyed object.
    None of them: BadInput (nothing_to_do), or [] when ``empty_ok`` (a command that accounts
    for what has no rotation keys itself: a shot with only a dolly, or with a rig keyed only
    in NLA clips, is a report of skipped objects, exit 0, as docs/cli.md says)."""
    if names is None:
        objects = rotation_keyed_objects(bpy)
        if not objects and not empty_ok:
            raise nothing_to_do(bpy, path)
        return objects
    objects = []
    for name in names:
        obj = bpy.data.objects.get(name)
        if obj is None:
            keyed = _some([o.name for o in rotation_keyed_objects(bpy)])
            raise BadInput(f"Object \"{name}\" is not in {path} (objects with rotation keys: {keyed}).")
        objects.append(obj)
    return objects


# Names a refusal lists of what could have been meant; more are counted.
SHOWN_NAMES = 10


def _some(names: list) -> str:
    """The first SHOWN_NAMES of ``names``, "and N more" for the rest (a report walk: the
    objects' list stopped at ten without a word), or "none"."""
    shown = ", ".join(names[:SHOWN_NAMES]) or "none"
    more = len(names) - SHOWN_NAMES
    return shown + (f" and {more} more" if more > 0 else "")


def clip_targets(objects, clips, candidates=()) -> list:
    """What to analyse: transforms (their active action) or (transform, animdata.Clip) pairs
    (analyze.analysis_targets per object); BadInput when no object has a named clip.

    With ``--clips all`` or names, an armature means the bones each clip keys, and
    ``candidates`` (every object of the file, when the command named none) are searched
    too, for pairs with rotation keys: a clip held only in an armature's NLA (no active
    action keys its bones, so it is not among the rotation-keyed objects) is found.
    """
    from .. import keyed
    from ..analyze import engine as analyze
    from ..transform import as_transforms

    if not isinstance(clips, list) and clips != "all":
        return [t for obj in as_transforms(objects) for t in analyze.analysis_targets(obj, clips)]
    targets, seen = [], set()
    named = {getattr(o, "owner", o).name for o in objects}
    extra = [o for o in candidates if o.name not in named]
    for item, given in [(o, True) for o in objects] + [(o, False) for o in extra]:
        for target in analyze.analysis_targets(item, clips):
            if not isinstance(target, tuple):
                if given:
                    targets.append(target)
                continue
            transform, clip = target
            key = (getattr(transform, "key", transform.name), clip.name)
            if key in seen or not (given or keyed.has_rotation_keys(transform, clip.fcurves())):
                continue
            seen.add(key)
            targets.append(target)
    if isinstance(clips, list) and not targets:
        if objects and not candidates:      # the objects the command named
            names = ", ".join(f"\"{getattr(o, 'display_name', o.name)}\"" for o in objects)
            who = f"{names} {'has' if len(objects) == 1 else 'have'} no clip named"
        else:
            who = "No object has a clip named"
        raise BadInput(f"{who} {', '.join(clips)}; name an action of the file (report "
                       "--clips all lists every clip).")
    if not targets:
        raise BadInput("No object has rotation keys in any of its clips (active actions and "
                       "NLA strips): nothing to do.")
    return targets


def clips_only_objects(bpy) -> list:
    """(object, clip names) for each object of the file whose rotation keys (its own, or
    its pose bones') are only in NLA clips, none in its active action: what a bake without
    ``--clips`` leaves out, with a note (a clip is baked by name)."""
    from .. import animdata
    from ..keyed import has_rotation_keys
    from ..transform import AnimatedTransform, keyed_bone_names

    def rotation_keyed(obj, fcurves=None) -> bool:
        return has_rotation_keys(obj, fcurves) or any(
            has_rotation_keys(AnimatedTransform(obj, b), fcurves)
            for b in keyed_bone_names(obj, fcurves))

    found = []
    for obj in sorted(bpy.data.objects, key=lambda o: o.name):
        if rotation_keyed(obj):
            continue
        names = [c.name for c in animdata.object_clips(obj)
                 if not c.active and rotation_keyed(obj, c.fcurves())]
        if names:
            found.append((obj, names))
    return found


def clips_only_note(obj, names: list) -> str:
    """The bake's note about an object it leaves out because only NLA clips key it."""
    from .. import animdata
    from ..analyze import engine as analyze

    whose = "its pose bones'" if obj.type == 'ARMATURE' and animdata.bone_key_count(obj) \
        else "its"
    quoted = ", ".join(f"\"{n}\"" for n in names)
    return (f"{animdata.subject(obj)} is left out of this bake: {whose} rotation keys are only "
            f"in NLA clips ({quoted}), not in an active action. Bake a clip by name: "
            f"{analyze.clip_option(names[0])} (one clip per output file).")
