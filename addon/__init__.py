# SPDX-License-Identifier: GPL-3.0-or-later
"""Everything that touches bpy: Blender adapted to ``core``, one feature per package.

Layers, each importing only the ones before it (tests/core/test_import_graph.py):

1. ``versions.py``, ``animdata/``, ``transform.py``, ``record.py``, ``overrides.py``,
   ``keyed.py``, ``lazy.py``:
   the storage layer. Every difference between releases (``versions``; where F-curves live:
   ``animdata.actions``); Blender's animation data as arrays; one animated transform
   (an object or a pose bone); what a bake recorded; what is keyed.
2. ``ui/``: what every panel and operator shares (settings, polls, texts, the main panel).
3. The features, each with its engine, operators and panel: ``analyze/``,
   ``overlay/``, ``export_check/`` and ``demo.py`` (the demo scene), side by side;
4. ``bake/``, a feature one layer up: its operator refreshes the analysis;
5. ``cli/``: the command line.

``report_results.py`` is the analysis entries' earlier module path, kept for scripts.

``_MODULE_NAMES`` is the one ordered registration list: PropertyGroups before what
points at them, the main panel before its sub-panels, the sub-panels in the order
of the work; unregistered in reverse.
"""
import importlib

# Imported lazily (register() only), so `import quatbake.addon.animdata` in a
# tool registers nothing.
_MODULE_NAMES = (
    "ui.props",
    "overrides",
    "bake.ops",
    "bake.presets",
    "ui.panel",
    "analyze.ops",
    "analyze.panel",
    "overlay.draw",
    "bake.panel",
    "overlay.panel",
    "analyze.export",
    "export_check.ops",
    "export_check.panel",
    "demo",
    "ui.translations",
)


def _modules():
    return [importlib.import_module(f".{name}", __name__) for name in _MODULE_NAMES]


def register() -> None:
    for module in _modules():
        module.register()


def unregister() -> None:
    for module in reversed(_modules()):
        module.unregister()

