"""Shared test set-up.

Inside a Blender program (pytest-blender), QuatBake is not pip-installed, so the
repository root is loaded as the package ``quatbake`` here; in the venv the
editable install already provides it.
"""
import importlib.util
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"


def _ensure_quatbake_importable() -> None:
    try:
        import quatbake  # noqa: F401
        return
    except ImportError:
        pass
    spec = importlib.util.spec_from_file_location(
        "quatbake", ROOT / "__init__.py", submodule_search_locations=[str(ROOT)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["quatbake"] = module
    spec.loader.exec_module(module)


_ensure_quatbake_importable()
