"""core.export_compare: deviation per frame and the cause per exported key interval.

Tracks are turns about Z with known angles, so the expected deviation is the
difference of the angles (written here), not something the code computes.
"""

import numpy as np
import pytest

from quatbake.core import export_compare


def _about_z(deg):
    """(w, x, y, z) turns about Z by ``deg`` degrees (continuous, any range)."""
    h = np.radians(np.asarray(deg, float)) / 2
    return np.stack([np.cos(h), 0 * h, 0 * h, np.sin(h)], axis=-1)


FRAMES = np.arange(1.0, 26.0)


def test_identical_tracks_have_no_deviation_and_no_cause():
    q = _about_z(np.linspace(0, 90, 25))
    c = export_compare.compare(FRAMES, q, -q, key_frames=[1, 25], key_values=q[[0, -1]])
    assert c.max_deviation_deg < 1e-6  # q and -q are one rotation; float64 rounding
    assert c.intervals == ()


def test_deviation_is_the_angle_difference_and_worst_frame():
    blender = np.linspace(0, 360, 25)  # a windmill: one full turn
    c = export_compare.compare(
        FRAMES,
        _about_z(blender),
        _about_z(np.zeros(25)),
        key_frames=[1, 25],
        key_values=_about_z([0, 360]),
    )
    want = np.minimum(blender % 360, 360 - blender % 360)
    np.testing.assert_allclose(c.deviation_deg, want, atol=1e-6)
    assert abs(c.worst_frame - 13.0) < 1e-12 and abs(c.max_deviation_deg - 180.0) < 1e-6
    (iv,) = c.intervals
    assert iv.cause == "turn_lost"
    assert abs(iv.blender_turn_deg - 360.0) < 1e-6 and iv.player_turn_deg < 1e-6
    assert iv.key_angle_deg < 1e-6


def test_causes_in_their_order():
    blender = _about_z(np.linspace(0, 60, 25))
    player = _about_z(np.linspace(0, 60, 25) + np.sin(np.linspace(0, np.pi, 25)))  # off by <= 1 deg
    keys = _about_z([0, 60])
    cases = {
        "STEP": "stepped",
        "CUBICSPLINE": "cubic_vs_bezier",
        "LINEAR": "linear_vs_blender",
    }
    for interpolation, cause in cases.items():
        c = export_compare.compare(
            FRAMES,
            blender,
            player,
            key_frames=[1, 25],
            key_values=keys,
            interpolation=interpolation,
        )
        assert [iv.cause for iv in c.intervals] == [cause]
    flipped_source = keys * [[1], [-1]]
    c = export_compare.compare(
        FRAMES,
        blender,
        player,
        key_frames=[1, 25],
        key_values=keys,
        interpolation="CUBICSPLINE",
        source_key_quats=flipped_source,
    )
    assert [iv.cause for iv in c.intervals] == ["sign_flip"]


def test_a_hemisphere_change_in_the_file_alone_is_not_a_flip_of_the_users_keys():
    """Blender's channels keep one hemisphere (the user's keys take the short arc); the
    exporter wrote the second key as -q (w >= 0). A slerp does not see the sign: the
    interval is Blender's curve against the slerp. A cubic runs through -q: the exporter's
    cubic_sign_flip. Neither is sign_flip, whose cure (a Re-bake) changes nothing here."""
    blender = _about_z(np.linspace(0, 60, 25))
    player = _about_z(np.linspace(0, 60, 25) + np.sin(np.linspace(0, np.pi, 25)))
    source = _about_z([0, 60])
    written = source * [[1], [-1]]
    for interpolation, cause in (("LINEAR", "linear_vs_blender"),
                                 ("CUBICSPLINE", "cubic_sign_flip")):
        c = export_compare.compare(FRAMES, blender, player, key_frames=[1, 25],
                                   key_values=written, interpolation=interpolation,
                                   source_key_quats=source)
        assert [iv.cause for iv in c.intervals] == [cause]


def test_small_deviations_get_no_cause_and_intervals_are_split_at_keys():
    base = np.linspace(0, 100, 25)
    wobble = np.where(FRAMES > 13, 5.0 * np.sin((FRAMES - 13) / 12 * np.pi), 0.004)
    c = export_compare.compare(
        FRAMES,
        _about_z(base),
        _about_z(base + wobble),
        key_frames=[1, 13, 25],
        key_values=_about_z([0, 50, 100]),
    )
    # The first interval stays under CAUSE_MIN_DEG (0.004 < 0.01 deg); the second does not.
    assert [iv.frames for iv in c.intervals] == [(13.0, 25.0)]
    assert abs(c.intervals[0].max_deviation_deg - 5.0) < 1e-6
    assert abs(c.intervals[0].worst_frame - 19.0) < 1e-12


def test_location_deviation_and_shape_errors():
    q = _about_z(np.zeros(3))
    c = export_compare.compare([0, 1, 2], q, q, np.zeros((3, 3)), [[0, 0, 0], [3, 4, 0], [0, 0, 0]])
    np.testing.assert_allclose(c.location_deviation, [0, 5, 0], atol=1e-15)
    with pytest.raises(ValueError, match="3 frames"):
        export_compare.compare([0, 1, 2], q, q[:2])


def test_keys_that_are_not_blenders_pose_are_a_key_mismatch():
    blender = np.linspace(0, 60, 25)
    player = blender + np.where(FRAMES == 13, 2.0, 0.0)        # a wrong key at frame 13
    c = export_compare.compare(FRAMES, _about_z(blender), _about_z(player),
                               key_frames=[1, 13, 25], key_values=_about_z([0, 32, 60]))
    assert [(iv.frames, iv.cause) for iv in c.intervals] == [((1.0, 13.0), "key_mismatch"),
                                                            ((13.0, 25.0), "key_mismatch")]


def test_frames_outside_the_exported_keys():
    # Keys exported on frames 5..20 only; Blender moves before and after them.
    blender = np.concatenate([np.linspace(-4, 0, 4), np.zeros(16), np.linspace(1, 5, 5)])
    player = np.concatenate([np.zeros(4), np.zeros(16), np.zeros(5)])
    c = export_compare.compare(FRAMES, _about_z(blender), _about_z(player),
                               key_frames=[5, 20], key_values=_about_z([0, 0]))
    got = [(iv.frames, iv.cause) for iv in c.intervals]
    assert got == [((1.0, 5.0), "before_first_key"), ((20.0, 25.0), "after_last_key")]
    assert abs(c.intervals[1].max_deviation_deg - 5.0) < 1e-6
    assert abs(c.intervals[1].blender_turn_deg - 5.0) < 1e-6


def test_a_wrong_last_key_where_blender_holds_still_is_no_after_last_key():
    """A pipeline walk: keys the exporter wrote wrong, Blender still after the last one,
    read "after_last_key ... key the motion inside the exported range" first: the
    frames after the key are off only because the key is."""
    blender = np.concatenate([np.linspace(0, 20, 20), np.full(5, 20.0)])
    player = np.concatenate([np.linspace(0, 23, 20), np.full(5, 23.0)])   # last key 3 off
    c = export_compare.compare(FRAMES, _about_z(blender), _about_z(player),
                               key_frames=[1, 20], key_values=_about_z([0, 23]))
    assert [(iv.frames, iv.cause) for iv in c.intervals] == [((1.0, 20.0), "key_mismatch")]
    assert c.max_deviation_deg == pytest.approx(3.0, abs=1e-9)


@pytest.mark.parametrize("mode", ["XZY", "YXZ", "YZX", "ZXY", "ZYX"])
def test_keys_of_an_euler_order_the_exporter_writes_wrong_get_their_own_advice(mode):
    said = export_compare.advice({"key_mismatch": 1}, 3.0, mode=mode)
    assert f"writes {mode} Euler keys" in said and "export with sampling" in said
    assert "--rotation-mode quaternion" in said
    assert export_compare.linear_mode(mode) == "QUATERNION"
    for other in ("XYZ", "QUATERNION"):
        assert export_compare.linear_mode(other) == other
        assert export_compare.ADVICE["key_mismatch"] in export_compare.advice(
            {"key_mismatch": 1}, 3.0, mode=other)


def test_axis_angle_keys_the_exporter_writes_wrong_get_the_same_advice():
    """A review: three LINEAR axis-angle keys exported unsampled played 113 deg off
    (key_mismatch), and the advice, "bake the object so the exporter writes plain keys",
    led to a bake in axis-angle, 131 deg off; its Linear keys, baked in axis-angle, 178 deg.
    Quaternion keys play within 2.5e-05 deg."""
    said = export_compare.advice({"key_mismatch": 1}, 3.0, mode="AXIS_ANGLE")
    assert "writes axis-angle keys" in said and "--rotation-mode quaternion" in said
    assert export_compare.linear_mode("AXIS_ANGLE") == "QUATERNION"


def test_an_interval_right_on_the_exporters_clock_is_timing():
    blender = np.linspace(0, 60, 25)
    late = np.linspace(0, 60, 25) * 0.98           # the player runs 2% slow
    c = export_compare.compare(FRAMES, _about_z(blender), _about_z(late),
                               key_frames=[1, 13, 25], key_values=_about_z([0, 30, 60]),
                               retimed_deviation_deg=np.zeros(25))
    assert {iv.cause for iv in c.intervals} == {"timing"}
    c = export_compare.compare(FRAMES, _about_z(blender), _about_z(late),
                               key_frames=[1, 13, 25], key_values=_about_z([0, 30, 60]),
                               retimed_deviation_deg=np.full(25, 1.0))
    assert "timing" not in {iv.cause for iv in c.intervals}


def test_key_deviation_at_the_keys_own_times_makes_key_mismatch():
    q = _about_z(np.linspace(0, 60, 25))
    wobble = _about_z(np.linspace(0, 60, 25) + 0.5)
    keys = dict(key_frames=[1.5, 12.5, 24.5], key_values=_about_z([0, 30, 60]))
    c = export_compare.compare(FRAMES, q, wobble, key_deviation_deg=[0.5, 0.5, 0.5], **keys)
    inner = {iv.cause for iv in c.intervals} - {"before_first_key", "after_last_key"}
    assert inner == {"key_mismatch"}
    c = export_compare.compare(FRAMES, q, wobble, key_deviation_deg=[0.0, 0.0, 0.0], **keys)
    assert "key_mismatch" not in {iv.cause for iv in c.intervals}


def test_advice_names_the_first_cause_in_check_order_and_what_to_do():
    text = export_compare.advice({"cubic_vs_bezier": 2, "sign_flip": 1}, 159.0)
    assert text.startswith("sign_flip in 1 interval (and 1 other cause), up to 159 deg")
    assert "Re-bake" in text and text.endswith(".")
    assert export_compare.advice({}, 4e-5).startswith("Plays as in Blender")
    assert set(export_compare.ADVICE) == set(export_compare.CAUSES)


def test_the_linear_sentence_takes_the_place_of_a_cause_advice_that_asks_the_same():
    """linear_advice says "Re-bake with Keys: Linear" with its figures: where the worst
    cause's own advice asks for that bake too, the line says it once (the window walk
    saw it twice in a row), sampling still offered; another cause's advice stays, and
    the sentence follows."""
    then = "Re-bake with Keys: Linear (quatbake bake --keys linear) for this engine: figures."
    asking = {cause for cause, text in export_compare.ADVICE.items() if "Keys: Linear" in text}
    assert asking == export_compare.ASKS_LINEAR_BAKE
    assert asking >= {"cubic_sign_flip", "handle_lengths", "cubic_vs_bezier", "turn_lost",
                      "linear_vs_blender"}
    for cause in asking:
        assert "or export with sampling" in export_compare.ADVICE[cause], cause
        text = export_compare.advice({cause: 2}, 12.0, then=then)
        assert text == (f"{cause} in 2 intervals, up to 12 deg off. {then} Or export "
                        "with sampling."), text
        assert text.count("Keys: Linear") == 1
        # A sampled export's sentence asks to export without sampling: not offered back.
        unsampled = export_compare.advice({cause: 2}, 12.0, then=then, sampling_ok=False)
        assert unsampled == f"{cause} in 2 intervals, up to 12 deg off. {then}", unsampled
    text = export_compare.advice({"between_samples": 3}, 0.5, then=then)
    assert text == (f"between_samples in 3 intervals, up to 0.5 deg off: "
                    f"{export_compare.ADVICE['between_samples']}. {then}")
    assert export_compare.advice({}, 0.001, then=then) == \
        f"Plays as in Blender (within 0.001 deg). {then}"
    assert export_compare.advice({"cubic_vs_bezier": 1}, 2.0) == \
        f"cubic_vs_bezier in 1 interval, up to 2 deg off: " \
        f"{export_compare.ADVICE['cubic_vs_bezier']}."


def test_an_export_sampled_already_is_not_told_to_export_with_sampling():
    """A layout walk: a sampled export of a flipped pan read "... the short arc, or export
    with sampling". Every cause whose advice offers sampling drops it there, and keeps the
    rest of its advice."""
    offering = [c for c, text in export_compare.ADVICE.items() if "export with sampling" in text]
    assert "sign_flip" in offering and "stepped" in offering
    for cause in offering:
        text = export_compare.advice({cause: 1}, 3.0, sampling_ok=False)
        assert "sampling" not in text, text
        assert text.startswith(f"{cause} in 1 interval, up to 3 deg off: ") and \
            text.endswith(".") and len(text) > len(f"{cause} in 1 interval, up to 3 deg off: .")


def test_advice_that_names_a_command_names_the_panels_control_too():
    """The advice reaches the Export Check panel as well as the CLI (the window walk saw
    "quatbake bake --tolerance 0.01" in the sidebar): each bake it asks for is named as
    the Re-bake panel shows it beside the command, and a tolerance bake says Keys: Linear,
    which the panel needs (its tolerance bakes write Bezier keys unless told) and the
    CLI takes."""
    asking = 0
    for cause, text in export_compare.ADVICE.items():
        if "quatbake bake" in text or "--" in text:
            asking += 1
            assert "Re-bake" in text and "quatbake bake" in text, (cause, text)
        if "--keys" in text or "--tolerance" in text:
            assert "Keys: Linear" in text and "--keys linear" in text, (cause, text)
        if "--tolerance" in text:
            assert "Key Tolerance" in text, (cause, text)
    # not_exported, key_mismatch, turn_lost, linear_vs_blender and the three cubic ones.
    assert asking >= 7


def test_a_moving_channel_the_file_does_not_animate_is_not_exported_with_its_own_figure():
    """Blender turns 0 -> 90 deg and slides 0 -> 10 units over 11 frames; the engine holds
    the first pose. Each channel the file does not animate is named with its unit."""
    frames = np.arange(1.0, 12.0)
    turning = _about_z(np.linspace(0.0, 90.0, frames.size))
    still = np.repeat(_about_z([0.0]), frames.size, axis=0)
    sliding = np.stack([np.linspace(0.0, 10.0, frames.size), np.zeros(frames.size),
                        np.zeros(frames.size)], axis=1)
    held = np.zeros((frames.size, 3))
    both = export_compare.compare(frames, turning, still, sliding, held)
    assert abs(both.max_deviation_deg - 90.0) < 1e-9
    assert abs(both.max_location_deviation - 10.0) < 1e-9
    assert export_compare.not_exported({}, both) == ("rotation", "translation")
    # The file animates the rotation (the engine turns with it): only the slide is missing.
    slide = export_compare.compare(frames, turning, turning, sliding, held)
    missing = export_compare.not_exported({"rotation": 11}, slide)
    assert missing == ("translation",)
    said = export_compare.not_exported_advice(missing, slide)
    assert said.startswith("Not exported: the file has no translation animation")
    assert "up to 10 scene units off" in said and "deg" not in said.split(":")[1]
    # Still in Blender too: nothing is missing, whatever the file holds.
    calm = export_compare.compare(frames, still, still, held, held)
    assert export_compare.not_exported({}, calm) == ()


def test_the_linear_keys_figure_is_what_the_check_measures_once_they_are_baked():
    """A walk: at a 1 deg tolerance the Linear keys of a swing "would play 1.42e-05 deg
    off", measured against Blender's playback before the bake; once baked, Blender plays
    the keys channel by channel and the check found the engine 0.918 deg from it. The
    figure is now the engine's slerp of the keys against Blender's linear playback of
    them, here computed with scipy's Slerp and numpy's lerp of the same keys."""
    from scipy.spatial.transform import Rotation, Slerp

    frames = np.arange(1.0, 49.0 + 1e-9, 0.25)
    keyed = Rotation.from_euler("xyz", np.radians([[0, 0, 0], [60, 30, 90], [-30, 70, 200]]))
    eased = 1.0 + 48.0 * (1.0 - np.cos(np.pi * (frames - 1.0) / 48.0)) / 2.0
    blender = Slerp([1.0, 25.0, 49.0], keyed)(eased).as_quat()[:, [3, 0, 1, 2]]
    alt = export_compare.linear_alternative(frames, blender, 1.0, "QUATERNION")
    at = np.searchsorted(frames, alt.key_frames)
    keys = blender[at].copy()
    for i in range(1, len(keys)):       # continuous signs, as the bake writes the channels
        if np.dot(keys[i], keys[i - 1]) < 0.0:
            keys[i] = -keys[i]
    lerp = np.column_stack([np.interp(frames, alt.key_frames, keys[:, c]) for c in range(4)])
    lerp /= np.linalg.norm(lerp, axis=1, keepdims=True)
    engine = Slerp(alt.key_frames, Rotation.from_quat(keys[:, [1, 2, 3, 0]]))(frames)
    off = np.degrees((Rotation.from_quat(lerp[:, [1, 2, 3, 0]]) * engine.inv()).magnitude())
    assert alt.max_deviation_quarter_deg == pytest.approx(off.max(), abs=1e-9)
    whole = frames == np.round(frames)
    assert alt.max_deviation_deg == pytest.approx(off[whole].max(), abs=1e-9)
    assert alt.max_deviation_quarter_deg > 1e-3      # a figure the test tells from zero
