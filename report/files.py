# SPDX-License-Identifier: GPL-3.0-or-later
"""Writing a report's file so that no reader ever sees half of it."""
from __future__ import annotations

import os
import tempfile


def _umask() -> int:
    mask = os.umask(0o022)     # reading it sets it: put it back at once
    os.umask(mask)
    return mask


def write_text(text: str, path: str | os.PathLike) -> None:
    """Write ``path`` through a temporary file beside it and ``os.replace``, so a reader (or
    a retried farm task) never sees half a file; nothing is left behind on failure."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".quatbake-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
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
