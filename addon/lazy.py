# SPDX-License-Identifier: GPL-3.0-or-later
"""Names a package forwards from one of its modules, loaded on first use.

The bake and export-check engines import ``core`` (numpy work) at the top;
their packages' operators and panels must register without loading them
(benchmarks/bench_register.py), yet ``bake.bake_objects`` should read as one
name (docs/api.md). A package sets ``__getattr__ = lazy.forward(...)`` (PEP 562).
"""
import importlib


def forward(package: str, module: str, names):
    """``__getattr__`` for ``package``: each of ``names`` from ``package.module``."""
    wanted = frozenset(names)

    def __getattr__(name: str):
        if name in wanted:
            return getattr(importlib.import_module(f"{package}.{module}"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
