"""core.cache_times: the sample times of Alembic (Ogawa) and USD text files, without bpy.

The Alembic archives here are written byte by byte by ``_Ogawa`` below, from the layout
Alembic's own reader expects (lib/Alembic/Ogawa: groups and data blocks;
AbcCoreOgawa: the archive's children, time samplings, object and property headers),
so time samplings Blender's exporter never writes (acyclic, cyclic with a start
offset) are covered too; tests/blender/test_cache.py reads files Blender wrote. The
USD text cases are written here; the public file's times are checked against the
file's own keys read with a plain regular expression.
"""
import pathlib
import re
import struct

import numpy as np
import pytest

from quatbake.core import cache_times

REALDATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "realdata"
DATA = 1 << 63
ACYCLIC = np.finfo(np.float64).max / 32.0


class _Ogawa:
    """A minimal Ogawa writer: data blocks and groups appended, the root written last."""

    def __init__(self, frozen: bool = True):
        self.out = bytearray(b"Ogawa" + (b"\xff" if frozen else b"\x00") + b"\x00\x01"
                             + b"\x00" * 8)

    def data(self, payload: bytes) -> int:
        pos = len(self.out)
        self.out += struct.pack("<Q", len(payload)) + payload
        return pos | DATA

    def group(self, children) -> int:
        pos = len(self.out)
        self.out += struct.pack("<Q", len(children)) + struct.pack(f"<{len(children)}Q",
                                                                    *children)
        return pos

    def finish(self, root: int) -> bytes:
        self.out[8:16] = struct.pack("<Q", root)
        return bytes(self.out)


def _scalar_header(name: str, samples: int, sampling: int, first=None, last=None) -> bytes:
    # kind 1 (scalar), size hint 0 (uint8), pod 9 (float64), has a time sampling (0x100),
    # extent 1, metadata index 0; first/last changed indices when given (0x200).
    info = 1 | (9 << 4) | 0x100 | (1 << 12)
    extra = b""
    if first is not None:
        info |= 0x200
        extra = bytes([first, last])
    return struct.pack("<I", info) + bytes([samples]) + extra + bytes([sampling]) + \
        bytes([len(name)]) + name.encode()


def _compound_header(name: str) -> bytes:
    return struct.pack("<I", 0) + bytes([len(name)]) + name.encode()


def _object_headers(names) -> bytes:
    out = b"".join(struct.pack("<I", len(n)) + n.encode() + b"\x00" for n in names)
    return out + b"\x00" * 32     # the properties' and children's hashes


def _xform_props(w: _Ogawa, samples: int, sampling: int, first=1, last=None) -> int:
    """The properties compound of an object with a ``.xform`` whose ``.inherits`` has
    ``samples`` samples in time sampling ``sampling``."""
    inherits = w.group([])
    xform = w.group([inherits, w.data(_scalar_header(
        ".inherits", samples, sampling, first, samples - 1 if last is None else last))])
    return w.group([xform, w.data(_compound_header(".xform"))])


def _samplings(*entries) -> bytes:
    out = b""
    for max_sample, tpc, times in entries:
        out += struct.pack("<IdI", max_sample, tpc, len(times)) + struct.pack(
            f"<{len(times)}d", *times)
    return out


def _archive(tmp_path, frozen=True, name="made.abc") -> pathlib.Path:
    """/Root (uniform, 5 samples from 1/24 s) > /Root/Cam (no xform); /Spin (cyclic, 4 per
    frame, 6 samples); /Odd (acyclic); /Still (samples that never change)."""
    w = _Ogawa(frozen)
    cam = w.group([w.group([]), w.data(_object_headers([]))])
    root = w.group([_xform_props(w, 5, 1), cam, w.data(_object_headers(["Cam"]))])
    spin = w.group([_xform_props(w, 6, 2), w.data(_object_headers([]))])
    odd = w.group([_xform_props(w, 3, 3), w.data(_object_headers([]))])
    still = w.group([_xform_props(w, 9, 1, first=0, last=0), w.data(_object_headers([]))])
    top = w.group([w.group([]), root, spin, odd, still,
                   w.data(_object_headers(["Root", "Spin", "Odd", "Still"]))])
    samplings = _samplings((1, 1.0, [0.0]), (9, 1 / 24, [1 / 24]),
                           (6, 1 / 24, [0.0, 0.25 / 24, 0.5 / 24, 0.75 / 24]),
                           (3, ACYCLIC, [0.1, 0.5, 2.0]))
    root_group = w.group([w.data(struct.pack("<i", 1)), w.data(struct.pack("<i", 10709)), top,
                          w.data(b""), w.data(samplings), w.data(b"")])
    path = tmp_path / name
    path.write_bytes(w.finish(root_group))
    return path


def test_uniform_cyclic_and_acyclic_samplings(tmp_path):
    path = str(_archive(tmp_path))
    np.testing.assert_allclose(cache_times.alembic_sample_times(path, "/Root/Cam"),
                               np.arange(1, 6) / 24, rtol=0, atol=1e-15)
    spin = np.array([0.0, 0.25, 0.5, 0.75, 1.0, 1.25]) / 24
    np.testing.assert_allclose(cache_times.alembic_sample_times(path, "/Spin"), spin,
                               rtol=0, atol=1e-15)
    np.testing.assert_array_equal(cache_times.alembic_sample_times(path, "/Odd"),
                                  [0.1, 0.5, 2.0])
    # Nine samples that never change: nothing moves, so no sample times at all.
    assert cache_times.alembic_sample_times(path, "/Still").size == 0


def test_alembic_refusals_name_the_file(tmp_path):
    good = _archive(tmp_path)
    with pytest.raises(ValueError, match=r"made.abc has no object /Root/Ghost \(the Transform "
                       r"Cache constraint asks for /Root/Ghost/Shape\)"):
        cache_times.alembic_sample_times(str(good), "/Root/Ghost/Shape")
    open_file = _archive(tmp_path, frozen=False, name="open.abc")
    with pytest.raises(ValueError, match="not closed cleanly"):
        cache_times.alembic_sample_times(str(open_file), "/Root")
    hdf5 = tmp_path / "old.abc"
    hdf5.write_bytes(b"\x89HDF\r\n\x1a\n" + b"\x00" * 64)
    with pytest.raises(ValueError, match="old.abc is an Alembic file in the old HDF5 layout"):
        cache_times.alembic_sample_times(str(hdf5), "/Root")
    other = tmp_path / "photo.abc"
    other.write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 64)
    with pytest.raises(ValueError, match="photo.abc is not an Alembic"):
        cache_times.alembic_sample_times(str(other), "/Root")
    data = good.read_bytes()
    for cut in (20, len(data) // 3, len(data) - 40):
        short = tmp_path / "short.abc"
        short.write_bytes(data[:cut])
        with pytest.raises(ValueError, match="short.abc is not a readable Alembic file"):
            cache_times.alembic_sample_times(str(short), "/Root/Cam")


USDA = '''#usda 1.0
(
    "written here"  # a comment with a { brace
    startTimeCode = -2
    endTimeCode = 12.5
    timeCodesPerSecond = 48
    customLayerData = { string note = "}" }
)

def Xform "root" (
    kind = "assembly"
    variants = { string look = "a" }
)
{
    float3 xformOp:rotateXYZ.timeSamples = {
        -2: (0, 0, 0),
        4.5: (0, 0, 90),
    }
    uniform token[] xformOpOrder = ["xformOp:rotateXYZ"]
    string note = "def Xform \\"fake\\" { }"

    def Camera "cam"
    {
        double3 xformOp:translate.timeSamples = {
            0: (0, 0, 0),
            10: (1, 2, 3),
            12.5: (1, 2, 4),
        }
        float focalLength.timeSamples = { 3: 50, 7: 35 }
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }

    def Xform "other"
    {
        matrix4d xformOp:transform.timeSamples = {
            1: ( (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1) ),
            2: ( (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (5, 0, 0, 1) ),
        }
    }
    variantSet "look" = {
        "a" {
            def Xform "hidden"
            {
                double3 xformOp:translate.timeSamples = { 99: (0, 0, 0) }
            }
        }
    }
}
'''


def test_usda_times_of_the_prim_and_its_ancestors_only(tmp_path):
    path = tmp_path / "shot.usda"
    path.write_text(USDA)
    times, meta = cache_times.usda_sample_times(str(path), "/root/cam")
    np.testing.assert_array_equal(times, [-2.0, 0.0, 4.5, 10.0, 12.5])
    assert meta == {"startTimeCode": -2.0, "endTimeCode": 12.5, "timeCodesPerSecond": 48.0}
    np.testing.assert_array_equal(cache_times.usda_sample_times(str(path), "/root/other")[0],
                                  [-2.0, 1.0, 2.0, 4.5])
    np.testing.assert_array_equal(cache_times.usda_sample_times(str(path), "/root")[0],
                                  [-2.0, 4.5])
    assert cache_times.usda_sample_times(str(path), "/nothing")[0].size == 0
    assert cache_times.usd_is_text(str(path))


def test_usda_refusals_name_the_file_and_line(tmp_path):
    binary = tmp_path / "shot.usdc"
    binary.write_bytes(b"PXR-USDC" + b"\x00" * 32)
    assert not cache_times.usd_is_text(str(binary))
    with pytest.raises(ValueError, match="shot.usdc is not a USD text file"):
        cache_times.usda_sample_times(str(binary), "/root")
    broken = tmp_path / "broken.usda"
    broken.write_text("#usda 1.0\n\ndef Xform \"a\"\n{\n    float x = 1 $ 2\n}\n")
    with pytest.raises(ValueError, match="broken.usda line 5: unexpected text"):
        cache_times.usda_sample_times(str(broken), "/a")


def test_the_public_usd_cameras_times_are_the_files_keys():
    path = REALDATA / "usd" / "teapotScene_camera.usd"
    text = path.read_text()
    # The file's own keys: every "N:" that opens a line inside a timeSamples block.
    keys = sorted({float(k) for k in re.findall(r"^\s+(\d+):", text, re.M)})
    times, meta = cache_times.usda_sample_times(str(path), "/Cameras/mainCamera")
    np.testing.assert_array_equal(times, keys)
    assert times[0] == 0.0 and times[-1] == 479.0 and times.size == 480
    assert meta["endTimeCode"] == 480.0
