# SPDX-License-Identifier: GPL-3.0-or-later
"""Blender's glTF exporter as the export check uses it: whether it is there, its options
(typed by its own properties, and the ones the check sets or refuses), running it into a
folder, and what it wrote (its version, the file's size, what it does with animation
before frame 0).
"""
from __future__ import annotations

import difflib
import os

import bpy

from ...core import gltf_read

# Options the check sets itself (file name and format), or that would break
# the frame = time x fps mapping it evaluates the file with.
FIXED_OPTIONS = ("filepath", "export_format", "use_selection")


REFUSED_VALUES = {"export_anim_slide_to_zero": True}


class ExportCheckError(Exception):
    """Bad input for the check: ``str(exc)`` is a sentence saying what to do."""


def require_exporter() -> None:
    """ExportCheckError when Blender's glTF exporter (io_scene_gltf2) is not enabled."""
    if not hasattr(bpy.types, "EXPORT_SCENE_OT_gltf"):
        raise ExportCheckError(
            "Blender's glTF exporter is not enabled: enable the add-on \"glTF 2.0 format\" "
            "(io_scene_gltf2) in Preferences > Add-ons, then check again."
        )


def exporter_properties() -> dict:
    require_exporter()
    rna = bpy.ops.export_scene.gltf.get_rna_type()
    return {p.identifier: p for p in rna.properties if p.identifier != "rna_type"}


_TRUE = ("true", "yes", "on", "1")


_FALSE = ("false", "no", "off", "0")


def parse_exporter_options(pairs) -> dict:
    """``["NAME=VALUE", ...]`` -> {name: value} typed by the exporter's own property.

    Booleans accept true/false/yes/no/on/off/1/0, integers and floats their
    numbers, enums one of their identifiers. ExportCheckError names the
    option and says what it accepts.
    """
    props = exporter_properties()
    options: dict = {}
    for pair in pairs or ():
        name, sep, text = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ExportCheckError(
                f"--exporter-option {pair!r} is not NAME=VALUE "
                "(for example export_force_sampling=False)."
            )
        if name in FIXED_OPTIONS:
            raise ExportCheckError(
                f"--exporter-option {name} is set by export-check itself; leave it out."
            )
        prop = props.get(name)
        if prop is None:
            near = difflib.get_close_matches(name, list(props), n=3)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            raise ExportCheckError(
                f"--exporter-option {name} is not an option of Blender's glTF exporter{hint}."
            )
        options[name] = _typed(prop, name, text.strip())
        if name in REFUSED_VALUES and options[name] == REFUSED_VALUES[name]:
            raise ExportCheckError(
                f"--exporter-option {name}={text} shifts the exported times, so "
                "the file could not be compared frame by frame; leave it out."
            )
    return options


def _typed(prop, name: str, text: str):
    kind = prop.type
    try:
        if kind == 'BOOLEAN' and getattr(prop, "array_length", 0) == 0:
            if text.lower() in _TRUE:
                return True
            if text.lower() in _FALSE:
                return False
            raise ValueError
        if kind == 'INT':
            return int(text)
        if kind == 'FLOAT':
            return float(text)
        if kind == 'ENUM':
            ids = [e.identifier for e in prop.enum_items]
            if prop.is_enum_flag:
                values = {v.strip() for v in text.split("|") if v.strip()}
                if values - set(ids):
                    raise ValueError
                return values
            if text not in ids:
                raise ExportCheckError(
                    f"--exporter-option {name}={text}: the value must be one of {', '.join(ids)}."
                )
            return text
        if kind == 'STRING':
            return text
    except ValueError:
        raise ExportCheckError(
            f"--exporter-option {name}={text}: {name} takes a {kind.lower()} value."
        ) from None
    raise ExportCheckError(f"--exporter-option {name} ({kind.lower()}) cannot be set from text.")


def default_options(objects, options: dict) -> dict:
    """The exporter's defaults, except cameras and lights are exported when they are checked.

    The exporter leaves cameras and lights out by default (``export_cameras``,
    ``export_lights`` False in 4.x/5.x): checking a camera that is not in the
    file would be meaningless, so they are switched on unless given.
    """
    out = dict(options)
    if any(o.type == 'CAMERA' for o in objects):
        out.setdefault("export_cameras", True)
    if any(o.type == 'LIGHT' for o in objects):
        out.setdefault("export_lights", True)
    return out


def export_gltf(context, objects, folder: str, options: dict, only_these: bool) -> str:
    """Export with Blender's exporter into ``folder``; the .gltf path.

    ``only_these``: select exactly ``objects`` and export the selection. The
    selection, active object and current frame are restored in ``finally``.
    """
    path = os.path.join(folder, "export_check.gltf")
    view_layer = context.view_layer
    was_selected = [o for o in view_layer.objects if o.select_get()]
    was_active = view_layer.objects.active
    scene = context.scene
    frame, subframe = scene.frame_current, scene.frame_subframe
    try:
        if only_these:
            for o in view_layer.objects:
                o.select_set(False)
            in_layer = set(view_layer.objects)
            for o in objects:
                if o in in_layer:  # others cannot be selected (and are not exported)
                    o.select_set(True)
        try:
            result = bpy.ops.export_scene.gltf(
                filepath=path, export_format='GLTF_SEPARATE', use_selection=only_these, **options
            )
        except (RuntimeError, TypeError) as exc:
            raise ExportCheckError(f"Blender's glTF exporter failed: {str(exc).strip()}") from None
        if 'FINISHED' not in result or not os.path.exists(path):
            raise ExportCheckError(
                f"Blender's glTF exporter did not write a file (it returned {sorted(result)})."
            )
    finally:
        if only_these:
            for o in view_layer.objects:
                o.select_set(o in was_selected)
        view_layer.objects.active = was_active
        scene.frame_set(frame, subframe=subframe)
    return path


def negative_frames(options: dict) -> str:
    """What the exporter does with animation before frame 0 (``export_negative_frame``):
    'SLIDE' (its default: the animation moved to start at 0 s), 'CROP' (cut at frame 0),
    or '' for an exporter without the option (3.4 writes their times, negative ones too)."""
    prop = exporter_properties().get("export_negative_frame")
    if prop is None:
        return ""
    return str(options.get("export_negative_frame", prop.default))


def exporter_version() -> str:
    import addon_utils

    for module in addon_utils.modules():
        if module.__name__ == "io_scene_gltf2":
            return ".".join(str(v) for v in module.bl_info.get("version", ()))
    return ""


def written_bytes(gltf_path: str) -> int:
    """Size of the .gltf and every file it refers to (the .bin, textures)."""
    doc = gltf_read.load(gltf_path)
    folder = os.path.dirname(gltf_path)
    total = os.path.getsize(gltf_path)
    for item in doc.json.get("buffers", []) + doc.json.get("images", []):
        uri = item.get("uri", "")
        if uri and not uri.startswith("data:"):
            file = os.path.join(folder, uri)
            if os.path.exists(file):
                total += os.path.getsize(file)
    return total
