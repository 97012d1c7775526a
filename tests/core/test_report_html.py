"""report.html_report: one offline page, charts as inline SVG (rendering in Chromium:
tests/browser/test_html_chromium.py)."""
import json
import re
import xml.etree.ElementTree as ET

import numpy as np

from quatbake.core import analysis
from quatbake.report import html_report, json_report
from quatbake.report import svg as report_svg

from report_schema import load_report, validate_report

SVG = "{http://www.w3.org/2000/svg}"


def _flipped_report(n_frames=81):
    keys = np.array([1.0, 41.0, float(n_frames)])
    angles = np.radians([0, 40, 80]) / 2
    kq = np.stack([np.cos(angles), 0 * angles, 0 * angles, np.sin(angles)], axis=1)
    kq[1] *= -1
    frames = np.arange(1, n_frames + 1, dtype=float)
    raw = np.stack([np.interp(frames, keys, kq[:, c]) for c in range(4)], axis=1)
    a = analysis.analyze_object("Cam <1>", "QUATERNION", frames, raw, keys, kq, "slerp", raw_values=raw)
    return validate_report(json_report.build_report(
        [a], blender_version="5.0.1", file="shot.blend", method="slerp",
        errors=[("Lamp", 'Object "Lamp" has no rotation keys: nothing to compare.')]))


def _svgs(page):
    return [ET.fromstring(m) for m in re.findall(r"<svg .*?</svg>", page, flags=re.S)]


def test_page_is_self_contained_and_each_chart_is_well_formed_svg():
    page = html_report.render_html(_flipped_report())
    assert page.startswith("<!DOCTYPE html>")
    # No network: nothing is fetched (the only URL is the SVG namespace name).
    assert re.findall(r"https?://[^\"' ]+", page) == ["http://www.w3.org/2000/svg"] * 3
    assert "<script" not in page and "<link" not in page and "src=" not in page
    svgs = _svgs(page)
    ids = [s.get("id") for s in svgs]
    assert ids == ["deviation-0", "speed-0", "norm-0"]
    # Object names are escaped, never injected as markup.
    assert "Cam &lt;1&gt;" in page and "Cam <1>" not in page
    assert 'Object &quot;Lamp&quot; has no rotation keys' in page


def test_charts_mark_keys_shade_long_arcs_and_have_titles_axes_and_legend():
    report = _flipped_report()
    svg = _svgs(html_report.render_html(report))[1]                 # speed chart
    texts = [t.text for t in svg.iter(SVG + "text")]
    assert any("angular speed, Blender vs slerp" in (t or "") for t in texts)
    assert "frame" in texts and "speed (deg/frame)" in texts
    assert {"Blender", "slerp", "key frame", "long way round"} <= set(texts)
    dashed = [ln for ln in svg.iter(SVG + "line") if ln.get("stroke-dasharray") == "4 3"
              and ln.get("y1") != ln.get("y2")]
    assert len(dashed) == 3                                           # keys 1, 41, 81
    bands = [r for r in svg.iter(SVG + "rect") if r.get("fill") == report_svg.LONG_ARC_FILL
             and r.get("y") != "9"]                               # not the legend's box
    assert len(bands) == 2                                            # both intervals of the flip
    lines = list(svg.iter(SVG + "polyline"))
    assert len(lines) == 2
    # The Blender line follows the data: its highest point is where the speed peaks.
    pts = np.array([p.split(",") for p in lines[0].get("points").split()], float)
    assert len(pts) == 80                       # speeds start at the second frame
    speeds = report["objects"][0]["per_frame"]["blender_speed_deg"]
    assert np.argmin(pts[:, 1]) + 1 == int(np.argmax(speeds))


def test_worst_frame_is_pointed_at_on_the_deviation_chart():
    report = _flipped_report()
    obj = report["objects"][0]
    svg = _svgs(html_report.render_html(report))[0]
    labels = [t.text for t in svg.iter(SVG + "text") if (t.text or "").startswith("worst")]
    assert labels == [f"worst: {obj['max_deviation_deg']:.2f} deg at frame {obj['worst_frame']}"]


def test_a_million_frames_make_a_small_page_that_keeps_the_spike():
    n = 1_000_000
    frames = np.arange(n, dtype=float)
    dev = np.full(n, 0.5)
    dev[654_321] = 42.0                                # one spike must survive the envelope
    report = {"schema": json_report.SCHEMA, "blender_version": "5.0.1", "file": "big.blend",
              "method": "slerp", "errors": [],
              "objects": [{"name": "Big", "rotation_mode": "XYZ", "frames": [0, n - 1], "keys": [0, n - 1],
                           "max_deviation_deg": 42.0, "rms_deviation_deg": 0.5, "worst_frame": 654_321,
                           "long_arc_segments": [], "advice": "",
                           "per_frame": {"frame": frames, "deviation_deg": dev,
                                         "blender_speed_deg": dev, "custom_speed_deg": dev}}]}
    page = html_report.render_html(report)
    assert len(page) < 200_000
    svg = _svgs(page)[0]
    pts = np.array([p.split(",") for p in next(svg.iter(SVG + "polyline")).get("points").split()], float)
    assert len(pts) <= 2 * report_svg.MAX_COLUMNS
    assert pts[:, 1].min() < pts[:, 1].max() - 100      # the spike is drawn, well above the rest


def test_nice_ticks_are_round_and_cover_the_range():
    assert report_svg.nice_ticks(0, 10) == [0, 2, 4, 6, 8, 10]
    ticks = report_svg.nice_ticks(1, 81, 10)
    assert ticks[0] >= 1 and ticks[-1] <= 81 and all(t % 10 == 0 for t in ticks)


def test_write_html_and_json_files(tmp_path):
    report = _flipped_report()
    html_report.write_html(report, tmp_path / "r.html")
    json_report.write_json(report, tmp_path / "r.json")
    assert (tmp_path / "r.html").read_text(encoding="utf-8") == html_report.render_html(report)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html", "r.json"]
    assert load_report(tmp_path / "r.json") == json.loads(json_report.dumps(report))


def test_key_interval_table_shows_turned_vs_shortest_and_flags_long_arcs():
    page = html_report.render_html(_flipped_report())
    rows = re.findall(r"<tr><td>(\d+-\d+)( <span class=\"bad\">long way round[^<]*</span>)?</td>"
                      r"<td class=\"num ?(\w*)\">([\d.]+)</td>"
                      r"<td class=\"num\">([\d.]+)</td>", page)
    assert [(r[0], r[2]) for r in rows] == [("1-41", "bad"), ("41-81", "bad")]
    assert all(r[1] for r in rows)      # flagged in the Keys cell, no column of its own
    # Blender turns ~320 deg where 40 would do.
    assert all(float(r[3]) > 300 and float(r[4]) == 40.0 for r in rows)
    assert page.count('<span class="bad">long way round (flipped sign)</span>') == 2  # "flip"


def _still_report(n_keys=30):
    """An object that never turns: every interval table entry is zero."""
    keys = np.arange(1.0, n_keys + 1.0)
    kq = np.tile([1.0, 0.0, 0.0, 0.0], (n_keys, 1))
    a = analysis.analyze_object("Still", "QUATERNION", keys, kq, keys, kq, "slerp", raw_values=kq)
    return validate_report(json_report.build_report(
        [a], blender_version="5.0.1", file="still.blend", method="slerp"))


def test_tables_have_no_empty_last_column_and_zero_tables_are_folded():
    page = html_report.render_html(_still_report())
    # 29 intervals that do not turn: one line that opens the table
    assert re.search(r"<details><summary>29 key intervals \(no turn in any of them\)</summary>",
                     page)
    for table in re.findall(r"<table>.*?</table>", page, flags=re.S):
        for row in re.findall(r"<tr>(.*?)</tr>", table, flags=re.S):
            assert not row.endswith("<td></td>") and not row.endswith("<th></th>"), row


def test_a_zero_difference_is_not_shown_as_a_warning():
    page = html_report.render_html(_still_report())
    cell = re.search(r'<td class="num (\w+)">0\.00</td>', page)
    assert cell is not None and cell.group(1) == "ok"


def test_second_series_is_dashed_so_coinciding_lines_both_show():
    svg = [s for s in _svgs(html_report.render_html(_flipped_report()))
           if s.get("id") == "speed-0"][0]
    lines = svg.findall(f"{SVG}polyline")
    assert lines[0].get("stroke-dasharray") is None
    assert lines[1].get("stroke-dasharray") == "8 5"


def test_a_long_title_moves_the_legend_below_it():
    page = html_report.render_html(_flipped_report())
    svg = [s for s in _svgs(page) if s.get("id") == "norm-0"][0]
    texts = {t.text: float(t.get("y")) for t in svg.findall(f"{SVG}text") if t.get("y")}
    title = [k for k in texts if k and k.startswith("Cam <1>: length")][0]
    legend = texts["|q| before normalising"]
    # the legend sits on its own row, lower than the title's baseline
    assert legend > texts[title] + 5


def test_jargon_has_plain_words_and_a_hover_explanation():
    page = html_report.render_html(_flipped_report())
    assert re.search(r'<span class="hint" title="Blender interpolates the four quaternion '
                     r'channels separately', page)
    assert "shrinks between keys" in page
    assert "float32 step" not in page


def test_header_names_the_saving_and_the_analysing_blender_and_after_bake_section():
    report = _flipped_report()
    report["saved_by_blender"] = "3.4.1"
    report["after_bake"] = [{"name": "Cam <1>", "before_max_deviation_deg": 180.0,
                             "before_long_arc_segments": [[1, 41]], "max_deviation_deg": 0.0,
                             "long_arc_segments": [], "advice": "nothing to do"}]
    validate_report(report)
    page = html_report.render_html(report)
    assert "file saved by Blender 3.4.1, analysed by Blender 5.0.1" in page
    assert '<h2 id="after-bake">After the bake</h2>' in page
    assert '<td class="ok">long way round fixed</td>' in page


def test_kept_spins_are_not_called_long_way_and_path_is_split_from_timing():
    from quatbake.core import analysis

    frames = np.arange(1.0, 41.0)
    half = np.radians(18.0 * (frames - 1)) / 2          # two turns about Z, LINEAR
    bq = np.column_stack([np.cos(half), 0 * half, 0 * half, np.sin(half)])
    keys = np.array([1.0, 21.0, 40.0])
    key_raw = np.column_stack([np.zeros(3), np.zeros(3), np.radians(18.0 * (keys - 1))])
    a = analysis.analyze_object("Spin", "XYZ", frames, bq, keys, bq[[0, 20, 39]], "slerp",
                                key_raw=key_raw)
    report = json_report.build_report([a], blender_version="5.0.1", file="s.blend",
                                      method="slerp")
    page = html_report.render_html(report)
    assert page.count('<span class="meta">keyed spin</span>') == 2
    assert "long way round" not in page.split("<h2", 1)[1].split("Shaded:")[0]
    assert "deg off the slerp path" in page
    assert "off the path" in page.split('id="deviation-0"', 1)[1].split("</svg>", 1)[0]


def test_the_title_names_what_was_analysed_then_the_file():
    """Issue 24: after an import the title named only the open .blend ("(unsaved file)");
    the objects (an armature once for all its bones) come first."""
    report = _flipped_report()
    assert re.search(r"<title>(.*?)</title>", html_report.render_html(report)).group(1) \
        == "QuatBake report: Cam &lt;1&gt; (shot.blend)"   # an object in error is not one analysed
    bones = {"file": "(unsaved file)", "objects": [{"name": "walk", "bone": b}
                                                   for b in ("hip", "knee")]}
    assert html_report.page_subject(bones) == "walk (unsaved file)"
    many = {"file": "", "objects": [{"name": f"Obj{i}"} for i in range(5)]}
    assert html_report.page_subject(many) == "Obj0, Obj1, Obj2 and 2 more"


def test_the_header_counts_objects_and_bones_apart():
    """A walk: a rig's 8 bones read "8 object(s)" in the header."""
    report = _flipped_report()
    assert " &middot; 1 object &middot; " in html_report.render_html(report)
    row = report["objects"][0]
    report["objects"] = [dict(row, name=f"Rig: b{i}", bone=f"b{i}") for i in range(8)]
    assert " &middot; 8 bones &middot; " in html_report.render_html(report)
    report["objects"].append(dict(row))
    assert " &middot; 1 object and 8 bones &middot; " in html_report.render_html(report)


def test_a_kept_spin_is_not_coloured_as_a_long_way_round():
    """A report walk: a spin keyed 0 -> 360 deg and played evenly (verdict fine, 0.00 deg)
    had its largest difference in red, the colour of a long way round; the colour follows
    the verdict."""
    keys = np.array([1.0, 41.0])
    key_raw = np.radians([[0, 0, 0], [0, 0, 360]])
    frames = np.arange(1, 42, dtype=float)
    raw = np.zeros((frames.size, 3))
    raw[:, 2] = np.radians(9.0 * (frames - 1.0))
    from quatbake.core import rotation

    a = analysis.analyze_object("Spin", "XYZ", frames, rotation.euler_to_quat(raw, "XYZ"), keys,
                                rotation.euler_to_quat(key_raw, "XYZ"), "slerp", raw_values=raw,
                                key_raw=key_raw)
    report = validate_report(json_report.build_report([a], blender_version="5.0.1",
                                                      file="spin.blend", method="slerp"))
    (obj,) = report["objects"]
    assert obj["verdict"] == "fine" and obj["long_arc_segments"] == [[1.0, 41.0]]
    page = html_report.render_html(report)
    cell = re.search(r'<td class="num (\w+)">0\.00</td>', page)
    assert cell is not None and cell.group(1) == "ok", page[:2000]
