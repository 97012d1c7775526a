# SPDX-License-Identifier: GPL-3.0-or-later
"""Everything that touches bpy. Adapts Blender to ``core``.

Each submodule listed in ``_MODULES`` has register()/unregister(); they run in
this order and unregister in reverse (PropertyGroups before what points at them).
"""
import importlib

# Names of submodules, in registration order. Imported lazily so that
# `import quatbake.addon.animdata` in a tool does not register anything.
_MODULE_NAMES = (
    "props",
    "ops_bake",
    "presets",
    "ui",
    "ops_analyze",
    "overlay",
    "ui_rebake",
    "export_report",
    "ops_export_check",
    "translations",
)


def _modules():
    return [importlib.import_module(f".{name}", __name__) for name in _MODULE_NAMES]


def register() -> None:
    for module in _modules():
        module.register()


def unregister() -> None:
    for module in reversed(_modules()):
        module.unregister()
