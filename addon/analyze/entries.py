# SPDX-License-Identifier: GPL-3.0-or-later
"""The Difference Report's results as the panel shows them: one entry per object
(or bone, or NLA clip) with its verdict and, after a bake, the analysis before it;
stored per scene by name, re-run after a bake or revert, sorted worst first; the
entries a later analysis replaced are kept a while, so that an undo or redo step shows
again the one that describes the keys back in place (``follow_undo``).

Plain values keyed by scene and object name: no RNA references survive an undo,
so the panel looks objects up by name.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...core.words import either
from .engine import (
    NoRotationKeys,
    analysis_targets,
    analyze_many,
    result_label,
    skipped_transform,
)

if TYPE_CHECKING:
    from ...core import analysis as core_analysis
    from .. import animdata


_RESULTS: dict[str, dict[str, dict]] = {}
# Per scene: the analyses of the last Analyze, refresh or re-run, by the digest of their
# inputs (analyze.reuse), so that the refresh after a Re-bake takes the analysis of the
# keys before it from the Analyze click before it, and a Revert's refresh the analysis of
# the keys it puts back. Only as many frames as a refresh analyses (REFRESH_FRAME_LIMIT,
# counted on the keys playing; a baked transform's keys before the bake are kept too, so
# up to twice that): beyond it nothing would take them. About 11 MB per 100,000 frames
# (benchmarks/README). Kept until the next Analyze, refresh or re-run of the scene.
_ANALYSED: dict[str, dict] = {}
# Per scene: {entry name: the entries a later analysis replaced, newest first}, so that
# after Ctrl+Z or redo the analysis of the keys back in place is shown again (an undo
# walk: after undoing a Revert the list, which undo restores, read "fine 0.00" and every
# box "Out of date: the keys changed since this analysis"). EARLIER_KEPT a name.
_EARLIER: dict[str, dict[str, list]] = {}
EARLIER_KEPT = 4

# Verdicts (core.findings.verdict): "long way round" (a key interval turned the long way
# round), "visible" (FINE_DEG or more: core.findings.NEGLIGIBLE_DEG, where the advice says
# "nothing to do" too; float32 keys alone give ~1e-5 deg), "to check" (under it, but a
# finding asks for something: location speeds, a lerp filter's creep ...), "within
# tolerance" (a Key Tolerance bake played within the tolerance asked for) and "fine"
# (nothing to do).
FINE_DEG = 0.1
VERDICT_FINE = "fine"
VERDICT_VISIBLE = "visible"
VERDICT_LONG_WAY = "long way round"
VERDICT_CHECK = "to check"
VERDICT_WITHIN = "within tolerance"
# No rotation keys to compare (a location-only control): listed, with why, after the rest.
VERDICT_SKIPPED = "skipped"
# Worst first: the panel sorts by this rank, then by the difference.
VERDICT_RANK = {VERDICT_LONG_WAY: 0, VERDICT_VISIBLE: 1, VERDICT_CHECK: 2, VERDICT_WITHIN: 3,
                VERDICT_FINE: 4}

# After a bake the report is re-run on the baked objects (before and after)
# when they span at most this many frames in all (about a second of CPU on
# the 2-core test machine, benchmarks/bench_report.py); beyond it the entries
# are marked out of date, with a button to re-run.
REFRESH_FRAME_LIMIT = 100_000
# The keys of a bake the refresh takes as written rather than reading them back
# (animdata.recording_writes): what a refresh within REFRESH_FRAME_LIMIT can read, four
# rotation and three location channels a frame. Kept as written, 9 bytes a Linear key
# (6 MB at most); widened for the refresh, about 36 bytes (25 MB at most; Bezier keys'
# handles, about 52 bytes), let go when the operator returns.
REFRESH_KEY_LIMIT = 7 * REFRESH_FRAME_LIMIT

# Transforms analysed per analyze_many call by the panel, which keeps only each one's
# summary: a 60-bone rig in one call; 200 bones x 10,000 frames do not hold every
# bone's per-frame arrays at once (701 MB in one call, bench_ops).
ENTRY_BATCH = 64


def largest(entry: dict) -> float:
    """An entry's largest deviation, at its frames or between them (the figure the list
    shows and sorts by: a wrap between two frames is 0 deg off at both)."""
    from ...report.json_report import largest_deviation

    return largest_deviation(entry) or 0.0


def worst_frame(entry: dict) -> float:
    """Where ``largest`` is: the subframe between frames when that is larger."""
    from ...report.json_report import largest_frame

    return float(largest_frame(entry))


def verdict(max_deviation_deg: float, long_arc_segments, to_do=()) -> str:
    """"long way round", "visible", "to check" (``to_do``: findings that ask for
    something) or "fine" (see FINE_DEG). An analysis' own verdict, "within tolerance"
    included, is core.findings.verdict."""
    if long_arc_segments:
        return VERDICT_LONG_WAY
    if max_deviation_deg >= FINE_DEG:
        return VERDICT_VISIBLE
    return VERDICT_CHECK if to_do else VERDICT_FINE


def fingerprint(obj, keys: bool = True) -> list:
    """What the result of an analysis depends on, cheap enough for every redraw:
    the action playing, the rotation mode, the number of rotation, delta rotation and
    location keys and their checksum (animdata.keys_checksum: a key moved, given another
    value, handle or interpolation by hand changes it), and whether a Transform Cache
    plays. A bake, a revert, keying or editing a key changes it. The checksum comes last;
    ``keys`` False leaves it out (None), for a redraw while the animation plays
    (_playing)."""
    from .. import animdata
    from ..animdata import cache

    action = animdata.get_action(obj)
    # The delta rotation too: the analysis plays delta @ rotation (a review: a delta keyed
    # into a wrap since the analysis left the entry current once a bake's action renaming
    # no longer marked it, _carry_fingerprints).
    fcurves = (animdata.rotation_fcurves(obj) + animdata.delta_rotation_fcurves(obj)
               + animdata.location_fcurves(obj))
    count = sum(len(fc.keyframe_points) for fc in fcurves if fc is not None)
    # A Transform Cache muted or enabled again changes what plays, keys or not.
    return [action.name if action is not None else "", obj.rotation_mode, count,
            cache.plays_cache(obj), animdata.keys_checksum(fcurves) if keys else None]


def summary(a: core_analysis.ObjectAnalysis) -> dict:
    from ...core import findings as core_findings

    # Only the probable defects (a flipped sign, an Euler wrap) count as long
    # arcs here: a kept spin turns the long way on purpose.
    spins = {tuple(iv["frames"]) for iv in core_findings.intervals_of_kind(a, "spin")}
    defects = core_findings.defect_arcs(a)
    return {
        "method": a.method,
        "max_deviation_deg": a.max_deviation_deg,
        "max_path_deviation_deg": a.max_path_deviation_deg,
        "worst_frame": a.worst_frame,
        "max_between_deviation_deg": a.max_between_deviation_deg,
        "worst_between_frame": a.worst_between_frame,
        "long_arc_segments": defects,
        "spins": [list(f) for f in sorted(spins)],
        "steps": len(core_findings.intervals_of_kind(a, "step")),
        "advice": a.advice,
        "findings": list(a.findings),
        "verdict": core_findings.verdict(a),
        # The bake these keys come from: its Key Tolerance (deg, 0: dense) and the
        # rotation keys it kept per channel (0 when not a bake).
        "tolerance_deg": a.bake_tolerance_deg if a.bake_role == "after" else 0.0,
        "keys": a.bake_keys if a.bake_role == "after" else 0,
        "error": "",
    }


def _entry(obj, current, before, clip=None) -> dict:
    """The panel's entry for ``obj`` (or its NLA clip ``clip``) from its analysis now
    (``current``) and, when it plays a QuatBake bake, the analysis of the keys before
    the bake (``before``, else None). ``object`` names the object (the entry's key
    may be "Cube / Walk" for a clip), ``clip`` the clip's action ("" for none)."""
    from ...core import analysis as core_analysis

    if before is not None:
        # A tolerance bake measured against its own path; what the bake kept (a creep).
        core_analysis.after_bake(before, current)
    entry = summary(current)
    entry["before"] = summary(before) if before is not None else None
    entry["fingerprint"] = fingerprint(obj)
    entry["object"], entry["bone"] = obj.name, getattr(obj, "bone_name", "")
    entry["clip"] = clip.name if clip is not None else ""
    return entry


def _error_entry(obj, message: str) -> dict:
    return {"error": message, "fingerprint": fingerprint(obj), "object": obj.name,
            "bone": getattr(obj, "bone_name", "")}


def _skipped_entry(obj, message: str, clip=None) -> dict:
    """The entry of a transform with no rotation keys to compare: ``skipped`` says why;
    ``findings`` what its location keys show, the first of them as ``advice``."""
    found = skipped_transform(obj, message, clip)
    return {"skipped": message, "verdict": VERDICT_SKIPPED, "findings": found.findings,
            "advice": found.findings[0] if found.findings else "",
            "fingerprint": fingerprint(obj), "object": obj.name,
            "bone": getattr(obj, "bone_name", "")}


def unexpected_sentence(obj, doing: str, exc: BaseException) -> str:
    """An exception QuatBake did not foresee, as one sentence naming the transform (what a
    user sees instead of a traceback)."""
    from .. import animdata

    return (f"{animdata.subject(obj)} could not be analysed: QuatBake failed while {doing} "
            f"({type(exc).__name__}: {exc}); nothing was changed. Please report this with "
            "the file.")


def named_transform(scene, name: str, entry: dict | None = None):
    """The object, or the pose bone's transform, an entry ``name`` (or an object name)
    stands for; None when it is gone. ``entry``: that entry, when it is not (or no longer)
    among the results."""
    from ..transform import AnimatedTransform

    entry = entry or results(scene).get(name) or {}
    obj = scene.objects.get(entry.get("object", name))
    bone = entry.get("bone", "")
    if obj is None or not bone:
        return obj
    if obj.pose is None or obj.pose.bones.get(bone) is None:
        return None
    return AnimatedTransform(obj, bone)


def results(scene) -> dict[str, dict]:
    """Per object name: the last analysis summary in ``scene`` (empty before any run)."""
    return _RESULTS.get(scene.name, {})


def is_stale(scene, name: str) -> bool:
    """Whether the entry ``name`` no longer describes its object (keys, action or
    mode changed since, or it was left for a re-run after a large bake)."""
    entry = results(scene).get(name)
    obj = named_transform(scene, name) if entry is not None else None
    if entry is None or obj is None:
        return True
    if entry.get("pending"):
        return True
    then = entry.get("fingerprint")
    if _playing():
        # The sidebar redraws on every frame played; reading every key each time cost a
        # 10,000-key bone 10 ms (review). Nobody edits keys while it plays.
        return then is None or then[:-1] != fingerprint(obj, keys=False)[:-1]
    return then != fingerprint(obj)


def row_figures(scene, row) -> tuple[str, float]:
    """(verdict, largest difference) a row of the list shows: its entry's where the entry
    describes the keys now, else the row's own. Undo restores the rows with the scene, and
    the entries follow the keys back in place (``follow_undo``), so the two can differ
    after an undo or redo (a review: a row read "long way round 180.0" beside its box's
    "fine 0.0"). Judged without the keys' checksum (the action, mode, key counts and
    cache): cheap enough for every row at every redraw."""
    entry = results(scene).get(row.name)
    obj = named_transform(scene, row.name) if entry is not None else None
    if obj is None or "verdict" not in entry or entry.get("pending") \
            or entry.get("fingerprint") is None \
            or entry["fingerprint"][:-1] != fingerprint(obj, keys=False)[:-1]:
        return row.verdict, row.max_deviation_deg
    return entry["verdict"], largest(entry)


def _playing() -> bool:
    """Whether the animation is playing in the window drawing now."""
    import bpy

    screen = getattr(bpy.context, "screen", None)
    return bool(getattr(screen, "is_animation_playing", False))


def _frames_spanned(obj) -> int:
    """Frames from the first rotation (or delta rotation) key to the last. Read from each
    curve's end keys (Blender keeps a curve's keys sorted: it plays them by binary
    search), not from all of them: after a dense bake of a rig that was 4 million keys
    read to count frames. A BVH object import is keyed on delta rotation only."""
    from .. import animdata

    curves = animdata.rotation_fcurves(obj) + animdata.delta_rotation_fcurves(obj)
    ends = [(kps[0].co[0], kps[-1].co[0]) for fc in curves
            if fc is not None and len(kps := fc.keyframe_points)]
    if not ends or not np.isfinite(ends).all():
        return 0
    return int(max(last for _first, last in ends) - min(first for first, _last in ends)) + 1


def analyze_into(scene, objects, method: str, replace: bool = False,
                 written: "animdata.Written | None" = None,
                 path: tuple[str, str] | None = None) -> dict[str, dict]:
    """Analyse ``objects`` and store their entries for ``scene``'s panel.

    ``replace``: the new entries replace every earlier one (an Analyze of the
    selection); otherwise they update them (a re-run, or the refresh after a
    bake). ``written``: the keys a bake just wrote (``animdata.recording_writes``),
    taken as read. Returns the new entries by object name; an object that cannot be
    analysed gets ``{"error": sentence}``.
    """
    from .. import animdata, record

    settings = getattr(scene, "quatbake", None)
    turns = settings.turns if settings is not None else "AUTO"
    timing = settings.timing if settings is not None else "EVEN"
    if path is not None:
        turns, timing = path
    # Every analysis first, in one batched call (analyze_many: a rig's bones compared
    # together), then the entries: the analysis now and, for a baked transform, of
    # the keys before its bake.
    # Each action's data paths and each curve's keys are read from Blender once per block
    # (nothing here changes them); a block per batch, so that a dense 200-bone import's
    # keys are not all held at once.
    clip_name = settings.clip if settings is not None else ""
    with animdata.read_once():
        targets = []
        for obj in objects:
            for item in panel_targets(obj, clip_name):
                clip = item[1] if isinstance(item, tuple) else None
                targets.append((obj, clip, clip is None and record.is_baked(obj)))
    known = _ANALYSED.pop(scene.name, {})
    with animdata.read_once():
        small = sum(_frames_spanned(obj) for obj in objects) <= REFRESH_FRAME_LIMIT
    keep: dict | None = {} if small else None
    found: dict[str, dict] = {}
    for start in range(0, len(targets), ENTRY_BATCH):
        with animdata.read_once(seed=written):
            found.update(_entries(targets[start:start + ENTRY_BATCH], method, turns, timing,
                                  known, keep))
    if keep is not None:
        _ANALYSED[scene.name] = keep
    if replace:
        _keep_earlier(scene.name, _RESULTS.get(scene.name, {}))
        _RESULTS[scene.name] = _bones_worst_first(found)
    else:
        # A transform's entries under other names describe what it no longer shows: its
        # clip's, after a bake of that clip ("Cube / Run" beside the bake's "Cube"), or
        # the bake's, after a Revert while the Clip field names a clip.
        # And an armature's own row that only said why its bones were not compared (keyed
        # only in NLA clips), once they are (a triage: after a Clip bake of such a rig it
        # stayed beside its bones' rows, current).
        analysed = {(obj.name, getattr(obj, "bone_name", "")) for obj, _c, _b in targets}
        rigs = {name for name, bone in analysed if bone}
        kept = _RESULTS.setdefault(scene.name, {})
        gone = [n for n, e in kept.items() if n not in found
                and ((e.get("object"), e.get("bone", "")) in analysed
                     or (e.get("skipped") and not e.get("bone") and e.get("object") in rigs))]
        _keep_earlier(scene.name, {n: kept[n] for n in [*gone, *found] if n in kept})
        for name in gone:
            del kept[name]
        kept.update(found)
    _sync_rows(scene)
    return found


def panel_targets(obj, clip_name: str) -> list:
    """What the panel analyses of ``obj``: the clip the Re-bake panel's Clip field names,
    where ``obj`` has it and shows no bake (what a Re-bake would bake: an earlier walk
    read the active action's "fine" and then baked the clip); otherwise the object itself,
    or its NLA clips when only they hold rotation keys (``analysis_targets``). A baked
    object shows its bake, whichever clip it came from."""
    from .. import animdata, keyed, record

    if clip_name and not record.is_baked(obj):
        owner = getattr(obj, "owner", obj)
        clip = next((c for c in animdata.object_clips(owner) if c.name == clip_name), None)
        # A clip that does not key this transform's rotation (a bone selected in Pose
        # Mode beside the clip's bones) leaves it to its active action, as Object Mode's
        # selection does (a review: it read "no keys: nothing to do" of a keyed bone).
        if clip is not None and keyed.has_rotation_keys(obj, clip.fcurves()):
            return [obj] if clip.active else [(obj, clip)]
    return analysis_targets(obj)


def _entries(targets: list, method: str, turns: str, timing: str, known: dict,
             keep: dict | None) -> dict:
    """The entries of ``targets`` ((obj, clip, baked) each), from one analyze_many call:
    the analyses now, then the before-bake ones of the baked transforms; those whose
    inputs ``known`` holds an analysis of are not analysed again, and ``keep`` (when not
    None) gets every one of them. The entries keep only the summaries (ENTRY_BATCH)."""
    from .. import animdata

    requests = [(obj, clip, False) for obj, clip, _baked in targets]
    requests += [(obj, None, True) for obj, _clip, baked in targets if baked]
    analyses = analyze_many(requests, method, turns, timing, known, keep)
    befores = iter(analyses[len(targets):])
    found: dict[str, dict] = {}
    for (obj, clip, baked), current in zip(targets, analyses):
        before = next(befores) if baked else None
        label = result_label(obj, clip)
        # The before analysis failing fails the entry, as its own analysis would.
        problem = next((a for a in (current, before) if isinstance(a, BaseException)), None)
        if problem is None:
            found[label] = _entry(obj, current, before, clip)
        elif isinstance(problem, NoRotationKeys):
            # Not an error: nothing to compare (a location-only control, say).
            try:
                found[label] = _skipped_entry(obj, str(problem), clip)
            except (animdata.ChannelError, ValueError) as loc_exc:
                found[label] = _error_entry(obj, f"{problem} {loc_exc}")
            except Exception as loc_exc:   # not foreseen: one sentence, never a traceback
                found[label] = _error_entry(obj, unexpected_sentence(obj, "analysing it",
                                                                     loc_exc))
        elif isinstance(problem, (animdata.ChannelError, ValueError)):
            found[label] = _error_entry(obj, str(problem))
        else:   # not foreseen: one sentence, never a traceback
            found[label] = _error_entry(obj, unexpected_sentence(obj, "analysing it", problem))
    return found


def _sync_rows(scene) -> None:
    """Copy the entries, worst first, into ``scene.quatbake.report_rows`` (the UIList's data)."""
    settings = getattr(scene, "quatbake", None)
    if settings is None:
        return
    rows = settings.report_rows
    rows.clear()
    for name, entry in worst_first(results(scene)):
        row = rows.add()
        row.name = name
        row.verdict = entry.get("verdict", "error" if entry.get("error") else "")
        row.max_deviation_deg = float(largest(entry))
    settings.report_index = min(settings.report_index, max(len(rows) - 1, 0))


def _carry_fingerprints(scene, objects) -> None:
    """The entries of the other bones of a rig whose bones were just baked or reverted:
    the bake copies their keys as they were into the rig's new action, so their analyses
    still hold, but their fingerprints named the old action, and a walk found every one of
    them "out of date" after a Re-bake of one bone. Each whose keys, mode and cache are
    unchanged (all of its fingerprint but the action's name) takes the new fingerprint."""
    owners = {getattr(obj, "owner", obj).name for obj in objects}
    done = {result_label(obj) for obj in objects}
    for name, entry in results(scene).items():
        then = entry.get("fingerprint")
        if name in done or then is None or entry.get("clip") or entry.get("pending") \
                or entry.get("object") not in owners:
            continue
        obj = named_transform(scene, name)
        now = fingerprint(obj) if obj is not None else None
        if now is not None and then[1:] == now[1:]:
            _keep_earlier(scene.name, {name: entry})     # an undo brings the action back
            results(scene)[name] = dict(entry, fingerprint=now)


def refresh(scene, objects, method: str, written: "animdata.Written | None" = None,
            path: tuple[str, str] | None = None) -> None:
    """After a bake or revert: re-run the report on ``objects`` so nothing stale
    is shown; when they are too long to analyse at once (REFRESH_FRAME_LIMIT),
    mark their entries out of date instead (the panel offers a re-run). ``written``:
    the keys the bake wrote, as ``animdata.recording_writes`` kept them: the analysis
    of the baked keys takes them from there rather than reading them back."""
    from .. import animdata

    objects = list(objects)
    _carry_fingerprints(scene, objects)
    with animdata.read_once(seed=written):   # a rig's bones: its action sorted by bone once
        spanned = sum(_frames_spanned(obj) for obj in objects)
    if spanned <= REFRESH_FRAME_LIMIT:
        analyze_into(scene, objects, method, written=written, path=path)
        return
    stored = _RESULTS.setdefault(scene.name, {})
    _keep_earlier(scene.name, {result_label(obj): stored[result_label(obj)]
                               for obj in objects if result_label(obj) in stored})
    for obj in objects:
        label = result_label(obj)
        # The keys it stands for, so that an undo and redo of the bake bring it back
        # (follow_undo): without the keys' checksum, which would read every key the bake
        # wrote (a 100-object x 2,000-frame Re-bake's 1.2 million) to save a click, and
        # with the checksums the bake kept of them (its record's).
        stored[label] = dict(stored.get(label, {"error": ""}), pending=True, object=obj.name,
                             bone=getattr(obj, "bone_name", ""),
                             fingerprint=fingerprint(obj, keys=False),
                             bake_written=_bake_written(obj))
    _sync_rows(scene)


def _bake_written(obj) -> str:
    """The checksums the last bake of ``obj`` kept of the keys it wrote (its record's
    ``baked_checksums``; "" when it has none): what a pending entry stands for."""
    from .. import record

    rec = record.record_of(obj)
    return getattr(rec, "baked_checksums", "") if rec is not None else ""


def _pending_for(obj, candidates: list, now: list):
    """The bake's pending entry among ``candidates`` that stands for the keys ``obj`` plays
    now (``now``: its fingerprint): the same action, mode and key counts, the same bake
    (its record's checksums), and the keys still as that bake wrote them (a review: after a
    Re-run and a hand edit of a baked key, any undo step put the bake's entry back, "Not
    re-analysed after the bake", where the keys had been analysed and edited since)."""
    from .. import record

    written = _bake_written(obj)
    match = next((e for e in candidates if e.get("pending") and written
                  and e.get("bake_written") == written
                  and e["fingerprint"][:-1] == now[:-1]), None)
    if match is None or record.edited_since_bake(obj) is not None:
        return None
    return match


def _keep_earlier(scene_name: str, replaced: dict) -> None:
    """Keep the entries ``replaced`` (by name) for ``follow_undo``, newest first."""
    earlier = _EARLIER.setdefault(scene_name, {})
    for name, entry in replaced.items():
        if entry.get("fingerprint") is None:
            continue       # describes no keys an undo could bring back
        kept = earlier.setdefault(name, [])
        kept.insert(0, entry)
        del kept[EARLIER_KEPT:]


def follow_undo(scene) -> None:
    """After an undo or redo step: each entry, and each row of the list (which undo
    restores), whose analysis does not describe its transform's keys now takes the
    earlier one that does, where one was kept (``_EARLIER``); the one it replaces is kept
    in its turn. An entry with none stays as it is, out of date. The list then lists
    every entry (_list_every_entry)."""
    settings = getattr(scene, "quatbake", None)
    if settings is None:
        return
    _follow_keys(scene, settings)
    _list_every_entry(scene, settings)


def _follow_keys(scene, settings) -> None:
    """follow_undo's entries: each takes the kept one that describes its keys now."""
    earlier = _EARLIER.get(scene.name)
    if not earlier:
        return
    current = _RESULTS.setdefault(scene.name, {})
    rows = [row.name for row in settings.report_rows]
    for name in dict.fromkeys([*current, *rows]):
        candidates = earlier.get(name)
        if not candidates:
            continue
        entry = current.get(name)
        obj = named_transform(scene, name, entry or candidates[0])
        if obj is None:
            continue
        # The keys' checksum only where the cheap part (action, mode, key count, cache)
        # lets a kept entry match (a review: a checksum of every key of every entry made a
        # Ctrl+Z of a 120-bone dense rig 0.3 s).
        cheap = fingerprint(obj, keys=False)[:-1]
        if not any((e.get("fingerprint") or [None])[:-1] == cheap for e in candidates):
            continue
        now = fingerprint(obj)
        if entry is not None and not entry.get("pending") and entry.get("fingerprint") == now:
            continue
        match = next((e for e in candidates if e.get("fingerprint") == now), None)
        if match is None:
            # Else a bake's entry left pending on these keys (a review: after undo and
            # redo of such a bake the box read "Out of date", not "Not re-analysed").
            if entry is not None and entry.get("pending") \
                    and (entry.get("fingerprint") or [None])[:-1] == now[:-1]:
                continue
            match = _pending_for(obj, candidates, now)
        if match is None:
            continue
        candidates.remove(match)
        if name in current:
            _keep_earlier(scene.name, {name: current[name]})
        current[name] = match


def _list_every_entry(scene, settings) -> None:
    """After an undo step the list's rows are the step's, the entries the session's: an
    undo to before the first Analyze (no undo step) left no rows, and the panel then drew
    the boxes of three of the entries only (the last stop's undo walk: four objects
    analysed, three to be seen). The rows are listed again, worst first, each restored
    row keeping its own figures (what its entry says when that describes no keys now:
    ``row_figures``)."""
    found = results(scene)
    rows = settings.report_rows
    if not found or {row.name for row in rows} >= set(found):
        return
    kept = {row.name: (row.verdict, row.max_deviation_deg) for row in rows}
    _sync_rows(scene)
    for row in rows:
        if row.name in kept:
            row.verdict, row.max_deviation_deg = kept[row.name]


def degrees_text(value: float) -> str:
    """A tolerance the user typed, as the panel shows it: "1.0", "0.25", "2.5"."""
    return f"{value:.1f}" if round(value, 1) == value else f"{value:g}"


def within_text(entry: dict) -> str:
    """"within 1.0° · 24 keys" for an entry of a Key Tolerance bake played within its
    tolerance (issue 24: "0.5° visible" read as a regression), else ""."""
    if entry.get("verdict") != VERDICT_WITHIN or not entry.get("tolerance_deg"):
        return ""
    text = f"within {degrees_text(entry['tolerance_deg'])}\u00b0"
    keys = entry.get("keys") or 0
    return f"{text} \u00b7 {keys:,d} {either(keys, 'key', 'keys')}" if keys else text


def before_after(entry: dict) -> str:
    """"180.0 deg -> 0.00 deg, long way round fixed" for an entry with ``before``; a Key
    Tolerance bake: "within 1.0° · 24 keys (6.8° -> 0.52°)"; "" without ``before``, or when
    its rotation was and is within FINE_DEG and something else is to check."""
    before = entry.get("before")
    if not before:
        return ""
    text = f"{largest(before):.1f}\u00b0 -> {largest(entry):.2f}\u00b0"
    was_long, is_long = bool(before["long_arc_segments"]), bool(entry["long_arc_segments"])
    if entry.get("verdict") == VERDICT_WITHIN:
        fixed = ", long way round fixed" if was_long else ""
        return f"{within_text(entry)} ({text}{fixed})"
    if was_long and not is_long:
        return f"{text}, long way round fixed"
    if is_long:
        return f"{text}, still the long way round"
    if entry.get("verdict") == VERDICT_CHECK:
        from ...core.findings import brief

        if max(largest(before), largest(entry)) < FINE_DEG:
            # "0.0° -> 0.00°, to check: ..." read as a riddle in the window walk (issue 24):
            # the rotation was and is fine, so there is no change to tell; the panel says
            # "To check: ..." as for any entry (and a line shorter, which keeps Re-bake on
            # a 900-pixel screen).
            return ""
        return f"{text}, to check: {brief(entry.get('advice', ''))}"
    return f"{text}, {entry['verdict']}"


def panel_sentence(entry) -> str:
    """The one sentence an entry's box shows under its name: the before -> after of a
    bake, else the verdict and the advice (``core.findings.brief``: a few lines at the
    sidebar's default width; the whole advice is in Jump to Worst Frame's tooltip and in
    the exported report). A plain string (a skipped entry's location finding) is cut the
    same way."""
    from ...core.findings import brief

    if isinstance(entry, str):
        return brief(entry)
    change = before_after(entry)
    if change:
        return change
    advice = brief(entry.get("advice", ""))
    if entry.get("verdict") == VERDICT_LONG_WAY:
        return advice      # it says "take the long way" already
    return f"{entry.get('verdict', '').capitalize()}: {advice}"


def worst_first(found: dict[str, dict]) -> list[tuple[str, dict]]:
    """Entries sorted as the panel lists them: errors, then long way round,
    visible, fine; the largest difference first within each."""
    return sorted(found.items(), key=lambda item: _rank(*item))


def _rank(name: str, entry: dict) -> tuple:
    """Sort key of one entry: errors, long way round, visible, fine, then skipped."""
    if entry.get("skipped"):
        return (len(VERDICT_RANK), 0.0, name)
    if entry.get("error") or entry.get("verdict") not in VERDICT_RANK:
        return (-1, 0.0, name)
    return (VERDICT_RANK[entry["verdict"]], -largest(entry), name)


def _bones_worst_first(found: dict) -> dict:
    """``found`` in its order, except that each armature's bone rows come together where
    its first one was, worst first (as in the JSON report)."""
    order: list = []
    bones: dict = {}
    for label, s in found.items():
        if not s.get("bone"):
            order.append(label)
            continue
        if s["object"] not in bones:
            bones[s["object"]] = []
            order.append(bones[s["object"]])
        bones[s["object"]].append(label)
    out = {}
    for item in order:
        if isinstance(item, list):
            # Worst first, as worst_first orders them (errors and skipped bones have no
            # difference to sort by).
            for label in sorted(item, key=lambda lab: _rank(lab, found[lab])[:2]):
                out[label] = found[label]
        else:
            out[item] = found[item]
    return out


def forget_all() -> None:
    """Drop every stored entry (the add-on is being unregistered)."""
    _RESULTS.clear()
    _ANALYSED.clear()
    _EARLIER.clear()

