"""Hostile fuzzing of the glTF reader, the spec sampler and the key reducer (issue 15).

Same contract as tests/core/test_fuzz_core.py: a ValueError whose message is
a sentence, or a finite result (unit where it is a rotation), and no numpy
RuntimeWarning. Example counts come from the hypothesis profile
(tests/conftest.py; QUATBAKE_SLOW=1 for 10,000).
"""
import json

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quatbake.core import gltf_read, gltf_sampler, keyreduce

from test_fuzz_core import assert_finite, assert_unit, outcome

FUZZ = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

FLOATS = st.one_of(
    st.floats(-1e6, 1e6, allow_nan=False),
    st.sampled_from([0.0, 1e-300, 1e300, -1e300, np.nan, np.inf, -np.inf, 1e-12]),
)


@FUZZ
@given(
    times=st.lists(FLOATS, min_size=0, max_size=8),
    values=st.lists(st.lists(FLOATS, min_size=4, max_size=4), min_size=0, max_size=24),
    interpolation=st.sampled_from(["LINEAR", "STEP", "CUBICSPLINE", "SMOOTH"]),
    samples=st.lists(FLOATS, min_size=1, max_size=6),
    rotation=st.booleans(),
)
def test_sampler_contract(times, values, interpolation, samples, rotation):
    v = np.array(values, dtype=np.float64).reshape(-1, 4)
    out = outcome(gltf_sampler.evaluate, np.array(times, dtype=np.float64), v, interpolation,
                  np.array(samples, dtype=np.float64), rotation=rotation)
    if out is not None:
        (assert_unit if rotation else assert_finite)(out, f"evaluate {interpolation}")
        assert out.shape == (len(samples), 4)


@FUZZ
@given(data=st.binary(max_size=400), glb=st.booleans())
def test_reader_contract_on_random_bytes(tmp_path_factory, data, glb):
    path = tmp_path_factory.mktemp("fuzz") / ("x.glb" if glb else "x.gltf")
    path.write_bytes((b"glTF\x02\x00\x00\x00" + data) if glb else data)
    outcome(gltf_read.load, path)


@FUZZ
@given(
    count=st.integers(-2, 6),
    component=st.sampled_from([5120, 5121, 5122, 5123, 5125, 5126, 5124]),
    kind=st.sampled_from(["SCALAR", "VEC3", "VEC4", "MAT2", "MAT4", "VEC5"]),
    offset=st.integers(-8, 64),
    stride=st.sampled_from([0, 1, 4, 16, 32]),
    blob=st.binary(min_size=0, max_size=96),
)
def test_accessor_contract_on_hostile_json(count, component, kind, offset, stride, blob):
    doc = {"bufferViews": [{"buffer": 0, "byteLength": len(blob), "byteStride": stride}],
           "accessors": [{"bufferView": 0, "componentType": component, "count": count,
                          "type": kind, "byteOffset": offset}]}
    out = outcome(gltf_read.read_accessor, json.loads(json.dumps(doc)), [blob], 0)
    if out is not None and component == 5126:
        assert out.ndim == 2          # float32 bytes may be NaN: they are the file's own values


@FUZZ
@given(
    n=st.integers(0, 30),
    seed=st.integers(0, 2**31),
    tol=st.sampled_from([1e-9, 1e-3, 0.01, 1.0, 179.0, 0.0, -1.0, np.nan, np.inf]),
    mode=st.sampled_from(["QUATERNION", "XYZ", "ZYX", "AXIS_ANGLE"]),
    spin=st.floats(0.0, 400.0),
)
def test_keyreduce_contract(n, seed, tol, mode, spin):
    rng = np.random.default_rng(seed)
    frames = np.cumsum(rng.uniform(0.5, 3.0, n))
    angles = np.radians(np.column_stack([rng.normal(0, 20, n), rng.normal(0, 20, n),
                                         np.linspace(0.0, spin, n)]))
    from quatbake.core import rotation

    q = rotation.euler_to_quat(angles, "XYZ") if n else np.zeros((0, 4))
    values = rotation.quat_to_mode_values_continuous(q, mode) if n else np.zeros((0, 4))
    keep = outcome(keyreduce.select_keys, frames, q, values, mode, tol)
    if keep is not None:
        assert keep.dtype.kind == "i" and np.all(np.diff(keep) > 0)
        if n:
            assert keep[0] == 0 and keep[-1] == n - 1
