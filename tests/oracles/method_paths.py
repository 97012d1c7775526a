"""The interpolation methods' paths through key orientations, computed independently of
QuatBake: scipy's Slerp, nlerp from its formula, numpy-quaternion's squad.

Keys are unit quaternions (w, x, y, z), Blender's order; each is taken on the hemisphere
of the one before, as every method here interpolates the short way. numpy-quaternion's
squad has QuatBake's end conventions inside the keys' range for evenly spaced keys
(tests/core/test_interp.py compares the two); outside it, it extrapolates, so only
times within the keys are asked of it. Nothing here imports bpy or quatbake.
"""
import numpy as np


def _continuous(key_quats) -> np.ndarray:
    q = np.array(key_quats, dtype=np.float64)
    for i in range(1, len(q)):
        if np.dot(q[i], q[i - 1]) < 0.0:
            q[i] = -q[i]
    return q


def path(method: str, key_frames, key_quats, times) -> np.ndarray:
    """(n, 4) unit quaternions (w, x, y, z): ``method`` ('SLERP', 'NLERP', 'SQUAD')
    through ``key_quats`` at ``key_frames`` (increasing), at ``times`` within them."""
    frames = np.asarray(key_frames, dtype=np.float64)
    times = np.asarray(times, dtype=np.float64)
    q = _continuous(key_quats)
    if method == 'SLERP':
        from scipy.spatial.transform import Rotation, Slerp

        return Slerp(frames, Rotation.from_quat(q[:, [1, 2, 3, 0]]))(times).as_quat()[
            :, [3, 0, 1, 2]]
    if method == 'SQUAD':
        import quaternion as npq

        return npq.as_float_array(npq.squad(npq.as_quat_array(q), frames, times))
    if method == 'NLERP':
        i = np.clip(np.searchsorted(frames, times, side="right") - 1, 0, len(frames) - 2)
        u = ((times - frames[i]) / (frames[i + 1] - frames[i]))[:, None]
        chord = (1.0 - u) * q[i] + u * q[i + 1]
        return chord / np.linalg.norm(chord, axis=1, keepdims=True)
    raise ValueError(f"no method {method!r}")
