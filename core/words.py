# SPDX-License-Identifier: GPL-3.0-or-later
"""Counts in words: "1 interval", "3 intervals", never "3 interval(s)" (a walk read
"4 stepped interval(s)" in a note, "8 object(s)" for a rig's bones); and sentences that
remember their pattern (Phrase), for the add-on to say in the interface's language."""
from __future__ import annotations


def either(count: int, one: str, many: str) -> str:
    """``one`` when ``count`` is 1, else ``many``: the verb or pronoun after a count
    ("1 frame passes", "2 frames pass")."""
    return one if count == 1 else many


def counted(count: int, word: str, many: str | None = None) -> str:
    """``count`` and ``word``, plural unless ``count`` is 1: ``many``, or ``word`` + "s"."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


class Phrase(str):
    """A sentence made from a pattern: it IS the English text (``pattern.format(*args)``),
    so every reader of it (a comparison, ``+``, a JSON dump, a test) sees a plain string,
    and it keeps ``pattern`` and ``args`` so the add-on can say it in the interface's
    language (``addon.ui.translations.translated``): core cannot call Blender's
    translation. An argument may itself be a Phrase (a cause, the setting's name), said in
    that language too; numbers and names go in as they are. ``Phrase("Auto")``, with no
    arguments, is a word the interface translates."""

    pattern: str
    args: tuple

    def __new__(cls, pattern: str, *args):
        self = super().__new__(cls, pattern.format(*args) if args else pattern)
        self.pattern, self.args = pattern, args
        return self

    def __getnewargs__(self):
        # A copy or a pickle is made again from its pattern, not from its English text.
        return (self.pattern, *self.args)


# How a sentence lists things: "a, b, c" (LIST), "a or b" (EITHER), "a, b and 3 more"
# (AND_MORE after a LIST); a translation says them its own way ("a、b、c").
LIST = "{}, {}"
EITHER = "{} or {}"
AND_MORE = "{} and {:d} more"


def listed(items, pattern: str = LIST):
    """``items`` (one or more) joined as ``", ".join`` would (``" or ".join`` with EITHER),
    as a Phrase: ``Phrase(pattern, Phrase(pattern, a, b), c)`` is "a, b, c", which the
    add-on says in the interface's language. One item is itself."""
    items = list(items)
    out = items[0]
    for item in items[1:]:
        out = Phrase(pattern, out, item)
    return out
