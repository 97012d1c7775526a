# SPDX-License-Identifier: GPL-3.0-or-later
"""When a transform cache has samples: Alembic (Ogawa) and USD text (``.usda``) files.

Pure Python + numpy (no bpy). A Transform Cache constraint plays a file's
transforms, and Blender interpolates between the file's samples; QuatBake
compares that playback with its own interpolation of the same samples, so it
needs their times, which Blender does not expose. Only what that needs is read:

- **Alembic** (the Ogawa layout every Alembic 1.5+ writer uses; Alembic's own
  ``lib/Alembic/Ogawa`` and ``AbcCoreOgawa`` describe it): the archive's time
  samplings, then down the object path the ``.xform`` compound of each object,
  whose ``.inherits`` property (``.vals`` when it has none) names the time
  sampling and the number of samples. :func:`alembic_sample_times` returns the
  union of the animated ancestors' sample times, in seconds. The file is read
  with seeks: a large geometry cache is never loaded whole.
- **USD text**: the ``timeSamples`` of every ``xformOp:*`` attribute of the prim
  and its ancestors (:func:`usda_sample_times`, in time codes), and the
  stage's ``timeCodesPerSecond`` / ``framesPerSecond``. Binary USD (``.usdc``, a
  crate ``.usd``, ``.usdz``) is not read here (:func:`usd_is_text` says which).

Bad or unsupported files raise ``ValueError`` with a sentence that names the
file and what is wrong.
"""
from __future__ import annotations

import os
import re
import struct

import numpy as np

_OGAWA_MAGIC = b"Ogawa"
_HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"
_DATA_BIT = 0x8000000000000000
# The root group's children (AbcCoreOgawa ArImpl::init).
_ROOT_TOP_OBJECT, _ROOT_TIME_SAMPLINGS = 2, 4
# TimeSamplingType: an acyclic sampling stores this as its time per cycle.
_ACYCLIC_TIME_PER_CYCLE = np.finfo(np.float64).max / 32.0
_COMPOUND, _SCALAR = 0, 1


class _Ogawa:
    """Groups and data of an Ogawa file, read on demand."""

    def __init__(self, fh, path: str):
        self.fh, self.path = fh, path
        self.size = os.fstat(fh.fileno()).st_size

    def bad(self, what: str) -> ValueError:
        return ValueError(f"{self.path} is not a readable Alembic file ({what}).")

    def read(self, pos: int, count: int) -> bytes:
        if pos < 0 or count < 0 or pos + count > self.size:
            raise self.bad(f"a block at byte {pos} runs past the end of the file")
        self.fh.seek(pos)
        return self.fh.read(count)

    def group(self, pos: int) -> list[int]:
        """The child positions of the group at ``pos`` (data children have the top bit set)."""
        if pos == 0:
            return []
        (count,) = struct.unpack("<Q", self.read(pos, 8))
        if count > self.size // 8:
            raise self.bad(f"the group at byte {pos} claims {count} children")
        return list(struct.unpack(f"<{count}Q", self.read(pos + 8, 8 * count)))

    def data(self, child: int) -> bytes:
        if not child & _DATA_BIT:
            raise self.bad("a data block is a group")
        pos = child & ~_DATA_BIT
        if pos == 0:
            return b""
        (size,) = struct.unpack("<Q", self.read(pos, 8))
        return self.read(pos + 8, size)

    def child_group(self, children: list[int], index: int) -> list[int]:
        if index >= len(children) or children[index] & _DATA_BIT:
            raise self.bad("an object or property has no group where one belongs")
        return self.group(children[index])


def _time_samplings(buf: bytes, bad) -> list[tuple[float, np.ndarray, bool]]:
    """(time per cycle, the times of one cycle, acyclic) of each time sampling
    (AbcCoreOgawa ReadTimeSamplesAndMax)."""
    out, pos = [], 0
    while pos < len(buf):
        if pos + 16 > len(buf):
            raise bad("its time samplings are cut short")
        tpc, count = struct.unpack_from("<dI", buf, pos + 4)
        pos += 16
        if count < 1 or pos + 8 * count > len(buf):
            raise bad("a time sampling has no sample times")
        times = np.frombuffer(buf, dtype="<f8", count=count, offset=pos).astype(np.float64)
        pos += 8 * count
        out.append((tpc, times, tpc >= _ACYCLIC_TIME_PER_CYCLE))
    return out


def _sample_times(sampling, count: int) -> np.ndarray:
    """Times (seconds) of samples 0 .. count-1 (AbcCoreAbstract TimeSampling::getSampleTime)."""
    tpc, times, acyclic = sampling
    index = np.arange(count)
    if acyclic:
        return times[:count].copy()
    per_cycle = times.size
    return times[index % per_cycle] + tpc * (index // per_cycle)


def _uint(buf: bytes, pos: int, hint: int, bad) -> tuple[int, int]:
    width = (1, 2, 4)[hint] if hint < 3 else 0
    if not width or pos + width > len(buf):
        raise bad("a property header is cut short")
    return int.from_bytes(buf[pos:pos + width], "little"), pos + width


def _object_headers(buf: bytes, bad) -> list[str]:
    """Child object names (AbcCoreOgawa ReadObjectHeaders; the last 32 bytes are hashes)."""
    names, pos, end = [], 0, len(buf) - 32
    while pos < end:
        if pos + 4 > end:
            raise bad("an object header is cut short")
        (size,) = struct.unpack_from("<I", buf, pos)
        pos += 4
        if size == 0 or pos + size + 1 > end:
            raise bad("an object name is cut short")
        names.append(buf[pos:pos + size].decode("utf-8", "replace"))
        pos += size
        meta_index = buf[pos]
        pos += 1
        if meta_index == 0xFF:
            if pos + 4 > end:
                raise bad("an object's metadata is cut short")
            (meta,) = struct.unpack_from("<I", buf, pos)
            pos += 4 + meta
    return names


def _property_headers(buf: bytes, bad) -> list[dict]:
    """Name, kind, sample count, time sampling and constancy of each property
    (AbcCoreOgawa ReadPropertyHeaders)."""
    found, pos = [], 0
    while pos < len(buf):
        if pos + 4 > len(buf):
            raise bad("a property header is cut short")
        (info,) = struct.unpack_from("<I", buf, pos)
        pos += 4
        kind, hint = info & 0x3, (info & 0xC) >> 2
        header = {"kind": kind, "samples": 0, "sampling": 0, "constant": True}
        if kind != _COMPOUND:
            header["samples"], pos = _uint(buf, pos, hint, bad)
            first, last = 1, header["samples"] - 1
            if info & 0x200:
                first, pos = _uint(buf, pos, hint, bad)
                last, pos = _uint(buf, pos, hint, bad)
            elif info & 0x800:
                first = last = 0
            # Samples before the first change repeat sample 0, after the last one repeat it.
            header["constant"] = header["samples"] < 2 or (first == 0 and last == 0)
            if info & 0x100:
                header["sampling"], pos = _uint(buf, pos, hint, bad)
        size, pos = _uint(buf, pos, hint, bad)
        if size == 0 or pos + size > len(buf):
            raise bad("a property name is cut short")
        header["name"] = buf[pos:pos + size].decode("utf-8", "replace")
        pos += size
        if (info & 0xFF00000) >> 20 == 0xFF:
            meta, pos = _uint(buf, pos, hint, bad)
            pos += meta
        found.append(header)
    return found


def _compound(ogawa: _Ogawa, children: list[int]) -> dict:
    """{name: (header, index of its group)} of a compound property's children."""
    if not children or not children[-1] & _DATA_BIT:
        return {}
    headers = _property_headers(ogawa.data(children[-1]), ogawa.bad)
    return {h["name"]: (h, i) for i, h in enumerate(headers)}


def _xform_samples(ogawa: _Ogawa, obj_children: list[int], samplings: list) -> np.ndarray | None:
    """Sample times (seconds) of an object's animated ``.xform``; None when it has none or
    it does not change."""
    if not obj_children or obj_children[0] & _DATA_BIT:
        return None
    props = ogawa.group(obj_children[0])
    found = _compound(ogawa, props).get(".xform")
    if found is None or found[0]["kind"] != _COMPOUND:
        return None
    xform_children = ogawa.child_group(props, found[1])
    members = _compound(ogawa, xform_children)
    # IXformSchema: the sampling and the sample count are .inherits' (.vals' without it).
    own = [members[n][0] for n in (".inherits", ".vals") if n in members]
    if not own or all(h["constant"] for h in own):
        return None
    header = own[0]
    if header["sampling"] >= len(samplings):
        raise ogawa.bad(f"an .xform names time sampling {header['sampling']}, which the archive "
                        "does not have")
    return _sample_times(samplings[header["sampling"]], header["samples"])


def alembic_sample_times(path: str, object_path: str) -> np.ndarray:
    """Sorted unique sample times (seconds) of the transforms along ``object_path``
    ("/Camera/CameraShape") in the Alembic file ``path``: the union over the object and
    its ancestors whose ``.xform`` changes. Empty when none of them is animated.

    Raises ValueError naming the file for an HDF5 Alembic file (Blender reads Ogawa
    only), a file that is no Alembic file or is cut short, and an object path the
    archive does not have.
    """
    with open(path, "rb") as fh:
        head = fh.read(16)
        if head.startswith(_HDF5_MAGIC):
            raise ValueError(f"{path} is an Alembic file in the old HDF5 layout, which "
                             "Blender does not read; write it again as Ogawa (the default "
                             "of every Alembic exporter since 2013).")
        if len(head) < 16 or not head.startswith(_OGAWA_MAGIC):
            raise ValueError(f"{path} is not an Alembic (Ogawa) file.")
        if head[5] != 0xFF:
            raise ValueError(f"{path} was not closed cleanly by the program that wrote it "
                             "(Ogawa's frozen flag is not set); write it again.")
        ogawa = _Ogawa(fh, path)
        (root_pos,) = struct.unpack_from("<Q", head, 8)
        root = ogawa.group(root_pos)
        if len(root) < 6:
            raise ogawa.bad("its archive group is incomplete")
        samplings = _time_samplings(ogawa.data(root[_ROOT_TIME_SAMPLINGS]), ogawa.bad)
        obj = ogawa.child_group(root, _ROOT_TOP_OBJECT)
        found = []
        walked = ""
        for name in [n for n in object_path.split("/") if n]:
            names = _object_headers(ogawa.data(obj[-1]), ogawa.bad) if obj and \
                obj[-1] & _DATA_BIT else []
            if name not in names:
                raise ValueError(f"{path} has no object {walked}/{name} (the Transform Cache "
                                 f"constraint asks for {object_path}).")
            walked += "/" + name
            obj = ogawa.child_group(obj, names.index(name) + 1)
            times = _xform_samples(ogawa, obj, samplings)
            if times is not None:
                found.append(times)
    if not found:
        return np.zeros(0)
    return np.unique(np.concatenate(found))


# -- USD text -----------------------------------------------------------------------

_USDA_TOKEN = re.compile(r'''
    (?P<space>\s+|\#[^\n]*)
  | (?P<string>"""(?:[^\\]|\\.)*?"""|\'\'\'(?:[^\\]|\\.)*?\'\'\'|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<asset>@@@.*?@@@|@[^@\n]*@)
  | (?P<pathref><[^>\n]*>)
  | (?P<number>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![A-Za-z_]))
  | (?P<ident>[A-Za-z_][A-Za-z0-9_:.]*)
  | (?P<punct>[{}()\[\]=,:;&])
''', re.VERBOSE | re.DOTALL)
_PRIM_SPECIFIERS = {"def", "over", "class"}


def usd_is_text(path: str) -> bool:
    """Whether ``path`` is a USD text file (``#usda`` header), whatever its extension."""
    with open(path, "rb") as fh:
        return fh.read(5) == b"#usda"


def _usda_tokens(text: str, path: str):
    pos = 0
    while pos < len(text):
        match = _USDA_TOKEN.match(text, pos)
        if match is None:
            line = text.count("\n", 0, pos) + 1
            raise ValueError(f"{path} line {line}: unexpected text {text[pos:pos + 20]!r} in "
                             "a USD text file.")
        pos = match.end()
        kind = match.lastgroup
        if kind != "space":
            yield kind, match.group()


def _skip_balanced(tokens: list, i: int) -> int:
    """Index after the bracket that closes the one at ``tokens[i]``."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    depth = []
    while i < len(tokens):
        value = tokens[i][1] if tokens[i][0] == "punct" else ""
        if value in pairs:
            depth.append(pairs[value])
        elif depth and value == depth[-1]:
            depth.pop()
            if not depth:
                return i + 1
        i += 1
    return i


def _time_codes(tokens: list, i: int) -> tuple[list[float], int]:
    """The keys of a ``timeSamples`` dictionary opening at ``tokens[i]`` ("{"), and the
    index after it."""
    end = _skip_balanced(tokens, i)
    times, j, depth = [], i + 1, 0
    while j < end - 1:
        kind, value = tokens[j]
        if kind == "punct" and value in "([{":
            depth += 1
        elif kind == "punct" and value in ")]}":
            depth -= 1
        elif depth == 0 and kind == "number" and tokens[j + 1] == ("punct", ":"):
            times.append(float(value))
        j += 1
    return times, end


def usda_sample_times(path: str, prim_path: str) -> tuple[np.ndarray, dict]:
    """(sorted unique time codes, stage metadata) of a USD text file: the ``timeSamples`` of
    every ``xformOp:*`` attribute of ``prim_path`` ("/root/Camera") and its ancestors, as
    this file writes them (samples reaching the prim through references, payloads or
    sublayers are not followed), and the stage's ``timeCodesPerSecond``,
    ``framesPerSecond``, ``startTimeCode`` and ``endTimeCode`` when given.

    Raises ValueError naming the file and line for text that is no USD.
    """
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    if not text.startswith("#usda"):
        raise ValueError(f"{path} is not a USD text file (no #usda header).")
    tokens = list(_usda_tokens(text, path))
    wanted = {prim_path.rstrip("/")}
    parts = [p for p in prim_path.split("/") if p]
    wanted |= {"/" + "/".join(parts[:k]) for k in range(1, len(parts))}
    meta: dict = {}
    stack: list = []        # per open "{": the prim path it opens, or None (any other brace)
    times: list[float] = []
    i = 0
    if tokens and tokens[0] == ("punct", "("):
        # The stage's metadata: numbers after "name =".
        end = _skip_balanced(tokens, 0)
        for j in range(1, end - 2):
            if tokens[j][0] == "ident" and tokens[j + 1] == ("punct", "=") and \
                    tokens[j + 2][0] == "number":
                meta[tokens[j][1]] = float(tokens[j + 2][1])
        i = end
    pending_prim = None
    while i < len(tokens):
        kind, value = tokens[i]
        if kind == "ident" and value in _PRIM_SPECIFIERS:
            j = i + 1
            while j < len(tokens) and tokens[j][0] == "ident":
                j += 1      # the prim's type name
            if j < len(tokens) and tokens[j][0] == "string":
                name = tokens[j][1].strip("\"'")
                parent = next((p for p in reversed(stack) if p is not None), "")
                pending_prim = f"{parent}/{name}"
                i = j + 1
                continue
        if kind == "punct" and value == "(":
            i = _skip_balanced(tokens, i)   # metadata of a prim or an attribute
            continue
        if kind == "punct" and value == "{":
            stack.append(pending_prim)
            pending_prim = None
            i += 1
            continue
        if kind == "punct" and value == "}":
            if stack:
                stack.pop()
            i += 1
            continue
        if kind == "ident" and value.startswith("xformOp:") and value.endswith(".timeSamples") \
                and i + 2 < len(tokens) and tokens[i + 1] == ("punct", "=") \
                and tokens[i + 2] == ("punct", "{"):
            prim = next((p for p in reversed(stack) if p is not None), "")
            codes, i = _time_codes(tokens, i + 2)
            if prim in wanted:
                times.extend(codes)
            continue
        if kind == "punct" and value == "=" and i + 1 < len(tokens) and \
                tokens[i + 1] == ("punct", "{"):
            i = _skip_balanced(tokens, i + 1)   # a dictionary value (customData, variants ...)
            continue
        i += 1
    return np.unique(np.asarray(times, dtype=np.float64)), meta
