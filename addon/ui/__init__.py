# SPDX-License-Identifier: GPL-3.0-or-later
"""What every panel and operator shares, below the features: the scene settings
(``props``), the operator polls (``polls``), the text helpers (``texts``: wrapping to
the sidebar; ``counts``: "12 bones of "Rig""), the comparison method (``compare``),
the translations, and the main QuatBake panel
(``panel``) that the features' sub-panels hang from.
"""
