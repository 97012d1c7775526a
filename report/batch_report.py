# SPDX-License-Identifier: GPL-3.0-or-later
"""The batch summary, schema "quatbake.batch/1" (docs/cli.md, docs/schema/), as JSON and HTML.

``python -m quatbake batch`` records one result per shot (``DIR/shots/<name>.json``,
a "quatbake.batch-shot/1" record) and merges them here into ``DIR/summary.json``
and ``DIR/summary.html``. Plain Python (no numpy, no bpy): the summary of a farm
job can be merged on any machine.
"""
from __future__ import annotations

import html
import json
import urllib.parse

SCHEMA = "quatbake.batch/1"
SHOT_SCHEMA = "quatbake.batch-shot/1"

EXIT_OK, EXIT_FAIL_ABOVE, EXIT_SHOT_FAILED = 0, 1, 3

# A shot's status and the exit code it stands for. "failed": its Blender said why it
# could not read or process the shot; "crashed": its process ended without saying
# (a crash, a kill, out of memory); "missing": summarize found no result for it.
STATUS_EXIT = {"ok": EXIT_OK, "over": EXIT_FAIL_ABOVE, "failed": EXIT_SHOT_FAILED,
               "crashed": EXIT_SHOT_FAILED, "missing": EXIT_SHOT_FAILED}
FAILED = ("failed", "crashed", "missing")


def judged(record: dict, fail_above: float | None) -> dict:
    """``record`` with its status and exit code for ``fail_above`` (degrees or None):
    a shot that was done is "over" when its worst deviation is above it, else "ok"."""
    out = dict(record)
    if out["status"] in ("ok", "over"):
        worst = out.get("max_deviation_deg")
        over = fail_above is not None and worst is not None and worst > fail_above
        out["status"] = "over" if over else "ok"
    out["exit_code"] = STATUS_EXIT[out["status"]]
    return out


def exit_code(shots: list[dict]) -> int:
    """3 if some shot failed, else 1 if some shot is over --fail-above, else 0."""
    codes = {s["exit_code"] for s in shots}
    if EXIT_SHOT_FAILED in codes:
        return EXIT_SHOT_FAILED
    return EXIT_FAIL_ABOVE if EXIT_FAIL_ABOVE in codes else EXIT_OK


def build_summary(shots: list[dict], *, command: str, options: dict,
                  fail_above: float | None) -> dict:
    """The summary of ``shots``: their records, in list order, already judged (``judged``)."""
    entries = [{k: v for k, v in s.items() if k not in _RECORD_ONLY} for s in shots]
    counts = {status: sum(1 for s in entries if s["status"] == status) for status in STATUS_EXIT}
    return {
        "schema": SCHEMA,
        "command": command,
        "options": options,
        "fail_above_deg": fail_above,
        "exit_code": exit_code(entries),
        "counts": {"shots": len(entries), **counts},
        "shots": entries,
    }


# Fields of a per-shot record that the summary holds once, at its top.
_RECORD_ONLY = ("schema", "command", "options", "fail_above_deg")


def worst_first(shots: list[dict]) -> list[dict]:
    """Shots that failed first (by list order), then by largest deviation, then by name."""
    def key(s):
        failed = s["status"] in FAILED
        worst = s.get("max_deviation_deg")
        return (not failed, s["index"] if failed else 0,
                -(worst if worst is not None else -1.0), s["name"])

    return sorted(shots, key=key)


def dumps(document: dict) -> str:
    return json.dumps(document, allow_nan=False, indent=1, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------
# HTML: one table, worst shot first, each shot linking its own page
# --------------------------------------------------------------------------

_STATUS_TEXT = {"ok": "ok", "over": "over --fail-above", "failed": "could not be processed",
                "crashed": "crashed", "missing": "no result"}
_CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; }
th, td { border-bottom: 1px solid #ddd; padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.ok td.status { color: #2a7a2a; }
tr.over td.status { color: #b35c00; font-weight: bold; }
tr.failed td.status, tr.crashed td.status, tr.missing td.status { color: #b00020; font-weight: bold; }
.meta { color: #555; }
"""


def _num(value, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def _keys(shot: dict) -> str:
    before, after = shot.get("keys_before"), shot.get("keys_after")
    if before is None and after is None:
        return "-"
    if after is None:
        return str(before)
    return f"{_num(before, 'd')} &rarr; {after}"


def _worst(shot: dict) -> str:
    worst = shot.get("worst")
    if not worst:
        return "-"
    who = worst["object"] + (f": {worst['bone']}" if worst.get("bone") else "")
    frame = worst.get("frame")
    return html.escape(who) + ("" if frame is None else f" (frame {frame:g})")


def summary_html(summary: dict) -> str:
    """One self-contained page: the summary's table, worst shot first."""
    rows = []
    for shot in worst_first(summary["shots"]):
        page = shot.get("outputs", {}).get("html")
        name = html.escape(shot["name"])
        link = (f'<a href="{html.escape(urllib.parse.quote(page))}">{name}</a>' if page else name)
        rows.append(
            f'<tr class="{shot["status"]}"><td>{link}<br><span class="meta">'
            f'{html.escape(shot["file"])}</span></td>'
            f'<td class="status">{_STATUS_TEXT[shot["status"]]} ({shot["exit_code"]})</td>'
            f'<td class="num">{_num(shot.get("max_deviation_deg"), ".2f")}</td>'
            f"<td>{_worst(shot)}</td>"
            f'<td class="num">{_keys(shot)}</td>'
            f'<td class="num">{_num(shot.get("seconds"), ".1f")}</td>'
            f'<td class="num">{_num(shot.get("peak_memory_mb"), ".0f")}</td>'
            f'<td>{html.escape(shot.get("message") or "")}</td></tr>')
    counts = summary["counts"]
    told = ", ".join(f"{counts[s]} {_STATUS_TEXT[s]}" for s in STATUS_EXIT if counts[s])
    gate = ("" if summary["fail_above_deg"] is None
            else f", --fail-above {summary['fail_above_deg']:g} deg")
    options = " ".join(f"{k}={v}" for k, v in sorted(summary["options"].items()) if v is not None)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>QuatBake batch {html.escape(summary['command'])}: {counts['shots']} shots</title>"
        f"<style>{_CSS}</style></head><body>\n"
        f"<h1>QuatBake batch {html.escape(summary['command'])}</h1>\n"
        f'<p>{counts["shots"]} shots: {html.escape(told)}{gate}; exit code '
        f'{summary["exit_code"]}.</p>\n<p class="meta">Options: {html.escape(options)}</p>\n'
        "<table>\n<thead><tr><th>shot</th><th>status (exit)</th><th>worst deg</th>"
        "<th>worst object</th><th>keys</th><th>seconds</th><th>peak MB</th><th>message</th>"
        "</tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody></table>\n</body></html>\n")
