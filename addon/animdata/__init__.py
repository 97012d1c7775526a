# SPDX-License-Identifier: GPL-3.0-or-later
"""Animation data: the storage layer, and the only place that knows how Blender
versions store keys.

- ``paths``: the data paths of a transform's channels, and how sentences name them;
- ``actions``: where each Blender version keeps an action's F-curves (3.4 - 4.3
  ``action.fcurves``; 4.4+ slots and channelbags; 5.0 without ``action.fcurves``);
- ``channels``: a transform's F-curves by data path, and what unkeyed channels hold;
- ``read``: keys and what Blender plays from them, in bulk, without ``frame_set``;
- ``subframes``: where that playback must be sampled between whole frames;
- ``write``: keys and actions written in bulk;
- ``nla``: clips (the actions strips and stashes hold) and NLA blending;
- ``turn_inputs``: Blender's playback sampled for the turn tracking (``core.turns``);
- ``playhead``: the scene's frame and the action time it plays (Time Remapping).

Everything above this package asks it and stays version-blind. Its public names
are forwarded here, so ``animdata.evaluate_rotation`` reads as it always did.
"""
from .actions import (  # noqa: F401
    HANDLE_TYPE_ENUMS,
    KEYFRAME_ENUMS,
    action_fcurves,
    action_slot_count,
    all_fcurves,
    channelbags,
    enum_value,
    fcurve_maker,
    find_slot,
    get_action,
    get_slot_identifier,
    is_slotted,
    object_fcurves,
    only_slot,
    prefixed_fcurves,
    slot_handle,
    slot_missing,
    slot_now,
    strip_slot_identifier,
    unplayed_rotation_actions,
)
from .channels import (  # noqa: F401
    CYCLES_UNALIKE,
    HELD_UNALIKE,
    common_cycles,
    common_stepped,
    delta_location_fcurves,
    delta_rotation_defaults,
    delta_rotation_fcurves,
    driver_channels,
    fcurves_by_bone,
    find_fcurves,
    frame_slack,
    has_keys,
    is_read_only,
    linked_sentence,
    location_defaults,
    location_fcurves,
    near_frames,
    nearest_frame,
    on_step_starts,
    rotation_defaults,
    rotation_fcurves,
    sampled_sentence,
    stepped_channels,
    stepped_time,
)
from .checksum import checksum, keys_checksum  # noqa: F401
from .memo import Written, read_once, recording_writes  # noqa: F401
from .nla import (  # noqa: F401
    Clip,
    blending_strips,
    bone_key_count,
    clip_strip_changes,
    clip_time,
    nla_state,
    nla_strips,
    object_clips,
    strip_changes,
    tweaked_strip,
    unplayed_clips,
)
from .paths import (  # noqa: F401
    ARMATURE_BONE,
    BONE_PATH_START,
    DELTA_LOCATION_PATH,
    DELTA_ROTATION_DATA_PATHS,
    DELTA_ROTATION_PATHS,
    LOCATION_PATH,
    OBJECT,
    ROTATION_DATA_PATHS,
    ROTATION_PATHS,
    TRANSFORM_DATA_PATHS,
    TRANSFORM_GROUP,
    ChannelError,
    bone_name_from_path,
    channel_label,
    first_of,
    frame_label,
    frame_span,
    path_prefix,
    subject,
)
from .playhead import action_time, played_time, scene_frame, show_time  # noqa: F401
from .read import (  # noqa: F401
    HUGE_QUATERNION_NORM,
    KEY_FIELDS,
    ZERO_QUATERNION_NORM,
    as_played,
    cut_in_keys,
    evaluate_ahead,
    evaluate_channels,
    evaluate_channels_exact,
    evaluate_delta_rotation,
    evaluate_full_location,
    evaluate_location,
    evaluate_orientation,
    evaluate_rotation,
    evaluate_rotation_raw,
    extrapolated_slopes,
    is_identity_delta,
    key_error,
    key_frames,
    keys_on_one_frame,
    orientation_key_frames,
    played_between_keys,
    played_quats,
    played_quats_of_many,
    read_keyframe_arrays,
    rotation_values_to_quat,
)
from .subframes import (  # noqa: F401
    FAR_TURN_SUBSTEPS,
    far_turn_subframes,
    subframes_many,
    subframes_to_sample,
)
from .write import (  # noqa: F401
    Rewrite,
    add_modifier_copy,
    assign_action,
    copy_action_for,
    copy_fcurves,
    new_action_for,
    new_fcurve,
    remove_action,
    write_bezier_keys,
    write_keys,
)
