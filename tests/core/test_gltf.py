"""core.gltf_read / gltf_sampler / gltf_pose / gltf_axes against the glTF 2.0 spec.

Expected values come from the spec's formulas written out here, from scipy
(Slerp, CubicHermiteSpline, Rotation) and from the files' own accessor data;
never from the code under test.
"""

import base64
import json
import pathlib
import struct

import numpy as np
import pytest
from scipy.interpolate import CubicHermiteSpline
from scipy.spatial.transform import Rotation, Slerp

from quatbake.core import gltf_axes, gltf_pose, gltf_read, gltf_sampler

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "realdata" / "gltf"

# float64 evaluation of float64 (or float32-exact) inputs: rounding only.
F64 = 1e-12


def _angle(a, b):
    """Geodesic angle (radians) between quaternions in any consistent order (sign-agnostic)."""
    a = np.asarray(a, float) / np.linalg.norm(a, axis=-1, keepdims=True)
    b = np.asarray(b, float) / np.linalg.norm(b, axis=-1, keepdims=True)
    d = np.abs(np.sum(a * b, axis=-1))
    return 2.0 * np.arccos(np.clip(d, 0.0, 1.0))


def _doc(accessors, views, blob: bytes, extra=None) -> dict:
    uri = "data:application/octet-stream;base64," + base64.b64encode(blob).decode()
    doc = {
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": len(blob), "uri": uri}],
        "bufferViews": views,
        "accessors": accessors,
    }
    doc.update(extra or {})
    return doc


def _write(tmp_path, doc, name="t.gltf"):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


# -------------------------------------------------------------------- accessors


def test_interleaved_float_accessor_and_sparse_substitution(tmp_path):
    rng = np.random.default_rng(1)
    vec = rng.normal(size=(5, 3)).astype(np.float32)
    pad = np.zeros((5, 1), np.float32)
    interleaved = np.hstack([vec, pad]).tobytes()  # stride 16: VEC3 + 4 spare bytes
    sparse_idx = np.array([1, 3], np.uint16).tobytes()
    sparse_val = np.array([[9, 8, 7], [6, 5, 4]], np.float32).tobytes()
    blob = interleaved + sparse_idx + sparse_val
    views = [
        {"buffer": 0, "byteOffset": 0, "byteLength": len(interleaved), "byteStride": 16},
        {"buffer": 0, "byteOffset": len(interleaved), "byteLength": 4},
        {"buffer": 0, "byteOffset": len(interleaved) + 4, "byteLength": 24},
    ]
    accessors = [
        {"bufferView": 0, "componentType": 5126, "count": 5, "type": "VEC3"},
        {
            "bufferView": 0,
            "componentType": 5126,
            "count": 5,
            "type": "VEC3",
            "sparse": {
                "count": 2,
                "indices": {"bufferView": 1, "componentType": 5123},
                "values": {"bufferView": 2},
            },
        },
        {"componentType": 5126, "count": 2, "type": "VEC2"},  # no bufferView: zeros (spec 3.6.2.3)
    ]
    doc = gltf_read.parse(_doc(accessors, views, blob), [blob])
    raw = json.loads(json.dumps(_doc(accessors, views, blob)))
    # float32 -> float64 is exact, so the stored values come back bit for bit.
    np.testing.assert_array_equal(gltf_read.read_accessor(raw, [blob], 0), vec.astype(np.float64))
    expected = vec.astype(np.float64)
    expected[[1, 3]] = [[9, 8, 7], [6, 5, 4]]
    np.testing.assert_array_equal(gltf_read.read_accessor(raw, [blob], 1), expected)
    np.testing.assert_array_equal(gltf_read.read_accessor(raw, [blob], 2), np.zeros((2, 2)))
    assert doc.accessor_bytes[0] == 5 * 3 * 4


@pytest.mark.parametrize(
    "ctype,dtype,values",
    [
        (5120, np.int8, [-128, -127, 0, 64, 127]),
        (5121, np.uint8, [0, 51, 128, 255]),
        (5122, np.int16, [-32768, -32767, 0, 1000, 32767]),
        (5123, np.uint16, [0, 1, 30000, 65535]),
    ],
)
def test_normalized_integers_follow_the_spec_formulas(ctype, dtype, values):
    raw = np.array(values, dtype).tobytes()
    raw += b"\0" * (-len(raw) % 4)
    doc = _doc(
        [
            {
                "bufferView": 0,
                "componentType": ctype,
                "count": len(values),
                "type": "SCALAR",
                "normalized": True,
            }
        ],
        [{"buffer": 0, "byteLength": len(raw)}],
        raw,
    )
    got = gltf_read.read_accessor(doc, [raw], 0)[:, 0]
    c = np.array(values, float)
    bits = np.dtype(dtype).itemsize * 8
    # glTF 2.0 spec 3.11 table: signed f = max(c / (2^(b-1) - 1), -1); unsigned f = c / (2^b - 1).
    if np.dtype(dtype).kind == "i":
        expected = np.maximum(c / (2 ** (bits - 1) - 1), -1.0)
    else:
        expected = c / (2**bits - 1)
    np.testing.assert_allclose(got, expected, rtol=0, atol=F64)


def _animated_gltf(times, values, interpolation, path="rotation"):
    t = np.asarray(times, np.float32).tobytes()
    v = np.asarray(values, np.float32).tobytes()
    blob = t + v
    width = {"rotation": "VEC4", "translation": "VEC3", "scale": "VEC3"}[path]
    doc = _doc(
        [
            {"bufferView": 0, "componentType": 5126, "count": len(times), "type": "SCALAR"},
            {"bufferView": 1, "componentType": 5126, "count": len(values), "type": width},
        ],
        [
            {"buffer": 0, "byteLength": len(t)},
            {"buffer": 0, "byteOffset": len(t), "byteLength": len(v)},
        ],
        blob,
        {
            "nodes": [{"name": "N"}],
            "scenes": [{"nodes": [0]}],
            "scene": 0,
            "animations": [
                {
                    "name": "A",
                    "samplers": [{"input": 0, "output": 1, "interpolation": interpolation}],
                    "channels": [{"sampler": 0, "target": {"node": 0, "path": path}}],
                }
            ],
        },
    )
    return doc, blob


def test_glb_container_reads_like_the_gltf(tmp_path):
    doc, blob = _animated_gltf([0.0, 1.0], [[0, 0, 0, 1], [0, 0, 1, 0]], "LINEAR")
    doc["buffers"] = [{"byteLength": len(blob)}]
    js = json.dumps(doc).encode()
    js += b" " * (-len(js) % 4)
    body = blob + b"\0" * (-len(blob) % 4)
    glb = (
        struct.pack("<4sII", b"glTF", 2, 12 + 8 + len(js) + 8 + len(body))
        + struct.pack("<II", len(js), 0x4E4F534A)
        + js
        + struct.pack("<II", len(body), 0x004E4942)
        + body
    )
    path = tmp_path / "t.glb"
    path.write_bytes(glb)
    loaded = gltf_read.load(path)
    ch = loaded.animations[0].channels[0]
    np.testing.assert_array_equal(ch.sampler.output, [[0, 0, 0, 1], [0, 0, 1, 0]])
    assert (ch.node, ch.path, ch.sampler.interpolation) == (0, "rotation", "LINEAR")


def test_bad_files_raise_sentences(tmp_path):
    doc, blob = _animated_gltf([0.0, 1.0], [[0, 0, 0, 1], [0, 0, 1, 0]], "LINEAR")
    short = blob[:-8]
    with pytest.raises(ValueError, match="accessor 1"):
        gltf_read.parse(doc, [short + b"\0" * 0])
    doc["accessors"][0]["componentType"] = 5130
    with pytest.raises(ValueError, match="accessor 0 has componentType 5130"):
        gltf_read.parse(doc, [blob])
    doc, blob = _animated_gltf([0.0, 1.0], [[0, 0, 0, 1], [0, 0, 1, 0]], "SMOOTH")
    with pytest.raises(ValueError, match="interpolation 'SMOOTH'"):
        gltf_read.parse(doc, [blob])
    (tmp_path / "x.gltf").write_text("{not json")
    with pytest.raises(ValueError, match="not glTF JSON"):
        gltf_read.load(tmp_path / "x.gltf")
    doc, _ = _animated_gltf([0.0, 1.0], [[0, 0, 0, 1], [0, 0, 1, 0]], "LINEAR")
    doc["buffers"] = [{"byteLength": 40, "uri": "missing.bin"}]
    with pytest.raises(ValueError, match=r"buffer 0 \(missing.bin\) cannot be read"):
        gltf_read.load(_write(tmp_path, doc))


# -------------------------------------------------------------------- samplers


def _random_quats(rng, n):
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return q * rng.choice([-1.0, 1.0], size=(n, 1))  # random signs: the player must not care


def test_linear_rotation_is_short_arc_slerp_like_scipy():
    rng = np.random.default_rng(7)
    times = np.cumsum(rng.uniform(0.1, 1.0, 12))
    keys = _random_quats(rng, 12)  # x, y, z, w (glTF order = scipy's)
    samples = np.linspace(times[0], times[-1], 500)
    got = gltf_sampler.evaluate(times, keys, "LINEAR", samples, rotation=True)
    want = Slerp(times, Rotation.from_quat(keys))(samples).as_quat()
    # scipy's Slerp works on rotations (short arc, sign-free): both are float64.
    assert np.max(_angle(got, want)) < 1e-7
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=F64)


def test_linear_rotation_across_a_flipped_key_takes_the_short_arc():
    half = np.radians(20.0) / 2
    q0 = [0.0, 0.0, 0.0, 1.0]
    q1 = [0.0, 0.0, -np.sin(half), -np.cos(half)]  # 20 deg about z, sign flipped
    mid = gltf_sampler.evaluate([0.0, 1.0], [q0, q1], "LINEAR", [0.5], rotation=True)
    # Spec: s = sign(dot) makes the player turn 10 deg by t = 0.5, not 170.
    assert abs(np.degrees(_angle(mid[0], q0)) - 10.0) < 1e-9


def test_linear_translation_and_step_and_clamping():
    times = np.array([0.0, 0.5, 2.0, 3.0])
    pts = np.array([[0, 0, 0], [1, 2, 3], [-1, 0, 5], [4, 4, 4]], float)
    samples = np.array([-1.0, 0.0, 0.25, 0.5, 1.0, 2.9, 3.0, 10.0])
    lin = gltf_sampler.evaluate(times, pts, "LINEAR", samples)
    for c in range(3):
        np.testing.assert_allclose(lin[:, c], np.interp(samples, times, pts[:, c]), atol=F64)
    step = gltf_sampler.evaluate(times, pts, "STEP", samples)
    # STEP: the key at or before t; clamped outside the keys.
    index = np.clip(np.searchsorted(times, samples, side="right") - 1, 0, 3)
    np.testing.assert_array_equal(step, pts[index])


def test_step_holds_each_key_from_its_frame_though_its_time_is_float32():
    """A walk: a camera keyed CONSTANT on frames 1, 13, 25, 37, 49 at 24 fps read 20.6 deg
    off at frames 13 and 49, whose key times float32 rounds up (by 2e-8 and 8e-8 s): the
    frame's own time in float64 held the key before. The keys' own values are the oracle."""
    frames = np.array([1.0, 13.0, 25.0, 37.0, 49.0])
    times = (frames / 24.0).astype(np.float32).astype(np.float64)
    assert (times > frames / 24.0).any()          # the premise: some round up
    pts = np.arange(15, dtype=float).reshape(5, 3)
    step = gltf_sampler.evaluate(times, pts, "STEP", frames / 24.0)
    np.testing.assert_array_equal(step, pts)
    # Half a frame before a key still holds the one before it.
    np.testing.assert_array_equal(
        gltf_sampler.evaluate(times, pts, "STEP", (frames[1:] - 0.5) / 24.0), pts[:-1])


def _hermite(v0, b0, v1, a1, td, s):
    """glTF 2.0 spec Appendix C, written out: tangents scaled by the interval td."""
    s2, s3 = s * s, s * s * s
    return (
        (2 * s3 - 3 * s2 + 1) * v0
        + td * (s3 - 2 * s2 + s) * b0
        + (-2 * s3 + 3 * s2) * v1
        + td * (s3 - s2) * a1
    )


def test_cubicspline_translation_matches_scipy_hermite():
    rng = np.random.default_rng(3)
    times = np.cumsum(rng.uniform(0.2, 1.5, 6))
    pts = rng.normal(size=(6, 3))
    slopes = rng.normal(size=(6, 3))
    values = np.empty((18, 3))
    values[0::3], values[1::3], values[2::3] = slopes, pts, slopes  # in = out tangent: C1
    samples = np.linspace(times[0], times[-1], 301)
    got = gltf_sampler.evaluate(times, values, "CUBICSPLINE", samples)
    want = CubicHermiteSpline(times, pts, slopes)(samples)
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_cubicspline_rotation_uses_both_tangents_and_normalises():
    rng = np.random.default_rng(5)
    times = np.array([0.0, 0.4, 1.3])
    pts = _random_quats(rng, 3)
    pts[1:] *= np.sign(np.sum(pts[1:] * pts[:-1], axis=1))[:, None]
    a, b = 0.3 * rng.normal(size=(3, 4)), 0.3 * rng.normal(size=(3, 4))
    values = np.empty((9, 4))
    values[0::3], values[1::3], values[2::3] = a, pts, b
    t = 0.7
    got = gltf_sampler.evaluate(times, values, "CUBICSPLINE", [t], rotation=True)[0]
    td, s = times[2] - times[1], (t - times[1]) / (times[2] - times[1])
    want = _hermite(pts[1], b[1], pts[2], a[2], td, s)
    np.testing.assert_allclose(got, want / np.linalg.norm(want), atol=1e-12)


def test_sampler_refuses_bad_keys():
    with pytest.raises(ValueError, match="increase strictly"):
        gltf_sampler.evaluate([0.0, 0.0], [[0, 0, 0, 1]] * 2, "LINEAR", [0.0], rotation=True)
    with pytest.raises(ValueError, match="needs 6 output values"):
        gltf_sampler.evaluate([0.0, 1.0], [[0, 0, 0, 1]] * 2, "CUBICSPLINE", [0.0], rotation=True)
    with pytest.raises(ValueError, match="zero"):
        gltf_sampler.evaluate(
            [0.0, 1.0], [[0, 0, 0, 0], [0, 0, 0, 1]], "LINEAR", [0.5], rotation=True
        )


# -------------------------------------------------------------------- real files


def test_real_step_file_holds_each_key():
    doc = gltf_read.load(DATA / "AnimatedTriangle_STEP.gltf")
    ch = doc.animations[0].channels[0]
    times, keys = ch.sampler.input, ch.sampler.output
    mids = (times[:-1] + times[1:]) / 2
    got = gltf_pose.local_trs(doc, ch.node, mids, gltf_pose.channel_map(doc))[1]
    # Each key is stored unit to float32 (0.707 ~ 1/sqrt 2 to 1e-4): compare as rotations.
    assert np.max(_angle(gltf_pose.xyzw_to_wxyz(keys[:-1]), got)) < 1e-6


def test_real_180_degree_box_turn_plays_half_way_at_the_middle():
    doc = gltf_read.load(DATA / "BoxAnimated.gltf")
    ch = next(c for a in doc.animations for c in a.channels if c.path == "rotation")
    k0, k1 = ch.sampler.output
    mid = gltf_sampler.evaluate_sampler(ch.sampler, [ch.sampler.input.mean()], "rotation")[0]
    # The keys are 180 deg apart (dot -4.5e-11): the middle is 90 deg from both ends.
    assert abs(np.degrees(_angle(mid, k0)) - 90.0) < 1e-6
    assert abs(np.degrees(_angle(mid, k1)) - 90.0) < 1e-6


def test_real_cubicspline_rotation_file():
    doc = gltf_read.load(DATA / "01_cs_rotate.gltf")
    ch = doc.animations[0].channels[0]
    times, out = ch.sampler.input, ch.sampler.output
    a, v, b = out[0::3], out[1::3], out[2::3]
    at_keys = gltf_sampler.evaluate_sampler(ch.sampler, times, "rotation")
    assert np.max(_angle(at_keys, v)) < 1e-7  # the file's own key values
    samples = np.linspace(times[0], times[-1], 41)
    got = gltf_sampler.evaluate_sampler(ch.sampler, samples, "rotation")
    k = np.clip(np.searchsorted(times, samples, side="right") - 1, 0, len(times) - 2)
    td = times[k + 1] - times[k]
    s = ((samples - times[k]) / td)[:, None]
    want = _hermite(v[k], b[k], v[k + 1], a[k + 1], td[:, None], s)
    want /= np.linalg.norm(want, axis=1, keepdims=True)
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_real_file_with_three_animations_and_a_parent():
    doc = gltf_read.load(DATA / "03_all_animations.gltf")
    assert [a.name for a in doc.animations] == ["SphereAction", "ConeAction", "CubeAction"]
    channels = gltf_pose.channel_map(doc)
    rot = channels[(1, "rotation")]
    samples = np.linspace(0.0, 2.0, 33)
    got = gltf_pose.local_trs(doc, 1, samples, channels)[1]
    want = Slerp(rot.sampler.input, Rotation.from_quat(rot.sampler.output))(samples).as_quat()
    assert np.max(_angle(gltf_pose.xyzw_to_wxyz(want), got)) < 1e-7
    # World = parent's local @ child's local (spec 3.5.3), with scipy's matrices.
    parents = doc.parents()
    child = next(i for i, p in enumerate(parents) if p >= 0)
    worlds = gltf_pose.world_matrices(doc, [child], samples, channels)[child]
    expect = _trs_matrix(doc, parents[child], samples, channels) @ _trs_matrix(
        doc, child, samples, channels
    )
    np.testing.assert_allclose(worlds, expect, atol=1e-12)


def _trs_matrix(doc, node, samples, channels):
    n = doc.nodes[node]
    if n.matrix is not None and not any(
        (node, p) in channels for p in ("translation", "rotation", "scale")
    ):
        return np.broadcast_to(n.matrix, (len(samples), 4, 4))
    out = np.zeros((len(samples), 4, 4))
    values = {}
    for path, static in (
        ("translation", n.translation),
        ("rotation", n.rotation),
        ("scale", n.scale),
    ):
        ch = channels.get((node, path))
        values[path] = (
            np.tile(static, (len(samples), 1))
            if ch is None
            else gltf_sampler.evaluate_sampler(ch.sampler, samples, path)
        )
    out[:, :3, :3] = (
        Rotation.from_quat(values["rotation"]).as_matrix() * values["scale"][:, None, :]
    )
    out[:, :3, 3] = values["translation"]
    out[:, 3, 3] = 1.0
    return out


# -------------------------------------------------------------------- Blender's axes


def test_yup_and_camera_correction_round_trip_the_exporters_formulas():
    rng = np.random.default_rng(11)
    q_b = _random_quats(rng, 20)[:, [3, 0, 1, 2]]  # Blender (w, x, y, z)
    loc_b = rng.normal(size=(20, 3))
    m_b = np.zeros((20, 4, 4))
    m_b[:, :3, :3] = Rotation.from_quat(q_b[:, [1, 2, 3, 0]]).as_matrix()
    m_b[:, :3, 3] = loc_b
    m_b[:, 3, 3] = 1.0
    for corrected in (False, True):
        q = q_b.copy()
        if corrected:
            # io_scene_gltf2: matrix @ Quaternion((sqrt(1/2), -sqrt(1/2), 0, 0)) for cameras/lights.
            r = Rotation.from_quat(q[:, [1, 2, 3, 0]]) * Rotation.from_quat(
                [-np.sqrt(0.5), 0, 0, np.sqrt(0.5)]
            )
            q = r.as_quat()[:, [3, 0, 1, 2]]
        # io_scene_gltf2 swizzle_yup_rotation (w, x, z, -y) and swizzle_yup_location (x, z, -y).
        q_g = np.stack([q[:, 0], q[:, 1], q[:, 3], -q[:, 2]], axis=1)
        loc_g = np.stack([loc_b[:, 0], loc_b[:, 2], -loc_b[:, 1]], axis=1)
        m_g = np.zeros((20, 4, 4))
        m_g[:, :3, :3] = Rotation.from_quat(q_g[:, [1, 2, 3, 0]]).as_matrix()
        m_g[:, :3, 3] = loc_g
        m_g[:, 3, 3] = 1.0
        back = gltf_axes.blender_world_from_gltf(m_g, yup=True, corrected=corrected)
        np.testing.assert_allclose(back, m_b, atol=1e-12)


def test_rotation_and_location_of_scaled_and_mirrored_matrices():
    r = Rotation.from_euler("xyz", [0.3, -0.7, 2.0])
    m = np.eye(4)[None].repeat(2, axis=0)
    m[0, :3, :3] = r.as_matrix() * [2.0, 3.0, 0.5]
    m[1, :3, :3] = -r.as_matrix()  # a mirror: same rotation reported
    m[:, :3, 3] = [1.0, 2.0, 3.0]
    q, loc = gltf_pose.rotation_and_location(m)
    want = r.as_quat()[[3, 0, 1, 2]]
    assert np.max(_angle(q, np.tile(want, (2, 1)))) < 1e-7
    np.testing.assert_allclose(loc, [[1, 2, 3]] * 2, atol=0)


def test_animation_pointer_channels_to_node_transforms_are_read():
    doc, blob = _animated_gltf([0.0, 1.0], [[0, 0, 0, 1], [0, 0, 1, 0]], "LINEAR")
    anim = doc["animations"][0]
    anim["channels"] = [
        {"sampler": 0, "target": {"path": "pointer", "extensions": {
            "KHR_animation_pointer": {"pointer": "/nodes/0/rotation"}}}},
        {"sampler": 0, "target": {"path": "pointer", "extensions": {
            "KHR_animation_pointer": {"pointer": "/materials/0/pbrMetallicRoughness/baseColorFactor"}}}},
    ]
    (ch,) = gltf_read.parse(doc, [blob]).animations[0].channels
    assert (ch.node, ch.path) == (0, "rotation")
