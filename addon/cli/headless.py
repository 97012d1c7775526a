# SPDX-License-Identifier: GPL-3.0-or-later
"""What the headless commands share: the one-sentence error, progress lines,
silencing Blender's own chatter, and saving a copy of the open file.

Both ``addon.cli`` (the command line) and ``addon.demo`` use these; keeping
them here lets the CLI import the demo without the demo importing the CLI.
"""
from __future__ import annotations

import contextlib
import os
import sys
import tempfile


class BadInput(Exception):
    """Bad usage or bad input: ``str(exc)`` is the one sentence printed on stderr."""


class NothingToDo(BadInput):
    """A file with no rotation keys anywhere: exit 2 for one command (most likely the
    wrong file), but within a batch a shot with nothing to check (a locked-off camera),
    not a failed one."""


@contextlib.contextmanager
def quiet_fds():
    """Silence what Blender's C code prints (file loading and saving chatter).

    The text is kept and handed back, so a failure can still be explained.
    """
    captured = {"text": ""}
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            yield captured
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            sink.seek(0)
            captured["text"] = sink.read().decode("utf-8", "replace")


class Progress:
    """One percentage line per object on stderr (nothing with quiet)."""

    def __init__(self, total: int, verb: str, quiet: bool):
        self.total = max(total, 1)
        self.verb = verb
        self.quiet = quiet
        self.done = 0

    def step(self, name: str) -> None:
        self.done += 1
        if not self.quiet:
            pct = 100.0 * self.done / self.total
            print(f"{self.verb} {self.done}/{self.total} {name} ... {pct:3.0f}%", file=sys.stderr,
                  flush=True)


class Terminated(KeyboardInterrupt):
    """SIGTERM (``timeout``, a farm cancelling the task's process) while a batch runs its
    shots: stopped as Ctrl+C stops them, and the command exits 143 (128 + SIGTERM)."""


def save_blend_copy(bpy, path: str) -> None:
    """Save the open file to ``path`` through a temporary file (no half-written .blend, no .blend1)."""
    folder = os.path.dirname(path)
    try:
        fd, tmp = tempfile.mkstemp(suffix=".blend", dir=folder)
    except OSError as exc:
        # A folder where nothing can be created (read-only mount, /proc, a full disk).
        raise BadInput(f"--output {path} cannot be written ({exc.strerror}); nothing was "
                       "written.") from None
    os.close(fd)
    os.unlink(tmp)
    try:
        with quiet_fds():
            bpy.ops.wm.save_as_mainfile(filepath=tmp, copy=True)
            _check_readable(bpy, tmp)
        os.replace(tmp, path)
    except (OSError, RuntimeError) as exc:
        reason = getattr(exc, "strerror", None) or "Blender could not save it"
        raise BadInput(f"--output {path} cannot be written ({reason}); nothing was "
                       "written.") from None
    finally:
        for leftover in (tmp, tmp + "1"):
            if os.path.exists(leftover):
                os.unlink(leftover)


def _check_readable(bpy, path: str) -> None:
    """Raise OSError unless Blender reads ``path`` back as a .blend (its data-blocks listed,
    nothing loaded). A farm walk: on a full disk Blender 5.0.1's save returned FINISHED
    after a short write, and the bake said done over a file no Blender opens ("Missing DNA
    block")."""
    try:
        with bpy.data.libraries.load(path) as (_found, _wanted):
            pass
    except OSError as exc:
        raise OSError(0, "Blender cannot read back what it saved: the disk may be full") \
            from exc


def write_all_or_none(writes) -> None:
    """Run each (write, report, path) with a path; if one fails, remove those written and
    raise BadInput: a half-written pair of reports would mislead a pipeline."""
    written, path = [], None
    try:
        for write, report, path in writes:
            if path:
                write(report, path)
                written.append(path)
    except OSError as exc:
        for done in written:
            os.unlink(done)
        # A failed write() names no file (a full disk: "None"): the path being written does.
        raise BadInput(f"The report could not be written ({exc.strerror or exc}: "
                       f"{exc.filename or path}).") from None


def exit_process(code: int) -> None:
    """End the command's process with ``code``. On a bpy module whose teardown crashes or
    hangs (versions.TEARDOWN_BROKEN), skip that teardown: the outputs are written and closed by
    then, and without this a farm task hung or failed after its work was done. Inside a
    Blender program, Blender ends itself as usual."""
    try:
        import bpy  # noqa: F401 - without it, no Blender to tear down
    except ImportError:
        sys.exit(code)
    from .. import versions

    if versions.teardown_broken():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
