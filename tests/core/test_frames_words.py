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


def test_a_large_frame_keeps_its_digits():
    """A walk: %g wrote frame 100009.5 as "100010" and frame 1000001 as "1.000001e+06"."""
    assert frames.label(100009.5) == "100009.5"
    assert frames.label(1000001.0) == "1000001"
    assert frames.label(12.100000381469727) == "12.1"     # a float32 subframe
    assert frames.span(100000, 100009.5) == "100000-100009.5"


def test_a_float32_key_time_reads_as_blender_shows_it():
    """A walk: a 30 fps glTF clip in a 24 fps scene ends on the float32 key time 240.4
    (240.39999389648438), which read "0-240.399994" in report's table."""
    import numpy as np

    assert frames.label(float(np.float32(240.4))) == "240.4"
    assert frames.span(0, float(np.float32(240.4))) == "0-240.4"
    assert frames.label(float(np.float32(12.9996))) == "12.9996"
    # A float64 subframe that no float32 is keeps its millionths.
    assert frames.label(240.399994) == "240.399994"


def test_a_subframe_next_to_a_frame_is_not_that_frame():
    """A review: to a thousandth, 12.9996 read "13" and a cut at 12.9996-13 "13-13"."""
    assert frames.label(12.9996) == "12.9996"
    assert frames.span(12.9996, 13) == "12.9996-13"
    assert frames.label(-0.0004) == "-0.0004"
    assert frames.label(-1e-9) == "0"


def test_counts_are_said_in_words():
    """Walks read "4 stepped interval(s)" and "8 object(s)": one, or several."""
    from quatbake.core.words import counted

    assert counted(1, "interval") == "1 interval"
    assert counted(0, "interval") == "0 intervals"
    assert counted(3, "stepped interval") == "3 stepped intervals"
    assert counted(2, "child", "children") == "2 children"


def test_a_phrase_is_its_english_sentence_and_keeps_how_it_was_made():
    """core.words.Phrase: the Re-bake's turn notes are made in core, which cannot call
    Blender's translation; the add-on says them in Chinese from their pattern, and every
    other reader (the CLI, the JSON report, tests) sees the English string it is."""
    import copy
    import json
    import pickle

    from quatbake.core.words import Phrase

    cause = Phrase("a flipped quaternion sign")
    said = Phrase("keys {}: Blender turns {:.0f} deg ({})", "101-201", 215.7, cause)
    english = "keys 101-201: Blender turns 216 deg (a flipped quaternion sign)"
    assert isinstance(said, str) and said == english and hash(said) == hash(english)
    assert json.dumps({"note": said}) == json.dumps({"note": english})
    assert said.pattern == "keys {}: Blender turns {:.0f} deg ({})"
    assert said.args == ("101-201", 215.7, cause) and said.args[2].pattern == cause
    assert cause.args == () and cause == "a flipped quaternion sign"
    assert "Rig: " + said == "Rig: " + english and f"{said}!" == english + "!"
    for again in (copy.deepcopy(said), pickle.loads(pickle.dumps(said))):
        assert again == english and again.pattern == said.pattern and again.args == said.args


def test_a_listed_phrase_is_the_joined_english_and_keeps_its_pattern():
    """core.words.listed: ", ".join (or " or ".join) as nested Phrases, which the add-on
    says its own way ("a、b、c" in Chinese); one item is itself."""
    from quatbake.core.words import AND_MORE, EITHER, LIST, Phrase, listed

    spans = listed(["1-11", "11-21", "21-31"])
    assert spans == "1-11, 11-21, 21-31" and spans.pattern == LIST
    assert spans.args[0] == "1-11, 11-21" and spans.args[1] == "21-31"
    assert Phrase(AND_MORE, spans, 2) == "1-11, 11-21, 21-31 and 2 more"
    assert listed(["a flip", "a wrap"], EITHER) == "a flip or a wrap"
    assert listed(["0-10"]) == "0-10" and not isinstance(listed(["0-10"]), Phrase)

    def again(p):
        return p.pattern.format(*(again(a) if isinstance(a, Phrase) else a for a in p.args))

    assert again(spans) == spans
