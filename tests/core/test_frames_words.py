"""Frames in sentences (quatbake.core.frames.label and span)."""
from quatbake.core import frames


def test_a_frame_reads_as_blender_shows_it():
    assert frames.label(12.0) == "12" and frames.label(12.5) == "12.5"
    assert frames.label(-3.0) == "-3"


def test_a_span_with_a_negative_frame_reads_with_to():
    """A walk: an FBX clip's keys at -4999999 to -9 were named "-4999999--9"."""
    assert frames.span(1, 100) == "1-100"
    assert frames.span(2.5, 10) == "2.5-10"
    assert frames.span(-4999999, -9) == "-4999999 to -9"
    assert frames.span(-10, 20) == "-10 to 20"
