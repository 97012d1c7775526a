"""Shots for the batch and farm tests: small .blend files built with plain bpy in a
subprocess, the file's own playback (frame_set + matrix_world) for the oracle, and
two broken shots - a truncated copy, and one whose SDNA makes Blender crash.
"""
from __future__ import annotations

import hashlib
import json
import pathlib
import struct
import subprocess

import numpy as np
from scipy.spatial.transform import Rotation, Slerp

# Each shot: file (relative to the folder) -> objects: name -> (Euler XYZ degrees per key,
# key frames). Keys are inserted with keyframe_insert (Bezier, Blender's default), so
# Blender eases in and out and even-timed slerp runs at constant speed.
SHOTS = {
    "seq/sh010/anim.blend": {"Turn": ([(0, 0, 0), (0, 0, 170)], [1, 20])},
    "seq/sh020/anim.blend": {"Calm": ([(0, 0, 0), (0, 0, 20)], [1, 20])},
    "sh030.blend": {"Spin": ([(0, 0, 0), (40, 0, 90)], [1, 24]),
                    "Nod": ([(0, 0, 0), (-30, 0, 0)], [1, 12])},
}

_BUILD = r"""
import json, math, os, sys
import bpy

folder, shots = sys.argv[-2], json.loads(sys.argv[-1])
out = {}
for rel, objects in shots.items():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    for name, (eulers, frames) in objects.items():
        obj = bpy.data.objects.new(name, None)
        scene.collection.objects.link(obj)
        obj.rotation_mode = 'XYZ'
        for euler, frame in zip(eulers, frames):
            obj.rotation_euler = [math.radians(v) for v in euler]
            obj.keyframe_insert("rotation_euler", frame=frame)
    played = {}
    for name, (eulers, frames) in objects.items():
        obj = bpy.data.objects[name]
        mats = []
        for f in range(frames[0], frames[-1] + 1):
            scene.frame_set(f)
            mats.append([list(row) for row in obj.matrix_world.to_3x3()])
        played[name] = {"frames": list(range(frames[0], frames[-1] + 1)), "matrices": mats,
                        "keys": frames}
    path = os.path.join(folder, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # Uncompressed, so the broken copies can cut and patch its blocks.
    bpy.ops.wm.save_as_mainfile(filepath=path, compress=False)
    out[rel] = played
print("SHOTS-JSON " + json.dumps(out))
"""


def build(program: list[str], folder: pathlib.Path, shots: dict = SHOTS) -> dict:
    """Build ``shots`` in ``folder`` with ``program`` ([a Python with bpy], or a Blender
    program as [blender, -b, --factory-startup, --python]); their playback per object."""
    script = folder / "_build_shots.py"
    script.write_text(_BUILD, encoding="utf-8")
    if program[-1] == "--python":
        cmd = [*program, str(script), "--", str(folder), json.dumps(shots)]
    else:
        cmd = [*program, str(script), str(folder), json.dumps(shots)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("SHOTS-JSON ")]
    assert done.returncode == 0 and lines, done.stdout[-2000:] + done.stderr[-2000:]
    script.unlink()
    return json.loads(lines[0][len("SHOTS-JSON "):])


def truncated_copy(src: pathlib.Path, dst: pathlib.Path) -> None:
    """The first half of an uncompressed .blend: its end block (ENDB) is gone."""
    data = src.read_bytes()
    dst.write_bytes(data[: len(data) // 2])


def crashing_copy(src: pathlib.Path, dst: pathlib.Path) -> None:
    """A copy whose SDNA (the file's own struct catalogue, at its end) gives its second
    struct the type index 65535, far past the type table: Blender 5.0's reader looks
    the index up unchecked and dies on SIGSEGV (tests check that first, directly)."""
    data = bytearray(src.read_bytes())
    strc = data.rfind(b"STRC")
    assert strc > 0, "no SDNA struct table in the file"
    first = strc + 8                                 # "STRC", struct count (int32)
    _type, members = struct.unpack_from("<HH", data, first)
    struct.pack_into("<H", data, first + 4 + 4 * members, 0xFFFF)
    dst.write_bytes(bytes(data))


def opens_or_crashes(python: str, path: pathlib.Path) -> int:
    """The exit code of a bare bpy process opening ``path`` (negative: killed by a signal)."""
    code = ("import sys, bpy\n"
            "bpy.ops.wm.open_mainfile(filepath=sys.argv[1], load_ui=False, use_scripts=False)\n")
    return subprocess.run([python, "-c", code, str(path)], capture_output=True,
                          timeout=300).returncode


def worst_deviation_deg(played: dict) -> float:
    """The oracle: largest angle, over the shot's objects and whole frames, between
    Blender's playback (matrix_world) and scipy's slerp between the keyed orientations,
    evenly timed between the keys (what ``report --method slerp`` compares with)."""
    worst = 0.0
    for obj in played.values():
        frames = np.asarray(obj["frames"], dtype=np.float64)
        blender = Rotation.from_matrix(np.asarray(obj["matrices"], dtype=np.float64))
        keys = np.asarray(obj["keys"], dtype=np.float64)
        at_keys = blender[[int(k - frames[0]) for k in keys]]
        slerp = Slerp(keys, at_keys)(frames)
        worst = max(worst, float(np.degrees((blender.inv() * slerp).magnitude()).max()))
    return worst


def sha256(path: pathlib.Path) -> str:
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()
