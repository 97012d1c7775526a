# SPDX-License-Identifier: GPL-3.0-or-later
"""Counts in words: "1 interval", "3 intervals", never "3 interval(s)" (a walk read
"4 stepped interval(s)" in a note, "8 object(s)" for a rig's bones)."""
from __future__ import annotations


def either(count: int, one: str, many: str) -> str:
    """``one`` when ``count`` is 1, else ``many``: the verb or pronoun after a count
    ("1 frame passes", "2 frames pass")."""
    return one if count == 1 else many


def counted(count: int, word: str, many: str | None = None) -> str:
    """``count`` and ``word``, plural unless ``count`` is 1: ``many``, or ``word`` + "s"."""
    return f"{count} {word if count == 1 else (many or word + 's')}"
