"""The overlay in a real Blender window: Debian's Blender 3.4.1 GUI under Xvfb.

Runs from the venv's pytest (not inside pytest-blender). One Blender session
(tests/gui/overlay_scene.py) installs the legacy add-on zip that
scripts/package.py builds, re-bakes an animated camera with quatbake.bake,
turns the overlay on, and saves two screenshots (overlay on, then off) plus the
window pixels where Blender's evaluated triads should be. These tests then look
at the pixels. Screenshots stay in artifacts/overlay_gui/ (git-ignored).
"""
import importlib.util
import json
import os
import pathlib
import shutil

import numpy as np
import pytest

from harness import ROOT, run_blender

ARTIFACTS = ROOT / "artifacts" / "overlay_gui"
SCRIPT = ROOT / "tests" / "gui" / "overlay_scene.py"
BLENDER = os.environ.get("QUATBAKE_BLENDER", "/usr/bin/blender")

pytestmark = pytest.mark.gui

# Pure axis colours as they land on screen. The lines are 3 px wide and
# antialiased, so only their centre is exact; these bounds accept the centre and
# reject the background grey (~60), Blender's orange selection outline
# (green ~170) and every colour of the path's speed ramp (none is near-pure).
AXIS_CLASS = {
    "x": lambda r, g, b: (r >= 170) & (g <= 80) & (b <= 80),
    "y": lambda r, g, b: (g >= 150) & (r <= 90) & (b <= 90),
    "z": lambda r, g, b: (b >= 170) & (r <= 90) & (g <= 90),
}
# Search radius in pixels around each expected axis point: the triads Blender
# evaluates (float32) and the overlay's (float64, same keys) agree far below a
# pixel; the radius covers line-width rounding only.
RADIUS = 3
# Axes foreshortened below this many pixels (pointing at the camera) are not
# checked: a line that short is hidden under the other two.
MIN_AXIS_PIXELS = 10.0


def _legacy_zip(tmp: pathlib.Path) -> pathlib.Path:
    spec = importlib.util.spec_from_file_location("quatbake_package", ROOT / "scripts" / "package.py")
    package = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(package)
    return package.build_legacy_zip(tmp / "quatbake-legacy.zip")


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """Run the Blender window once; yield (report dict, on image, off image)."""
    from PIL import Image

    tmp = tmp_path_factory.mktemp("overlay_gui")
    zip_path = _legacy_zip(tmp)
    if ARTIFACTS.exists():
        shutil.rmtree(ARTIFACTS)
    ARTIFACTS.mkdir(parents=True)
    proc = run_blender(
        SCRIPT, tmp, "--zip", str(zip_path), "--out", str(ARTIFACTS), timeout=600, blender=BLENDER,
        env={"TMPDIR": str(tmp), "TEMP": str(tmp), "LIBGL_ALWAYS_SOFTWARE": "1"},
    )
    (ARTIFACTS / "blender.log").write_text(proc.stdout + proc.stderr)
    report_path = ARTIFACTS / "overlay_points.json"
    assert report_path.exists(), f"Blender wrote no report:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"
    report = json.loads(report_path.read_text())
    assert report["error"] is None, report["error"]
    on = np.asarray(Image.open(ARTIFACTS / "overlay_on.png").convert("RGB")).astype(int)
    off = np.asarray(Image.open(ARTIFACTS / "overlay_off.png").convert("RGB")).astype(int)
    return report, on, off


def _image(name: str):
    from PIL import Image

    return np.asarray(Image.open(ARTIFACTS / name).convert("RGB")).astype(int)


def _distance_to_segment(p, a, b) -> float:
    ab = b - a
    t = np.clip(np.dot(p - a, ab) / max(np.dot(ab, ab), 1e-12), 0.0, 1.0)
    return float(np.linalg.norm(p - (a + t * ab)))


def _axis_points(report):
    """(triad frame, axis name, pixel (x, y)) at 35%..90% along each visible axis.

    A triad's axes are drawn X, then Y, then Z: a point of an earlier axis lying
    under a later axis's line (an axis pair seen edge-on) is not expected to
    show its own colour, so it is left out.
    """
    for triad in report["triads"]:
        base = np.array(triad["base"])
        for i, axis in enumerate("xyz"):
            tip = np.array(triad[axis])
            if np.linalg.norm(tip - base) < MIN_AXIS_PIXELS:
                continue
            later = [np.array(triad[other]) for other in "xyz"[i + 1:]]
            for fraction in (0.35, 0.5, 0.65, 0.8, 0.9):
                point = base + fraction * (tip - base)
                if all(_distance_to_segment(point, base, t) > RADIUS + 3 for t in later):
                    yield triad["frame"], axis, point


def _has_colour(image, axis, point) -> bool:
    x, y = int(round(point[0])), int(round(point[1]))
    h, w, _ = image.shape
    patch = image[max(0, y - RADIUS): min(h, y + RADIUS + 1), max(0, x - RADIUS): min(w, x + RADIUS + 1)]
    r, g, b = patch[..., 0], patch[..., 1], patch[..., 2]
    return bool(AXIS_CLASS[axis](r, g, b).any())


def test_session_installed_baked_and_drew(session):
    report, on, _ = session
    assert report["steps"] == ["installed", "overlay on", "shot before bake", "baked",
                               "projected", "shot on", "shot off", "shot after undo",
                               "shot panel"]
    assert report["blender"].startswith("3.4")
    assert report["bake"] == ["FINISHED"]
    assert report["legend"]["objects"] == ["ShotCam"]
    assert report["legend"]["problems"] == []
    assert report["handlers_on"]["draw"] == 1
    assert report["handlers_on"]["depsgraph_update_post"] == 1
    assert report["handlers_off"]["draw"] == 0
    assert report["handlers_off"]["depsgraph_update_post"] == 0
    assert on.shape[:2] == (report["window"][1], report["window"][0])
    # Ctrl+Z put the original action back and the overlay redrew from it
    assert report["undo"]["action"] != report["baked_action"]
    assert report["undo"]["rebuilt"] and report["undo"]["enabled"]
    assert report["undo"]["objects"] == ["ShotCam"]
    log = (ARTIFACTS / "blender.log").read_text()
    assert "Traceback" not in log and "QuatBake overlay:" not in log, log


def test_triads_are_inside_the_viewport(session):
    report, _, _ = session
    x0, y0, w, h = report["region"]
    win_h = report["window"][1]
    assert len(report["triads"]) >= 7  # frames 1, 11, ..., 61
    for triad in report["triads"]:
        for name in ("base", "x", "y", "z"):
            px, py = triad[name]
            assert x0 + 60 < px < x0 + w - 60, (triad["frame"], name, px)
            assert win_h - (y0 + h) + 60 < py < win_h - y0 - 30, (triad["frame"], name, py)


def test_red_green_blue_axes_drawn_where_blender_puts_the_triads(session):
    report, on, _ = session
    points = list(_axis_points(report))
    checked_axes = {(frame, axis) for frame, axis, _ in points}
    # Every triad has at least two axes long enough to check.
    assert len(checked_axes) >= 2 * len(report["triads"])
    found = {(frame, axis) for frame, axis, p in points if _has_colour(on, axis, p)}
    missing = sorted(checked_axes - found)
    assert not missing, f"no axis colour near these (frame, axis) triads: {missing}"


def test_triad_colours_gone_when_overlay_is_off(session):
    report, _, off = session
    points = list(_axis_points(report))
    assert points
    still_there = sorted({(frame, axis) for frame, axis, p in points if _has_colour(off, axis, p)})
    assert not still_there, f"axis colours still drawn with the overlay off: {still_there}"


def test_overlay_changes_only_pixels_near_the_path(session):
    """Far from the path (and away from the camera object) both shots are identical."""
    report, on, off = session
    changed = np.abs(on - off).sum(axis=2) > 30
    assert changed.any()
    ys, xs = np.nonzero(changed)
    triad_px = np.array([triad[n] for triad in report["triads"] for n in ("base", "x", "y", "z")])
    # distance of every changed pixel to the nearest triad point
    d = np.min(np.hypot(xs[:, None] - triad_px[None, :, 0], ys[:, None] - triad_px[None, :, 1]), axis=1)
    # the path between triads 10 frames apart and the triads' extent: 120 px covers both
    assert np.percentile(d, 99) < 120, np.percentile(d, 99)


def _cyan(image):
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    return (r <= 60) & (g >= 200) & (b >= 200)


def test_long_way_round_band_is_drawn_between_the_flipped_keys(session):
    """Key 41's quaternion has its sign flipped: Blender's own interpolation goes
    the long way from 21 to 41 and from 41 to 61, and the overlay marks both
    (before the bake)."""
    report, _on, off = session
    before = _image("overlay_before_bake.png")
    assert report["legend_before"]["long_arc_count"] == 2
    assert not _cyan(off).any()
    ys, xs = np.nonzero(_cyan(before))
    # several hundred pixels of an 11 px wide band; none before frame 21's triad
    assert xs.size > 500
    by_frame = {t["frame"]: t["base"] for t in report["triads"]}
    assert xs.min() >= by_frame[21][0] - 2 * RADIUS - 6  # band half-width + antialiasing
    assert xs.max() <= by_frame[61][0] + 2 * RADIUS + 6


def test_the_band_vanishes_after_the_bake_and_returns_on_undo(session):
    """The loop closes on screen: the baked camera turns the short way, so the
    band's pixels are gone (the legend counts the two as fixed); Ctrl+Z brings
    the original keys, and the band, back."""
    report, on, _off = session
    assert report["legend"]["long_arc_count"] == 0
    assert report["legend"]["fixed_long_arc_count"] == 2
    assert _cyan(_image("overlay_before_bake.png")).sum() > 500
    assert _cyan(on).sum() == 0
    assert report["undo"]["long_arc_count"] == 2
    assert _cyan(_image("overlay_after_undo.png")).sum() > 500
