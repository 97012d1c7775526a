"""A glTF 2.0 reader and animation sampler, written from the specification.

Independent of Blender and of QuatBake: a test oracle. It reads a ``.gltf``
(JSON with external ``.bin`` files or ``data:`` URIs) or a ``.glb``, decodes
accessors (float and normalised integer components, byteStride, byteOffset,
sparse) and evaluates animation samplers exactly as the glTF 2.0 specification,
Appendix C ("Interpolation") defines them:

- ``STEP``: the value of the key at or before t.
- ``LINEAR``: lerp; for ``rotation``, spherical linear interpolation on the
  short arc: ``a = acos(|d|)``, ``s = sign(d)`` with ``d = v_k . v_k+1``,
  ``v(t) = sin(a (1 - t)) / sin(a) v_k + s sin(a t) / sin(a) v_k+1``
  (plain lerp, then normalise, when a is 0).
- ``CUBICSPLINE``: each key stores (in-tangent a_k, value v_k, out-tangent b_k);
  with ``td = t_k+1 - t_k`` and normalised ``t``:
  ``p(t) = (2t^3 - 3t^2 + 1) v_k + td (t^3 - 2t^2 + t) b_k
  + (-2t^3 + 3t^2) v_k+1 + td (t^3 - t^2) a_k+1``, normalised for rotations.

Times outside the keys clamp to the first / last key's value. Channels that
``KHR_animation_pointer`` points at a node's translation / rotation / scale /
weights are read like plain ones; other pointers (materials, cameras, lights)
are left out.

glTF quaternions are stored (x, y, z, w); :func:`xyzw_to_wxyz` gives Blender's
(w, x, y, z). glTF is Y-up; :func:`gltf_to_blender_quat` /
:func:`gltf_to_blender_vec` apply the Y-up -> Z-up basis change that Blender's
importer uses (a +90 deg turn about X: (x, y, z) -> (x, -z, y)).

Usage::

    from oracles import gltf_reference as gr
    doc = gr.load_gltf("tests/data/realdata/gltf/BoxAnimated.gltf")
    for anim in doc.animations:
        for ch in anim.channels:
            if ch.path == "rotation":
                q = ch.evaluate([0.0, 0.5, 1.0])      # (3, 4) xyzw
                q_wxyz = gr.xyzw_to_wxyz(q)
"""
from __future__ import annotations

import base64
import dataclasses
import json
import pathlib
import re
import struct
import urllib.parse

import numpy as np

# componentType -> (numpy dtype, normalised divisor or None for floats)
_COMPONENT_TYPES = {
    5120: (np.int8, 127.0),
    5121: (np.uint8, 255.0),
    5122: (np.int16, 32767.0),
    5123: (np.uint16, 65535.0),
    5125: (np.uint32, None),
    5126: (np.float32, None),
}
_NUM_COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4,
                   "MAT2": 4, "MAT3": 9, "MAT4": 16}
_GLB_MAGIC = 0x46546C67      # "glTF"
_GLB_JSON = 0x4E4F534A
_GLB_BIN = 0x004E4942

INTERPOLATIONS = ("STEP", "LINEAR", "CUBICSPLINE")


class GltfError(ValueError):
    """The file is not a glTF this reader understands; the message says where."""


@dataclasses.dataclass
class Channel:
    """One animation channel: a node's path driven by a sampler.

    ``times`` has shape (n,); ``values`` (n, k) for STEP/LINEAR and (3n, k) for
    CUBICSPLINE (in-tangent, value, out-tangent per key), as stored in the file
    (quaternions xyzw), decoded to float64.
    """
    animation: str
    node: int
    node_name: str
    path: str
    times: np.ndarray
    values: np.ndarray
    interpolation: str

    @property
    def key_values(self) -> np.ndarray:
        """The keyed values (n, k), without the cubic tangents."""
        if self.interpolation == "CUBICSPLINE":
            return self.values[1::3]
        return self.values

    def evaluate(self, t) -> np.ndarray:
        """Values at the times ``t`` (scalar or array), shape (len(t), k)."""
        return evaluate_sampler(self.times, self.values, self.interpolation, t,
                                rotation=self.path == "rotation")

    def evaluate_wxyz(self, t) -> np.ndarray:
        """A rotation channel at ``t`` as (w, x, y, z) quaternions (Blender's order)."""
        if self.path != "rotation":
            raise GltfError(f"channel {self.node_name}.{self.path} is not a rotation")
        return xyzw_to_wxyz(self.evaluate(t))


@dataclasses.dataclass
class Animation:
    name: str
    channels: list

    def channel(self, node_name: str, path: str) -> Channel:
        for ch in self.channels:
            if ch.node_name == node_name and ch.path == path:
                return ch
        raise KeyError(f"animation {self.name!r} has no channel {node_name}.{path}")


class GltfDocument:
    """A loaded glTF: its JSON, its buffers, decoded accessors and animations."""

    def __init__(self, gltf: dict, buffers: list, path: pathlib.Path | None = None):
        self.json = gltf
        self.buffers = buffers
        self.path = path
        self._accessor_cache: dict = {}

    # --- nodes -------------------------------------------------------------------
    @property
    def nodes(self) -> list:
        return self.json.get("nodes", [])

    def node_name(self, index: int) -> str:
        """The node's ``name``, or ``node<index>`` when it has none."""
        return self.nodes[index].get("name", f"node{index}")

    def node_index(self, name: str) -> int:
        for i in range(len(self.nodes)):
            if self.node_name(i) == name:
                return i
        raise KeyError(f"no node named {name!r}")

    def node_rest_trs(self, index: int):
        """The node's static (translation, rotation xyzw, scale) from its JSON.

        A node given by ``matrix`` is decomposed (no shear assumed, as the spec requires
        for animated nodes).
        """
        node = self.nodes[index]
        if "matrix" in node:
            m = np.asarray(node["matrix"], float).reshape(4, 4).T   # column-major
            t = m[:3, 3].copy()
            s = np.linalg.norm(m[:3, :3], axis=0)
            r = m[:3, :3] / s
            if np.linalg.det(r) < 0:
                s[0] = -s[0]
                r[:, 0] = -r[:, 0]
            return t, matrix_to_quat_xyzw(r), s
        return (np.asarray(node.get("translation", [0, 0, 0]), float),
                np.asarray(node.get("rotation", [0, 0, 0, 1]), float),
                np.asarray(node.get("scale", [1, 1, 1]), float))

    def parents(self) -> dict:
        """child node index -> parent node index."""
        out = {}
        for i, node in enumerate(self.nodes):
            for c in node.get("children", []):
                out[c] = i
        return out

    # --- accessors ---------------------------------------------------------------
    def accessor(self, index: int) -> np.ndarray:
        """Accessor ``index`` decoded to float64, shape (count, components).

        Normalised integers map to [-1, 1] / [0, 1] per the spec
        (signed: ``max(c / (2^(b-1) - 1), -1)``, unsigned: ``c / (2^b - 1)``).
        """
        if index not in self._accessor_cache:
            self._accessor_cache[index] = self._decode_accessor(index)
        return self._accessor_cache[index]

    def _decode_accessor(self, index: int) -> np.ndarray:
        acc = self.json["accessors"][index]
        ctype = acc["componentType"]
        if ctype not in _COMPONENT_TYPES:
            raise GltfError(f"accessor {index}: unknown componentType {ctype}")
        dtype, divisor = _COMPONENT_TYPES[ctype]
        ncomp = _NUM_COMPONENTS[acc["type"]]
        count = acc["count"]
        if "bufferView" in acc:
            raw = self._read_elements(acc["bufferView"], acc.get("byteOffset", 0),
                                      count, dtype, acc["type"])
        else:
            raw = np.zeros((count, ncomp), dtype=dtype)
        sparse = acc.get("sparse")
        if sparse:
            raw = raw.copy()
            idx_info, val_info = sparse["indices"], sparse["values"]
            idx_dtype = _COMPONENT_TYPES[idx_info["componentType"]][0]
            idx = self._read_elements(idx_info["bufferView"], idx_info.get("byteOffset", 0),
                                      sparse["count"], idx_dtype, "SCALAR")[:, 0]
            vals = self._read_elements(val_info["bufferView"], val_info.get("byteOffset", 0),
                                       sparse["count"], dtype, acc["type"])
            raw[idx.astype(np.int64)] = vals
        out = raw.astype(np.float64)
        if acc.get("normalized") and divisor is not None:
            out = out / divisor
            if np.issubdtype(dtype, np.signedinteger):
                out = np.maximum(out, -1.0)
        return out

    def _read_elements(self, view_index: int, byte_offset: int, count: int, dtype,
                       acc_type: str) -> np.ndarray:
        view = self.json["bufferViews"][view_index]
        data = self.buffers[view["buffer"]]
        start = view.get("byteOffset", 0) + byte_offset
        itemsize = np.dtype(dtype).itemsize
        ncomp = _NUM_COMPONENTS[acc_type]
        # Matrix columns of 1- and 2-byte components start on 4-byte boundaries (spec 3.6.2.4).
        if acc_type in ("MAT2", "MAT3") and itemsize < 4:
            rows = {4: 2, 9: 3}[ncomp]
            col_bytes = -(-rows * itemsize // 4) * 4
            elem_bytes = col_bytes * rows
        else:
            rows, col_bytes, elem_bytes = None, None, ncomp * itemsize
        stride = view.get("byteStride") or elem_bytes
        end_needed = start + (count - 1) * stride + elem_bytes if count else start
        if end_needed > len(data) or end_needed > view.get("byteOffset", 0) + view["byteLength"]:
            raise GltfError(f"bufferView {view_index}: {count} elements run past its end")
        dtype = np.dtype(dtype).newbyteorder("<")   # glTF is little-endian throughout
        if count == 0:
            return np.empty((0, ncomp), dtype=dtype)
        if rows is None:
            return np.ndarray((count, ncomp), dtype=dtype, buffer=data, offset=start,
                              strides=(stride, itemsize)).copy()
        cols = [np.ndarray((count, rows), dtype=dtype, buffer=data, offset=start + c * col_bytes,
                           strides=(stride, itemsize)) for c in range(rows)]
        return np.concatenate(cols, axis=1)

    # --- animations --------------------------------------------------------------
    @property
    def animations(self) -> list:
        """Every animation as :class:`Animation` with its channels decoded."""
        anims = []
        for ai, anim in enumerate(self.json.get("animations", [])):
            name = anim.get("name", f"animation{ai}")
            channels = []
            for ch in anim["channels"]:
                node, path = _node_target(ch["target"])
                if node is None:
                    continue   # a pointer to a material, camera or light property
                sampler = anim["samplers"][ch["sampler"]]
                interp = sampler.get("interpolation", "LINEAR")
                if interp not in INTERPOLATIONS:
                    raise GltfError(f"animation {name!r}: unknown interpolation {interp!r}")
                times = self.accessor(sampler["input"])[:, 0]
                values = self.accessor(sampler["output"])
                if path == "weights":
                    per_key = 3 * len(times) if interp == "CUBICSPLINE" else len(times)
                    values = values.reshape(per_key, -1)
                channels.append(Channel(name, node, self.node_name(node), path, times, values,
                                        interp))
            anims.append(Animation(name, channels))
        return anims

    def local_matrices(self, animation: Animation | None, t: float) -> list:
        """Every node's local 4x4 matrix at time ``t`` with ``animation`` applied."""
        trs = [list(self.node_rest_trs(i)) for i in range(len(self.nodes))]
        if animation is not None:
            slot = {"translation": 0, "rotation": 1, "scale": 2}
            for ch in animation.channels:
                if ch.path in slot:
                    trs[ch.node][slot[ch.path]] = ch.evaluate(t)[0]
        return [trs_matrix(*v) for v in trs]

    def world_matrices(self, animation: Animation | None, t: float) -> list:
        """Every node's global 4x4 matrix (glTF Y-up space) at time ``t``."""
        local = self.local_matrices(animation, t)
        parents = self.parents()
        world: list = [None] * len(local)

        def resolve(i):
            if world[i] is None:
                world[i] = local[i] if i not in parents else resolve(parents[i]) @ local[i]
            return world[i]

        for i in range(len(local)):
            resolve(i)
        return world


_NODE_POINTER = re.compile(r"/nodes/(\d+)/(translation|rotation|scale|weights)")


def _node_target(target: dict):
    """(node index, path) of a channel target, or (None, None) if it is not a node's TRS.

    Plain targets name ``node`` and ``path``. With KHR_animation_pointer the path is
    "pointer" and the extension's JSON pointer says what moves; "/nodes/3/rotation"
    is node 3's rotation, sampled exactly like a plain rotation channel.
    """
    path = target.get("path")
    if path == "pointer":
        pointer = target.get("extensions", {}).get("KHR_animation_pointer", {}).get("pointer", "")
        match = _NODE_POINTER.fullmatch(pointer)
        return (int(match[1]), match[2]) if match else (None, None)
    if "node" not in target:
        return None, None
    return target["node"], path


def load_gltf(path) -> GltfDocument:
    """Read a ``.gltf`` (external buffers or data: URIs) or ``.glb`` file."""
    path = pathlib.Path(path)
    data = path.read_bytes()
    glb_bin = None
    if len(data) >= 12 and struct.unpack_from("<I", data, 0)[0] == _GLB_MAGIC:
        gltf, glb_bin = _parse_glb(data, path)
    else:
        gltf = json.loads(data.decode("utf-8"))
    buffers = []
    for bi, buf in enumerate(gltf.get("buffers", [])):
        uri = buf.get("uri")
        if uri is None:
            if glb_bin is None or bi != 0:
                raise GltfError(f"{path.name}: buffer {bi} has no uri and no GLB BIN chunk")
            blob = glb_bin
        elif uri.startswith("data:"):
            header, _, payload = uri.partition(",")
            if not header.endswith(";base64"):
                raise GltfError(f"{path.name}: buffer {bi} data URI is not base64")
            blob = base64.b64decode(payload)
        else:
            blob = (path.parent / urllib.parse.unquote(uri)).read_bytes()
        if len(blob) < buf["byteLength"]:
            raise GltfError(f"{path.name}: buffer {bi} has {len(blob)} bytes, "
                            f"byteLength says {buf['byteLength']}")
        buffers.append(blob)
    return GltfDocument(gltf, buffers, path)


def _parse_glb(data: bytes, path: pathlib.Path):
    _, version, length = struct.unpack_from("<III", data, 0)
    if version != 2:
        raise GltfError(f"{path.name}: GLB version {version}, expected 2")
    offset, gltf, blob = 12, None, None
    while offset < min(length, len(data)):
        chunk_len, chunk_type = struct.unpack_from("<II", data, offset)
        chunk = data[offset + 8: offset + 8 + chunk_len]
        if chunk_type == _GLB_JSON:
            gltf = json.loads(chunk.decode("utf-8"))
        elif chunk_type == _GLB_BIN and blob is None:
            blob = bytes(chunk)
        offset += 8 + chunk_len
    if gltf is None:
        raise GltfError(f"{path.name}: GLB without a JSON chunk")
    return gltf, blob


# --- sampler evaluation (spec Appendix C) ------------------------------------------
def _normalise(q: np.ndarray) -> np.ndarray:
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def slerp_short_arc(q0, q1, u: float) -> np.ndarray:
    """The spec's slerp of two unit quaternions (any component order) at u in [0, 1]."""
    q0, q1 = np.asarray(q0, float), np.asarray(q1, float)
    d = float(np.dot(q0, q1))
    s = -1.0 if d < 0 else 1.0
    a = np.arccos(min(abs(d), 1.0))
    if a < 1e-12:   # the spec: a close to zero turns slerp into lerp (then normalised)
        return _normalise((1 - u) * q0 + u * s * q1)
    return (np.sin(a * (1 - u)) / np.sin(a)) * q0 + s * (np.sin(a * u) / np.sin(a)) * q1


def evaluate_sampler(times, values, interpolation: str, t, rotation: bool = False) -> np.ndarray:
    """Evaluate one glTF sampler at times ``t``; returns (len(t), k).

    ``values`` as stored: (n, k) for STEP/LINEAR, (3n, k) for CUBICSPLINE.
    ``rotation=True`` selects slerp for LINEAR and normalises CUBICSPLINE results.
    """
    times = np.asarray(times, float)
    values = np.asarray(values, float)
    if values.ndim == 1:
        values = values[:, None]
    ts = np.atleast_1d(np.asarray(t, float))
    n = len(times)
    if interpolation == "CUBICSPLINE":
        if values.shape[0] != 3 * n:
            raise GltfError(f"CUBICSPLINE needs 3 x {n} outputs, found {values.shape[0]}")
        in_tan, vals, out_tan = values[0::3], values[1::3], values[2::3]
    else:
        if values.shape[0] != n:
            raise GltfError(f"{interpolation} needs {n} outputs, found {values.shape[0]}")
        vals = values
    out = np.empty((len(ts), vals.shape[1]))
    for j, tc in enumerate(ts):
        if tc <= times[0] or n == 1:
            out[j] = vals[0]
            continue
        if tc >= times[-1]:
            out[j] = vals[-1]
            continue
        # k: the last key with times[k] <= tc (so times[k] <= tc < times[k + 1])
        k = int(np.searchsorted(times, tc, side="right")) - 1
        td = times[k + 1] - times[k]
        u = (tc - times[k]) / td
        if interpolation == "STEP":
            out[j] = vals[k]
        elif interpolation == "LINEAR":
            if rotation:
                out[j] = slerp_short_arc(vals[k], vals[k + 1], u)
            else:
                out[j] = (1 - u) * vals[k] + u * vals[k + 1]
        elif interpolation == "CUBICSPLINE":
            u2, u3 = u * u, u * u * u
            out[j] = ((2 * u3 - 3 * u2 + 1) * vals[k]
                      + td * (u3 - 2 * u2 + u) * out_tan[k]
                      + (-2 * u3 + 3 * u2) * vals[k + 1]
                      + td * (u3 - u2) * in_tan[k + 1])
            if rotation:
                out[j] = _normalise(out[j])
        else:
            raise GltfError(f"unknown interpolation {interpolation!r}")
    return out


# --- conversions ------------------------------------------------------------------
def xyzw_to_wxyz(q) -> np.ndarray:
    """glTF (x, y, z, w) quaternions -> Blender (w, x, y, z); any leading shape."""
    q = np.asarray(q, float)
    return np.concatenate([q[..., 3:4], q[..., 0:3]], axis=-1)


def wxyz_to_xyzw(q) -> np.ndarray:
    q = np.asarray(q, float)
    return np.concatenate([q[..., 1:4], q[..., 0:1]], axis=-1)


# Y-up (glTF) -> Z-up (Blender): a +90 deg turn about X maps +Y to +Z and +Z to -Y.
YUP_TO_ZUP = np.array([[1.0, 0.0, 0.0],
                       [0.0, 0.0, -1.0],
                       [0.0, 1.0, 0.0]])


def gltf_to_blender_vec(v) -> np.ndarray:
    """A glTF translation (x, y, z) in Blender's Z-up axes: (x, -z, y)."""
    v = np.asarray(v, float)
    return v @ YUP_TO_ZUP.T


def gltf_to_blender_quat(q_xyzw) -> np.ndarray:
    """A glTF rotation (xyzw) in Blender's Z-up axes, as (w, x, y, z).

    The basis change C R C^-1 with C = :data:`YUP_TO_ZUP` moves the quaternion's
    vector part like a vector: (w, x, -z, y).
    """
    q = xyzw_to_wxyz(q_xyzw)
    return np.concatenate([q[..., 0:1], q[..., 1:4] @ YUP_TO_ZUP.T], axis=-1)


def quat_wxyz_to_matrix(q) -> np.ndarray:
    """Unit quaternion (w, x, y, z) -> 3x3 rotation matrix (acts on column vectors)."""
    w, x, y, z = _normalise(np.asarray(q, float))
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def matrix_to_quat_xyzw(m) -> np.ndarray:
    """3x3 rotation matrix -> unit quaternion (x, y, z, w), w >= 0."""
    m = np.asarray(m, float)
    tr = np.trace(m)
    if tr > 0:
        s = 2.0 * np.sqrt(tr + 1.0)
        q = [(m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, s / 4]
    else:
        i = int(np.argmax(np.diag(m)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * np.sqrt(1.0 + m[i, i] - m[j, j] - m[k, k])
        q = [0.0, 0.0, 0.0, (m[k, j] - m[j, k]) / s]
        q[i] = s / 4
        q[j] = (m[j, i] + m[i, j]) / s
        q[k] = (m[k, i] + m[i, k]) / s
    q = np.asarray(q)
    return -q if q[3] < 0 else q


def trs_matrix(translation, rotation_xyzw, scale) -> np.ndarray:
    """The node's local matrix T * R * S (spec 3.5.3)."""
    m = np.eye(4)
    m[:3, :3] = quat_wxyz_to_matrix(xyzw_to_wxyz(rotation_xyzw)) * np.asarray(scale, float)
    m[:3, 3] = translation
    return m


def rotation_angle_deg(q_a_wxyz, q_b_wxyz) -> float:
    """The angle (deg) of the rotation between two unit quaternions, sign-blind."""
    d = abs(float(np.dot(_normalise(np.asarray(q_a_wxyz, float)),
                         _normalise(np.asarray(q_b_wxyz, float)))))
    return float(np.degrees(2 * np.arccos(min(d, 1.0))))
