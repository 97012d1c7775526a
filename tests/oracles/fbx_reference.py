"""A binary FBX reader for the animation a file stores, written from the file format.

Independent of Blender and of QuatBake: a test oracle. It reads the binary FBX
container (the "Kaydara FBX Binary" header, node records with 32-bit offsets up
to version 7400 and 64-bit ones from 7500, typed properties, zlib-compressed
arrays) into a tree of :class:`Node`, then follows the ``Connections`` to give,
per model, its animation curves and transform properties:

- ``Objects/Model`` nodes: (id, ``name\\x00\\x01Model``, class); their
  ``Properties70`` ``P`` records hold ``Lcl Rotation`` (degrees),
  ``RotationOrder`` (0 = XYZ ... 5 = ZYX, the order the angles apply in),
  ``PreRotation`` and ``PostRotation`` (degrees, XYZ);
- ``AnimationCurveNode`` (``T``, ``R``, ``S``) connects to a model's
  ``Lcl Translation`` / ``Lcl Rotation`` / ``Lcl Scaling`` (``C "OP"``);
- ``AnimationCurve`` connects to a curve node's ``d|X`` / ``d|Y`` / ``d|Z``
  and holds ``KeyTime`` (int64 ticks: 46,186,158,000 per second before FBX
  8000) and ``KeyValueFloat``.

The orientation a model's keys stand for is ``Rpre @ R(angles, order) @
Rpost^-1`` (the FBX SDK's rotation part of the local transform; pivots and
offsets only move it), and a Y-up file's world in Blender's Z-up axes is
``C @ that`` with ``C`` the +90 deg turn about X (what Blender's importer does
for a file saying UpAxis Y, FrontAxis +Z, CoordAxis +X: Maya and MotionBuilder's
default). Only that layout is accepted; another raises :class:`FbxError`.

Usage::

    from oracles import fbx_reference as fr
    doc = fr.load_fbx("tests/data/realdata/fbx/maya_interpolation_modes_7500_binary.fbx")
    model = doc.model("pCube1")
    times, degrees = model.rotation_keys()      # seconds (n,), degrees (n, 3)
    m = fr.euler_matrix(degrees[0], model.rotation_order)
"""
from __future__ import annotations

import dataclasses
import pathlib
import struct
import zlib

import numpy as np

MAGIC = b"Kaydara FBX Binary  \x00"
KTIME_PER_SECOND = 46_186_158_000          # FBX before 8000 (FBX SDK's KTIME_ONE_SECOND)
# RotationOrder enum (eEulerXYZ ...): the name is the order the rotations apply in.
ROTATION_ORDERS = ("XYZ", "XZY", "YZX", "YXZ", "ZXY", "ZYX")
YUP_TO_ZUP = np.array([[1.0, 0.0, 0.0],
                       [0.0, 0.0, -1.0],
                       [0.0, 1.0, 0.0]])

_SCALARS = {b"Y": "<h", b"C": "<?", b"I": "<i", b"F": "<f", b"D": "<d", b"L": "<q"}
_ARRAYS = {b"f": "<f4", b"d": "<f8", b"l": "<i8", b"i": "<i4", b"b": "<u1"}


class FbxError(ValueError):
    """The file is not a binary FBX this oracle reads (the sentence says what)."""


@dataclasses.dataclass
class Node:
    name: str
    props: list
    children: list

    def find(self, name: str) -> "Node | None":
        return next((c for c in self.children if c.name == name), None)

    def find_all(self, name: str) -> list:
        return [c for c in self.children if c.name == name]


def _read_nodes(data: bytes, pos: int, wide: bool, end: int) -> tuple[list, int]:
    head = struct.Struct("<QQQB" if wide else "<IIIB")
    nodes = []
    while pos < end:
        end_offset, count, _list_len, name_len = head.unpack_from(data, pos)
        if end_offset == 0:                       # the NULL record closing a list
            return nodes, pos + head.size
        pos += head.size
        name = data[pos:pos + name_len].decode("utf-8", "replace")
        pos += name_len
        props = []
        for _ in range(count):
            code = data[pos:pos + 1]
            pos += 1
            if code in _SCALARS:
                fmt = _SCALARS[code]
                props.append(struct.unpack_from(fmt, data, pos)[0])
                pos += struct.calcsize(fmt)
            elif code in _ARRAYS:
                length, encoding, size = struct.unpack_from("<III", data, pos)
                pos += 12
                raw = data[pos:pos + size]
                pos += size
                if encoding == 1:
                    raw = zlib.decompress(raw)
                elif encoding != 0:
                    raise FbxError(f"node {name}: unknown array encoding {encoding}")
                props.append(np.frombuffer(raw, dtype=_ARRAYS[code], count=length).copy())
            elif code in (b"S", b"R"):
                (size,) = struct.unpack_from("<I", data, pos)
                pos += 4
                chunk = data[pos:pos + size]
                pos += size
                props.append(chunk.decode("utf-8", "replace") if code == b"S" else chunk)
            else:
                raise FbxError(f"node {name}: unknown property type {code!r} at byte {pos - 1}")
        children = []
        if pos < end_offset:
            children, pos = _read_nodes(data, pos, wide, end_offset)
        pos = end_offset
        nodes.append(Node(name, props, children))
    return nodes, pos


def _properties70(node: Node | None) -> dict:
    """{name: values} of a ``Properties70`` block (the values after name, types, flags)."""
    block = node.find("Properties70") if node is not None else None
    if block is None:
        return {}
    return {p.props[0]: p.props[4:] for p in block.find_all("P")}


def _short_name(full: str) -> str:
    """``pCube1\\x00\\x01Model`` -> ``pCube1`` (FBX names carry their class after 0x00 0x01)."""
    return full.split("\x00\x01")[0].split("::")[-1]


@dataclasses.dataclass
class Model:
    id: int
    name: str
    kind: str                  # Mesh, Null, LimbNode, Light, Camera ...
    properties: dict
    curves: dict               # {("Lcl Rotation", axis 0..2): (ticks (n,), values (n,))}
    parent: int | None         # the parent model's id (None: a root)

    @property
    def rotation_order(self) -> str:
        return ROTATION_ORDERS[int(self.properties.get("RotationOrder", [0])[0])]

    def vector(self, prop: str, default=(0.0, 0.0, 0.0)) -> np.ndarray:
        return np.asarray(self.properties.get(prop, default), dtype=np.float64)[:3]

    def keys(self, prop: str = "Lcl Rotation") -> tuple[np.ndarray, np.ndarray]:
        """(seconds (n,), values (n, 3)) of ``prop`` at the union of its channels' key
        times; a channel without a key there takes its own curve's value, linear between
        its keys (as FBX curves are stored: each channel on its own times) or the
        property's static value when it has no curve."""
        axes = [self.curves.get((prop, i)) for i in range(3)]
        ticks = np.unique(np.concatenate([a[0] for a in axes if a is not None] or [[]]))
        static = self.vector(prop)
        values = np.empty((ticks.size, 3))
        for i, axis in enumerate(axes):
            if axis is None:
                values[:, i] = static[i]
            else:
                values[:, i] = np.interp(ticks, axis[0].astype(np.float64), axis[1])
        return ticks / KTIME_PER_SECOND, values

    def rotation_keys(self) -> tuple[np.ndarray, np.ndarray]:
        return self.keys("Lcl Rotation")

    def own_key_times(self, prop: str = "Lcl Rotation") -> np.ndarray:
        """Seconds at which every channel of ``prop`` that has a curve has a key of its own."""
        sets = [set(self.curves[(prop, i)][0].tolist()) for i in range(3)
                if (prop, i) in self.curves]
        common = sorted(set.intersection(*sets)) if sets else []
        return np.asarray(common, dtype=np.float64) / KTIME_PER_SECOND

    def orientation(self, degrees) -> np.ndarray:
        """(n, 3, 3): the rotation part of the local transform for Lcl Rotation ``degrees``
        (n, 3): PreRotation @ R @ PostRotation^-1."""
        pre = euler_matrix(self.vector("PreRotation"), "XYZ")
        post = euler_matrix(self.vector("PostRotation"), "XYZ")
        return np.stack([pre @ euler_matrix(d, self.rotation_order) @ post.T
                         for d in np.atleast_2d(degrees)])


class FbxDocument:
    def __init__(self, roots: list, version: int, path: pathlib.Path | None = None):
        self.roots = roots
        self.version = version
        self.path = path
        top = {n.name: n for n in roots}
        settings = _properties70(top.get("GlobalSettings"))
        self.settings = settings
        objects = top.get("Objects")
        connections = top.get("Connections")
        if objects is None or connections is None:
            raise FbxError(f"{path}: no Objects or Connections")
        by_id = {n.props[0]: n for n in objects.children if n.props}
        links = [c.props for c in connections.find_all("C")]
        self.models: dict = {}
        for node in objects.find_all("Model"):
            self.models[node.props[0]] = Model(node.props[0], _short_name(node.props[1]),
                                               node.props[2] if len(node.props) > 2 else "",
                                               _properties70(node), {}, None)
        for link in links:
            kind, child, parent = link[0], link[1], link[2]
            if kind == "OO" and child in self.models and parent in self.models:
                self.models[child].parent = parent
        curve_owner = {}   # curve node id -> (model id, property)
        for link in links:
            if link[0] == "OP" and link[2] in self.models and by_id.get(link[1]) is not None \
                    and by_id[link[1]].name == "AnimationCurveNode":
                curve_owner[link[1]] = (link[2], link[3])
        for link in links:
            if link[0] != "OP" or link[2] not in curve_owner:
                continue
            curve = by_id.get(link[1])
            if curve is None or curve.name != "AnimationCurve":
                continue
            axis = {"d|X": 0, "d|Y": 1, "d|Z": 2}.get(link[3])
            if axis is None:
                continue
            model, prop = curve_owner[link[2]]
            ticks = curve.find("KeyTime").props[0]
            values = curve.find("KeyValueFloat").props[0].astype(np.float64)
            self.models[model].curves[(prop, axis)] = (ticks, values)

    def model(self, name: str) -> Model:
        for m in self.models.values():
            if m.name == name:
                return m
        raise KeyError(f"no model named {name!r} in {self.path}")

    def animated_models(self, prop: str = "Lcl Rotation") -> list:
        return [m for m in self.models.values() if any(k[0] == prop for k in m.curves)]

    def world_orientation(self, model: Model, degrees) -> np.ndarray:
        """(n, 3, 3) world rotation of a root ``model`` in Blender's Z-up axes, for its Lcl
        Rotation ``degrees`` (n, 3)."""
        if model.parent is not None:
            raise FbxError(f"{model.name} has a parent: only root models are composed here")
        return YUP_TO_ZUP @ model.orientation(degrees)

    @property
    def fps(self) -> float | None:
        """The file's frame rate when it names a custom one (TimeMode 14), else None."""
        mode = int(self.settings.get("TimeMode", [0])[0])
        return float(self.settings["CustomFrameRate"][0]) if mode == 14 else None

    def check_y_up(self) -> None:
        """FbxError unless the file is Y-up, front +Z, coord +X (Maya's and MotionBuilder's)."""
        want = {"UpAxis": 1, "UpAxisSign": 1, "FrontAxis": 2, "FrontAxisSign": 1,
                "CoordAxis": 0, "CoordAxisSign": 1}
        got = {k: int(self.settings.get(k, [v])[0]) for k, v in want.items()}
        if got != want:
            raise FbxError(f"{self.path}: axes {got}; this oracle composes Y-up files only")


def load_fbx(path) -> FbxDocument:
    path = pathlib.Path(path)
    data = path.read_bytes()
    if not data.startswith(MAGIC):
        raise FbxError(f"{path} is not a binary FBX (ASCII FBX is not read here)")
    (version,) = struct.unpack_from("<I", data, 23)
    roots, _pos = _read_nodes(data, 27, version >= 7500, len(data))
    return FbxDocument(roots, version, path)


def _axis_matrix(axis: str, radians: float) -> np.ndarray:
    c, s = np.cos(radians), np.sin(radians)
    if axis == "X":
        return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    if axis == "Y":
        return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def euler_matrix(degrees, order: str = "XYZ") -> np.ndarray:
    """3x3 for FBX angles (degrees, stored X, Y, Z) applied in ``order``: "XYZ" turns about
    X first, so R = Rz @ Ry @ Rx (column vectors)."""
    d = np.radians(np.asarray(degrees, dtype=np.float64))
    m = np.eye(3)
    for axis in order:
        m = _axis_matrix(axis, d["XYZ".index(axis)]) @ m
    return m


def matrix_to_quat_wxyz(m) -> np.ndarray:
    """(w, x, y, z) of a rotation matrix (Shepperd's method; w >= 0)."""
    m = np.asarray(m, dtype=np.float64)
    t = np.trace(m)
    if t > 0:
        s = 2.0 * np.sqrt(t + 1.0)
        q = [0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s]
    else:
        i = int(np.argmax(np.diag(m)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * np.sqrt(1.0 + m[i, i] - m[j, j] - m[k, k])
        q = [0.0] * 4
        q[0] = (m[k, j] - m[j, k]) / s
        q[1 + i] = 0.25 * s
        q[1 + j] = (m[j, i] + m[i, j]) / s
        q[1 + k] = (m[k, i] + m[i, k]) / s
    q = np.asarray(q)
    return q if q[0] >= 0 else -q
