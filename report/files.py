# SPDX-License-Identifier: GPL-3.0-or-later
"""Writing a report's file so that no reader ever sees half of it."""
from __future__ import annotations

import os
import tempfile
import threading

_UMASK_LOCK = threading.Lock()


def _umask() -> int:
    """The process's umask, read without setting it where Linux says it: ``os.umask``
    reads it only by setting another, and batch --jobs N writes its shots' records from
    several threads, which then read each other's 022 back as the mask (the records 0644
    where the user's umask gave 0640, and 022 left the process's)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    with _UMASK_LOCK:                 # elsewhere: set and put back, one thread at a time
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def write_text(text: str, path: str | os.PathLike) -> None:
    """Write ``path`` through a temporary file beside it and ``os.replace``, so a reader (or
    a retried farm task) never sees half a file; nothing is left behind on failure."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".quatbake-", suffix=".tmp", dir=folder)
    try:
        try:
            fh = os.fdopen(fd, "w", encoding="utf-8")
        except BaseException:
            os.close(fd)
            raise
        with fh:
            fh.write(text)
        # mkstemp makes the file for its owner alone (0600); a summary on a farm's shared
        # storage is read by other accounts (a pipeline walk: the summary task, run as
        # another worker, could not read the shots' records). The modes the user's umask
        # gives any new file.
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
