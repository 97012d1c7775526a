# SPDX-License-Identifier: GPL-3.0-or-later
"""Build QuatBake's two install zips into ``out/``.

- ``quatbake-<version>.zip``: the extension (Blender 4.2+), built by Blender's
  own ``blender_ext.py build``, which ships inside every ``bpy`` wheel, so the
  file list follows ``[build] paths_exclude_pattern`` in blender_manifest.toml
  and the manifest is checked by the same validator Blender uses.
- ``quatbake-<version>-legacy.zip``: the same files under a top folder
  ``quatbake/`` (what Preferences > Add-ons > Install expects in Blender
  3.4 - 4.1, which read ``bl_info`` from ``quatbake/__init__.py``).

The legacy zip is made from the extension zip's own file list, so the two can
never disagree about what ships.

Usage (from the repository root, with a Python that has the ``bpy`` wheel)::

    .venv/bin/python scripts/package.py [--out-dir out]
"""
from __future__ import annotations

import argparse
import importlib.util
import pathlib
import subprocess
import sys
import tempfile
import tomllib
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "blender_manifest.toml"
LEGACY_TOP = "quatbake"
# Blender 3.4 - 4.1 do not know the manifest; leaving it out keeps the legacy
# zip a plain add-on that a 4.2+ "Install from Disk" cannot mistake for an extension.
LEGACY_SKIP = {"blender_manifest.toml"}


def manifest_version() -> str:
    """The ``version`` field of blender_manifest.toml (e.g. "0.1.0")."""
    with MANIFEST.open("rb") as fh:
        return tomllib.load(fh)["version"]


def find_blender_ext() -> pathlib.Path:
    """Locate ``blender_ext.py`` inside the installed ``bpy`` wheel.

    Uses ``find_spec`` so bpy itself is not imported (that takes a second and
    starts Blender). Raises FileNotFoundError when no bpy wheel is installed
    for this interpreter.
    """
    spec = importlib.util.find_spec("bpy")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            f"The bpy wheel is not installed for {sys.executable}; run `make venv` "
            "and use .venv/bin/python (blender_ext.py ships inside the wheel)."
        )
    for location in spec.submodule_search_locations:
        hits = sorted(pathlib.Path(location).glob("*/scripts/addons_core/bl_pkg/cli/blender_ext.py"))
        if hits:
            return hits[-1]
    raise FileNotFoundError("blender_ext.py was not found inside the installed bpy wheel.")


def _run_blender_ext(args: list[str]) -> None:
    cmd = [sys.executable, str(find_blender_ext()), *args]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(
            f"blender_ext.py {args[0]} failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}"
        )


def validate_manifest() -> None:
    """Run Blender's own manifest validator on the source tree (strict mode)."""
    _run_blender_ext(["validate", str(ROOT)])


def build_extension_zip(out_path: str | pathlib.Path | None = None) -> pathlib.Path:
    """Build the extension zip with ``blender_ext.py build``; returns its path.

    Default location: ``out/quatbake-<version>.zip``.
    """
    out = pathlib.Path(out_path) if out_path else ROOT / "out" / f"quatbake-{manifest_version()}.zip"
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.exists():
        out.unlink()  # blender_ext.py refuses nothing, but a stale zip must not survive a failed build
    _run_blender_ext(["build", "--source-dir", str(ROOT), "--output-filepath", str(out)])
    return out


def build_legacy_zip(out_path: str | pathlib.Path | None = None) -> pathlib.Path:
    """Build the legacy add-on zip (files under ``quatbake/``); returns its path.

    The file list is the extension build's (Blender's exclude rules), minus the
    manifest. Default location: ``out/quatbake-<version>-legacy.zip``.
    """
    out = (
        pathlib.Path(out_path)
        if out_path
        else ROOT / "out" / f"quatbake-{manifest_version()}-legacy.zip"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="quatbake-pkg-") as tmp:
        extension = build_extension_zip(pathlib.Path(tmp) / "extension.zip")
        with zipfile.ZipFile(extension) as src, zipfile.ZipFile(
            out, "w", compression=zipfile.ZIP_DEFLATED
        ) as dst:
            for info in src.infolist():
                if info.is_dir() or info.filename in LEGACY_SKIP:
                    continue
                entry = zipfile.ZipInfo(f"{LEGACY_TOP}/{info.filename}", date_time=info.date_time)
                entry.compress_type = zipfile.ZIP_DEFLATED
                entry.external_attr = info.external_attr
                dst.writestr(entry, src.read(info))
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out-dir", default=str(ROOT / "out"), help="where the zips go")
    args = parser.parse_args(argv)
    out_dir = pathlib.Path(args.out_dir)
    version = manifest_version()
    try:
        validate_manifest()
        ext = build_extension_zip(out_dir / f"quatbake-{version}.zip")
        legacy = build_legacy_zip(out_dir / f"quatbake-{version}-legacy.zip")
    except (FileNotFoundError, RuntimeError) as err:
        print(f"package: {err}", file=sys.stderr)
        return 2
    for path in (ext, legacy):
        with zipfile.ZipFile(path) as zf:
            count = len(zf.namelist())
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: "
              f"{count} files, {path.stat().st_size / 1024:.1f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
