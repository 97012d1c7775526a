# SPDX-License-Identifier: GPL-3.0-or-later
"""Install QuatBake the way users get it, and check it leaves nothing behind.

- The extension zip (built by Blender's own blender_ext.py from the bpy wheel of
  the running venv) is installed into the bpy module's ``user_default``
  extension repository with ``bpy.ops.extensions.package_install_files`` and
  enabled on install.
- The legacy zip is installed with Preferences > Add-ons > Install into Debian's
  Blender 3.4.1 program and enabled with ``addon_utils.enable``: once headless
  (``-b``) and once with a window under Xvfb, where the overlay really adds a
  draw handler whose removal is then checked.

Each runs tests/install/install_probe.py in a fresh subprocess whose user folders
(BLENDER_USER_RESOURCES / _CONFIG / _SCRIPTS / _EXTENSIONS) point at a temporary
directory, so the real user configuration is untouched. The probe writes JSON;
the asserting happens here. Run from the venv's pytest (these tests spawn
Blender; they do not run inside pytest-blender).
"""
import ast
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import tomllib
import zipfile

import pytest

from programs import require_program

pytestmark = pytest.mark.bpy

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROBE = pathlib.Path(__file__).with_name("install_probe.py")
BLENDER = os.environ.get("BLENDER", "/usr/bin/blender")
OPERATORS = {"bake": True, "revert": True, "analyze": True}
MAIN_PANEL = "QUATBAKE_PT_main"
# Only what users need ships; these are developer files (top-level names).
DEV_ONLY = {"tests", "benchmarks", "scripts", "requirements", "farm", "out", "artifacts",
            "Makefile", "pyproject.toml", "build", "dist", "CONTRIBUTING.md", "CHANGELOG.md"}
# Source folders whose every file must ship (besides the root __init__.py / __main__.py).
SHIPPED_DIRS = ("addon", "core", "docs", "presets", "report")
# A whole probe takes 2-10 s; a hang (seen once at exit in bpy 4.5) must fail, not stall CI.
SUBPROCESS_TIMEOUT_S = 300


def _load_package_script():
    spec = importlib.util.spec_from_file_location("quatbake_package", ROOT / "scripts" / "package.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


package = _load_package_script()


@pytest.fixture(scope="module")
def zips(tmp_path_factory):
    out = tmp_path_factory.mktemp("zips")
    return {
        "extension": package.build_extension_zip(out / "quatbake-ext.zip"),
        "legacy": package.build_legacy_zip(out / "quatbake-legacy.zip"),
    }


def _isolated_env(home: pathlib.Path) -> dict:
    """Environment whose Blender user folders all live under ``home``."""
    env = dict(os.environ)
    for var, sub in (("BLENDER_USER_RESOURCES", "resources"), ("BLENDER_USER_CONFIG", "config"),
                     ("BLENDER_USER_SCRIPTS", "scripts"), ("BLENDER_USER_EXTENSIONS", "extensions"),
                     ("BLENDER_USER_DATAFILES", "datafiles")):
        env[var] = str(home / sub)
    return env


def _run_probe(mode: str, zip_path: pathlib.Path, home: pathlib.Path) -> dict:
    out = home / f"{mode}.json"
    probe_args = ["--mode", mode.removesuffix("-window"), "--zip", str(zip_path), "--out", str(out)]
    blender_args = ["--factory-startup", "--python-exit-code", "1", "--python", str(PROBE), "--", *probe_args]
    if mode == "extension":
        cmd = [sys.executable, str(PROBE), *probe_args]
    elif mode == "legacy":
        cmd = [BLENDER, "-b", *blender_args]
    else:  # legacy-window: a real window under Xvfb, so the overlay adds its draw handler
        cmd = ["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", BLENDER, *blender_args]
    proc = subprocess.run(cmd, env=_isolated_env(home), capture_output=True, text=True,
                          timeout=SUBPROCESS_TIMEOUT_S)
    assert out.exists(), (
        f"{mode} probe wrote no report (exit {proc.returncode}):\n"
        f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    )
    report = json.loads(out.read_text())
    report["_home"] = str(home)
    return report


@pytest.fixture(scope="module", params=[
    "extension", "legacy", pytest.param("legacy-window", marks=pytest.mark.gui)])
def installed(request, zips, tmp_path_factory):
    """The probe's report for one install mode (one Blender subprocess per mode)."""
    mode = request.param
    if mode != "extension":
        require_program(BLENDER, f"to install the add-on ({mode})")
    if mode == "legacy-window":
        require_program("xvfb-run", "to install the add-on in a Blender window")
    zip_path = zips["extension" if mode == "extension" else "legacy"]
    report = _run_probe(mode, zip_path, tmp_path_factory.mktemp(f"home-{mode}"))
    assert "error" not in report, (
        f"{mode} install failed in Blender {report['blender_version']}:\n{report['error']}")
    report["_mode"] = mode
    return report


# --- the zips -----------------------------------------------------------------------------

def test_manifest_passes_blenders_own_validator():
    package.validate_manifest()  # raises with the validator's message on failure


def test_manifest_fields_and_versions_agree():
    with (ROOT / "blender_manifest.toml").open("rb") as fh:
        manifest = tomllib.load(fh)
    assert manifest["id"] == "quatbake"
    assert manifest["type"] == "add-on"
    assert manifest["blender_version_min"] == "4.2.0"
    assert manifest["tags"] == ["Animation"]
    assert all(lic.startswith("SPDX:") for lic in manifest["license"])
    # bl_info (legacy installs) and pyproject must announce the same version as the manifest.
    bl_info = _bl_info((ROOT / "__init__.py").read_text())
    assert ".".join(map(str, bl_info["version"])) == manifest["version"]
    with (ROOT / "pyproject.toml").open("rb") as fh:
        assert tomllib.load(fh)["project"]["version"] == manifest["version"]
    assert tuple(bl_info["blender"]) <= (3, 4, 0), "the legacy zip must install in Blender 3.4"


def _bl_info(source: str) -> dict:
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "bl_info" for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError("__init__.py has no bl_info")


def _expected_shipped_files() -> set:
    files = {name for name in ("__init__.py", "__main__.py", "README.md") if (ROOT / name).exists()}
    for folder in SHIPPED_DIRS:
        for path in (ROOT / folder).rglob("*"):
            rel = path.relative_to(ROOT)
            if path.is_file() and "__pycache__" not in rel.parts and path.suffix != ".pyc" \
                    and not any(part.startswith(".") for part in rel.parts):
                files.add(rel.as_posix())
    return files


def test_extension_zip_ships_the_source_and_no_developer_files(zips):
    with zipfile.ZipFile(zips["extension"]) as zf:
        names = {n for n in zf.namelist() if not n.endswith("/")}
    assert "blender_manifest.toml" in names
    missing = _expected_shipped_files() - names
    assert not missing, f"files missing from the extension zip: {sorted(missing)}"
    dev = sorted(n for n in names if n.split("/")[0] in DEV_ONLY)
    assert not dev, f"developer files in the extension zip: {dev}"
    junk = sorted(n for n in names if "__pycache__" in n or n.endswith(".pyc") or ".egg-info" in n
                  or any(part.startswith(".") for part in n.split("/")))
    assert not junk, f"caches or dot-files in the extension zip: {junk}"


def test_legacy_zip_is_the_same_files_under_one_top_folder(zips):
    with zipfile.ZipFile(zips["extension"]) as zf:
        extension = {n for n in zf.namelist() if not n.endswith("/")}
    with zipfile.ZipFile(zips["legacy"]) as zf:
        legacy = {n for n in zf.namelist() if not n.endswith("/")}
        init = zf.read("quatbake/__init__.py").decode()
    assert all(n.startswith("quatbake/") for n in legacy)
    assert {n[len("quatbake/"):] for n in legacy} == extension - {"blender_manifest.toml"}
    assert _bl_info(init)["name"] == "QuatBake"


def test_make_package_writes_both_zips_named_by_version(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "package.py"), "--out-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT_S)
    assert proc.returncode == 0, proc.stderr
    version = package.manifest_version()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"quatbake-{version}-legacy.zip", f"quatbake-{version}.zip"]


# --- installed in Blender -------------------------------------------------------------------

def test_install_enables_the_addon_from_the_isolated_user_folder(installed):
    step = installed["steps"]["install"]
    assert step["result"] == ["FINISHED"]
    assert step["enabled"], f"{step['module']} is not enabled after install"
    # The copy that runs is the installed one, inside the temporary user folders.
    assert step["installed_path"].startswith(installed["_home"]), step["installed_path"]
    assert installed["user_config"].startswith(installed["_home"])


def test_install_registers_operators_panel_and_settings(installed):
    registered = installed["steps"]["registered"]
    assert registered["operators"] == OPERATORS
    assert MAIN_PANEL in registered["panels"]
    assert "Scene.quatbake" in registered["properties"]


def test_installed_extension_never_imports_the_developer_copy(installed):
    # An absolute `import quatbake...` inside the add-on would silently run the
    # repository's files instead of the installed ones (the venv has them editable).
    assert installed["steps"]["dev_copy_modules"] == []


def test_enabling_imports_no_test_only_or_heavy_library(installed):
    assert installed["steps"]["heavy_modules"] == []


def test_installed_copy_bakes_a_keyed_object(installed):
    assert installed["steps"]["bake"]["result"] == ["FINISHED"]


def _assert_nothing_left(state: dict) -> None:
    assert not state["enabled"]
    assert state["registered"] == {
        "operators": {name: False for name in OPERATORS},
        "classes": [], "panels": [], "properties": [], "addon_keymap_items": [],
    }
    assert state["handlers"] == []
    assert state["timers"] == []
    assert state["draw_handlers"] == []


def test_disable_leaves_no_classes_properties_handlers_or_timers(installed):
    _assert_nothing_left(installed["steps"]["after_disable"])


def test_second_disable_leaves_nothing_either(installed):
    _assert_nothing_left(installed["steps"]["after_second_disable"])


def test_in_a_window_the_overlay_draw_handler_is_added_then_removed(installed):
    if installed["_mode"] != "legacy-window":
        pytest.skip("headless Blender adds no draw handler; checked in the window run")
    # The probe turned scene.quatbake.show_overlay on; disabling must have removed
    # the handler (leftovers are listed by _assert_nothing_left above).
    assert installed["steps"]["after_disable"]["draw_handlers_added"] >= 1
    assert installed["steps"]["after_disable"]["draw_handlers"] == []


def test_enable_again_after_disable_registers_the_same(installed):
    assert installed["steps"]["registered_again"] == installed["steps"]["registered"]


def test_remove_deletes_the_installed_files(installed):
    step = installed["steps"]["remove"]
    assert step["result"] == ["FINISHED"]
    assert step["folder"].startswith(installed["_home"])
    assert not step["folder_exists"]
    assert not step["still_listed"]
