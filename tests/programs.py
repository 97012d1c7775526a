"""System programs the tests start: Debian's blender, xvfb-run, chromium.

`make test` installs them first (`make sysdeps`, scripts/install-system-deps.sh),
so a missing one is a broken set-up: the test fails with a sentence saying
how to fix it, instead of skipping (a skip would hide the broken set-up in CI).
"""
from __future__ import annotations

import os
import shutil

import pytest


def require_program(program: str, why: str) -> str:
    """The full path of ``program`` (a path or a name on PATH); fail the test if it is missing.

    ``why`` says what the test needs it for, e.g. "to run the CLI inside Blender 3.4.1".
    """
    found = shutil.which(program) if os.sep not in program else (program if os.path.exists(program) else None)
    if found is None:
        pytest.fail(
            f"{program} is not installed, needed {why}: run `make sysdeps` "
            "(scripts/install-system-deps.sh installs Debian's blender, xvfb-run and chromium).",
            pytrace=False,
        )
    return found
