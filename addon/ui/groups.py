# SPDX-License-Identifier: GPL-3.0-or-later
"""Rows grouped by armature, for the panels: one header per armature, its bones under it.

A pose bone's transform is named "Rig: spine" (``AnimatedTransform.display_name``); in a
row of the default sidebar's width the armature's name took the room and the bone's was
cut ("cmu_12_..."). The panels draw the armature once, as a group header, and each row
leads with the bone's name. Objects that are not bones form a group without a header.
"""
from __future__ import annotations

from collections.abc import Iterable

# A group's key: the armature's name, or "" for the objects that are not bones.
OBJECTS = ""


def split_name(scene, name: str) -> tuple[str, str]:
    """(armature, bone) for a bone's display name "Rig: spine" whose armature in
    ``scene`` has that pose bone; (OBJECTS, name) for anything else. Tried at every
    ": " in the name, as armature and bone names may hold one themselves."""
    objects = getattr(scene, "objects", None)
    if objects is None or objects.get(name) is not None:
        return OBJECTS, name
    start = 0
    while True:
        at = name.find(": ", start)
        if at < 0:
            return OBJECTS, name
        owner = objects.get(name[:at])
        pose = getattr(owner, "pose", None)
        if pose is not None and pose.bones.get(name[at + 2:]) is not None:
            return name[:at], name[at + 2:]
        start = at + 1


def grouped(items: Iterable[tuple[str, str, object]]) -> list[tuple[str, list]]:
    """``items`` as (group, [(short name, value), ...]) in the order each group first
    appears (the items' own order within a group); each item is (group, short name,
    value), the group OBJECTS or an armature's name. Sorted worst first, the items
    keep the worst group first."""
    groups: dict[str, list] = {}
    for group, short, value in items:
        groups.setdefault(group, []).append((short, value))
    return list(groups.items())
