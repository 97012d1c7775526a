# SPDX-License-Identifier: GPL-3.0-or-later
"""No operator shows a Python traceback: ``guarded`` wraps an operator's ``execute`` (or
``invoke``) so that an exception QuatBake did not foresee becomes one error report, a
sentence saying what failed, and the operator is cancelled.

The engines already turn what they foresee into sentences naming the transform (a
broken key, a driver, a transform with nothing to bake); this is the last net under
them, so a user never sees Blender's "Python: Traceback" box. The operators that
change the file change it only once their engine has succeeded (the bake engine puts
back whatever it wrote when writing fails), so a cancelled operator left the file as
it was.
"""
from __future__ import annotations

import functools


def unexpected(doing: str, exc: BaseException, then: str = "nothing was changed") -> str:
    """``Re-bake failed: QuatBake did not expect KeyError ('x'); nothing was changed ...``:
    the one sentence; ``then`` says where that leaves the user. In the report's language:
    ``doing`` and ``then`` are message ids too (the exception's own text stays as it is)."""
    from .translations import report as rpt_

    detail = str(exc) or type(exc).__name__
    return rpt_("{} failed: QuatBake did not expect {} ({}); {}. Please report this with the "
                "file.").format(rpt_(doing), type(exc).__name__, detail, rpt_(then))


def guarded(doing: str):
    """Decorate an operator method (``execute``, ``invoke``): what it raises becomes an
    ERROR report (``unexpected``) and {'CANCELLED'}. ``doing`` names the operator's work
    ("Re-bake", "Analyze")."""
    def wrap(method):
        def run(self, context, *args):
            try:
                return method(self, context, *args)
            except Exception as exc:   # the last net: one sentence, never a traceback
                self.report({'ERROR'}, unexpected(doing, exc))
                return {'CANCELLED'}

        # Blender checks the argument count of execute (self, context) and invoke
        # (self, context, event) when the class registers: keep the method's own.
        if method.__code__.co_argcount == 3:
            def guarded_method(self, context, event):
                return run(self, context, event)
        else:
            def guarded_method(self, context):
                return run(self, context)
        return functools.wraps(method)(guarded_method)
    return wrap
