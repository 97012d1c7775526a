"""The demo's HTML report opens in headless Chromium, offline, and its charts are
drawn: the screenshot (kept in artifacts/) has the charts' line colours across
the plot area, and the long-arc shading."""
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

from quatbake.report import html_report
from quatbake.report import svg as report_svg

from programs import require_program
from report_schema import load_report

pytestmark = pytest.mark.browser

ROOT = pathlib.Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = "/usr/bin/chromium"
WIDTH, HEIGHT = 1100, 2600


def _rgb(hex_colour):
    return np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)])


def _mask(img, colour, tol=40):
    """Pixels within ``tol`` (per channel) of ``colour``: antialiasing blurs line edges."""
    return (np.abs(img[:, :, :3].astype(int) - colour) <= tol).all(axis=2)


@pytest.fixture(scope="module")
def screenshot(tmp_path_factory):
    require_program(CHROMIUM, "to render the HTML report")
    from PIL import Image

    out = tmp_path_factory.mktemp("demo")
    res = subprocess.run([sys.executable, "-m", "quatbake", "demo", "--out", str(out), "--quiet"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    ARTIFACTS.mkdir(exist_ok=True)
    png = ARTIFACTS / "report_chromium.png"
    if png.exists():
        png.unlink()
    profile = tmp_path_factory.mktemp("chromium-profile")
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}",
           f"--screenshot={png}", f"--window-size={WIDTH},{HEIGHT}",
           (out / "report.html").as_uri()]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert png.exists(), done.stderr[-2000:]
    shutil.copy(out / "report.html", ARTIFACTS / "report_chromium.html")
    report = load_report(out / "report.json")
    return np.asarray(Image.open(png).convert("RGB")), report


def test_screenshot_is_the_page_not_a_blank_or_error_page(screenshot):
    img, _ = screenshot
    assert img.shape[:2] == (HEIGHT, WIDTH)
    background = _mask(img, _rgb("#fafafa"), tol=3)
    assert 0.2 < background.mean() < 0.97          # mostly page colour, but with content
    assert (img.std(axis=(0, 1)) > 10).all()


def test_deviation_chart_line_crosses_the_plot_area(screenshot):
    img, report = screenshot
    line = _mask(img, _rgb(html_report.DEVIATION_COLOUR))
    rows, cols = np.nonzero(line)
    assert line.sum() > 300
    # The first object's deviation line spans most of the chart's width.
    assert cols.max() - cols.min() > 0.6 * WIDTH
    # ... and rises well above its baseline (FlipCam deviates by 180 deg).
    assert rows.max() - rows.min() > 100
    assert report["objects"][0]["max_deviation_deg"] > 170


def test_speed_chart_shows_blender_and_the_method_and_long_arcs_are_shaded(screenshot):
    img, _ = screenshot
    # Blender's line is drawn wide at 75% opacity under the method's line.
    red = _mask(img, (0.75 * _rgb(html_report.BLENDER_COLOUR) + 0.25 * _rgb("#fcfcfc")).round())
    blue = _mask(img, _rgb(html_report.CUSTOM_COLOUR))
    assert red.sum() > 200 and blue.sum() > 200
    # Long-arc bands: LONG_ARC_FILL at 28% opacity over the plot background.
    band = (0.28 * _rgb(report_svg.LONG_ARC_FILL) + 0.72 * _rgb("#fcfcfc")).round()
    shaded = _mask(img, band, tol=6)
    assert shaded.sum() > 20000          # wide bands behind two charts



def _shoot(html_path: pathlib.Path, png: pathlib.Path, profile: pathlib.Path) -> np.ndarray:
    from PIL import Image

    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}",
           f"--screenshot={png}", f"--window-size={WIDTH},{HEIGHT}", html_path.as_uri()]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert png.exists(), done.stderr[-2000:]
    return np.asarray(Image.open(png).convert("RGB"))


def test_after_bake_section_is_rendered_with_fixed_in_green(screenshot, tmp_path):
    """The demo re-bakes: its page has the after-bake table, and "long way round
    fixed" (FlipCam, EulerCam) is drawn in the report's green (.ok #1b7f3b):
    the same page without the section has that many green pixels fewer."""
    img, report = screenshot
    fixed = [a["name"] for a in report["after_bake"]
             if a["before_long_arc_segments"] and not a["long_arc_segments"]]
    assert sorted(fixed) == ["EulerCam", "FlipCam"]
    without = dict(report, after_bake=[])
    (tmp_path / "without.html").write_text(html_report.render_html(without), encoding="utf-8")
    other = _shoot(tmp_path / "without.html", tmp_path / "without.png", tmp_path / "profile")
    green = _mask(img, _rgb("#1b7f3b"), tol=30).sum()
    green_without = _mask(other, _rgb("#1b7f3b"), tol=30).sum()
    # two bold cells of "long way round fixed": some hundred pixels
    assert green - green_without > 150, (green, green_without)
