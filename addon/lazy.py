# SPDX-License-Identifier: GPL-3.0-or-later
"""Names a package forwards from one of its modules, loaded on first use.

The bake and export-check engines import ``core`` (numpy work) at the top;
their packages' operators and panels must register without loading them
(benchmarks/bench_register.py), yet ``bake.bake_objects`` should read as one
name (docs/api.md). A package sets ``__getattr__, __dir__ = lazy.forward(...)``
(PEP 562).
"""
import importlib


def forward(package: str, names_by_module: dict):
    """(``__getattr__``, ``__dir__``) for ``package``: for each module named in
    ``names_by_module``, its names from ``package.<module>``, imported when one is
    first asked for."""
    where = {name: module for module, names in names_by_module.items() for name in names}

    def __getattr__(name: str):
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        target = f"{package}.{where[name]}"
        try:
            loaded = importlib.import_module(target)
        except AttributeError as exc:
            # Python would turn an AttributeError raised here into "cannot import
            # name", hiding why the engine failed to load: say so instead.
            raise ImportError(f"{target} failed to load: {exc}") from exc
        if not hasattr(loaded, name):
            raise ImportError(f"{target} has no {name!r}, which {package} forwards")
        return getattr(loaded, name)

    def __dir__() -> list:
        return sorted(set(importlib.import_module(package).__dict__) | set(where))

    return __getattr__, __dir__
