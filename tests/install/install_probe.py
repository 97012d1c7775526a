# SPDX-License-Identifier: GPL-3.0-or-later
"""Install QuatBake like a user would, inside a Blender, and write what happened as JSON.

Run by tests/install/test_install.py in a subprocess, never imported by pytest:

    python install_probe.py --mode extension --zip Z --out J          (bpy module 4.2+)
    blender -b --factory-startup --python-exit-code 1 --python install_probe.py \
        -- --mode legacy --zip Z --out J                               (Blender program)

or the same without ``-b`` under ``xvfb-run``: with a window, the overlay really
adds its draw handler, so its removal is checked too (the probe quits Blender).

The caller points BLENDER_USER_RESOURCES / _CONFIG / _SCRIPTS / _EXTENSIONS at a
temporary folder, so the real user configuration is never touched.

``extension`` mode installs the zip into the ``user_default`` repository with
Blender's own extension operator and enables it on install; ``legacy`` mode uses
Preferences > Add-ons > Install (``preferences.addon_install``) and
``addon_utils.enable``. Both then: check the registration, bake one keyed
object with the installed copy, disable, check that nothing is left behind,
enable and disable a second time (a clean unregister must allow it), and remove
the add-on. Every step is recorded; the pytest side does the asserting.
"""
import argparse
import json
import os
import sys
import traceback

import bpy  # first: with the bpy module, importing bpy puts addon_utils on sys.path

# isort: split
import addon_utils

# The operators promised in docs/api.md.
OPERATORS = ("bake", "revert", "analyze")
# Test-only or heavy libraries the add-on must not need (Blender bundles numpy only).
HEAVY_MODULES = {"scipy", "quaternion", "mpmath", "hypothesis", "pytest", "matplotlib", "pandas"}
# Types on which a property named like the add-on must not survive unregister.
PROPERTY_HOSTS = ("Scene", "Object", "WindowManager", "Action", "ViewLayer", "Screen")


def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=("extension", "legacy"), required=True)
    parser.add_argument("--zip", required=True)
    parser.add_argument("--out", required=True)
    return parser.parse_args(argv)


# --- instrumentation: record what the add-on registers (the real functions still run) ---

_timer_functions = []
_draw_handles = []
_restore = []  # undo functions for the instrumentation, run before the probe exits


def _record_timers():
    register = bpy.app.timers.register

    def recording_register(function, *args, **kwargs):
        _timer_functions.append(function)
        return register(function, *args, **kwargs)

    bpy.app.timers.register = recording_register
    _restore.append(lambda: setattr(bpy.app.timers, "register", register))


def _record_draw_handlers():
    # Concrete space types only: draw_handler_add is a classmethod of bpy.types.Space
    # that reads the space type from the class it is called on. Bind every original
    # first, so no wrapper ever calls another wrapper.
    originals = {
        getattr(bpy.types, name): getattr(bpy.types, name).draw_handler_add
        for name in dir(bpy.types)
        if name.startswith("Space") and name != "Space"
        and hasattr(getattr(bpy.types, name), "draw_handler_add")
    }
    for cls, add in originals.items():
        def recording_add(*args, _add=add, _cls=cls):
            handle = _add(*args)
            # args = (callback, args, region_type, draw_type)
            _draw_handles.append((_cls, handle, args[2], _owner_module(args[0])))
            return handle

        own = cls.__dict__.get("draw_handler_add")
        setattr(cls, "draw_handler_add", recording_add)
        # Leaving wrappers on Blender's types makes bpy 4.5 hang at interpreter exit.
        if own is None:
            _restore.append(lambda cls=cls: delattr(cls, "draw_handler_add"))
        else:
            _restore.append(lambda cls=cls, own=own: setattr(cls, "draw_handler_add", own))


def _owner_module(function) -> str:
    function = getattr(function, "func", function)  # functools.partial
    return getattr(function, "__module__", "") or ""


# --- snapshots ---

def handler_snapshot() -> dict:
    """bpy.app.handlers lists -> [(id, module, name)] of their functions."""
    snap = {}
    for name in dir(bpy.app.handlers):
        value = getattr(bpy.app.handlers, name)
        if isinstance(value, list):
            snap[name] = [
                (id(f), _owner_module(f), getattr(f, "__name__", repr(f))) for f in value
            ]
    return snap


def leftover_handlers(before: dict, module_prefix: str) -> list:
    """Handlers added since ``before`` or owned by the add-on's modules.

    Handlers Blender's own extension system adds while installing are not the
    add-on's; only functions whose ``__module__`` lies in the add-on count.
    """
    found = []
    for name, entries in handler_snapshot().items():
        old_ids = {e[0] for e in before.get(name, [])}
        for fid, module, fname in entries:
            if _in_addon(module, module_prefix):
                state = "added" if fid not in old_ids else "present"
                found.append(f"bpy.app.handlers.{name}: {module}.{fname} ({state})")
    return found


def leftover_timers(module_prefix: str) -> list:
    return [
        f"{_owner_module(f)}.{getattr(f, '__name__', repr(f))}"
        for f in _timer_functions
        if _in_addon(_owner_module(f), module_prefix) and bpy.app.timers.is_registered(f)
    ]


def leftover_draw_handlers() -> list:
    found = []
    for cls, handle, region_type, module in _draw_handles:
        try:
            cls.draw_handler_remove(handle, region_type)
        except ValueError:
            continue  # already removed by the add-on: good
        found.append(f"{cls.__name__} draw handler from {module}")
    return found


def _in_addon(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def addon_classes(prefix: str) -> list:
    """Blender classes (operators, panels, property groups ...) defined in the add-on's modules."""
    found = []
    for name, module in list(sys.modules.items()):
        if not _in_addon(name, prefix):
            continue
        for value in list(vars(module).values()):
            if (isinstance(value, type) and issubclass(value, bpy.types.bpy_struct)
                    and value.__module__ == name):
                found.append(value)
    return found


def registered_state(prefix: str) -> dict:
    classes = [c for c in addon_classes(prefix) if getattr(c, "is_registered", False)]
    quatbake_ops = getattr(bpy.ops, "quatbake", None)
    operators = {}
    for name in OPERATORS:
        try:
            getattr(quatbake_ops, name).get_rna_type()
            operators[name] = True
        except (AttributeError, KeyError):
            operators[name] = False
    return {
        "operators": operators,
        "classes": sorted(c.__name__ for c in classes),
        "panels": sorted(
            getattr(c, "bl_idname", "") or c.__name__ for c in classes if issubclass(c, bpy.types.Panel)
        ),
        "properties": sorted(
            f"{host}.{prop.identifier}"
            for host in PROPERTY_HOSTS
            for prop in getattr(bpy.types, host).bl_rna.properties
            if "quatbake" in prop.identifier.lower()
        ),
        "addon_keymap_items": sorted(
            item.idname
            for km in bpy.context.window_manager.keyconfigs.addon.keymaps
            for item in km.keymap_items
            if item.idname.startswith("quatbake.")
        ) if bpy.context.window_manager.keyconfigs.addon else [],
    }


def bake_smoke() -> dict:
    """Bake one Euler-keyed object with the installed copy (proves every shipped file is there)."""
    scene = bpy.context.scene
    obj = bpy.data.objects.new("ProbeCube", None)
    scene.collection.objects.link(obj)
    obj.rotation_mode = 'XYZ'
    for frame, z in ((1, 0.0), (11, 3.0)):
        obj.rotation_euler = (0.0, 0.0, z)
        obj.keyframe_insert("rotation_euler", frame=frame)
    for other in scene.objects:
        other.select_set(other is obj)
    bpy.context.view_layer.objects.active = obj
    try:
        result = sorted(bpy.ops.quatbake.bake())
    except Exception as err:  # noqa: BLE001 - recorded for the test to show
        result = [f"{type(err).__name__}: {err}"]
    finally:
        bpy.data.objects.remove(obj)
    return {"result": result}


# --- install / enable / disable / remove, per mode ---

def module_prefix_for(mode: str) -> str:
    return "bl_ext.user_default.quatbake" if mode == "extension" else "quatbake"


def install_and_enable(mode: str, zip_path: str) -> dict:
    if mode == "extension":
        result = bpy.ops.extensions.package_install_files(
            filepath=zip_path, repo='user_default', enable_on_install=True
        )
    else:
        result = bpy.ops.preferences.addon_install(filepath=zip_path)
        addon_utils.enable("quatbake", default_set=True, handle_error=_raise)
    module = module_prefix_for(mode)
    return {
        "result": sorted(result),
        "module": module,
        "enabled": module in bpy.context.preferences.addons,
        "installed_path": _installed_path(module),
    }


def _raise(err):
    raise err


def _installed_path(module: str):
    mod = sys.modules.get(module)
    return getattr(mod, "__file__", None)


def disable(mode: str) -> None:
    addon_utils.disable(module_prefix_for(mode), default_set=True, handle_error=_raise)


def enable(mode: str) -> None:
    addon_utils.enable(module_prefix_for(mode), default_set=True, handle_error=_raise)


def remove(mode: str) -> dict:
    module = module_prefix_for(mode)
    if mode == "extension":
        repo_index = [r.module for r in bpy.context.preferences.extensions.repos].index("user_default")
        result = bpy.ops.extensions.package_uninstall(repo_index=repo_index, pkg_id="quatbake")
        folder = os.path.join(bpy.context.preferences.extensions.repos[repo_index].directory, "quatbake")
    else:
        # Blender 3.4's addon_remove ends with context.area.tag_redraw(); a
        # background session has no area unless one from the startup screen is given.
        window = bpy.context.window_manager.windows[0]
        with bpy.context.temp_override(window=window, area=window.screen.areas[0]):
            result = bpy.ops.preferences.addon_remove(module=module)
        folder = os.path.join(bpy.utils.user_resource('SCRIPTS', path="addons"), "quatbake")
    return {
        "result": sorted(result),
        "folder": folder,
        "folder_exists": os.path.exists(folder),
        "still_listed": module in {m.__name__ for m in addon_utils.modules(refresh=True)},
    }


def clean_state(mode: str, handlers_before: dict) -> dict:
    prefix = module_prefix_for(mode)
    return {
        "enabled": prefix in bpy.context.preferences.addons,
        "registered": registered_state(prefix),
        "handlers": leftover_handlers(handlers_before, prefix),
        "timers": leftover_timers(prefix),
        "draw_handlers": leftover_draw_handlers(),
        # How many the add-on added in all (headless, the overlay may add none).
        "draw_handlers_added": len(_draw_handles),
        "timers_added": len(_timer_functions),
    }


def main() -> None:
    args = parse_args()
    report = {
        "blender_version": bpy.app.version_string,
        "background": bpy.app.background,
        "user_scripts": bpy.utils.user_resource('SCRIPTS'),
        "user_config": bpy.utils.user_resource('CONFIG'),
        "steps": {},
    }
    steps = report["steps"]
    try:
        _record_timers()
        _record_draw_handlers()
        handlers_before = handler_snapshot()
        steps["install"] = install_and_enable(args.mode, args.zip)
        steps["registered"] = registered_state(module_prefix_for(args.mode))
        # Modules a stray absolute import would pull in from the developer's copy.
        steps["dev_copy_modules"] = sorted(
            m for m in sys.modules if m == "quatbake" or m.startswith("quatbake.")
        ) if args.mode == "extension" else []
        # The extension ships with numpy alone: test oracles must not be imported on enable.
        steps["heavy_modules"] = sorted(
            m for m in sys.modules if m.split(".")[0] in HEAVY_MODULES
        )
        if hasattr(bpy.context.scene, "quatbake") and hasattr(bpy.context.scene.quatbake, "show_overlay"):
            bpy.context.scene.quatbake.show_overlay = True  # let the overlay add its handlers, if any
        steps["bake"] = bake_smoke()
        disable(args.mode)
        steps["after_disable"] = clean_state(args.mode, handlers_before)
        enable(args.mode)
        steps["registered_again"] = registered_state(module_prefix_for(args.mode))
        disable(args.mode)
        steps["after_second_disable"] = clean_state(args.mode, handlers_before)
        steps["remove"] = remove(args.mode)
    except Exception:  # noqa: BLE001 - the traceback is the test's failure message
        report["error"] = traceback.format_exc()
    finally:
        for undo in reversed(_restore):
            undo()
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=1)
    if not bpy.app.background:
        bpy.ops.wm.quit_blender()  # a window session (under Xvfb) would otherwise stay open


main()
