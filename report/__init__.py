# SPDX-License-Identifier: GPL-3.0-or-later
"""Difference reports: the "quatbake.report/1" JSON document and its HTML page.

Pure Python (numpy at most), no bpy: a pipeline can rebuild the HTML from a
saved JSON file without Blender.
"""
