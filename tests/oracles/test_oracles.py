"""The oracles against the formats' own definitions, computed independently.

Plain pytest (no bpy). Expected values come from scipy (Slerp, Rotation,
CubicHermiteSpline), from the spec formulas written out here, or from numbers
written by hand into small files made in the test.
"""
import base64
import json
import pathlib
import struct

import numpy as np
import pytest
from scipy.interpolate import CubicHermiteSpline
from scipy.spatial.transform import Rotation, Slerp

from oracles import bvh_reference as br
from oracles import fbx_reference as fr
from oracles import gltf_reference as gr

REALDATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "realdata"

# float64 arithmetic on both sides, a few operations deep: 1e-12 leaves room for
# acos/sin conditioning near small angles and is still far below any real error.
F64 = 1e-12
# Values read back from float32 buffers vs. numbers written in the test: float32
# keeps ~6e-8 relative.
F32 = 1e-6


def _same_rotation(q_a, q_b):
    """|dot| of unit quaternions: 1 when they are the same rotation (q and -q alike)."""
    return abs(float(np.dot(q_a, q_b) / np.linalg.norm(q_a) / np.linalg.norm(q_b)))


# --- in-memory glTF files ---------------------------------------------------------------
def _write_gltf(tmp_path, times, values, interpolation, path="rotation", *,
                value_type=5126, normalized=False, embed=True, name="t.gltf"):
    """A one-node, one-channel glTF with float times and `values` as given."""
    times = np.asarray(times, np.float32)
    dtype = gr._COMPONENT_TYPES[value_type][0]
    values = np.asarray(values).astype(dtype)
    ncomp = values.shape[1]
    time_bytes = times.tobytes()
    pad = (-len(time_bytes)) % 4
    blob = time_bytes + b"\0" * pad + values.tobytes()
    acc_type = {1: "SCALAR", 3: "VEC3", 4: "VEC4"}[ncomp]
    value_acc = {"bufferView": 1, "componentType": value_type, "count": len(values),
                 "type": acc_type}
    if normalized:
        value_acc["normalized"] = True
    doc = {
        "asset": {"version": "2.0"},
        "nodes": [{"name": "N"}],
        "buffers": [{"byteLength": len(blob)}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": len(time_bytes)},
                        {"buffer": 0, "byteOffset": len(time_bytes) + pad,
                         "byteLength": values.nbytes}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": len(times),
                       "type": "SCALAR", "min": [float(times.min())],
                       "max": [float(times.max())]}, value_acc],
        "animations": [{"name": "A", "samplers": [{"input": 0, "output": 1,
                                                  "interpolation": interpolation}],
                        "channels": [{"sampler": 0, "target": {"node": 0, "path": path}}]}],
    }
    if embed:
        doc["buffers"][0]["uri"] = ("data:application/octet-stream;base64,"
                                    + base64.b64encode(blob).decode())
    else:
        (tmp_path / "t.bin").write_bytes(blob)
        doc["buffers"][0]["uri"] = "t.bin"
    out = tmp_path / name
    out.write_text(json.dumps(doc))
    return out


def _quat_xyzw(axis, deg):
    return Rotation.from_rotvec(np.radians(deg) * np.asarray(axis, float)).as_quat()  # xyzw


# --- LINEAR ----------------------------------------------------------------------------
@pytest.mark.parametrize("embed", [True, False])
def test_linear_rotation_is_scipy_slerp(tmp_path, embed):
    q0, q1 = _quat_xyzw([0, 0, 1], 10), _quat_xyzw([1, 1, 0] / np.sqrt(2), 130)
    path = _write_gltf(tmp_path, [0.0, 2.0], [q0, q1], "LINEAR", embed=embed)
    ch = gr.load_gltf(path).animations[0].channels[0]
    t = np.linspace(0, 2, 9)
    ours = ch.evaluate(t)
    ref = Slerp([0.0, 2.0], Rotation.from_quat(np.array([q0, q1], np.float32)))(t).as_quat()
    for a, b in zip(ours, ref):
        assert _same_rotation(a, b) == pytest.approx(1.0, abs=F64)
    # Blender order puts w first
    assert np.allclose(ch.evaluate_wxyz(0.0)[0], np.r_[ours[0][3], ours[0][:3]], atol=F64)


def test_linear_rotation_takes_the_short_arc_when_the_next_key_is_negated(tmp_path):
    q0, q1 = _quat_xyzw([0, 1, 0], 0), _quat_xyzw([0, 1, 0], 100)
    plain = _write_gltf(tmp_path, [0, 1], [q0, q1], "LINEAR", name="a.gltf")
    flipped = _write_gltf(tmp_path, [0, 1], [q0, -q1], "LINEAR", name="b.gltf")
    for t in (0.25, 0.5, 0.75):
        a = gr.load_gltf(plain).animations[0].channels[0].evaluate(t)[0]
        b = gr.load_gltf(flipped).animations[0].channels[0].evaluate(t)[0]
        assert _same_rotation(a, b) == pytest.approx(1.0, abs=F64)
        # the short arc: 100 deg * t about +Y, not (360 - 100) deg the other way
        angle = np.degrees(Rotation.from_quat(b).magnitude())
        assert angle == pytest.approx(100 * t, abs=1e-4)   # float32 keys: ~1e-5 deg


def test_linear_translation_is_lerp_and_clamps(tmp_path):
    v = [[0, 0, 0], [2, 4, -6], [2, 4, 10]]
    ch = gr.load_gltf(_write_gltf(tmp_path, [1, 2, 4], v, "LINEAR", "translation")
                      ).animations[0].channels[0]
    assert np.allclose(ch.evaluate(1.5)[0], [1, 2, -3], atol=F64)
    assert np.allclose(ch.evaluate(3.0)[0], [2, 4, 2], atol=F64)
    assert np.allclose(ch.evaluate(0.0)[0], v[0], atol=F64)     # before the first key
    assert np.allclose(ch.evaluate(9.0)[0], v[-1], atol=F64)    # after the last key


# --- STEP ------------------------------------------------------------------------------
def test_step_holds_the_previous_key_and_jumps_on_the_next(tmp_path):
    keys = [_quat_xyzw([0, 0, 1], d) for d in (0, 90, 180)]
    ch = gr.load_gltf(_write_gltf(tmp_path, [0, 1, 2], keys, "STEP")).animations[0].channels[0]
    for t, k in [(0.0, 0), (0.5, 0), (0.999, 0), (1.0, 1), (1.7, 1), (2.0, 2), (5.0, 2)]:
        assert _same_rotation(ch.evaluate(t)[0], keys[k]) == pytest.approx(1.0, abs=F32)


# --- CUBICSPLINE -----------------------------------------------------------------------
def test_cubicspline_with_zero_tangents_is_smoothstep(tmp_path):
    v0, v1 = np.array([1.0, -2.0, 3.0]), np.array([5.0, 2.0, -1.0])
    z = np.zeros(3)
    ch = gr.load_gltf(_write_gltf(tmp_path, [0.0, 0.5], [z, v0, z, z, v1, z], "CUBICSPLINE",
                                  "translation")).animations[0].channels[0]
    for u in (0.0, 0.2, 0.5, 0.9, 1.0):
        expected = v0 + (3 * u ** 2 - 2 * u ** 3) * (v1 - v0)   # h01 with no tangent terms
        assert np.allclose(ch.evaluate(0.5 * u)[0], expected, atol=F64)
    assert np.allclose(ch.key_values, [v0, v1])


def test_cubicspline_matches_scipy_hermite_with_tangents_per_second(tmp_path):
    times = np.array([0.0, 0.5, 2.0], np.float32)
    vals = np.array([[0.0], [1.0], [-1.0]])
    slopes = np.array([[2.0], [-1.0], [0.5]])   # units per second, in == out tangent
    out = np.concatenate([[s, v, s] for s, v in zip(slopes, vals)])
    ch = gr.load_gltf(_write_gltf(tmp_path, times, out, "CUBICSPLINE", "weights")
                      ).animations[0].channels[0]
    ref = CubicHermiteSpline(times.astype(float), vals[:, 0], slopes[:, 0])
    t = np.linspace(0, 2, 21)
    assert np.allclose(ch.evaluate(t)[:, 0], ref(t), atol=1e-9)


def test_cubicspline_rotation_is_normalised(tmp_path):
    q0, q1 = _quat_xyzw([1, 0, 0], 0), _quat_xyzw([1, 0, 0], 90)
    z = np.zeros(4)
    ch = gr.load_gltf(_write_gltf(tmp_path, [0, 1], [z, q0, z, z, q1, z], "CUBICSPLINE")
                      ).animations[0].channels[0]
    q = ch.evaluate(0.5)[0]
    assert np.linalg.norm(q) == pytest.approx(1.0, abs=F64)
    # zero tangents, u = 0.5: h00 = h01 = 0.5, so the normalised mean of the keys: 45 deg
    assert np.degrees(Rotation.from_quat(q).magnitude()) == pytest.approx(45.0, abs=1e-4)


def test_animation_pointer_to_a_node_rotation_is_a_rotation_channel(tmp_path):
    q0, q1 = _quat_xyzw([0, 1, 0], 0), _quat_xyzw([0, 1, 0], 60)
    path = _write_gltf(tmp_path, [0, 1], [q0, q1], "LINEAR")
    doc = json.loads(path.read_text())
    doc["nodes"].append({"name": "M"})
    pointer = {"KHR_animation_pointer": {"pointer": "/nodes/1/rotation"}}
    doc["animations"][0]["channels"] = [
        {"sampler": 0, "target": {"path": "pointer", "extensions": pointer}},
        {"sampler": 0, "target": {"path": "pointer", "extensions": {
            "KHR_animation_pointer": {"pointer": "/materials/0/alphaCutoff"}}}}]
    path.write_text(json.dumps(doc))
    (ch,) = gr.load_gltf(path).animations[0].channels      # the material pointer is left out
    assert (ch.node, ch.node_name, ch.path) == (1, "M", "rotation")
    angle = np.degrees(Rotation.from_quat(ch.evaluate(0.5)[0]).magnitude())
    assert angle == pytest.approx(30.0, abs=1e-4)       # slerp: half of 60 deg (float32 keys)


# --- accessors ------------------------------------------------------------------------
def test_normalised_short_quaternions_decode_per_spec(tmp_path):
    raw = np.array([[0, 0, 0, 32767], [0, 0, 23170, 23170], [-32768, 0, 0, 0]], np.int16)
    ch = gr.load_gltf(_write_gltf(tmp_path, [0, 1, 2], raw, "LINEAR", value_type=5122,
                                  normalized=True)).animations[0].channels[0]
    assert np.allclose(ch.values[0], [0, 0, 0, 1], atol=F64)
    assert np.allclose(ch.values[1], [0, 0, 23170 / 32767, 23170 / 32767], atol=F64)
    assert ch.values[2][0] == pytest.approx(-1.0, abs=F64)   # -32768 clamps to -1


def test_byte_stride_offset_sparse_and_glb(tmp_path):
    # Interleaved: 3 VEC3 floats each followed by 4 bytes of padding (stride 16),
    # the accessor starting 16 bytes into its view; a sparse override of element 1.
    rows = np.zeros((4, 4), np.float32)
    rows[1:, :3] = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    interleaved = rows.tobytes()
    sparse_idx = np.array([1], np.uint16).tobytes() + b"\0\0"
    sparse_val = np.array([10, 20, 30], np.float32).tobytes()
    blob = interleaved + sparse_idx + sparse_val
    doc = {
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": len(blob)}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 64, "byteStride": 16},
            {"buffer": 0, "byteOffset": 64, "byteLength": 4},
            {"buffer": 0, "byteOffset": 68, "byteLength": 12}],
        "accessors": [
            {"bufferView": 0, "byteOffset": 16, "componentType": 5126, "count": 3,
             "type": "VEC3"},
            {"bufferView": 0, "byteOffset": 16, "componentType": 5126, "count": 3,
             "type": "VEC3", "sparse": {"count": 1,
                                        "indices": {"bufferView": 1, "componentType": 5123},
                                        "values": {"bufferView": 2}}},
            {"componentType": 5126, "count": 2, "type": "VEC3",
             "sparse": {"count": 1, "indices": {"bufferView": 1, "componentType": 5123},
                        "values": {"bufferView": 2}}}],
    }
    js = json.dumps(doc).encode()
    js += b" " * ((-len(js)) % 4)
    glb = (struct.pack("<III", 0x46546C67, 2, 12 + 8 + len(js) + 8 + len(blob))
           + struct.pack("<II", len(js), 0x4E4F534A) + js
           + struct.pack("<II", len(blob), 0x004E4942) + blob)
    path = tmp_path / "t.glb"
    path.write_bytes(glb)
    g = gr.load_gltf(path)
    assert np.allclose(g.accessor(0), [[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    assert np.allclose(g.accessor(1), [[1, 2, 3], [10, 20, 30], [7, 8, 9]])
    assert np.allclose(g.accessor(2), [[0, 0, 0], [10, 20, 30]])   # no bufferView: zeros


def test_a_short_buffer_is_refused_with_its_name(tmp_path):
    path = _write_gltf(tmp_path, [0, 1], [[0, 0, 0, 1], [0, 0, 0, 1]], "LINEAR")
    doc = json.loads(path.read_text())
    doc["buffers"][0]["byteLength"] += 100
    path.write_text(json.dumps(doc))
    with pytest.raises(gr.GltfError, match="buffer 0"):
        gr.load_gltf(path)


# --- conversions ----------------------------------------------------------------------
def test_yup_to_zup_conjugates_the_rotation():
    q = _quat_xyzw([0.3, -0.5, 0.8] / np.linalg.norm([0.3, -0.5, 0.8]), 70)
    c = Rotation.from_euler("x", 90, degrees=True)           # Y-up -> Z-up
    expected = (c * Rotation.from_quat(q) * c.inv()).as_quat()   # xyzw
    ours = gr.gltf_to_blender_quat(q)                           # wxyz
    assert _same_rotation(np.r_[ours[1:], ours[0]], expected) == pytest.approx(1.0, abs=F64)
    assert np.allclose(gr.gltf_to_blender_vec([1, 2, 3]), c.apply([1, 2, 3]), atol=F64)


def test_world_matrices_compose_parent_and_child():
    g = gr.GltfDocument({"nodes": [
        {"name": "P", "children": [1], "translation": [1, 0, 0],
         "rotation": list(_quat_xyzw([0, 0, 1], 90))},
        {"name": "C", "translation": [0, 2, 0], "scale": [2, 2, 2]}]}, [])
    world = g.world_matrices(None, 0.0)
    # C's origin: P's origin + P's rotation (90 about Z) applied to (0, 2, 0) = (-2, 0, 0)
    assert np.allclose(world[1][:3, 3], [1 - 2, 0, 0], atol=F64)
    assert np.allclose(world[1][:3, :3],
                       2 * Rotation.from_euler("z", 90, degrees=True).as_matrix(), atol=F64)


# --- the real glTF files ----------------------------------------------------------------
def test_real_step_triangle_keys_are_quarter_turns_about_z():
    ch = gr.load_gltf(REALDATA / "gltf" / "AnimatedTriangle_STEP.gltf").animations[0].channels[0]
    assert ch.interpolation == "STEP"
    for k, t in enumerate(ch.times):
        angle = 90.0 * k
        expected = [0, 0, np.sin(np.radians(angle) / 2), np.cos(np.radians(angle) / 2)]
        assert _same_rotation(ch.evaluate(t)[0], expected) == pytest.approx(1.0, abs=F32)
        assert _same_rotation(ch.evaluate(t + 0.01)[0], expected) == pytest.approx(1.0, abs=F32)


def test_real_files_every_channel_evaluates_to_its_keys():
    """At each key time a sampler returns the key itself (all interpolations)."""
    files = sorted((REALDATA / "gltf").glob("*.gltf")) + sorted((REALDATA / "gltf").glob("*.glb"))
    assert files, "no glTF files in tests/data/realdata/gltf"
    for f in files:
        for anim in gr.load_gltf(f).animations:
            for ch in anim.channels:
                got = ch.evaluate(ch.times)
                want = ch.key_values
                if ch.path == "rotation":
                    want = want / np.linalg.norm(want, axis=1, keepdims=True)
                    for a, b in zip(got, want):
                        assert _same_rotation(a, b) == pytest.approx(1.0, abs=F32), f.name
                else:
                    assert np.allclose(got, want, atol=F32), (f.name, ch.node_name, ch.path)


# --- BVH ------------------------------------------------------------------------------
_BVH = """HIERARCHY
ROOT Hips
{
  OFFSET 0.0 0.0 0.0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Spine
  {
    OFFSET 0.0 10.0 0.0
    CHANNELS 3 Yrotation Xrotation Zrotation
    End Site
    {
      OFFSET 0.0 5.0 0.0
    }
  }
  JOINT Leg
  {
    OFFSET 3.0 -1.0 0.0
    CHANNELS 3 Xrotation Yrotation Zrotation
    End Site
    {
      OFFSET 0.0 -8.0 0.0
    }
  }
}
MOTION
Frames: 3
Frame Time: 0.0333333
1.0 2.0 3.0 0.0 0.0 0.0   0.0 0.0 0.0   0.0 0.0 0.0
1.5 2.0 3.0 30.0 0.0 0.0  0.0 45.0 0.0  10.0 0.0 0.0
2.0 2.0 3.0 10.0 20.0 30.0  40.0 -50.0 60.0  0.0 0.0 -90.0
"""


def _clip():
    return br.parse_bvh(_BVH)


def test_bvh_hierarchy_and_motion_layout():
    clip = _clip()
    assert [j.name for j in clip.joints] == ["Hips", "Spine", "Leg"]
    assert clip.joint("Spine").parent == "Hips" and clip.joint("Leg").parent == "Hips"
    assert clip.joint("Hips").rotation_order == "ZXY"
    assert clip.joint("Spine").rotation_order == "YXZ"
    assert clip.joint("Leg").channel_start == 9
    assert clip.frame_count == 3
    assert clip.frame_time == pytest.approx(0.0333333, abs=F64)
    assert np.allclose(clip.joint("Spine").end_site, [0, 5, 0])
    assert np.allclose(clip.positions("Hips")[:, 0], [1.0, 1.5, 2.0])
    assert clip.positions("Spine") is None


@pytest.mark.parametrize("joint,frame,axis,deg", [("Hips", 1, "z", 30.0),
                                                   ("Spine", 1, "x", 45.0),
                                                   ("Leg", 1, "x", 10.0),
                                                   ("Leg", 2, "z", -90.0)])
def test_bvh_single_axis_rotation_equals_scipy(joint, frame, axis, deg):
    clip = _clip()
    expected = Rotation.from_euler(axis, deg, degrees=True).as_matrix()
    assert np.allclose(clip.rotation_matrices(joint)[frame], expected, atol=F64)


@pytest.mark.parametrize("joint", ["Hips", "Spine"])
def test_bvh_three_axis_rotation_is_intrinsic_in_listed_order(joint):
    clip = _clip()
    j = clip.joint(joint)
    angles = clip.euler_degrees(joint)[2]
    # scipy: upper-case axes = intrinsic rotations, i.e. R = R1 @ R2 @ R3
    expected = Rotation.from_euler(j.rotation_order, angles, degrees=True)
    assert np.allclose(clip.rotation_matrices(joint)[2], expected.as_matrix(), atol=F64)
    q = clip.rotation_quaternions(joint)[2]
    ref = expected.as_quat()                        # xyzw
    assert _same_rotation(np.r_[q[1:], q[0]], ref) == pytest.approx(1.0, abs=F64)
    # and not the extrinsic reading of the same numbers
    wrong = Rotation.from_euler(j.rotation_order.lower(), angles, degrees=True).as_matrix()
    assert not np.allclose(clip.rotation_matrices(joint)[2], wrong, atol=1e-3)


def test_bvh_global_matrices_chain_offsets_and_rotations():
    clip = _clip()
    g = clip.global_matrices("Spine")[1]
    # frame 1: Hips at (1.5, 2, 3) turned 30 deg about Z; Spine 10 up in Hips' frame
    expected = np.array([1.5, 2, 3]) + Rotation.from_euler("z", 30, degrees=True).apply([0, 10, 0])
    assert np.allclose(g[:3, 3], expected, atol=F64)


def test_bvh_short_motion_is_refused_with_counts():
    with pytest.raises(br.BvhError, match="3 frames x 12 channels"):
        br.parse_bvh(_BVH.rsplit("\n", 2)[0])


def test_real_bvh_reads_whole_frames():
    clip = br.load_bvh(REALDATA / "bvh" / "test_freebvh.bvh")
    n_channels = sum(len(j.channels) for j in clip.joints)
    lines = (REALDATA / "bvh" / "test_freebvh.bvh").read_text().splitlines()
    first = lines[lines.index(next(x for x in lines if x.startswith("Frame Time"))) + 1].split()
    assert len(first) == n_channels
    assert np.allclose(clip.motion[0], [float(v) for v in first], atol=F64)
    r = clip.rotation_matrices(clip.joints[0].name)
    assert np.allclose(r @ np.swapaxes(r, 1, 2), np.eye(3), atol=1e-12)   # orthonormal


# --- fbx_reference: binary FBX --------------------------------------------------------
FBX = REALDATA / "fbx"


@pytest.mark.parametrize("order", fr.ROTATION_ORDERS)
def test_fbx_euler_applies_the_named_axes_first_to_last_as_scipy(order):
    degrees = np.array([31.0, -47.0, 112.0])         # stored X, Y, Z
    in_order = [degrees["XYZ".index(a)] for a in order]
    # scipy's lowercase sequence: extrinsic (fixed axes), applied first to last.
    expected = Rotation.from_euler(order.lower(), in_order, degrees=True).as_matrix()
    np.testing.assert_allclose(fr.euler_matrix(degrees, order), expected, atol=F64)


def test_fbx_matrix_to_quaternion_is_scipys():
    for q in Rotation.random(50, random_state=7).as_quat():
        m = Rotation.from_quat(q).as_matrix()
        wxyz = fr.matrix_to_quat_wxyz(m)
        assert _same_rotation(wxyz, q[[3, 0, 1, 2]]) > 1.0 - F64


def test_real_maya_keys_are_the_values_ufbx_tests_for():
    # ufbx's own test (test/test_animation.h, maya_transform_animation) evaluates pCube1's
    # rotation as (0, 0, 0), (10, 20, 30) and (-10, -20, -30) deg at Maya frames 1, 14 and
    # 24 (24 fps), which are its keys.
    doc = fr.load_fbx(FBX / "maya_transform_animation_7500_binary.fbx")
    assert doc.version == 7500
    doc.check_y_up()
    model = doc.model("pCube1")
    assert model.kind == "Mesh" and model.rotation_order == "XYZ" and model.parent is None
    times, degrees = model.rotation_keys()
    np.testing.assert_allclose(times * 24.0, [1.0, 14.0, 24.0], atol=1e-9)
    np.testing.assert_allclose(degrees, [[0, 0, 0], [10, 20, 30], [-10, -20, -30]], atol=F32)
    np.testing.assert_allclose(model.own_key_times(), times, atol=0)


def test_real_fbx_files_parse_with_64_bit_records_and_compressed_arrays():
    # 7500 and later write 64-bit node records; KeyTime / KeyValueFloat arrays are zlib
    # compressed in these files (encoding 1).
    for path in sorted(FBX.glob("*.fbx")):
        doc = fr.load_fbx(path)
        assert doc.version in (7500, 7700), path.name
        assert doc.models, path.name
    light = fr.load_fbx(FBX / "maya_anim_light_7500_binary.fbx")
    assert [m.kind for m in light.models.values()] == ["Light"]
    joints = fr.load_fbx(FBX / "maya_dq_weights_7500_binary.fbx")
    joint2 = joints.model("joint2")
    assert joint2.kind == "LimbNode" and joint2.parent is not None
    _times, degrees = joint2.rotation_keys()
    assert abs(degrees[-1, 0] - degrees[0, 0]) > 180.0       # a keyed turn past 180 deg


def test_fbx_ascii_is_refused_with_a_sentence(tmp_path):
    path = tmp_path / "a.fbx"
    path.write_text("; FBX 7.5.0 project file\n")
    with pytest.raises(fr.FbxError, match="not a binary FBX"):
        fr.load_fbx(path)


# ---------------------------------------------------------------- method_paths

@pytest.mark.parametrize("method", ['SLERP', 'NLERP', 'SQUAD'])
def test_method_paths_pass_through_the_keys_and_take_the_short_way(method):
    """Each path is the key orientation at its key (either sign), and between two keys
    turns the short way: a key given as -q is the same path."""
    from oracles import method_paths

    if method == 'SQUAD':
        pytest.importorskip("quaternion")
    frames = np.array([1.0, 11.0, 21.0, 31.0])
    keys = Rotation.from_euler("XYZ", [[0, 0, 0], [40, 10, 5], [80, 60, 20], [20, 30, 150]],
                               degrees=True).as_quat()[:, [3, 0, 1, 2]]
    flipped = keys.copy()
    flipped[2] *= -1.0
    at = method_paths.path(method, frames, keys, frames)
    assert np.allclose(np.abs(np.sum(at * keys, axis=1)), 1.0, atol=1e-12)
    times = np.linspace(1.0, 31.0, 121)
    a = method_paths.path(method, frames, keys, times)
    b = method_paths.path(method, frames, flipped, times)
    assert np.allclose(np.abs(np.sum(a * b, axis=1)), 1.0, atol=1e-12)


def test_method_paths_nlerp_is_the_normalised_chord_and_slerp_the_even_arc():
    """A quarter of the way between the identity and 90 deg about Z: slerp turns 22.5 deg;
    nlerp's chord (0.75 + 0.25 cos 45, 0, 0, 0.25 sin 45) has the half angle
    atan2(0.25 sin 45, 0.75 + 0.25 cos 45) = 10.80 deg, so it turns 21.598 deg."""
    from oracles import method_paths

    keys = np.array([[1.0, 0.0, 0.0, 0.0], [np.cos(np.pi / 4), 0.0, 0.0, np.sin(np.pi / 4)]])
    frames, quarter = np.array([0.0, 4.0]), np.array([1.0])
    angle = {m: np.degrees(2.0 * np.arctan2(
        method_paths.path(m, frames, keys, quarter)[0, 3],
        method_paths.path(m, frames, keys, quarter)[0, 0])) for m in ('SLERP', 'NLERP')}
    assert angle['SLERP'] == pytest.approx(22.5, abs=1e-9)
    assert angle['NLERP'] == pytest.approx(21.5982, abs=1e-4)


def test_slerp_keyed_timing_follows_the_twist_about_the_arc():
    """Keys 0 and 90 deg about Z at frames 0 and 4: where Blender plays 30 deg about Z
    tilted by 10 deg about X, its twist about Z is 30 deg (the tilt is off the arc), so
    the path is a third of the way: 30 deg about Z. At the keys, the keys."""
    from oracles import method_paths

    keys = Rotation.from_euler("z", [[0.0], [90.0]], degrees=True).as_quat()[:, [3, 0, 1, 2]]
    # Rz(30) Rx(10) = (cos15 cos5, cos15 sin5, sin15 sin5, sin15 cos5): its twist about
    # z is 2 atan2(sin15 cos5, cos15 cos5) = 30 deg.
    played = (Rotation.from_euler("z", [[0.0], [30.0], [90.0]], degrees=True)
              * Rotation.from_euler("x", [[0.0], [10.0], [0.0]], degrees=True))
    got = method_paths.slerp_keyed_timing([0.0, 4.0], keys,
                                          played.as_quat()[:, [3, 0, 1, 2]],
                                          [0.0, 1.0, 4.0])
    angles = Rotation.from_quat(got[:, [1, 2, 3, 0]]).as_euler("xyz", degrees=True)
    assert angles[:, 2] == pytest.approx([0.0, 30.0, 90.0], abs=1e-9)
    assert angles[:, :2] == pytest.approx(np.zeros((3, 2)), abs=1e-9)
