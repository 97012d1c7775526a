# SPDX-License-Identifier: GPL-3.0-or-later
"""``bake``: re-bake a file's rotations and save the result as a new .blend."""
from __future__ import annotations

import math
import sys

from .args import EXIT_BAD_INPUT, EXIT_OK, check_blend_file, check_output, same_file
from .headless import BadInput, save_blend_copy
from .scenes import (
    clip_targets,
    clips_only_note,
    clips_only_objects,
    load_blend,
    nothing_to_do,
    register_quatbake,
    resolve_targets,
)


def check_options(args) -> None:
    """The bake options that do not go together (BadInput), checked before any file is read
    (``batch bake`` checks them once for every shot)."""
    if args.constant_speed and args.timing == "keyed":
        raise BadInput("--timing keyed keeps the keys' ease and --constant-speed retimes by arc "
                       "length: give one of them.")
    if args.constant_speed and args.location == "keep":
        raise BadInput("--constant-speed retimes the path, so it needs --location linear or catmull_rom.")
    # The options as typed, before any settings exist (a usage error imports no numpy).
    thinned = args.tolerance > 0.0 or args.tolerance_px > 0.0 or args.tolerance_tip > 0.0
    if args.keys is not None and not thinned:
        raise BadInput(f"--keys {args.keys} chooses the keys a --tolerance bake writes: give "
                       "--tolerance DEG (or --tolerance-px PX, --tolerance-tip DIST) too; without "
                       "it every step frame gets a LINEAR key.")
    if args.clips == "all" or (isinstance(args.clips, list) and len(args.clips) > 1):
        raise BadInput("bake --clips takes one clip name (or active): a baked clip becomes the "
                       "object's active action, so bake one clip per output file.")


def _frame_range(bpy, frames) -> tuple[int, int] | None:
    """--frames as BakeSettings.frame_range: None (each transform's keyed range), the
    range given, or the scene's (the one the file opens with, whose render settings
    --tolerance-px reads too)."""
    if frames is None:
        return None
    if frames == "scene":
        # In action time, where the keys are: under Time Remapping (Old 100, New 50) the
        # scene's frames 1-50 play the actions' 2-100 (a walk: the bake keyed 1-50 and held
        # the second half of the move, 79 deg off at the scene's last frame).
        from .. import animdata

        scene = bpy.context.scene
        # Whole frames (a range is), outward: the shot's first and last frames are in it.
        return (math.floor(animdata.action_time(scene, scene.frame_start)),
                math.ceil(animdata.action_time(scene, scene.frame_end)))
    return frames[0], frames[1]


def run_bake(args, results: list | None = None) -> int:
    """The bake command; ``results`` (batch bake's) gets the BakeResult."""
    path = check_blend_file(args.scene)
    out = check_output(args.output, "--output")
    if same_file(path, out) and not args.overwrite:
        raise BadInput(f"--output {args.output} is the input file; add --overwrite to replace it.")
    check_options(args)
    bpy = load_blend(path)
    register_quatbake()
    # A file with no rotation keys may still have location to bake (--location).
    objects = resolve_targets(bpy, args, empty_ok=True)
    clip = ""
    left_out = []
    every = args.objects is None and not getattr(args, "bones", None)
    if isinstance(args.clips, list):
        clip = args.clips[0]
        candidates = sorted(bpy.data.objects, key=lambda o: o.name) if every else ()
        named = objects
        objects = [obj for obj, _c in clip_targets(objects, args.clips, candidates)]
        if not every:
            from .. import animdata

            # Named, but without that clip: left as they are, and said (docs/cli.md).
            having = {getattr(o, "owner", o).name for o in objects}
            for obj in named:
                if getattr(obj, "owner", obj).name not in having:
                    print(f"skipped: {animdata.subject(obj)} has no clip named \"{clip}\", so "
                          "it is left as it is.", file=sys.stderr)
    elif every:
        # The active actions. Objects animated only by NLA clips are left for
        # --clips NAME, with a note (the bake would only skip them: keys in a clip).
        # Bones named with --bones are the user's choice: each goes to the bake, which
        # bakes it, bakes its location, or leaves it as it is and says why (a docs walk:
        # a location-only IK control was called "in NLA clips", or dropped unnamed).
        from ..keyed import has_rotation_keys
        from ..transform import keyed_bone_names

        def active(o):
            return has_rotation_keys(o) or bool(keyed_bone_names(o))

        stashed = [o for o in objects if not active(o)]
        objects = [o for o in objects if active(o)]
        # Named on stderr once the bake is done: the report advises baking them too.
        left_out = clips_only_objects(bpy)
        if args.location != "keep":
            # A location bake applies to objects keyed on location and not on rotation too.
            from ..keyed import has_location_keys
            from .report import unrotated_objects

            objects += [o for o in unrotated_objects(bpy, objects + stashed)
                        if o.type != 'ARMATURE' and has_location_keys(o)]
        if not objects and not stashed:
            raise nothing_to_do(bpy, args.scene)
        if not objects:
            from .. import animdata

            names = ", ".join(f"{o.name} ({', '.join(c.name for c in animdata.object_clips(o))})"
                              for o in stashed[:5])
            raise BadInput(f"{args.scene}: every rotation key is in NLA clips, not in active "
                           f"actions ({names}); bake one with --clips NAME.")

    from .. import bake

    settings = bake.BakeSettings(method=args.method.upper(), location_method=args.location.upper(),
                                 constant_speed=args.constant_speed, frame_step=args.step,
                                 frame_range=_frame_range(bpy, args.frames),
                                 union_keys=args.merge_keys,
                                 output_mode=args.rotation_mode.upper(),
                                 turns=args.turns.upper(), timing=args.timing.upper(),
                                 tolerance_deg=args.tolerance, clip=clip,
                                 tolerance_px=args.tolerance_px,
                                 tolerance_tip=args.tolerance_tip,
                                 key_interpolation=(args.keys or "linear").upper())
    from ..transform import as_transforms, transforms_named
    from ..ui.counts import transform_count

    # What bake_objects will bake (each transform once), for the progress lines.
    baking = transform_count(list({t.key: t for t in as_transforms(objects)}.values()))
    shown = {"pct": -10.0}

    def report_progress(done: int, total: int) -> None:
        # bake_objects counts planning (validation) as the first half: show only
        # the writing half, so bad input still gets exactly one line on stderr.
        half = total // 2
        if done <= half:
            return
        pct = 100.0 * (done - half) / (total - half)
        if not args.quiet and (pct >= shown["pct"] + 10.0 or (done == total and pct > shown["pct"])):
            shown["pct"] = pct
            print(f"bake: {baking} ... {pct:3.0f}%", file=sys.stderr, flush=True)

    # Before the bake: said also when it is refused (a docs walk: a driver elsewhere hid
    # which clips hold the keys).
    for obj, names in left_out:
        print(f"note: {clips_only_note(obj, names)}", file=sys.stderr)
    try:
        result = bake.bake_objects(objects, settings, progress=report_progress)
    except bake.BakeError as exc:
        raise BadInput(refusal(exc)) from None
    save_blend_copy(bpy, out)
    if results is not None:
        results.append(result)
    if not args.quiet:
        baked = transform_count(transforms_named(result.objects))
        if result.rotations_written:
            # A tolerance bake writes keys on some frames only (a walk: "29 frames
            # written" for 29 Bezier keys per channel).
            # The rotation's keys, named so where the location kept others (a triage: a
            # USD camera's "2 keys per channel written" beside 480 location keys).
            rotation = " rotation" if bake.location_words(result) else ""
            written = (f"{result.keys_written}{rotation} keys per channel written"
                       if bake.has_tolerance(settings) else
                       f"{result.frames_written} frames written")
            print(f"Baked {baked} with {args.method}: {written}, "
                  f"largest change from Blender's interpolation "
                  f"{result.max_deviation_deg:.2f} deg -> {args.output}")
        else:
            # Location only: no rotation method applied, no rotation change to measure.
            print(f"Baked the location of {baked} (--location {args.location}): "
                  f"{result.frames_written} frames written; the rotation is left as it is "
                  f"-> {args.output}")
        if bake.has_tolerance(settings):
            # The keys' kind where the tolerance thinned some: one that applied to none
            # (a Bone Tip tolerance on objects) wrote a Linear key on every frame.
            kind = f" ({(args.keys or 'linear').upper()})" if result.thinned else ""
            print(f"Keys per channel: {result.keys_dense} dense -> {result.keys_written} "
                  f"{bake.within_words(result)}{kind}{bake.location_words(result)}")
        print_issues(result)
    return failed_exit(result, "baked")


def print_issues(result) -> None:
    """A bake's or conversion's warnings and the transforms it left as they were (no
    rotation keys, keys only in NLA clips, a single key: not errors, but said) on stderr,
    its notes on stdout, a line each."""
    for issue in result.warnings:
        print(f"warning: {issue.message}", file=sys.stderr)
    for issue in result.skipped:
        print(f"skipped: {issue.message}", file=sys.stderr)
    for issue in result.notes:
        print(f"note: {issue.message}")


def refusal(exc) -> str:
    """A refused bake or conversion (BakeError) in lines for stderr: every transform's
    sentence (a docs walk: of three broken objects only the first was named, so a TD fixed
    one, ran again and met the next), a rig's bones said alike in one."""
    from .. import bake

    return "\n".join(i.message for i in bake.merge_bone_issues(exc.issues, shown=10))


def failed_exit(result, done: str) -> int:
    """The transforms left as they were for broken input while the others were ``done``
    (``result.failed``): a line counting them, then each sentence, on stderr, never
    silenced, and exit 2, as ``report`` does for an object it cannot analyse; 0 when there
    are none."""
    from .. import bake
    from ..transform import transforms_named
    from ..ui.counts import transform_count

    if not result.failed:
        return EXIT_OK
    left = transform_count(transforms_named(result.failed_transforms))
    print(f"Not {done}, left exactly as they were: {left} (broken input, each said below; "
          f"the others were {done} and the output written).", file=sys.stderr)
    for issue in bake.merge_bone_issues(result.failed, shown=10):
        print(issue.message, file=sys.stderr)
    return EXIT_BAD_INPUT
