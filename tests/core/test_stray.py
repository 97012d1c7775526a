"""core.stray's bound of how far channels interpolated one by one stray from slerp:
never below what they do, on random intervals (the chord part; the handles' part is
the convex hull's, checked against Blender in tests/blender/test_between_bound.py)."""
import numpy as np

from quatbake.core import interp, quat, rotation, stray

T = np.linspace(0.0, 1.0, 257)


def _worst(q0, q1, path):
    along = interp.slerp(np.repeat(q0[None], T.size, 0), np.repeat(q1[None], T.size, 0), T)
    return quat.angle_between(along, path).max()


def test_linear_euler_channels_stray_no_further_than_the_bound():
    rng = np.random.default_rng(3)
    checked = 0
    for scale in (0.01, 0.05, 0.2, 0.5):
        for order in ("XYZ", "ZYX", "YXZ"):
            for _ in range(60):
                e0 = rng.uniform(-np.pi, np.pi, 3)
                e1 = e0 + rng.normal(0.0, scale, 3)
                bound = stray.euler_bound(np.stack([e0, e1]), np.zeros((1, 3)))[0]
                path = rotation.euler_to_quat(e0 + T[:, None] * (e1 - e0), order)
                q0, q1 = path[0], path[-1]
                if np.isfinite(bound):
                    checked += 1
                    assert _worst(q0, q1, path) <= bound, (e0, e1, order)
    assert checked > 500


def test_linear_quaternion_channels_stray_no_further_than_the_bound():
    rng = np.random.default_rng(4)
    for scale in (0.01, 0.1, 0.5, 1.0):
        for _ in range(200):
            a = rng.normal(size=4)
            a /= np.linalg.norm(a)
            b = a + rng.normal(0.0, scale, 4)
            a, b = a * rng.uniform(0.7, 1.3), b * rng.uniform(0.7, 1.3)   # any length
            bound = stray.quaternion_bound(np.stack([a, b]), np.zeros((1, 4)))[0]
            if a @ b <= 0.0:
                assert bound == np.inf
                continue
            chord = a[None] + T[:, None] * (b - a)[None]
            path = chord / np.linalg.norm(chord, axis=1, keepdims=True)
            assert _worst(path[0], path[-1], path) <= bound + 1e-12, (a, b)


def test_handles_off_the_chord_add_their_reach():
    e = np.array([[0.1, 0.2, 0.3], [0.1, 0.2, 0.3]])
    assert stray.euler_bound(e, np.array([[0.0, 0.0, 0.0]]))[0] == 0.0
    assert stray.euler_bound(e, np.array([[0.01, 0.0, 0.02]]))[0] == 0.03
    assert stray.euler_bound(e, np.array([[np.inf, 0.0, 0.0]]))[0] == np.inf


def test_the_nlerp_table_is_made_for_the_first_quaternion_bound_only():
    """Half a million arctangents (50 ms of a command line's start): an Euler capture's
    report never makes them, a quaternion bound makes them once."""
    stray._nlerp_table.cache_clear()
    stray.euler_bound(np.zeros((3, 3)), np.zeros((2, 3)))
    assert stray._nlerp_table.cache_info().currsize == 0
    keys = np.array([[1.0, 0.0, 0.0, 0.0], [0.9, 0.1, 0.0, 0.0], [0.8, 0.2, 0.0, 0.0]])
    first = stray.quaternion_bound(keys, np.zeros((2, 4)))
    assert stray._nlerp_table.cache_info().currsize == 1
    assert np.array_equal(stray.quaternion_bound(keys, np.zeros((2, 4))), first)
    assert (first > 0.0).all() and np.isfinite(first).all()
