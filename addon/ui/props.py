# SPDX-License-Identifier: GPL-3.0-or-later
"""Scene settings: one PointerProperty, ``scene.quatbake``."""
import bpy
from bpy.props import (
    BoolProperty,
    CollectionProperty,
    EnumProperty,
    FloatProperty,
    FloatVectorProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)

# What a bake can write, each with when to choose it, in plain words.
BAKE_METHOD_ITEMS = (
    ('NLERP', "Nlerp", "Quick, and looks like Slerp for small turns. Choose it for many "
     "objects, or keys close together"),
    ('SLERP', "Slerp", "Turns at one even speed from key to key. Choose it for camera moves "
     "and anything that must turn steadily"),
    ('SQUAD', "Squad", "Curves smoothly through the keys, with no jolt as a key passes. "
     "Choose it for organic motion with many keys"),
)
LERP_ITEM = (
    'LERP', "Lerp (comparison only)", "Each channel blended on its own and not normalised: "
    "what goes wrong without rotation interpolation. For Analyze and the overlay only; "
    "the bake refuses it",
)
# scene.quatbake.method keeps 'LERP' (CONTRACT.md: scripts may set it); the
# panel offers the bake methods only and the bake operator refuses 'LERP'.
METHOD_ITEMS = (LERP_ITEM,) + BAKE_METHOD_ITEMS
# What Analyze and the overlay compare Blender's interpolation with.
COMPARE_ITEMS = (
    ('BAKE', "Bake Method", "Compare with the method the bake uses"),
) + METHOD_ITEMS

LOCATION_ITEMS = (
    ('KEEP', "Keep", "Leave location keys as they are"),
    ('LINEAR', "Linear", "Straight lines between location keys"),
    ('CATMULL_ROM', "Catmull-Rom", "Centripetal Catmull-Rom spline through the "
     "location keys (no cusps or overshoot loops)"),
)

OUTPUT_MODE_ITEMS = (
    ('KEEP', "Object's Mode", "Write the bake in the rotation mode of the object's keys, "
     "as it was before any QuatBake bake or conversion (Euler written continuous, no 360 "
     "degree jumps)"),
    ('QUATERNION', "Quaternion", "Switch the object to Quaternion rotation and write "
     "quaternion keys"),
)


TURNS_ITEMS = (
    ('AUTO', "Auto", ("Keep the turns the keys show intent for (Euler or axis-angle values "
                      "keyed past 180 degrees: 0 -> 360 turns once) and take the short arc "
                      "where the keys are a known defect (a flipped quaternion sign, an Euler "
                      "wrap between values inside +-180)")),
    ('SHORTEST', "Shortest", ("Always the short arc between key orientations (at most 180 "
                              "degrees): fixes every flip and wrap, and drops keyed whole turns")),
    ('KEYED', "Keyed", ("Turn as far as Blender's own playback of the keys turns between them, "
                        "whole turns and the long way included")),
)

# Short names: "Bezier (editable)" was cut to "Bezier (edit..." at the sidebar's default
# width (issue 24's window walk); what each is for leads its tooltip.
KEY_INTERPOLATION_ITEMS = (
    ('BEZIER', "Bezier", "Editable: few Bezier keys with handles, on the same frames for "
     "every rotation channel and on the animator's own key frames: Blender plays them within "
     "Key Tolerance of the bake at every quarter frame, and they can still be edited"),
    ('LINEAR', "Linear", "What glTF engines play: LINEAR keys that both Blender and a glTF "
     "player's slerp play within Key Tolerance of the bake at every frame"),
)

TIMING_ITEMS = (
    ('EVEN', "Even", "Constant angular speed within each key interval"),
    ('KEYED', "Keyed", ("Travel the method's path with the ease of the keys: as far along "
                        "each interval as Blender's own playback is at that frame")),
)


# The bake settings: the bake operator's properties mirror the scene settings of the
# same name, so the redo panel edits them and operator presets store them.
SETTING_NAMES = (
    "method",
    "location_method",
    "constant_speed",
    "frame_step",
    "use_frame_range",
    "frame_start",
    "frame_end",
    "output_mode",
    "union_keys",
    "turns",
    "timing",
    "tolerance",
    "key_interpolation",
    "tolerance_px",
    "tolerance_tip",
)


def _nothing(_scene) -> None:
    """No overlay registered: nothing to draw or rebuild."""


class OverlayListener:
    """What the overlay settings' update callbacks call. The overlay is a feature, a
    layer above these settings, so it is not imported here: ``overlay.draw`` listens
    at its register() and stops at unregister()."""

    sync = staticmethod(_nothing)      # show_overlay changed: enable or disable the drawing
    changed = staticmethod(_nothing)   # another overlay setting changed: rebuild the drawing

    @classmethod
    def listen(cls, sync=_nothing, changed=_nothing) -> None:
        cls.sync, cls.changed = staticmethod(sync), staticmethod(changed)


def _custom_range_switched(settings, context) -> None:
    """Custom Range switched on: start from the keyed range of the selection, not 1-250."""
    if not settings.use_frame_range:
        return
    from ..keyed import keyed_range

    found = keyed_range(getattr(context, "selected_objects", None) or [])
    if found is not None:
        settings.frame_start, settings.frame_end = found


# Selected objects whose clips the Clip field suggests (a click must not read a huge
# selection's every action).
CLIP_SEARCH_LIMIT = 64


def _clip_suggestions(_settings, context, edit_text):
    """The Clip field's suggestions: the actions of the selected objects' NLA tracks and
    their active actions, once each, those matching what is typed. The bake an object
    plays is suggested as the clip it was made from, which a Re-bake of that clip bakes
    again (a game-rig walk: "Run.quatbake" was offered, a bake of a bake)."""
    from .. import animdata

    typed = (edit_text or "").lower()
    names = []
    for obj in list(getattr(context, "selected_objects", None) or [])[:CLIP_SEARCH_LIMIT]:
        rec = getattr(obj, "quatbake", None)
        for clip in animdata.object_clips(obj):
            name = clip.name
            if rec is not None and rec.baked_action is not None \
                    and clip.action == rec.baked_action and rec.original_action is not None:
                name = rec.original_action.name
            if name not in names and typed in name.lower():
                names.append(name)
    return names


def _legend_color(index: int):
    """Getter of a read-only colour swatch of the overlay legend (core.triads' colours).

    Index 0-3: the speed ramp's stops; 4: the long-arc band; 5: a ghost's X axis.
    """
    def get(_settings):
        from ...core import triads

        if index < len(triads.SPEED_COLORS):
            rgba = triads.SPEED_COLORS[index]
        elif index == len(triads.SPEED_COLORS):
            rgba = triads.LONG_ARC_COLOR
        else:
            rgba = triads.ghost_colors(triads.AXIS_COLORS[:1])[0]
        return tuple(float(c) for c in rgba[:3])

    return get


def _ignore(_settings, _value) -> None:
    """Setter of the swatches: without one Blender draws them dimmed (read-only),
    so the legend would show duller colours than the overlay draws."""


def _swatch(index: int, name: str):
    # COLOR_GAMMA: shown as stored, as the overlay draws it (no colour management).
    return FloatVectorProperty(
        name=name, size=3, subtype='COLOR_GAMMA', get=_legend_color(index), set=_ignore,
        description="A colour of the overlay, as drawn (read-only)",
    )


class QUATBAKE_PG_report_row(bpy.types.PropertyGroup):
    """One line of the Difference Report's list (a copy for the UIList; the
    figures themselves live in analyze/entries.py, looked up by name)."""

    name: StringProperty(name="Object", description="The analysed object")
    verdict: StringProperty(name="Verdict", description="fine, to check, within tolerance, "
                           "visible or long way round")
    max_deviation_deg: FloatProperty(
        name="Largest Difference", description="Largest difference from the compared method, "
        "in degrees")


class QUATBAKE_PG_settings(bpy.types.PropertyGroup):
    method: EnumProperty(
        name="Method", items=METHOD_ITEMS, default='SLERP',
        description="How rotations are interpolated between keys (always on the short arc)",
    )
    location_method: EnumProperty(
        name="Location", items=LOCATION_ITEMS, default='KEEP',
        description="How locations are interpolated between keys",
    )
    constant_speed: BoolProperty(
        name="Constant Speed", default=False,
        description="Retime the move so the object travels at one speed along its "
        "path (by arc length); rotation is retimed with it, so each key orientation "
        "is still reached where the object stands at that key",
    )
    frame_step: IntProperty(
        name="Step", default=1, min=1, soft_max=10,
        description="Write a key every this many frames (1 = every frame), and on each of "
        "the animator's keys further apart than that",
    )
    compare_method: EnumProperty(
        name="Compare With", items=COMPARE_ITEMS, default='BAKE',
        description="What Analyze and the overlay compare Blender's own interpolation with "
        "(Lerp shows what goes wrong without rotation interpolation)",
        update=lambda self, context: OverlayListener.changed(context.scene),
    )
    tolerance: FloatProperty(
        name="Key Tolerance", default=0.0, min=0.0, soft_max=1.0, precision=3, step=1,
        description="Degrees: keep only the keys Blender's playback (and, for Linear keys, a "
        "glTF player's slerp) needs to stay this close to the bake; 0 keeps a key on every "
        "step frame",
    )
    tolerance_px: FloatProperty(
        name="Camera Tolerance (px)", default=0.0, min=0.0, soft_max=4.0, precision=2, step=10,
        description="Pixels of the rendered image: perspective cameras keep only the keys that "
        "move no pixel more than this (worked out from the lens, sensor fit and render size; "
        "with a Key Tolerance too, the smaller of the two); 0: Key Tolerance for cameras too",
    )
    tolerance_tip: FloatProperty(
        name="Bone Tip Tolerance", default=0.0, min=0.0, soft_max=0.1, precision=4, step=1,
        subtype='DISTANCE',
        description="Scene units at each bone's tip: pose bones keep only the keys that move "
        "the bone's tip no more than this from the bake (the angle this distance over the "
        "bone's length, times the armature's largest scale; with a Key Tolerance too, the "
        "smaller of the two); objects use the Key Tolerance. 0: Key Tolerance for bones too",
    )
    key_interpolation: EnumProperty(
        name="Keys", items=KEY_INTERPOLATION_ITEMS, default='BEZIER',
        description="What a bake with a Key Tolerance writes: few editable Bezier keys, or "
        "LINEAR keys for glTF engines",
    )
    use_frame_range: BoolProperty(
        name="Custom Range", default=False,
        description="Bake a chosen frame range instead of the keyed range. Keys outside it are "
        "not kept: the bake holds the range's first and last pose beyond it",
        update=lambda self, context: _custom_range_switched(self, context),
    )
    frame_start: IntProperty(name="Start", default=1, description="First frame to bake")
    frame_end: IntProperty(name="End", default=250, description="Last frame to bake")
    output_mode: EnumProperty(
        name="Output", items=OUTPUT_MODE_ITEMS, default='KEEP',
        description="Rotation mode the baked keys are written in",
    )
    union_keys: BoolProperty(
        name="Merge Key Frames", default=False,
        description="When the rotation channels are keyed on different frames, use "
        "the union of their key frames instead of refusing to bake",
    )
    turns: EnumProperty(
        name="Turns", items=TURNS_ITEMS, default='AUTO',
        description="How far each key interval turns: whole turns and the long way kept "
        "where keyed, or always the short arc",
    )
    timing: EnumProperty(
        name="Timing", items=TIMING_ITEMS, default='EVEN',
        description="Where along its path the rotation is at each frame: even speed, or "
        "the ease of the keys",
    )
    # Not in SETTING_NAMES: presets do not store which action a shot bakes.
    clip: StringProperty(
        name="Clip", default="", search=_clip_suggestions,
        description="Bake and analyze this NLA clip (an action's name) of the selected objects "
        "that have it, for objects animated only by NLA clips (a glTF import's parent, say); "
        "the others are left as they are. Empty: the active actions",
    )
    preset_name: StringProperty(
        name="Preset", default="",
        description="Name of the bake preset last applied to these settings",
    )
    # The Difference Report's list, worst first (written by analyze/entries.py).
    report_rows: CollectionProperty(
        type=QUATBAKE_PG_report_row, name="Report Rows",
        description="The Difference Report's results, worst first")
    report_index: IntProperty(name="Selected Result", default=0, min=0,
                              description="The result whose details the report shows")
    # Summary of the last bake, written by quatbake.bake for the panel.
    has_last_bake: BoolProperty(
        name="Has Last Bake", default=False,
        description="Whether the fields below describe a bake of this scene",
    )
    # Every transform baked, bones included (its value since before bones were baked:
    # scripts read it); the bones among them are counted apart for the panel's total.
    last_objects_baked: IntProperty(
        name="Objects Baked", default=0, min=0,
        description="Number of objects and pose bones the last bake wrote (each bone "
        "counts as one; Bones Baked says how many were bones)",
    )
    last_bones_baked: IntProperty(name="Bones Baked", default=0, min=0,
                                  description="How many of Objects Baked were pose bones")
    # Kept so the total can say "12 bones of "Rig"" as the bake's report does.
    last_bones_rig: StringProperty(
        name="Armature Baked", default="",
        description="The armature all the bones of the last bake belong to (empty when "
        "they come from several, or no bone was baked)",
    )
    last_frames_written: IntProperty(
        name="Frames Written", default=0, min=0,
        description="Frames the last bake wrote keys on, summed over the baked objects",
    )
    # JSON {transform name: rotation keys per channel}: the panel's lines (bake.panel).
    last_bake_keys: StringProperty(
        name="Keys per Transform", default="",
        description="The last bake's keys per channel for each transform it wrote, as JSON "
        "(the Re-bake panel's lines; their sum is Frames Written)",
    )
    last_keys_kind: StringProperty(
        name="Keys Written", default="",
        description="'BEZIER' or 'LINEAR' when the last bake kept only the keys within a "
        "Key Tolerance (the panel then counts keys), empty for a key on every step frame",
    )
    last_max_deviation_deg: FloatProperty(
        name="Largest Difference", default=0.0, min=0.0, precision=3,
        description="Largest angle, in degrees, between the baked rotation and "
        "Blender's own interpolation of the same keys, over all baked objects and frames",
    )
    last_turn_notes: StringProperty(
        name="Turn Notes", default="",
        description="What the last bake said: its warnings, the transforms it left as they "
        "were, and how it turned where the keys turn differently (one line each)",
    )
    show_overlay: BoolProperty(
        name="Show Overlay", default=False,
        description="Draw axis triads (X red, Y green, Z blue) along the path of the "
        "selected animated objects in every 3D Viewport",
        update=lambda self, context: OverlayListener.sync(context.scene),
    )
    overlay_step: IntProperty(
        name="Triad Every", default=5, min=1, soft_max=50, subtype='NONE',
        description="Draw a triad every this many frames (key poses are always drawn; zoomed "
        "out, dense keys are thinned to the ones where the rotation changes most)",
        update=lambda self, context: OverlayListener.changed(context.scene),
    )
    overlay_size: FloatProperty(
        name="Triad Size", default=0.5, min=0.0, soft_min=0.01, soft_max=5.0,
        subtype='DISTANCE', unit='LENGTH',
        description="Length of each triad axis (key poses 1.5x, the current frame 1.8x)",
        update=lambda self, context: OverlayListener.changed(context.scene),
    )
    overlay_line_width: FloatProperty(
        name="Line Width", default=2.0, min=1.0, max=10.0, subtype='PIXEL',
        description="Width of the triad and path lines, in pixels",
        update=lambda self, context: OverlayListener.changed(context.scene),
    )
    legend_still: _swatch(0, "Still")
    legend_slow: _swatch(1, "Slow")
    legend_fast: _swatch(2, "Fast")
    legend_fastest: _swatch(3, "Fastest")
    legend_long_arc: _swatch(4, "Long Way Round")
    legend_ghost: _swatch(5, "Ghost")
    # On by default: without names, several paths (a rig's bones, a shot's cameras) cannot
    # be told apart, and a name that would overlap another is not drawn, so a rig shows a
    # few names rather than a smudge (docs/overlay.md).
    overlay_show_names: BoolProperty(
        name="Names", default=True,
        description="Write each drawn object's (or bone's) name at the end of its path; "
        "a name that would overlap another is left out",
        update=lambda self, context: OverlayListener.changed(context.scene),
    )
    # On by default: at 900 pixels the sidebar's legend is below the screen's bottom once
    # a rig's report and its Last bake are shown; in the viewport's corner it is always in
    # sight, beside what it explains (docs/overlay.md).
    overlay_show_legend: BoolProperty(
        name="Legend in Viewport", default=True,
        description="Draw the overlay's legend (speed colours, long-way band, ghosts, keys) "
        "in the 3D Viewport's lower right corner",
        update=lambda self, context: OverlayListener.changed(context.scene),
    )
    overlay_show_ghost: BoolProperty(
        name="Ghost Triads", default=True,
        description="Also draw Blender's own interpolation of the keys as faded triads "
        "at the same positions: where they fan out from QuatBake's, the two differ",
        update=lambda self, context: OverlayListener.changed(context.scene),
    )


def _saved_vector(prop: str, label: str, default: tuple, when: str = "before the first bake"):
    """A bake record's copy of the transform's ``prop`` as it was ``when``: float32 like the
    Object and PoseBone property, so it round-trips exactly."""
    return FloatVectorProperty(name=f"Original {label}", size=len(default), default=default,
                               description=f"{prop} of the object or bone {when}")


class _StaticValuesRecord:
    """The fields an object's and a pose bone's bake records share: the transform's rotation
    mode and static values before the first bake (a mix-in: Blender registers the
    annotations of a PropertyGroup's plain Python base classes with it, on 3.4 as on 5.x).

    Once Blender has evaluated a bake it has written the baked values into the transform's
    own properties; after a revert the ones the original action does not animate
    (rotation_quaternion when the bake switched an Euler transform to QUATERNION) would
    keep them.
    """

    original_rotation_mode: StringProperty(
        name="Original Rotation Mode", default="",
        description="Rotation mode of the object or bone before the bake",
    )
    original_rotation_quaternion: _saved_vector("rotation_quaternion", "Quaternion",
                                                 (1.0, 0.0, 0.0, 0.0))
    original_rotation_euler: _saved_vector("rotation_euler", "Euler", (0.0, 0.0, 0.0))
    original_rotation_axis_angle: _saved_vector("rotation_axis_angle", "Axis Angle",
                                                 (0.0, 0.0, 1.0, 0.0))
    original_location: _saved_vector("location", "Location", (0.0, 0.0, 0.0),
                                     "before the first bake that baked location")
    location_baked: BoolProperty(
        name="Location Baked", default=False,
        description="Whether a bake since the first one wrote location keys "
        "(revert then restores original_location)",
    )
    # How the last bake was made (written after it succeeded; read only while the bake
    # plays): the Difference Report words its verdict and advice from it, so it never
    # advises re-baking with the method just used and shows a Key Tolerance bake as
    # within its tolerance (issue 24).
    bake_method: StringProperty(
        name="Bake Method", default="",
        description="The method of the last bake (nlerp, slerp, squad; empty before any bake)",
    )
    bake_tolerance_deg: FloatProperty(
        name="Bake Key Tolerance", default=0.0, min=0.0,
        description="The Key Tolerance of the last bake, in degrees (0: a key on every frame)",
    )
    bake_keys: IntProperty(
        name="Bake Keys", default=0, min=0,
        description="Rotation keys per channel the last bake wrote",
    )
    bake_path: StringProperty(
        name="Bake Path", default="",
        description="The Turns, Timing and Constant Speed of the last bake (the path its keys "
        "follow), so the report measures a Key Tolerance bake against that path",
    )
    baked_checksums: StringProperty(
        name="Baked Keys Checksums", default="",
        description="Per data path the last bake wrote: its channels and a checksum of the "
        "keys written, so that a Re-bake can tell keys edited since (one per line)",
    )


class QUATBAKE_PG_object(_StaticValuesRecord, bpy.types.PropertyGroup):
    """What a bake changed on one object, so a re-bake starts from the original
    keys and a revert puts them back (written by the bake only); the static
    values are _StaticValuesRecord's."""

    original_action: PointerProperty(
        name="Original Action", type=bpy.types.Action,
        description="The action this object had before QuatBake baked it (kept with a fake user)",
    )
    original_slot: StringProperty(
        name="Original Slot", default="",
        description="Identifier of the original action's slot that animated this object "
        "(Blender 4.4+; empty before)",
    )
    original_slot_handle: IntProperty(
        name="Original Slot Handle", default=-1,
        description="Handle of that slot (Blender 4.4+; -1 before, or unknown): renaming a "
        "slot changes its identifier, not its handle",
    )
    original_fake_user: BoolProperty(
        name="Original Fake User", default=False,
        description="Whether the original action had a fake user before the bake",
    )
    others_signature: StringProperty(
        name="Others' Signature", default="",
        description="The channels of the baked action other than the bake's own (the "
        "animator's, copied from the original), as the bake left them: when they differ "
        "now, the animator changed them since and a Revert keeps them; when only the "
        "original differs, another object sharing it was animated on (empty: unknown)",
    )
    edited_from: StringProperty(
        name="Edited From", default="",
        description="When the animator keyed or changed channels in the baked action, the "
        "name of their action before the bake: the original is then a copy of it with "
        "those changes (empty: the original is the animator's own action)",
    )
    baked_action: PointerProperty(
        name="Baked Action", type=bpy.types.Action,
        description="The action QuatBake wrote for this object",
    )
    static_recorded: BoolProperty(
        name="Static Values Recorded", default=False,
        description="Whether the original_rotation_* values were recorded (records "
        "written by older QuatBake versions have none; revert then keeps the current values)",
    )
    # Delta channels (BVH object imports key them): their static values before
    # the first bake, restored by revert like the original_rotation_* above.
    original_delta_rotation_quaternion: FloatVectorProperty(
        name="Original Delta Quaternion", size=4, default=(1.0, 0.0, 0.0, 0.0),
        description="delta_rotation_quaternion of the object before the first bake",
    )
    original_delta_rotation_euler: FloatVectorProperty(
        name="Original Delta Euler", size=3, default=(0.0, 0.0, 0.0),
        description="delta_rotation_euler of the object before the first bake",
    )
    original_delta_location: FloatVectorProperty(
        name="Original Delta Location", size=3, default=(0.0, 0.0, 0.0),
        description="delta_location of the object before the first bake",
    )
    delta_recorded: BoolProperty(
        name="Delta Values Recorded", default=False,
        description="Whether the original_delta_* values were recorded (older records have none)",
    )
    # A bake of an NLA clip (not the active action) makes the baked clip the
    # active action; revert then puts back what was active before (maybe nothing).
    clip_baked: BoolProperty(
        name="Clip Baked", default=False,
        description="Whether the bake came from an NLA clip rather than the active action",
    )
    previous_action: PointerProperty(
        name="Previous Action", type=bpy.types.Action,
        description="The active action before a clip bake (None: the object had none)",
    )
    previous_slot: StringProperty(
        name="Previous Slot", default="",
        description="Slot identifier of previous_action (Blender 4.4+)",
    )
    previous_slot_handle: IntProperty(
        name="Previous Slot Handle", default=-1,
        description="Handle of that slot (Blender 4.4+; -1 before, or unknown)",
    )
    # Armatures: the baked action also holds (or only holds) baked bones'
    # channels; each baked bone keeps its own record (QUATBAKE_PG_bone).
    bones_only: BoolProperty(
        name="Bones Only", default=False,
        description="Whether the bake changed only pose bones' channels, not the object's own",
    )
    baked_paths: StringProperty(
        name="Baked Paths", default="",
        description="Data paths the bake wrote or replaced (one per line): the bake's own "
        "channels, which a Re-bake or a Revert takes from the original action; every other "
        "channel of the baked action is the animator's",
    )
    # A bake of a Transform Cache (USD, Alembic imports): the constraint it muted, which
    # revert enables again; original_action is then the action from before (maybe None).
    cache_constraint: StringProperty(
        name="Cache Constraint", default="",
        description="The Transform Cache constraint whose playback the bake turned into keys "
        "(muted by the bake, enabled again by revert)",
    )
    # Not bake state: the overlay's pin (overlay.geometry reads it).
    overlay_pinned: BoolProperty(
        name="Pin in Overlay", default=False,
        description="Draw this object's triads and path even when it is not selected",
        update=lambda self, context: OverlayListener.changed(context.scene),
    )


class QUATBAKE_PG_bone(_StaticValuesRecord, bpy.types.PropertyGroup):
    """What a bake changed on one pose bone (the armature's record holds the actions)."""

    baked: BoolProperty(name="Baked", default=False,
                        description="Whether the armature's baked action rewrote this bone")
    baked_name: StringProperty(
        name="Baked Name", default="",
        description="The bone's name when it was baked: the original action's channels use it",
    )
    baked_paths: StringProperty(
        name="Baked Paths", default="",
        description="The bone's data paths (after its pose.bones[...] prefix) the bake replaced",
    )


classes = (QUATBAKE_PG_report_row, QUATBAKE_PG_settings, QUATBAKE_PG_object,
           QUATBAKE_PG_bone)
_register_classes, _unregister_classes = bpy.utils.register_classes_factory(classes)


def register() -> None:
    _register_classes()
    bpy.types.Object.quatbake = PointerProperty(
        type=QUATBAKE_PG_object, name="QuatBake",
        description="What QuatBake's last bake changed on this object, for Re-bake and Revert")
    bpy.types.PoseBone.quatbake = PointerProperty(
        type=QUATBAKE_PG_bone, name="QuatBake",
        description="What QuatBake's last bake changed on this bone, for Re-bake and Revert")
    bpy.types.Scene.quatbake = PointerProperty(
        type=QUATBAKE_PG_settings, name="QuatBake",
        description="QuatBake's settings and Difference Report for this scene")


def unregister() -> None:
    del bpy.types.Scene.quatbake
    del bpy.types.PoseBone.quatbake
    del bpy.types.Object.quatbake
    _unregister_classes()
