# SPDX-License-Identifier: GPL-3.0-or-later
"""``python -m quatbake demo|report|bake ...`` (see addon/cli/).

Also works as a script inside a Blender program, where QuatBake is not
pip-installed: ``blender -b --python-exit-code 4 --python path/to/quatbake/__main__.py --
report X.blend``
loads this folder as the package ``quatbake`` first.
"""
import sys
import warnings

# The farm templates start `<Python> -b -P __main__.py`, where -b is Blender's background
# flag and, for a Python with the bpy module, its bytes-warning flag: a Python logged a
# BytesWarning from inside bpy on every task (a pipeline walk). Nothing here compares
# bytes with str, so those warnings are never ours.
warnings.filterwarnings("ignore", category=BytesWarning)

if __package__:
    from .addon import cli
else:
    import importlib.util
    import pathlib

    _root = pathlib.Path(__file__).resolve().parent
    if "quatbake" not in sys.modules:
        _spec = importlib.util.spec_from_file_location(
            "quatbake", _root / "__init__.py", submodule_search_locations=[str(_root)])
        _module = importlib.util.module_from_spec(_spec)
        sys.modules["quatbake"] = _module
        _spec.loader.exec_module(_module)
    from quatbake.addon import cli

if __name__ == "__main__":
    from quatbake.addon.cli.headless import exit_process

    exit_process(cli.main())
