# SPDX-License-Identifier: GPL-3.0-or-later
"""The Difference Report's entries under their earlier module path: this module is
``analyze.entries`` (``import quatbake.addon.report_results`` and ``from
quatbake.addon import report_results`` both give it), for scripts written against
docs/api.md before the move to feature packages."""
import sys

from .analyze import entries

sys.modules[__name__] = entries
