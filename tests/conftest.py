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


def _register_hypothesis_profiles() -> None:
    """Example counts for every property test that does not pin its own.

    "quatbake" (default) keeps `make test` quick; "slow" (QUATBAKE_SLOW=1,
    `make test-slow`) runs 10,000 examples per property (QUATBAKE_SLOW_EXAMPLES
    overrides the number). Both are derandomised: the same examples every run
    (seeded, reproducible).
    """
    import os

    try:
        from hypothesis import settings
    except ImportError:   # a Blender program without hypothesis runs no property tests
        return
    settings.register_profile("quatbake", max_examples=200, deadline=None, derandomize=True)
    slow_examples = int(os.environ.get("QUATBAKE_SLOW_EXAMPLES", "10000"))
    settings.register_profile("slow", max_examples=slow_examples, deadline=None, derandomize=True)
    settings.load_profile("slow" if os.environ.get("QUATBAKE_SLOW") == "1" else "quatbake")


_register_hypothesis_profiles()
