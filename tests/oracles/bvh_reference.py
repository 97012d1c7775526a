"""A BVH (Biovision hierarchy) reader, written from the format description.

Independent of Blender and of QuatBake: a test oracle.

HIERARCHY: ``ROOT`` / ``JOINT`` blocks with ``OFFSET x y z``, ``CHANNELS n
<names>`` and ``End Site`` leaves. MOTION: ``Frames: N``, ``Frame Time: dt``,
then N lines with one value per channel, in hierarchy order.

A joint's local transform at a frame is ``T(offset + position channels) @ R``,
where R composes the rotation channels **in the order they are listed**, in
degrees, each about the joint's own (rotating) axes: for ``Zrotation Xrotation
Yrotation``, ``R = Rz(z) @ Rx(x) @ Ry(y)`` (matrices acting on column vectors).
That is scipy's intrinsic ``Rotation.from_euler("ZXY", [z, x, y], degrees=True)``.

Usage::

    from oracles import bvh_reference as br
    clip = br.load_bvh("tests/data/realdata/bvh/test_freebvh.bvh")
    hips = clip.joint("mixamorig:Hips")
    R = clip.rotation_matrices("mixamorig:Hips")     # (frames, 3, 3)
    q = clip.rotation_quaternions("mixamorig:Hips")  # (frames, 4) w, x, y, z
    p = clip.positions("mixamorig:Hips")             # (frames, 3) or None
"""
from __future__ import annotations

import dataclasses
import pathlib

import numpy as np

_ROTATION_CHANNELS = {"Xrotation": "X", "Yrotation": "Y", "Zrotation": "Z"}
_POSITION_CHANNELS = {"Xposition": 0, "Yposition": 1, "Zposition": 2}


class BvhError(ValueError):
    """The file is not a BVH this reader understands; the message says where."""


@dataclasses.dataclass
class Joint:
    name: str
    parent: str | None
    offset: np.ndarray           # (3,)
    channels: list               # e.g. ["Xposition", ..., "Zrotation", "Xrotation", "Yrotation"]
    channel_start: int           # index of the first channel in a MOTION line
    children: list = dataclasses.field(default_factory=list)
    end_site: np.ndarray | None = None

    @property
    def rotation_order(self) -> str:
        """The rotation channels' axes in listed order, e.g. "ZXY" ("" if none)."""
        return "".join(_ROTATION_CHANNELS[c] for c in self.channels if c in _ROTATION_CHANNELS)


def axis_matrix(axis: str, degrees) -> np.ndarray:
    """Rotation matrices about X, Y or Z by ``degrees`` (array), shape (..., 3, 3)."""
    a = np.radians(np.asarray(degrees, float))
    c, s = np.cos(a), np.sin(a)
    one, zero = np.ones_like(a), np.zeros_like(a)
    if axis == "X":
        rows = [[one, zero, zero], [zero, c, -s], [zero, s, c]]
    elif axis == "Y":
        rows = [[c, zero, s], [zero, one, zero], [-s, zero, c]]
    elif axis == "Z":
        rows = [[c, -s, zero], [s, c, zero], [zero, zero, one]]
    else:
        raise BvhError(f"unknown axis {axis!r}")
    return np.stack([np.stack(r, axis=-1) for r in rows], axis=-2)


def matrix_to_quat_wxyz(m) -> np.ndarray:
    """Rotation matrices (..., 3, 3) -> unit quaternions (..., 4) as (w, x, y, z), w >= 0."""
    m = np.asarray(m, float)
    flat = m.reshape(-1, 3, 3)
    out = np.empty((len(flat), 4))
    for n, r in enumerate(flat):
        tr = np.trace(r)
        if tr > 0:
            s = 2.0 * np.sqrt(tr + 1.0)
            q = [s / 4, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s]
        else:
            i = int(np.argmax(np.diag(r)))
            j, k = (i + 1) % 3, (i + 2) % 3
            s = 2.0 * np.sqrt(1.0 + r[i, i] - r[j, j] - r[k, k])
            v = [0.0, 0.0, 0.0]
            v[i] = s / 4
            v[j] = (r[j, i] + r[i, j]) / s
            v[k] = (r[k, i] + r[i, k]) / s
            q = [(r[k, j] - r[j, k]) / s, *v]
        q = np.asarray(q)
        out[n] = -q if q[0] < 0 else q
    return out.reshape(m.shape[:-2] + (4,))


class BvhClip:
    """A parsed BVH: joints (in file order), frame time and the MOTION values."""

    def __init__(self, joints: list, frame_time: float, motion: np.ndarray,
                 path: pathlib.Path | None = None):
        self.joints = joints
        self.frame_time = frame_time
        self.motion = motion          # (frames, total channels), as written (degrees)
        self.path = path
        self._by_name = {j.name: j for j in joints}

    @property
    def frame_count(self) -> int:
        return self.motion.shape[0]

    @property
    def fps(self) -> float:
        return 1.0 / self.frame_time

    def joint(self, name: str) -> Joint:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"no joint named {name!r}") from None

    def channel_values(self, name: str, channel: str) -> np.ndarray:
        """One channel's values over all frames, e.g. ("Hips", "Zrotation")."""
        j = self.joint(name)
        return self.motion[:, j.channel_start + j.channels.index(channel)]

    def euler_degrees(self, name: str) -> np.ndarray:
        """The rotation channels (frames, n) in the file's listed order, degrees."""
        j = self.joint(name)
        cols = [j.channel_start + i for i, c in enumerate(j.channels) if c in _ROTATION_CHANNELS]
        return self.motion[:, cols]

    def rotation_matrices(self, name: str) -> np.ndarray:
        """(frames, 3, 3): R_first @ R_second @ R_third in the listed channel order."""
        j = self.joint(name)
        r = np.broadcast_to(np.eye(3), (self.frame_count, 3, 3)).copy()
        for i, c in enumerate(j.channels):
            if c in _ROTATION_CHANNELS:
                r = r @ axis_matrix(_ROTATION_CHANNELS[c], self.motion[:, j.channel_start + i])
        return r

    def rotation_quaternions(self, name: str) -> np.ndarray:
        """(frames, 4) unit quaternions (w, x, y, z), w >= 0, of :meth:`rotation_matrices`."""
        return matrix_to_quat_wxyz(self.rotation_matrices(name))

    def positions(self, name: str) -> np.ndarray | None:
        """(frames, 3) position channels (missing axes 0), or None if the joint has none."""
        j = self.joint(name)
        if not any(c in _POSITION_CHANNELS for c in j.channels):
            return None
        out = np.zeros((self.frame_count, 3))
        for i, c in enumerate(j.channels):
            if c in _POSITION_CHANNELS:
                out[:, _POSITION_CHANNELS[c]] = self.motion[:, j.channel_start + i]
        return out

    def local_matrices(self, name: str) -> np.ndarray:
        """(frames, 4, 4): T(offset + positions) @ R for the joint, in the file's units."""
        j = self.joint(name)
        m = np.broadcast_to(np.eye(4), (self.frame_count, 4, 4)).copy()
        m[:, :3, :3] = self.rotation_matrices(name)
        pos = self.positions(name)
        m[:, :3, 3] = j.offset + (0 if pos is None else pos)
        return m

    def global_matrices(self, name: str) -> np.ndarray:
        """(frames, 4, 4): the joint's transform in the file's world (root's space)."""
        j = self.joint(name)
        local = self.local_matrices(name)
        return local if j.parent is None else self.global_matrices(j.parent) @ local


def load_bvh(path) -> BvhClip:
    """Parse a BVH file."""
    path = pathlib.Path(path)
    return parse_bvh(path.read_text(encoding="utf-8", errors="replace"), path)


def parse_bvh(text: str, path: pathlib.Path | None = None) -> BvhClip:
    where = path.name if path else "<bvh>"
    tokens = text.split()
    pos = 0

    def take() -> str:
        nonlocal pos
        if pos >= len(tokens):
            raise BvhError(f"{where}: file ends inside the HIERARCHY")
        pos += 1
        return tokens[pos - 1]

    if take().upper() != "HIERARCHY":
        raise BvhError(f"{where}: does not start with HIERARCHY")
    joints: list = []
    stack: list = []          # open joints (None for an End Site block)
    n_channels = 0
    pending_end_site = False
    while True:
        tok = take()
        up = tok.upper()
        if up in ("ROOT", "JOINT"):
            name = take()
            parent = next((s for s in reversed(stack) if s is not None), None)
            joint = Joint(name, parent.name if parent else None, np.zeros(3), [], n_channels)
            if parent:
                parent.children.append(name)
            joints.append(joint)
            stack.append(joint)
            if take() != "{":
                raise BvhError(f"{where}: expected '{{' after {tok} {name}")
        elif up == "END":
            take()            # "Site"
            pending_end_site = True
            stack.append(None)
            if take() != "{":
                raise BvhError(f"{where}: expected '{{' after End Site")
        elif up == "OFFSET":
            vec = np.array([float(take()) for _ in range(3)])
            if stack and stack[-1] is None:
                owner = next((s for s in reversed(stack) if s is not None), None)
                if owner is not None and pending_end_site:
                    owner.end_site = vec
                    pending_end_site = False
            elif stack:
                stack[-1].offset = vec
        elif up == "CHANNELS":
            count = int(take())
            names = [take() for _ in range(count)]
            for c in names:
                if c not in _ROTATION_CHANNELS and c not in _POSITION_CHANNELS:
                    raise BvhError(f"{where}: joint {stack[-1].name}: unknown channel {c!r}")
            stack[-1].channels = names
            stack[-1].channel_start = n_channels
            n_channels += count
        elif tok == "}":
            stack.pop()
            if not stack:
                if pos < len(tokens) and tokens[pos].upper() == "MOTION":
                    break
                if pos < len(tokens) and tokens[pos].upper() in ("ROOT",):
                    continue
                raise BvhError(f"{where}: expected MOTION after the hierarchy")
        else:
            raise BvhError(f"{where}: unexpected {tok!r} in the HIERARCHY")
    take()                       # MOTION
    if take().rstrip(":").upper() != "FRAMES":
        raise BvhError(f"{where}: expected 'Frames:' after MOTION")
    frames = int(take())
    if take().upper() != "FRAME" or take().rstrip(":").upper() != "TIME":
        raise BvhError(f"{where}: expected 'Frame Time:'")
    frame_time = float(take())
    values = np.array([float(v) for v in tokens[pos:pos + frames * n_channels]])
    if values.size != frames * n_channels:
        raise BvhError(f"{where}: MOTION has {values.size} values, {frames} frames x "
                       f"{n_channels} channels need {frames * n_channels}")
    return BvhClip(joints, frame_time, values.reshape(frames, n_channels), path)
