"""An independent glTF 2.0 evaluation of Blender's own export, for tests (issue 15).

Reads the exported .gltf/.bin with plain numpy, evaluates rotation samplers
with the spec's slerp pseudocode and Hermite formula (written out here, numpy
only: Blender 3.4.1's Python has no scipy), undoes the exporter's Y-up swizzle
and camera turn by hand, and compares with ``frame_set`` + ``matrix_world``.
Shares no code with quatbake.core.gltf_*.
"""

import json
import os

import bpy
import numpy as np

from scenes import select_only


def _accessor(doc, blob, index):
    acc = doc["accessors"][index]
    view = doc["bufferViews"][acc["bufferView"]]
    width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[acc["type"]]
    # Blender's exporter writes tightly packed float32 for animation data.
    assert acc["componentType"] == 5126 and "byteStride" not in view and "sparse" not in acc
    start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    return (
        np.frombuffer(blob, "<f4", acc["count"] * width, start)
        .reshape(acc["count"], width)
        .astype(float)
    )


def _hermite(v0, b0, v1, a1, td, s):
    """glTF 2.0 Appendix C cubic spline, tangents scaled by the interval td."""
    s2, s3 = s * s, s * s * s
    return (
        (2 * s3 - 3 * s2 + 1) * v0
        + td * (s3 - 2 * s2 + s) * b0
        + (-2 * s3 + 3 * s2) * v1
        + td * (s3 - s2) * a1
    )


def _spec_slerp(qa, qb, t):
    """glTF 2.0 Appendix C slerp: s = sign(dot) takes the short arc."""
    d = np.sum(qa * qb, axis=1)
    qb = np.where(d[:, None] < 0, -qb, qb)
    d = np.abs(d)
    a = np.arccos(np.clip(d, -1.0, 1.0))
    sa = np.sin(a)
    near = sa < 1e-9  # the same key twice: no arc to divide by
    sa = np.where(near, 1.0, sa)
    wa = np.where(near, 1.0 - t, np.sin((1.0 - t) * a) / sa)
    wb = np.where(near, t, np.sin(t * a) / sa)
    out = wa[:, None] * qa + wb[:, None] * qb
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def _hamilton(p, q):
    """Quaternion product p * q, both (n, 4) as (w, x, y, z)."""
    pw, px, py, pz = p.T
    qw, qx, qy, qz = q.T
    return np.stack(
        [
            pw * qw - px * qx - py * qy - pz * qz,
            pw * qx + px * qw + py * qz - pz * qy,
            pw * qy - px * qz + py * qw + pz * qx,
            pw * qz + px * qy - py * qx + pz * qw,
        ],
        axis=1,
    )


def angle_deg(a, b):
    """Geodesic angle (degrees) between (n, 4) w-first quaternions of any sign.

    2 atan2(|v|, |w|) of conj(a) * b: exact near 0, where arccos of a float32
    dot product (~1 - 6e-8) would be off by ~0.04 deg.
    """
    conj = a * np.array([1.0, -1.0, -1.0, -1.0])
    r = _hamilton(conj, b)
    return np.degrees(2.0 * np.arctan2(np.linalg.norm(r[:, 1:], axis=1), np.abs(r[:, 0])))


def _evaluate(times, values, interpolation, t, path):
    t = np.clip(t, times[0], times[-1])
    if interpolation == "CUBICSPLINE":
        a, v, b = values[0::3], values[1::3], values[2::3]
    else:
        v = values
    if len(times) == 1:
        return np.repeat(v[:1], len(t), axis=0)
    k = np.clip(np.searchsorted(times, t, side="right") - 1, 0, len(times) - 2)
    if interpolation == "STEP":
        return v[np.where(t >= times[-1], len(times) - 1, k)]
    if interpolation == "LINEAR":
        if path == "rotation":
            return _spec_slerp(v[k], v[k + 1], (t - times[k]) / (times[k + 1] - times[k]))
        return np.stack([np.interp(t, times, v[:, c]) for c in range(v.shape[1])], axis=1)
    td = (times[k + 1] - times[k])[:, None]
    out = _hermite(v[k], b[k], v[k + 1], a[k + 1], td, ((t - times[k]) / td[:, 0])[:, None])
    return out / np.linalg.norm(out, axis=1, keepdims=True) if path == "rotation" else out


def _load(gltf_path):
    with open(gltf_path, encoding="utf-8") as fh:
        doc = json.load(fh)
    with open(os.path.join(os.path.dirname(gltf_path), doc["buffers"][0]["uri"]), "rb") as fh:
        return doc, fh.read()


def _node_rotation(doc, blob, index, times):
    """(n, 4) x, y, z, w: a node's rotation at ``times`` (seconds), its rotation channel
    evaluated by the spec where an animation has one, else the node's own."""
    node = doc["nodes"][index]
    q = np.tile(node.get("rotation", [0, 0, 0, 1]), (len(times), 1)).astype(float)
    for anim in doc.get("animations", []):
        for ch in anim["channels"]:
            if ch["target"].get("node") == index and ch["target"]["path"] == "rotation":
                s = anim["samplers"][ch["sampler"]]
                q = _evaluate(_accessor(doc, blob, s["input"])[:, 0],
                              _accessor(doc, blob, s["output"]), s["interpolation"], times,
                              "rotation")
    return q


def reference_bone_deviation(gltf_path, rig, bones, frames, fps=24.0):
    """bone name -> per-frame angle (deg) between Blender's world orientation of the pose
    bone and the player's (``reference_bone_quats``)."""
    found = reference_bone_quats(gltf_path, rig, bones, frames, fps)
    return {b: angle_deg(player, blender) for b, (blender, player) in found.items()}


def reference_bone_quats(gltf_path, rig, bones, frames, fps=24.0):
    """bone name -> (Blender's world orientations, the player's), (n, 4) w-first each.

    Blender's: ``frame_set`` (subframes too), then the rotation of ``rig.matrix_world @
    pose_bone.matrix`` (mathutils). The player's: the spec's evaluation of the rotation of
    the bone's joint node (the skins' joint named after the bone below the armature's
    node) and of every node above it, composed (Hamilton products, root first; the test
    rigs have no scale), the Y-up swizzle undone, and the exporter's turn of a bone's
    joint undone as for a camera (right-multiplied by (sqrt(.5), sqrt(.5), 0, 0))."""
    doc, blob = _load(gltf_path)
    nodes = doc["nodes"]
    parent = {c: i for i, n in enumerate(nodes) for c in n.get("children", [])}
    scene = bpy.context.scene
    blender = {b: [] for b in bones}
    for f in frames:
        whole = int(np.floor(f))
        scene.frame_set(whole, subframe=float(f - whole))
        for b in bones:
            q = (rig.matrix_world @ rig.pose.bones[b].matrix).to_quaternion()
            blender[b].append([q.w, q.x, q.y, q.z])
    times = np.asarray(frames, dtype=float) / fps
    joints = {j for skin in doc.get("skins", []) for j in skin["joints"]}
    armature = next(i for i, n in enumerate(nodes) if n.get("name") == rig.name
                    and i not in joints)
    out = {}
    for b in bones:
        # The joint: a node the skins list, named after the bone, below the armature's
        # node (an object may bear the bone's name too).
        index = next(i for i in sorted(joints) if nodes[i].get("name") == b
                     and _descends(parent, i, armature))
        chain = [index]
        while chain[-1] in parent:
            chain.append(parent[chain[-1]])
        world = np.tile([1.0, 0.0, 0.0, 0.0], (len(times), 1))
        for i in reversed(chain):
            x, y, z, w = _node_rotation(doc, blob, i, times).T
            world = _hamilton(world, np.stack([w, x, y, z], axis=1))
        w, x, y, z = world.T
        q_b = np.stack([w, x, -z, y], axis=1)
        q_b = _hamilton(q_b, np.tile([np.sqrt(0.5), np.sqrt(0.5), 0.0, 0.0], (len(q_b), 1)))
        out[b] = (np.asarray(blender[b]), q_b)
    return out


def relative_deg(parent, child):
    """Per sample, the angle (deg) between two tracks' rotations relative to their parents:
    ``parent`` and ``child`` are (blender, player) pairs of (n, 4) w-first quaternions."""
    conj = np.array([1.0, -1.0, -1.0, -1.0])
    return angle_deg(_hamilton(parent[0] * conj, child[0]), _hamilton(parent[1] * conj, child[1]))


def _descends(parent, i, ancestor):
    while i in parent:
        i = parent[i]
        if i == ancestor:
            return True
    return False


def reference_deviation(gltf_path, objects, frames, fps=24.0, seconds=None):
    """name -> per-frame angle (deg) between Blender's playback at ``frames`` and the spec
    evaluation at ``seconds`` (default: frames / fps, when Blender plays them)."""
    with open(gltf_path, encoding="utf-8") as fh:
        doc = json.load(fh)
    with open(os.path.join(os.path.dirname(gltf_path), doc["buffers"][0]["uri"]), "rb") as fh:
        blob = fh.read()
    scene = bpy.context.scene
    blender = {o.name: [] for o in objects}
    for f in frames:
        scene.frame_set(int(f))
        for o in objects:
            q = o.matrix_world.to_quaternion()
            blender[o.name].append([q.w, q.x, q.y, q.z])
    out = {}
    for o in objects:
        index = next(i for i, n in enumerate(doc["nodes"]) if n.get("name") == o.name)
        node = doc["nodes"][index]
        times = np.asarray(frames) / fps if seconds is None else np.asarray(seconds)
        q_g = _node_rotation(doc, blob, index, times)
        # io_scene_gltf2 swizzle_yup_rotation: (w, x, y, z) -> (w, x, z, -y); undo it.
        x, y, z, w = q_g.T
        q_b = np.stack([w, x, -z, y], axis=1)
        if "camera" in node:
            # The exporter right-multiplies cameras by Quaternion((sqrt(.5), -sqrt(.5), 0, 0)):
            # multiply by its inverse (sqrt(.5), sqrt(.5), 0, 0).
            inv = np.tile([np.sqrt(0.5), np.sqrt(0.5), 0.0, 0.0], (len(q_b), 1))
            q_b = _hamilton(q_b, inv)
        out[o.name] = angle_deg(q_b, np.asarray(blender[o.name]))
    return out


def export_for_reference(tmp_path, objects, **options):
    select_only(*objects)
    path = str(tmp_path / "ref.gltf")
    bpy.ops.export_scene.gltf(
        filepath=path,
        export_format='GLTF_SEPARATE',
        use_selection=True,
        export_cameras=True,
        **options,
    )
    return path
