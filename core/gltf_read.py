# SPDX-License-Identifier: GPL-3.0-or-later
"""Read a glTF 2.0 file's animation: nodes, accessors, samplers and channels.

Pure Python + numpy (no bpy). Reads ``.gltf`` (JSON with ``.bin`` files beside
it or base64 ``data:`` URIs) and ``.glb`` (binary container). Only what
animation needs is decoded: every node's name, static TRS (or matrix),
children, camera/light, and every animation's channels with their sampler's
input times (seconds) and output values as float64 arrays, components in the
file's own order (rotations are (x, y, z, w) here, as glTF stores them; see
``core.gltf_pose`` for Blender's (w, x, y, z)).

Accessors follow the glTF 2.0 spec section 3.6: component types 5120-5126,
``normalized`` integers mapped to [-1, 1] / [0, 1] with the spec's formulas,
``byteStride`` interleaving, ``sparse`` substitution and accessors without a
bufferView (all zeros). Bad files raise ``ValueError`` with a sentence naming
the accessor, buffer or animation and what is wrong.
"""

from __future__ import annotations

import base64
import json
import os
import struct
import urllib.parse
from dataclasses import dataclass, field, replace

import numpy as np

# glTF 2.0 spec 3.6.2.2: componentType -> numpy little-endian dtype.
COMPONENT_DTYPES = {
    5120: np.dtype("<i1"),
    5121: np.dtype("<u1"),
    5122: np.dtype("<i2"),
    5123: np.dtype("<u2"),
    5125: np.dtype("<u4"),
    5126: np.dtype("<f4"),
}
TYPE_WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
INTERPOLATIONS = ("LINEAR", "STEP", "CUBICSPLINE")
ANIMATED_PATHS = ("translation", "rotation", "scale", "weights")

_GLB_MAGIC = b"glTF"
_GLB_JSON = 0x4E4F534A
_GLB_BIN = 0x004E4942


@dataclass(frozen=True)
class Sampler:
    """One animation sampler: ``input`` (n,) seconds, ``output`` (n, k) or (3n, k).

    For CUBICSPLINE the output holds, per key, in-tangent, value, out-tangent
    (spec 3.11.3), so it has 3n rows.
    """

    input: np.ndarray
    output: np.ndarray
    interpolation: str
    input_accessor: int
    output_accessor: int


@dataclass(frozen=True)
class Channel:
    node: int
    path: str  # "translation", "rotation", "scale" or "weights"
    sampler: Sampler
    sampler_index: int


@dataclass(frozen=True)
class Animation:
    name: str
    channels: tuple


@dataclass(frozen=True)
class Node:
    name: str
    translation: np.ndarray  # (3,)
    rotation: np.ndarray  # (4,) x, y, z, w as stored
    scale: np.ndarray  # (3,)
    matrix: np.ndarray | None  # (4, 4) column vectors, or None when TRS is given
    children: tuple
    is_camera: bool
    is_light: bool


@dataclass
class Document:
    """What a glTF file says about its nodes and animations."""

    nodes: list
    animations: list
    scene_roots: tuple  # root node indices of the default scene (or all roots)
    accessor_bytes: dict = field(default_factory=dict)  # accessor index -> bytes it reads
    json: dict = field(default_factory=dict)

    def parents(self) -> list:
        """Parent index of every node (-1 for a root)."""
        parent = [-1] * len(self.nodes)
        for i, node in enumerate(self.nodes):
            for child in node.children:
                parent[child] = i
        return parent

    def delayed(self, seconds: dict) -> "Document":
        """This document with the key times of the channels animating each node of
        ``seconds`` ({node: seconds}) later by that much (an exporter that slid each
        action to start at 0 s, moved back to its frames); other channels as they are."""
        moved: dict = {}

        def later(channel: Channel) -> Channel:
            shift = seconds.get(channel.node, 0.0)
            if not shift:
                return channel
            key = (id(channel.sampler), shift)   # a sampler two channels share moves once
            if key not in moved:
                moved[key] = replace(channel.sampler, input=channel.sampler.input + shift)
            return replace(channel, sampler=moved[key])

        animations = [Animation(a.name, tuple(later(c) for c in a.channels))
                      for a in self.animations]
        return replace(self, animations=animations)

    def node_index(self, name: str) -> int | None:
        """Index of the first node called ``name`` (None if there is none)."""
        for i, node in enumerate(self.nodes):
            if node.name == name:
                return i
        return None


def count_field(obj, key: str, default: int, what: str) -> int:
    """``obj[key]`` as an int >= 0 (glTF counts, offsets, lengths and indices).

    ValueError names the field when the file gives a negative, fractional or
    non-numeric value (``int()`` alone would accept 2.7 or raise TypeError).
    """
    value = obj.get(key, default) if isinstance(obj, dict) else default
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or value != int(value)
        or value < 0
    ):
        raise ValueError(f"{what}: {key} is {value!r}, not a whole number 0 or more.")
    return int(value)


# --------------------------------------------------------------------------
# Files and buffers


def load(path: str | os.PathLike) -> Document:
    """Read ``path`` (.gltf or .glb) and every buffer it refers to."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise ValueError(f"{path} cannot be read ({exc.strerror}).") from None
    folder = os.path.dirname(os.path.abspath(path))
    if data[:4] == _GLB_MAGIC:
        doc_json, glb_bin = _split_glb(data, path)
    else:
        try:
            doc_json = json.loads(data.decode("utf-8-sig"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path} is not glTF JSON ({exc}).") from None
        glb_bin = None
    if not isinstance(doc_json, dict):
        # A bad file is bad input (ValueError by the project's convention), not a caller's bug.
        raise ValueError(  # noqa: TRY004
            f"{path} is not a glTF file: its JSON is not an object."
        )
    try:
        buffers = _load_buffers(doc_json, folder, glb_bin, path)
    except (TypeError, AttributeError, KeyError, IndexError) as exc:
        raise ValueError(
            f"{path}: its buffers do not have glTF 2.0's structure ({type(exc).__name__}: {exc})."
        ) from None
    try:
        return parse(doc_json, buffers)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def _split_glb(data: bytes, path: str) -> tuple[dict, bytes | None]:
    """JSON and BIN chunks of a binary glTF (spec 4.4)."""
    if len(data) < 20:
        raise ValueError(f"{path} is a truncated .glb (shorter than its 12-byte header).")
    _magic, version, length = struct.unpack_from("<4sII", data, 0)
    if version != 2:
        raise ValueError(f"{path} is glTF version {version}; only glTF 2.0 is read.")
    if length > len(data):
        raise ValueError(
            f"{path} is a truncated .glb: its header says {length} bytes, the file has {len(data)}."
        )
    offset, doc_json, glb_bin = 12, None, None
    while offset + 8 <= length:
        chunk_len, chunk_type = struct.unpack_from("<II", data, offset)
        body = data[offset + 8 : offset + 8 + chunk_len]
        if len(body) < chunk_len:
            raise ValueError(
                f"{path} is a truncated .glb: a chunk at byte {offset} runs past the end."
            )
        if chunk_type == _GLB_JSON and doc_json is None:
            try:
                doc_json = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise ValueError(f"{path}: the .glb's JSON chunk cannot be read ({exc}).") from None
        elif chunk_type == _GLB_BIN and glb_bin is None:
            glb_bin = body
        offset += 8 + chunk_len
    if doc_json is None:
        raise ValueError(f"{path} is a .glb without a JSON chunk.")
    return doc_json, glb_bin


def _load_buffers(doc: dict, folder: str, glb_bin: bytes | None, path: str) -> list[bytes]:
    buffers = []
    for i, buf in enumerate(doc.get("buffers", [])):
        uri = buf.get("uri")
        if uri is None:
            if i != 0 or glb_bin is None:
                raise ValueError(f"{path}: buffer {i} has no uri and there is no .glb BIN chunk.")
            data = glb_bin
        elif uri.startswith("data:"):
            head, _, payload = uri.partition(",")
            if not head.endswith(";base64"):
                raise ValueError(f"{path}: buffer {i}'s data URI is not base64.")
            try:
                data = base64.b64decode(payload, validate=True)
            except ValueError:
                raise ValueError(f"{path}: buffer {i}'s data URI is not valid base64.") from None
        else:
            file = os.path.join(folder, urllib.parse.unquote(uri))
            try:
                with open(file, "rb") as fh:
                    data = fh.read()
            except OSError as exc:
                raise ValueError(
                    f"{path}: buffer {i} ({uri}) cannot be read ({exc.strerror})."
                ) from None
        length = count_field(buf, "byteLength", len(data), f"{path}: buffer {i}")
        if len(data) < length:
            raise ValueError(
                f"{path}: buffer {i} has {len(data)} bytes, its byteLength says {length} "
                "(the file is truncated)."
            )
        buffers.append(data[:length])
    return buffers


# --------------------------------------------------------------------------
# Accessors (spec 3.6)


def _normalised(raw: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Spec 3.11 "normalized" integers to floats.

    Signed: max(c / (2^(b-1) - 1), -1); unsigned: c / (2^b - 1).
    """
    info = np.iinfo(dtype)
    values = raw.astype(np.float64) / float(info.max)
    return np.maximum(values, -1.0) if info.min < 0 else values


def _strided(
    buffer: bytes, start: int, count: int, width: int, dtype: np.dtype, stride: int, what: str
) -> np.ndarray:
    elem = width * dtype.itemsize
    stride = stride or elem
    if count == 0:
        return np.zeros((0, width), dtype=np.float64)
    end = start + stride * (count - 1) + elem
    if start < 0 or end > len(buffer):
        raise ValueError(
            f"{what} reads bytes {start}..{end} of a buffer of {len(buffer)} bytes "
            "(the file is truncated or the accessor is wrong)."
        )
    if stride < elem:
        raise ValueError(f"{what} has byteStride {stride}, less than its element size {elem}.")
    rows = np.ndarray(
        (count, width), dtype=dtype, buffer=buffer, offset=start, strides=(stride, dtype.itemsize)
    )
    return np.array(rows)


def read_accessor(doc: dict, buffers: list[bytes], index: int) -> np.ndarray:
    """Accessor ``index`` as a float64 (count, width) array."""
    try:
        return _read_accessor(doc, buffers, index)
    except (TypeError, AttributeError, KeyError, IndexError) as exc:
        raise ValueError(
            f"accessor {index} does not have glTF 2.0's structure "
            f"({type(exc).__name__}: {exc}); the file is damaged."
        ) from None


def _read_accessor(doc: dict, buffers: list[bytes], index: int) -> np.ndarray:
    accessors = doc.get("accessors", [])
    if not 0 <= index < len(accessors):
        raise ValueError(f"accessor {index} does not exist (the file has {len(accessors)}).")
    acc = accessors[index]
    what = f"accessor {index}"
    dtype = COMPONENT_DTYPES.get(acc.get("componentType"))
    width = TYPE_WIDTHS.get(acc.get("type"))
    if dtype is None or width is None:
        raise ValueError(
            f"{what} has componentType {acc.get('componentType')} / type "
            f"{acc.get('type')!r}, which glTF 2.0 does not define."
        )
    if acc.get("type") in ("MAT2", "MAT3") and dtype.itemsize < 4:
        # Columns of these are padded to 4 bytes (spec 3.6.2.4); animation never uses them.
        raise ValueError(
            f"{what} is a padded {acc['type']} of {dtype.itemsize}-byte components, "
            "which this reader does not decode."
        )
    count = count_field(acc, "count", 0, what)
    view_index = acc.get("bufferView")
    if view_index is None:
        raw = np.zeros((count, width), dtype=dtype)
    else:
        raw = _view_rows(
            doc,
            buffers,
            view_index,
            count_field(acc, "byteOffset", 0, what),
            count,
            width,
            dtype,
            what,
        )
    sparse = acc.get("sparse")
    if sparse:
        raw = raw.copy()
        n = count_field(sparse, "count", 0, f"{what} (sparse)")
        ind = sparse["indices"]
        idx_dtype = COMPONENT_DTYPES.get(ind.get("componentType"))
        if idx_dtype is None or idx_dtype.kind != "u":
            raise ValueError(
                f"{what}: sparse indices have componentType {ind.get('componentType')}, "
                "not an unsigned integer type."
            )
        indices = _view_rows(
            doc,
            buffers,
            ind["bufferView"],
            count_field(ind, "byteOffset", 0, f"{what} (sparse indices)"),
            n,
            1,
            idx_dtype,
            f"{what} (sparse indices)",
            tight=True,
        )[:, 0].astype(np.int64)
        val = sparse["values"]
        values = _view_rows(
            doc,
            buffers,
            val["bufferView"],
            count_field(val, "byteOffset", 0, f"{what} (sparse values)"),
            n,
            width,
            dtype,
            f"{what} (sparse values)",
            tight=True,
        )
        if n and (indices.min() < 0 or indices.max() >= count):
            raise ValueError(f"{what}: a sparse index is outside 0..{count - 1}.")
        raw[indices] = values
    if dtype.kind == "f":
        out = raw.astype(np.float64)
    elif acc.get("normalized", False):
        out = _normalised(raw, dtype)
    else:
        out = raw.astype(np.float64)
    return out


def _view_rows(doc, buffers, view_index, offset, count, width, dtype, what, tight=False):
    views = doc.get("bufferViews", [])
    if not 0 <= view_index < len(views):
        raise ValueError(f"{what} names bufferView {view_index}, which does not exist.")
    view = views[view_index]
    buf_index = view.get("buffer", 0)
    if not 0 <= buf_index < len(buffers):
        raise ValueError(
            f"{what}: bufferView {view_index} names buffer {buf_index}, which does not exist."
        )
    view_start = count_field(view, "byteOffset", 0, f"bufferView {view_index}")
    view_len = count_field(view, "byteLength", 0, f"bufferView {view_index}")
    data = buffers[buf_index][view_start : view_start + view_len]
    if len(data) < view_len:
        raise ValueError(
            f"{what}: bufferView {view_index} runs past the end of buffer {buf_index} "
            "(the file is truncated)."
        )
    stride = 0 if tight else count_field(view, "byteStride", 0, f"bufferView {view_index}")
    return _strided(data, offset, count, width, dtype, stride, what)


def accessor_byte_size(doc: dict, index: int) -> int:
    """Bytes accessor ``index`` occupies in its buffer (count x element size, tightly packed)."""
    acc = doc["accessors"][index]
    dtype = COMPONENT_DTYPES.get(acc.get("componentType"), np.dtype("<f4"))
    return (
        count_field(acc, "count", 0, f"accessor {index}")
        * TYPE_WIDTHS.get(acc.get("type"), 1)
        * dtype.itemsize
    )


# --------------------------------------------------------------------------
# Nodes and animations


def _vector(value, default, size: int, what: str) -> np.ndarray:
    arr = np.array(default if value is None else value, dtype=np.float64)
    if arr.shape != (size,) or not np.isfinite(arr).all():
        raise ValueError(f"{what} is {value!r}, not {size} finite numbers.")
    return arr


def _node(i: int, raw: dict) -> Node:
    name = raw.get("name", f"node {i}")
    matrix = None
    if "matrix" in raw:
        m = _vector(raw["matrix"], None, 16, f"node {i} ({name}) matrix")
        matrix = m.reshape(4, 4).T  # glTF stores column-major
    return Node(
        name=name,
        translation=_vector(
            raw.get("translation"), [0.0, 0.0, 0.0], 3, f"node {i} ({name}) translation"
        ),
        rotation=_vector(
            raw.get("rotation"), [0.0, 0.0, 0.0, 1.0], 4, f"node {i} ({name}) rotation"
        ),
        scale=_vector(raw.get("scale"), [1.0, 1.0, 1.0], 3, f"node {i} ({name}) scale"),
        matrix=matrix,
        children=tuple(int(c) for c in raw.get("children", [])),
        is_camera="camera" in raw,
        is_light="KHR_lights_punctual" in raw.get("extensions", {}),
    )


def _channel_target(target: dict, what: str) -> tuple[int, str] | None:
    """(node, path) a channel animates, or None when it is not a node's transform.

    A plain target names ``node`` and ``path``. KHR_animation_pointer sets
    ``path`` to "pointer" and names the property with a JSON pointer in the
    extension; "/nodes/<i>/<translation|rotation|scale|weights>" is the same
    as a plain channel of node i (the extension's spec); pointers to
    materials, cameras or lights do not move a node and are skipped.
    """
    path = target.get("path", "")
    if path == "pointer":
        ext = target.get("extensions", {}).get("KHR_animation_pointer", {})
        parts = str(ext.get("pointer", "")).split("/")
        if (len(parts) == 4 and parts[0] == "" and parts[1] == "nodes" and parts[2].isdigit()
                and parts[3] in ANIMATED_PATHS):
            return int(parts[2]), parts[3]
        return None
    if "node" not in target:
        return None  # spec: a channel without a node is for an extension to interpret
    return count_field(target, "node", 0, f"{what} target"), path


def _sampler(doc, buffers, anim_name, s_index, raw, cache) -> Sampler:
    what = f"animation {anim_name!r} sampler {s_index}"
    interpolation = raw.get("interpolation", "LINEAR")
    if interpolation not in INTERPOLATIONS:
        raise ValueError(
            f"{what} has interpolation {interpolation!r}; glTF 2.0 defines "
            f"{', '.join(INTERPOLATIONS)}."
        )
    for key in ("input", "output"):
        if key not in raw:
            raise ValueError(f"{what} has no {key} accessor.")
    in_acc = count_field(raw, "input", 0, what)
    out_acc = count_field(raw, "output", 0, what)
    for acc in (in_acc, out_acc):
        if acc not in cache:
            cache[acc] = read_accessor(doc, buffers, acc)
    times = cache[in_acc]
    if times.shape[1] != 1:
        raise ValueError(f"{what}: input accessor {in_acc} is not SCALAR times.")
    return Sampler(
        input=times[:, 0].copy(),
        output=cache[out_acc],
        interpolation=interpolation,
        input_accessor=in_acc,
        output_accessor=out_acc,
    )


def parse(doc: dict, buffers: list[bytes]) -> Document:
    """A Document from glTF JSON ``doc`` and its decoded ``buffers``.

    JSON of the wrong shape (a list where an object belongs, a string for a
    number, a missing key) raises ValueError, not TypeError or KeyError.
    """
    try:
        return _parse(doc, buffers)
    except (TypeError, AttributeError, KeyError, IndexError) as exc:
        raise ValueError(
            f"The glTF JSON does not have glTF 2.0's structure ({type(exc).__name__}: "
            f"{exc}); the file is damaged or not glTF."
        ) from None


def _parse(doc: dict, buffers: list[bytes]) -> Document:
    nodes = [_node(i, raw) for i, raw in enumerate(doc.get("nodes", []))]
    for i, node in enumerate(nodes):
        for c in node.children:
            if not 0 <= c < len(nodes):
                raise ValueError(f"node {i} ({node.name}) has child {c}, which does not exist.")
    animations = []
    cache: dict = {}
    for a_index, raw_anim in enumerate(doc.get("animations", [])):
        name = raw_anim.get("name", f"animation {a_index}")
        raw_samplers = raw_anim.get("samplers", [])
        samplers: dict = {}
        channels = []
        for raw_ch in raw_anim.get("channels", []):
            target = _channel_target(raw_ch.get("target", {}), f"animation {name!r} channel")
            if target is None:
                continue  # not a node's transform (an extension's target): not played here
            node, path = target
            s_index = count_field(raw_ch, "sampler", 0, f"animation {name!r} channel")
            if not 0 <= s_index < len(raw_samplers):
                raise ValueError(
                    f"animation {name!r}: a channel names sampler {s_index}, which does not exist."
                )
            if not 0 <= node < len(nodes):
                raise ValueError(
                    f"animation {name!r}: a channel targets node {node}, which does not exist."
                )
            if s_index not in samplers:
                samplers[s_index] = _sampler(
                    doc, buffers, name, s_index, raw_samplers[s_index], cache
                )
            channels.append(
                Channel(
                    node=node,
                    path=path,
                    sampler=samplers[s_index],
                    sampler_index=s_index,
                )
            )
        animations.append(Animation(name=name, channels=tuple(channels)))
    scenes = doc.get("scenes", [])
    scene_index = doc.get("scene", 0)
    if scenes and 0 <= scene_index < len(scenes):
        roots = tuple(int(n) for n in scenes[scene_index].get("nodes", []))
    else:
        children = {c for node in nodes for c in node.children}
        roots = tuple(i for i in range(len(nodes)) if i not in children)
    sizes = {i: accessor_byte_size(doc, i) for i in range(len(doc.get("accessors", [])))}
    return Document(
        nodes=nodes, animations=animations, scene_roots=roots, accessor_bytes=sizes, json=doc
    )
