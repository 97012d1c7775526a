# SPDX-License-Identifier: GPL-3.0-or-later
"""Bake presets: the ones shipped in ``presets/operator/quatbake.bake/`` and the
ones users save from the redo panel.

Two ways in, because Blender versions differ:

- Blender 4.2+ has ``bpy.utils.register_preset_path``: registering the add-on's
  root folder makes the shipped files appear in the redo panel's own preset
  menu of ``quatbake.bake`` (Blender's ``WM_MT_operator_presets``).
- Blender 3.4 - 4.1 lack it, and their redo-panel menu only searches the user's
  and Blender's script folders. Rather than copying files into the user's
  folders, the add-on has its own menu (``QUATBAKE_MT_presets``, in the panel
  header) that lists the shipped folder plus the user's saved presets, on
  every version. Choosing an entry runs ``quatbake.apply_preset``, which copies
  the preset's values into the scene settings, so the panel's Re-bake button
  uses them.

``quatbake.apply_preset`` reads a preset file without executing it: a preset
is a list of ``op.<setting> = <literal>`` lines (that is what Blender writes
when a user saves one), parsed with :mod:`ast`. Executing a file to fill in
scene settings would mean faking ``bpy.context.active_operator``.

The menu is the one entry point (the Re-bake panel's first row) and shows the
preset last applied (``scene.quatbake.preset_name``, "(changed)" once a
setting differs from it). Like Blender's own preset menus it ends with a name
field and "+" (``quatbake.preset_add``, Blender's ``AddPresetBase``), and
each of the user's own presets has a "-"; the shipped ones cannot be removed.
A saved preset is the scene's bake settings in the form Blender writes for an
operator preset (``op = bpy.context.active_operator``), so on 4.2+ it also
works from the redo panel's preset menu.
"""
import ast
import os

import bpy
from bl_operators.presets import AddPresetBase
from bpy.props import StringProperty
from bpy.types import Menu, Operator

from .. import versions
from ..ui import translations
from ..ui.guard import guarded
from ..ui.polls import has_settings
from ..ui.props import SETTING_NAMES
from ..ui.texts import one_line_tooltips

iface_, rpt_ = translations.iface, translations.report

# The add-on's root folder (the one holding ``presets/``), whatever the package
# is called (``quatbake``, ``bl_ext.user_default.quatbake`` ...): two floors above this file.
ADDON_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PRESET_SUBDIR = os.path.join("operator", "quatbake.bake")
SHIPPED_PRESETS_DIR = os.path.join(ADDON_ROOT, "presets", PRESET_SUBDIR)

_registered_preset_path = False


def preset_search_paths() -> list:
    """Folders holding bake presets: the shipped one first, then Blender's
    preset folders for ``quatbake.bake`` (where saved presets go), each once."""
    paths = [SHIPPED_PRESETS_DIR]
    paths.extend(bpy.utils.preset_paths(PRESET_SUBDIR))
    unique, seen = [], set()
    for path in paths:
        key = os.path.normcase(os.path.realpath(path))
        if key not in seen and os.path.isdir(path):
            seen.add(key)
            unique.append(path)
    return unique


def preset_files() -> dict:
    """{display name: file path} of every bake preset; a saved preset with the
    same file name as a shipped one comes later and replaces it."""
    files = {}
    for directory in preset_search_paths():
        for name in sorted(os.listdir(directory)):
            if name.lower().endswith(".py") and not name.startswith("."):
                files[bpy.path.display_name(name)] = os.path.join(directory, name)
    return files


def is_shipped(filepath: str) -> bool:
    """Whether ``filepath`` is one of the presets shipped with the add-on."""
    folder = os.path.normcase(os.path.realpath(os.path.dirname(filepath)))
    return folder == os.path.normcase(os.path.realpath(SHIPPED_PRESETS_DIR))


_VALUES_CACHE: dict = {}


def cached_preset_values(filepath: str) -> dict | None:
    """read_preset_values, remembered per file and modification time (the panel
    asks on every redraw); None when the file cannot be read."""
    try:
        stamp = os.path.getmtime(filepath)
    except OSError:
        return None
    hit = _VALUES_CACHE.get(filepath)
    if hit is None or hit[0] != stamp:
        try:
            hit = (stamp, read_preset_values(filepath))
        except (OSError, ValueError):
            hit = (stamp, None)
        _VALUES_CACHE[filepath] = hit
    return hit[1]


def active_preset_label(settings) -> str:
    """The preset menu's text: the preset last applied, "(changed)" when a
    setting differs from it since, or "Presets" before any."""
    name = settings.preset_name
    if not name:
        return iface_("Presets")
    path = preset_files().get(name)
    values = cached_preset_values(path) if path else None
    if values is None:
        return iface_(name)
    known = settings.bl_rna.properties.keys()
    changed = any(getattr(settings, k) != v for k, v in values.items() if k in known)
    return iface_("{} (changed)").format(iface_(name)) if changed else iface_(name)


def read_preset_values(filepath: str) -> dict:
    """The settings a preset file assigns: {property name: value}.

    Accepts the form Blender writes (``import bpy``,
    ``op = bpy.context.active_operator``, then ``op.name = literal`` lines) and
    raises ValueError naming the file and line for anything else, so a file is
    never half-applied.
    """
    with open(filepath, encoding="utf-8") as handle:
        source = handle.read()
    try:
        tree = ast.parse(source, filename=filepath)
    except SyntaxError as err:
        raise ValueError(f"Preset {filepath!r} is not valid Python (line {err.lineno}).") from err
    values = {}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "op"
        ):
            continue  # op = bpy.context.active_operator
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Attribute)
            and isinstance(node.targets[0].value, ast.Name)
            and node.targets[0].value.id == "op"
        ):
            try:
                values[node.targets[0].attr] = ast.literal_eval(node.value)
            except ValueError as err:
                raise ValueError(
                    f"Preset {filepath!r}, line {node.lineno}: the value of "
                    f"op.{node.targets[0].attr} is not a plain constant."
                ) from err
            continue
        raise ValueError(
            f"Preset {filepath!r}, line {node.lineno}: only 'op.<setting> = <value>' "
            "lines are allowed in a QuatBake preset."
        )
    return values


def apply_values(settings, values: dict) -> list:
    """Assign ``values`` to ``settings`` (all or nothing); returns the names it
    skipped because ``settings`` has no such property (e.g. a preset saved by a
    newer QuatBake). Raises ValueError and leaves ``settings`` unchanged when a
    value does not fit its property."""
    known = settings.bl_rna.properties.keys()
    skipped = sorted(name for name in values if name not in known)
    usable = {name: value for name, value in values.items() if name in known}
    before = {name: getattr(settings, name) for name in usable}
    for name, value in usable.items():
        try:
            setattr(settings, name, value)
        except (TypeError, ValueError) as err:
            for old_name, old_value in before.items():
                setattr(settings, old_name, old_value)
            raise ValueError(f"{name} = {value!r} is not a valid value ({err})") from err
    return skipped


class QUATBAKE_OT_apply_preset(Operator):
    """Copy this preset's values into the scene's QuatBake settings (the Re-bake
    button uses them)"""

    bl_idname = "quatbake.apply_preset"
    bl_label = "Apply Bake Preset"
    bl_options = {'REGISTER', 'UNDO', 'INTERNAL'}

    filepath: StringProperty(
        name="Preset File", subtype='FILE_PATH', options={'SKIP_SAVE', 'HIDDEN'},
        description="Path of the preset file to apply",
    )

    @classmethod
    def poll(cls, context) -> bool:
        return has_settings(cls, context)

    @guarded("Apply Bake Preset")
    def execute(self, context):
        name = bpy.path.display_name(os.path.basename(self.filepath))
        if not os.path.isfile(self.filepath):
            self.report({'ERROR'}, rpt_("Preset file {!r} does not exist").format(self.filepath))
            return {'CANCELLED'}
        try:
            skipped = apply_values(context.scene.quatbake, read_preset_values(self.filepath))
        except (OSError, ValueError) as err:
            self.report({'ERROR'}, rpt_("Preset \"{}\" was not applied: {}").format(name, err))
            return {'CANCELLED'}
        if skipped:
            self.report(
                {'WARNING'},
                rpt_("Preset \"{}\" sets settings QuatBake does not have, ignored: {}").format(
                    name, ", ".join(skipped)
                ),
            )
        context.scene.quatbake.preset_name = name
        self.report({'INFO'}, rpt_("Applied preset \"{}\" to the scene settings").format(name))
        return {'FINISHED'}


def preset_text(settings) -> str:
    """What a user preset file holds: every bake setting, as Blender writes an
    operator preset (so Blender's redo-panel menu can apply it too)."""
    lines = ["import bpy", "op = bpy.context.active_operator", ""]
    for name in SETTING_NAMES:
        lines.append(f"op.{name} = {getattr(settings, name)!r}")
    return "\n".join(lines) + "\n"


class QUATBAKE_OT_preset_add(AddPresetBase, Operator):
    """Save the scene's bake settings as a preset of your own, or remove one"""

    bl_idname = "quatbake.preset_add"
    bl_label = "Add Bake Preset"
    preset_menu = "QUATBAKE_MT_presets"
    preset_subdir = PRESET_SUBDIR

    @classmethod
    def poll(cls, context) -> bool:
        return has_settings(cls, context)

    def add(self, context, filepath):
        # AddPresetBase calls this with the file to write in the user's
        # preset folder (presets/operator/quatbake.bake/).
        with open(filepath, "w", encoding="utf-8") as handle:
            handle.write(preset_text(context.scene.quatbake))

    @guarded("Add Bake Preset")
    def execute(self, context):
        settings = context.scene.quatbake
        removing = self.remove_name or self.remove_active
        if removing:
            path = preset_files().get(self.name)
            if path is not None and is_shipped(path):
                self.report({'WARNING'}, rpt_("Preset \"{}\" comes with QuatBake and cannot be "
                                              "removed").format(self.name))
                return {'CANCELLED'}
        elif settings.method == 'LERP':
            self.report({'ERROR'}, rpt_("A bake preset cannot use Lerp (it is for comparisons "
                                        "only): choose Nlerp, Slerp or Squad first"))
            return {'CANCELLED'}
        result = super().execute(context)
        if 'FINISHED' in result:
            if removing:
                if settings.preset_name == self.name:
                    settings.preset_name = ""
            elif self.name.strip():
                settings.preset_name = bpy.path.display_name(self.as_filename(self.name))
        return result


class QUATBAKE_MT_presets(Menu):
    """Bake presets; choosing one copies its values into the scene settings"""

    bl_idname = "QUATBAKE_MT_presets"
    bl_label = "Bake Presets"

    def draw(self, context):
        layout = self.layout
        files = preset_files()
        col = layout.column(align=True)
        if not files:
            col.label(text="No presets found", text_ctxt=translations.CONTEXT)
        active = context.scene.quatbake.preset_name
        for name, filepath in files.items():
            row = col.row(align=True)
            # Shipped presets have translated names; a user's own keep theirs.
            props = row.operator(QUATBAKE_OT_apply_preset.bl_idname, text=iface_(name),
                                 translate=False,
                                 icon='CHECKMARK' if name == active else 'BLANK1')
            props.filepath = filepath
            if not is_shipped(filepath):
                props = row.operator(QUATBAKE_OT_preset_add.bl_idname, text="", icon='REMOVE')
                props.name = name
                props.remove_name = True
        layout.separator()
        row = layout.row()
        wm = context.window_manager
        row.prop(wm, "preset_name", text="")
        props = row.operator(QUATBAKE_OT_preset_add.bl_idname, text="", icon='ADD')
        props.name = wm.preset_name


def draw_preset_selector(layout, context) -> None:
    """The one way into the presets: a menu button naming the active preset."""
    layout.menu(QUATBAKE_MT_presets.bl_idname, icon='PRESET',
                text=active_preset_label(context.scene.quatbake))


classes = one_line_tooltips(QUATBAKE_OT_apply_preset, QUATBAKE_OT_preset_add, QUATBAKE_MT_presets)
_register_classes, _unregister_classes = bpy.utils.register_classes_factory(classes)


def register() -> None:
    global _registered_preset_path
    _register_classes()
    # Blender 4.2+: the redo panel's preset menu of quatbake.bake then lists the
    # shipped presets too. 3.4 - 4.1 have no such call (see the module docstring).
    _registered_preset_path = versions.add_preset_path(ADDON_ROOT)


def unregister() -> None:
    global _registered_preset_path
    if _registered_preset_path:
        versions.remove_preset_path(ADDON_ROOT)
    _registered_preset_path = False
    _unregister_classes()
