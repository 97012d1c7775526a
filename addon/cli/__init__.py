# SPDX-License-Identifier: GPL-3.0-or-later
"""Command line: ``python -m quatbake demo|report|bake|convert|export-check|batch`` (with the
bpy module).

Also runs inside a Blender program:
``blender -b --python /path/to/quatbake/__main__.py -- report SCENE.blend ...``.

Exit codes (docs/cli.md): 0 done; 1 ``--fail-above`` exceeded (the report is
still written); 2 bad usage or bad input - one sentence on stderr, no
traceback, nothing written; 3 (``batch``) some shot could not be read or
processed, the others done; 4 QuatBake itself failed (a bug), its traceback on stderr. Progress goes to stderr, one percentage line per
object, silenced by ``--quiet``; tables go to stdout.

bpy is imported only after the arguments are checked, so usage errors are
instant and never load Blender.

- ``args``: the parser, exit codes and the checks made before anything loads;
- ``headless``: progress lines, quiet file descriptors, atomic saves;
- ``scenes``: opening a file and finding what a command works on;
- ``tables``: what the commands print;
- one module per command: ``report``, ``bake``, ``convert``, ``export_check``, ``demo``,
  and ``batch`` (many shots, one process each), whose every shot runs in ``shot``.
"""
from __future__ import annotations

import os
import sys

from .args import (
    EXIT_BAD_INPUT,
    EXIT_FAIL_ABOVE,
    EXIT_INTERNAL_ERROR,
    EXIT_OK,
    build_parser,
    check_blend_file,
)
from .bake import run_bake
from .batch import run_batch
from .convert import run_convert
from .demo import run_demo
from .export_check import run_export_check
from .headless import BadInput, Progress
from .report import analyse_objects, run_report
from .scenes import (
    bone_keyed_sentences,
    clip_targets,
    resolve_objects,
    resolve_targets,
    rotation_keyed_objects,
)

# What scripts and tests import from ``quatbake.addon.cli`` (its public face).
__all__ = ["main", "COMMANDS", "EXIT_OK", "EXIT_FAIL_ABOVE", "EXIT_BAD_INPUT", "BadInput",
           "Progress", "build_parser", "check_blend_file", "analyse_objects",
           "bone_keyed_sentences", "clip_targets", "resolve_objects", "resolve_targets",
           "rotation_keyed_objects"]

COMMANDS = {"demo": run_demo, "report": run_report, "bake": run_bake,
            "convert": run_convert, "export-check": run_export_check, "batch": run_batch}


class _ReaderGone:
    """stdout (or stderr) that stops writing once its reader has gone (``report ... | head -1``,
    ``| grep -q``): the command goes on, writes its files and exits with its own code. A
    docs walk: the closed pipe was a traceback and exit 4, "a bug", failing a CI gate
    whose report had passed."""

    def __init__(self, stream) -> None:
        self.stream, self.gone = stream, False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return self.stream.write(text)
            except BrokenPipeError:
                self.gone = True
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self.gone = True

    def __getattr__(self, name):
        return getattr(self.stream, name)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (never raises for bad input)."""
    if argv is None:
        argv = sys.argv[1:]
        if "--" in argv:              # blender -b --python __main__.py -- report ...
            argv = argv[argv.index("--") + 1:]
    # stderr too: `2>&1 | head` closes both (a review).
    streams = sys.stdout, sys.stderr = _ReaderGone(sys.stdout), _ReaderGone(sys.stderr)
    try:
        return _run(argv)
    finally:
        sys.stdout, sys.stderr = (s.stream for s in streams)
        for stream in streams:
            stream.flush()
            if stream.gone:
                # What is still buffered would fail again when Python exits: to nowhere.
                os.dup2(os.open(os.devnull, os.O_WRONLY), stream.stream.fileno())


def _run(argv: list[str]) -> int:
    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args)
    except BadInput as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt as exc:
        from .headless import Terminated

        print("Interrupted.", file=sys.stderr)
        return 143 if isinstance(exc, Terminated) else 130
    except Exception:
        # Not bad input: a bug. Inside a Blender program an exception leaving the script
        # would end Blender with 0 (without --python-exit-code), and a --fail-above gate
        # would pass a shot nothing checked.
        import traceback

        traceback.print_exc()
        print("QuatBake stopped on an unexpected error (a bug: please report it with the "
              "traceback above); what it had not yet written is not written.",
              file=sys.stderr)
        return EXIT_INTERNAL_ERROR
    finally:
        from .scenes import release_quatbake

        release_quatbake()
