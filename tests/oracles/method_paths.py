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


def slerp_keyed_timing(key_frames, key_quats, played, times) -> np.ndarray:
    """(n, 4): slerp between the keys travelled with Blender's own ease (Timing: Keyed),
    at ``times`` within the keys, where Blender plays the unit quaternions ``played``
    (n, 4): each time's fraction of its interval is how far Blender's orientation has
    twisted about the short arc's axis from the interval's first key (the angle of the
    nearest point on that great circle, 2 atan2(v . axis, w)), over the arc's angle; then
    scipy's Slerp of the two keys at that fraction. For keys whose arcs are under 180 deg
    and playback that does not turn past them (no whole turns kept)."""
    from scipy.spatial.transform import Rotation, Slerp

    frames = np.asarray(key_frames, dtype=np.float64)
    times = np.asarray(times, dtype=np.float64)
    q = _continuous(key_quats)
    keys = Rotation.from_quat(q[:, [1, 2, 3, 0]])
    now = Rotation.from_quat(np.asarray(played, dtype=np.float64)[:, [1, 2, 3, 0]])
    i = np.clip(np.searchsorted(frames, times, side="right") - 1, 0, len(frames) - 2)
    short = (keys[i].inv() * keys[i + 1]).as_rotvec()
    arc = np.linalg.norm(short, axis=1)
    turning = arc > 1e-9                             # else still: no arc to travel
    axis = short / np.where(turning, arc, 1.0)[:, None]
    rel = (keys[i].inv() * now).as_quat()            # x, y, z, w
    rel *= np.where(rel[:, 3] < 0.0, -1.0, 1.0)[:, None]
    twist = 2.0 * np.arctan2(np.sum(rel[:, :3] * axis, axis=1), rel[:, 3])
    share = np.clip(np.where(turning, twist / np.where(turning, arc, 1.0), 0.0), 0.0, 1.0)
    out = np.empty((times.size, 4))
    for j in np.unique(i):
        mine = i == j
        out[mine] = Slerp([0.0, 1.0], keys[[j, j + 1]])(share[mine]).as_quat()[:, [3, 0, 1, 2]]
    return out
