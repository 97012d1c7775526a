# SPDX-License-Identifier: GPL-3.0-or-later
"""``convert``: change the rotation mode of a file's objects and bones, keeping what
Blender plays now in few Bezier keys, and save the result as a new .blend."""
from __future__ import annotations

import sys

from .args import check_blend_file, check_output, same_file
from .bake import failed_exit, print_issues, refusal
from .headless import BadInput, save_blend_copy
from .scenes import load_blend, register_quatbake, resolve_targets


def _keys(count: int) -> str:
    return "1 key" if count == 1 else f"{count} keys"


def _chosen(to: str, converted) -> str:
    """The mode the summary names: ``to`` itself, or for AUTO the Euler orders it picked
    ("the Euler order farthest from gimbal lock: YXZ x 20, ZXY x 11")."""
    if to != "AUTO":
        return to
    from collections import Counter

    counts = Counter(t.rotation_mode for t in converted)
    picked = ", ".join(f"{mode} x {n}" for mode, n in sorted(counts.items(),
                                                            key=lambda kv: (-kv[1], kv[0])))
    return f"the Euler order farthest from gimbal lock ({picked or 'none'})"


def run_convert(args) -> int:
    path = check_blend_file(args.scene)
    out = check_output(args.output, "--output")
    if same_file(path, out) and not args.overwrite:
        raise BadInput(f"--output {args.output} is the input file; add --overwrite to replace it.")
    if not args.tolerance > 0.0:
        raise BadInput("convert --tolerance must be above 0 degrees: it is how far the "
                       "converted keys may play from what Blender plays now.")
    bpy = load_blend(path)
    register_quatbake()
    objects = resolve_targets(bpy, args)

    from .. import bake
    from ..transform import transforms_named
    from ..ui.counts import transform_count

    try:
        result = bake.convert_objects(objects, args.to.upper(), args.tolerance)
    except bake.BakeError as exc:
        raise BadInput(refusal(exc)) from None
    save_blend_copy(bpy, out)
    if not args.quiet and not result.objects:
        mode = args.to.upper()
        print(f"Nothing to convert: each transform is already in "
              f"{'the Euler order auto picks' if mode == 'AUTO' else mode} or has no rotation "
              f"keys to convert (skipped: says which); the scene is saved unchanged -> "
              f"{args.output}")
        for issue in result.skipped:
            print(f"skipped: {issue.message}", file=sys.stderr)
    elif not args.quiet:
        converted = transforms_named(result.objects)
        done = transform_count(converted)
        print(f"Converted {done} to {_chosen(args.to.upper(), converted)}: "
              f"{_keys(result.keys_written)} per channel in all "
              f"within {args.tolerance:g} deg of Blender's playback -> {args.output}")
        print_issues(result)
    return failed_exit(result, "converted")
