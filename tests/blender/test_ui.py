"""The QuatBake panel's registration and the Simplified Chinese translation.

Drawing needs a window, so the panel is drawn for real in tests/gui; here:
where it is registered, and that every string the UI introduces is translated.
"""
import os

import bpy
import pytest

import quatbake
from quatbake.addon import record
from quatbake.addon.bake import presets
from quatbake.addon.ui import counts as messages
from quatbake.addon.ui import props, translations

from in_chinese import needs_translations

pytestmark = pytest.mark.bpy

SCENE_SETTINGS_SHOWN = props.SETTING_NAMES + (
    "has_last_bake", "last_objects_baked", "last_bones_baked", "last_bones_rig",
    "last_frames_written", "last_max_deviation_deg",
    "compare_method", "preset_name", "clip", "legend_still", "legend_slow", "legend_fast",
    "legend_fastest", "legend_long_arc", "legend_ghost",
)
# Text the panel draws itself (button texts and the summary's format strings).
DRAWN_TEXT = (
    "Re-bake", "Revert", "No bake in this scene yet", "Last bake", "Objects baked: {:d}",
    "Frames written: {:d}", "Largest difference: {:.3f}\u00b0", "No presets found",
    "Select at least one object", "Presets", "{} (changed)", "{}: {:d} keys",
    "Total: {}, {:d} keys per channel", "{} plays only NLA clips: choose the Clip to bake.",
    "Left as they were: {} (nothing to bake; the notes say why)",
    "...and {:d} more armatures",
)


def test_main_panel_is_in_both_sidebars(clean_blender):
    view3d = bpy.types.QUATBAKE_PT_main
    graph = bpy.types.QUATBAKE_PT_main_graph
    assert (view3d.bl_space_type, view3d.bl_region_type, view3d.bl_category) == \
        ('VIEW_3D', 'UI', "QuatBake")
    assert (graph.bl_space_type, graph.bl_region_type, graph.bl_category) == \
        ('GRAPH_EDITOR', 'UI', "QuatBake")
    assert hasattr(bpy.types, "QUATBAKE_MT_presets")


def test_unregister_removes_the_ui(clean_blender):
    quatbake.unregister()
    try:
        for name in ("QUATBAKE_PT_main", "QUATBAKE_PT_main_graph", "QUATBAKE_MT_presets",
                     "QUATBAKE_OT_bake", "QUATBAKE_OT_revert", "QUATBAKE_OT_apply_preset"):
            assert not hasattr(bpy.types, name), name
    finally:
        quatbake.register()  # the fixture unregisters again


def _ui_strings() -> set:
    """Every label and tooltip QuatBake introduces: each of its registered classes (panels,
    menus, lists, property groups) and operators, with their own properties and enum
    items, as Blender stores them (a review found a dozen untranslated: the list was kept
    by hand), the scene's, objects' and bones' ``quatbake`` properties, and the texts the
    panels draw. Property groups are not in ``bpy.types`` by name: they are taken from
    ui.props itself (the overlay's display settings went untranslated, unseen here). The
    bake records' own fields (record.py) are the bake's bookkeeping, never drawn: only
    the Data API view lists them, in English."""
    strings = set(DRAWN_TEXT)
    for owner in (bpy.types.Scene, bpy.types.Object, bpy.types.PoseBone):
        pointer = owner.bl_rna.properties["quatbake"]
        strings.update((pointer.name, pointer.description))
    # The preset menu shows the shipped presets' names translated.
    strings.update(
        bpy.path.display_name(name) for name in os.listdir(presets.SHIPPED_PRESETS_DIR)
        if name.endswith(".py")
    )
    # Blender's own properties of every operator, panel, list and group: its catalogue's.
    inherited = {"filepath", "check_existing", "filter_glob", "remove_name", "remove_active"}
    for base in (bpy.types.Operator, bpy.types.Panel, bpy.types.UIList, bpy.types.Menu,
                 bpy.types.PropertyGroup):
        inherited |= {p.identifier for p in base.bl_rna.properties}
    classes = [getattr(bpy.types, n) for n in dir(bpy.types) if n.startswith("QUATBAKE_")]
    strings.update(getattr(cls, "bl_label", "") for cls in classes)
    rnas = [cls.bl_rna for cls in classes]
    rnas += [cls.bl_rna for cls in props.classes]
    records = {props.QUATBAKE_PG_object.bl_rna, props.QUATBAKE_PG_bone.bl_rna}
    operators = [getattr(bpy.ops.quatbake, op).get_rna_type() for op in dir(bpy.ops.quatbake)]
    strings.update(rna.name for rna in operators)
    for rna in rnas + operators:
        strings.add(rna.description)
        for prop in rna.properties:
            if prop.identifier in inherited or (rna in records and prop.identifier
                                                not in record.NOT_RECORD):
                continue
            strings.update((prop.name, prop.description))
            if prop.type == 'ENUM':
                for item in prop.enum_items:
                    strings.update((item.name, item.description))
    strings.discard("")
    return strings


def test_the_animation_menu_offers_convert_and_unregister_takes_it_away(clean_blender):
    from quatbake.addon.bake import ops

    def drawn():
        return ops.animation_menu in getattr(bpy.types.VIEW3D_MT_object_animation.draw,
                                             "_draw_funcs", ())

    assert drawn()
    quatbake.unregister()
    try:
        assert not drawn()
    finally:
        quatbake.register()


def test_every_ui_string_has_a_chinese_translation(clean_blender):
    missing = sorted(s for s in _ui_strings() if s not in translations.ZH_HANS)
    assert not missing, missing
    table = translations.translations_dict()
    for locale in ("zh_HANS", "zh_CN"):  # 4.0+ and 3.4 names of Simplified Chinese
        for text in _ui_strings():
            assert ("*", text) in table[locale] and ("Operator", text) in table[locale]


# Calls that translate their first argument (pgettext_* and the modules' aliases of them).
_TRANSLATING = {"iface_", "rpt_", "tip_", "pgettext_iface", "pgettext_tip", "pgettext_rpt",
                "report_text", "iface", "report", "tip"}
# ui.polls' calls that translate an argument, and where it is (a review: three greyed-out
# buttons' hints had no Chinese); the same for the error sentences' pieces: the operator's
# work in ui.guard's last net (guarded, unexpected's "then") and what Pose Mode with no
# bone selected was to do (ui.polls.no_bones_selected, bake.ops._no_bones).
_POLL_HINTS = {"poll_message": 1, "has_selection": 2, "guarded": 0, "unexpected": 2,
               "no_bones_selected": 1, "_no_bones": 2}
# Layout calls whose text= Blender translates, unless translate=False.
_LAYOUT = {"label", "operator", "prop", "popover", "menu", "prop_enum"}


def _translated_literals() -> set:
    """(file, line, text) of every string literal the add-on's own code hands to a
    translation: the first argument of iface_/rpt_/pgettext_*, the text of a
    ui.texts.wrapped_label (translated unless translate=False) and a layout call's text=.
    _ui_strings sees registered classes and DRAWN_TEXT, kept by hand: "Select objects and
    check their glTF export." (the Export Check panel's empty state) and two preset
    reports went untranslated, unseen by it (a walk of the interface in Chinese)."""
    import ast
    import pathlib

    root = pathlib.Path(quatbake.__file__).resolve().parent / "addon"
    found = set()
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = getattr(func, "id", None) or getattr(func, "attr", "")
            keywords = {k.arg: k.value for k in node.keywords}
            untranslated = getattr(keywords.get("translate"), "value", True) is False
            texts = []
            if name in _TRANSLATING and node.args:
                texts.append(node.args[0])
            elif name == "wrapped_label" and not untranslated:
                texts.append(node.args[2] if len(node.args) > 2 else keywords.get("text"))
            elif name in _LAYOUT and not untranslated:
                texts.append(keywords.get("text"))
            elif name in _POLL_HINTS:
                # ui.polls' greyed-out hints (translated there): poll_message(cls, text),
                # has_selection(cls, context, hint); guarded(doing) and the others above.
                at = _POLL_HINTS[name]
                texts.append(node.args[at] if len(node.args) > at else keywords.get("hint"))
            for text in texts:
                if isinstance(text, ast.Constant) and isinstance(text.value, str) \
                        and text.value.strip():
                    found.add((path.relative_to(root).as_posix(), node.lineno, text.value))
    return found


def test_every_literal_the_addon_translates_has_a_chinese_translation():
    found = _translated_literals()
    assert len(found) > 30, found          # the scan sees the add-on's code
    missing = sorted(f for f in found if f[2] not in translations.ZH_HANS)
    assert not missing, missing


def test_bake_and_revert_counts_have_chinese_translations():
    # The status-bar reports assemble their count from these ids (addon/ui/counts.py).
    missing = [s for s in messages.MESSAGE_IDS if s not in translations.ZH_HANS]
    assert not missing, missing


@pytest.mark.parametrize("baked", [False, True])
def test_every_legend_line_is_in_chinese_numbers_and_all(baked):
    """The overlay legend's lines (viewport corner and panel alike) are patterns
    translated before their numbers go in: each is in the Chinese table (a missing one
    raises here), and the Chinese lines carry the same numbers as the English ones."""
    from quatbake.addon.overlay.legend import Legend

    info = Legend(long_arc_count=3, fixed_long_arc_count=2 if baked else 0, spin_count=4,
                  step_count=5, cameras=["Cam"], objects=["Cam"],
                  baked_objects=["Cam"] if baked else [])
    english = info.lines(True)
    chinese = info.lines(True, lambda pattern: translations.ZH_HANS[pattern])
    assert [s for s, _t, _w in english] == [s for s, _t, _w in chinese]
    assert english[0][1] == ("Long way: 3, 2 fixed" if baked else "Long way: 3")
    for (_s, en, _w), (_s2, zh, _w2) in zip(english, chinese):
        assert zh != en and not any("a" <= c <= "z" for c in zh.replace("Blender", "")), zh
        assert [c for c in en if c.isdigit()] == [c for c in zh if c.isdigit()], (en, zh)
    none = Legend(objects=["A"]).lines(False, lambda pattern: translations.ZH_HANS[pattern])
    assert none[0][1] == "绕远路：无"


def test_chinese_translations_keep_format_placeholders():
    import string
    for msgid, msgstr in translations.ZH_HANS.items():
        fields = [f for _, f, spec, _ in string.Formatter().parse(msgid) if f is not None]
        fields_zh = [f for _, f, spec, _ in string.Formatter().parse(msgstr) if f is not None]
        assert fields == fields_zh, msgid


@pytest.fixture
def chinese(clean_blender):
    """The interface in Simplified Chinese (zh_HANS from 4.0, zh_CN before) for one test."""
    view = bpy.context.preferences.view
    locale = "zh_HANS" if "zh_HANS" in bpy.app.translations.locales else "zh_CN"
    old = (view.language, view.use_translate_interface)
    try:
        view.language = locale
        view.use_translate_interface = True
        yield
    finally:
        view.language, view.use_translate_interface = old


@needs_translations
def test_interface_shows_chinese_when_chosen(chinese):
    iface_ = bpy.app.translations.pgettext_iface
    assert iface_("Re-bake") == translations.ZH_HANS["Re-bake"]
    assert iface_("Re-bake Rotations", "Operator") == translations.ZH_HANS["Re-bake Rotations"]
    quatbake.unregister()
    try:
        assert iface_("Re-bake") == "Re-bake"  # unregistered with the add-on
    finally:
        quatbake.register()


@needs_translations
def test_words_blender_translates_too_are_shown_as_quatbake_means_them(chinese):
    """Blender's own catalogue answers first for a word it has: in Blender 3.4.1's
    Chinese the Revert button read 重新加载 (reload the file) and the Keys setting 关键体
    (shape keys), though QuatBake's table has 还原 and 关键帧 (a walk of the interface
    in Chinese). What QuatBake translates itself, and the buttons it labels, are looked
    up in its own context, where only its table is."""
    iface_ = bpy.app.translations.pgettext_iface
    # Blender's own word, where QuatBake's table has another one:
    assert iface_("Revert", "Operator") not in ("Revert", translations.ZH_HANS["Revert"])
    for word in ("Revert", "Keys", "Clip", "Fastest", "Ghosts", "Pin", "Turns", "Timing"):
        assert translations.iface(word) == translations.ZH_HANS[word], word
        assert iface_(word, translations.CONTEXT) == translations.ZH_HANS[word], word


def test_the_buttons_quatbake_labels_itself_use_its_own_context():
    """Every layout call with a text= of its own (translated by Blender, not by us) names
    translations.CONTEXT, so that Blender's own word for it cannot answer first."""
    import ast
    import pathlib

    root = pathlib.Path(quatbake.__file__).resolve().parent / "addon"
    missing = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or getattr(node.func, "attr", "") not in _LAYOUT:
                continue
            keywords = {k.arg: k.value for k in node.keywords}
            text = keywords.get("text")
            if text is None or getattr(keywords.get("translate"), "value", True) is False:
                continue
            if not any(isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.strip()
                       for n in ast.walk(text)):
                continue
            if "text_ctxt" not in keywords:
                missing.append(f"{path.relative_to(root)}:{node.lineno}")
    assert not missing, missing


# Property names of QuatBake's that Blender 3.4.1's own Chinese catalogue also has, in the
# default context, with another word (measured on Debian's blender.mo): drawn by Blender
# from the property (a layout.prop without text=), its word answers first.
_BLENDER_HAS_ANOTHER_WORD = {"Overlay", "Compare", "Ghosts", "Pin", "Fastest", "Keys",
                             "Custom Range", "End", "Turns", "Timing", "Clip", "Revert"}


def test_settings_blender_also_names_are_drawn_with_quatbake_s_own_label(clean_blender):
    """A layout.prop of a QuatBake setting with no text= shows the property's name as
    Blender translates it, in the default context, where Blender's catalogue answers
    first: the Re-bake panel's Clip field read 剪辑(裁切) (a movie clip) though the
    context commit named that very word. Such settings are drawn with text= and
    text_ctxt=translations.CONTEXT, as labelled_prop does."""
    import ast
    import pathlib

    names = {}
    for cls in props.classes:
        for prop in cls.bl_rna.properties:
            names.setdefault(prop.identifier, set()).add(prop.name)
    root = pathlib.Path(quatbake.__file__).resolve().parent / "addon"
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or getattr(node.func, "attr", "") != "prop":
                continue
            if len(node.args) < 2 or not isinstance(node.args[1], ast.Constant):
                continue
            if any(k.arg == "text" for k in node.keywords):
                continue
            clash = names.get(node.args[1].value, set()) & _BLENDER_HAS_ANOTHER_WORD
            if clash:
                found.append(f"{path.relative_to(root)}:{node.lineno} {sorted(clash)}")
    assert not found, found


def test_the_panel_the_bake_and_the_command_line_offer_the_same_choices():
    """Each choice is spelled in the panel's items, the bake's settings, core and the CLI
    (which imports neither, so that a usage error never loads Blender): one added or
    renamed in one place only would be offered and then refused."""
    from quatbake.addon.bake import settings as bake
    from quatbake.addon.cli import args as cli
    from quatbake.core import interp, turns

    def ids(items):
        return [item[0] for item in items]

    assert ids(props.METHOD_ITEMS) == list(bake.METHODS) == [m.upper() for m in interp.METHODS] \
        == [m.upper() for m in cli.METHODS]
    assert ids(props.LOCATION_ITEMS) == list(bake.LOCATION_METHODS) \
        == [m.upper() for m in cli.LOCATION_METHODS]
    assert sorted(ids(props.KEY_INTERPOLATION_ITEMS)) == sorted(bake.KEY_INTERPOLATIONS) \
        == sorted(m.upper() for m in cli.KEY_INTERPOLATIONS)
    assert ids(props.OUTPUT_MODE_ITEMS) == list(bake.OUTPUT_MODES)
    assert ids(props.TURNS_ITEMS) == list(bake.TURNS) == list(turns.TURN_SETTINGS)
    assert ids(props.TIMING_ITEMS) == list(bake.TIMINGS) == list(turns.TIMING_SETTINGS)
    assert list(cli.CONVERT_MODES) == list(bake.CONVERT_MODES)
