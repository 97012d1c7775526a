"""Start Debian's Blender 3.4.1 in a window under Xvfb and run one script in it.

Shared by the GUI tests (test_undo_gui.py, test_undo_chain_gui.py,
test_export_check_gui.py, test_overlay_gui.py, test_panel_gui.py). Blender gets its
own user scripts and config folders in a temporary directory, so nothing touches the
real user's Blender set-up. ``script_result`` and ``assert_ran_cleanly`` are the
fixture and the first check the tests of one gui_session script share.
"""
from __future__ import annotations

import json
import os
import pathlib
import subprocess

import pytest

from programs import require_program

ROOT = pathlib.Path(__file__).resolve().parents[2]
BLENDER = os.environ.get("BLENDER", "/usr/bin/blender")
# A window as large as a small laptop screen: every panel the scripts draw fits.
SCREEN = "-screen 0 1280x800x24"


def run_blender(script: pathlib.Path, tmp: pathlib.Path, *args: str, timeout: float = 300,
                blender: str = BLENDER, env: dict | None = None, screen: str = SCREEN,
                blender_flags: tuple = ()) -> subprocess.CompletedProcess:
    """Run ``blender --factory-startup --python script -- args`` under Xvfb.

    BLENDER_USER_SCRIPTS / BLENDER_USER_CONFIG point into ``tmp``; ``env``
    adds or overrides variables; ``screen`` is Xvfb's screen ("-screen 0 WxHxD");
    ``blender_flags`` go before ``--python`` (e.g. a window size). Returns the
    finished process (output captured as text); ``timeout`` is in seconds.
    """
    require_program("xvfb-run", "to give Blender a window")
    require_program(blender, "to run the GUI tests in Blender 3.4.1")
    full_env = dict(os.environ, BLENDER_USER_SCRIPTS=str(tmp / "scripts"),
                    BLENDER_USER_CONFIG=str(tmp / "config"))
    full_env.update(env or {})
    return subprocess.run(
        ["xvfb-run", "-a", "-s", screen, blender, "--factory-startup", *blender_flags,
         "--python", str(script), "--", *args],
        env=full_env, capture_output=True, text=True, timeout=timeout,
    )


def run_blender_script(script: pathlib.Path, tmp: pathlib.Path, timeout: float = 300,
                       screen: str = SCREEN, blender_flags: tuple = ()) -> dict:
    """Run ``script`` with this repository linked in as the add-on ``quatbake``.

    The script is called with ``-- RESULT ROOT`` and must write a JSON object
    to RESULT; that object is returned, with Blender's stderr added as
    ``"stderr"`` (so tests can look for tracebacks).
    """
    addons = tmp / "scripts" / "addons"
    addons.mkdir(parents=True)
    (addons / "quatbake").symlink_to(ROOT, target_is_directory=True)
    result_path = tmp / "result.json"
    proc = run_blender(script, tmp, str(result_path), str(ROOT), timeout=timeout, screen=screen,
                       blender_flags=blender_flags)
    assert result_path.exists(), f"no result file\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    result = json.loads(result_path.read_text(encoding="utf-8"))
    result["stderr"] = proc.stderr
    return result


def run_window_session(script: pathlib.Path, tmp: pathlib.Path, artifacts: pathlib.Path,
                       timeout: float = 600) -> dict:
    """``script`` in a 1600x900 Blender window with event simulation (to click tabs and
    headers) and this repository linked in as the add-on ``quatbake``, called with
    ``-- RESULT ROOT ARTIFACTS``; ``artifacts`` is emptied first and gets Blender's log.
    Returns the script's JSON result with Blender's stderr as ``"stderr"``."""
    import shutil

    if artifacts.exists():
        shutil.rmtree(artifacts)
    artifacts.mkdir(parents=True)
    addons = tmp / "scripts" / "addons"
    addons.mkdir(parents=True)
    (addons / "quatbake").symlink_to(ROOT, target_is_directory=True)
    result_path = tmp / "result.json"
    proc = run_blender(script, tmp, str(result_path), str(ROOT), str(artifacts),
                       timeout=timeout, screen="-screen 0 1600x900x24",
                       blender_flags=("--enable-event-simulate", "-p", "0", "0", "1600", "900"),
                       env={"LIBGL_ALWAYS_SOFTWARE": "1"})
    (artifacts / "blender.log").write_text(proc.stdout + proc.stderr)
    assert result_path.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    result = json.loads(result_path.read_text())
    result["stderr"] = proc.stderr
    return result


def script_result(script: pathlib.Path, folder: str = "gui"):
    """A module-scoped fixture: ``script`` run once in a Blender window
    (``run_blender_script``, in a fresh temporary ``folder``), its JSON result shared
    by every test of the module. Assign it to the fixture's name in the test module."""
    @pytest.fixture(scope="module")
    def result(tmp_path_factory) -> dict:
        return run_blender_script(script, tmp_path_factory.mktemp(folder))

    return result


def assert_ran_cleanly(result: dict) -> None:
    """The script recorded no error and Blender printed no Python traceback (an exception
    in a panel's draw or a timer only shows on stderr)."""
    assert result["errors"] == [], result["errors"]
    assert "Traceback" not in result["stderr"], result["stderr"][-3000:]
