"""The shipped JSON Schema (docs/schema/) accepts real reports and refuses broken ones."""
import copy
import json
import re

import numpy as np
import pytest

from quatbake.core import analysis
from quatbake.report import json_report

from report_schema import REPORT, validate_report


def _report():
    half = np.radians([0.0, 40.0, 80.0]) / 2
    kq = np.column_stack([np.cos(half), np.zeros(3), np.zeros(3), np.sin(half)])
    kq[1] *= -1.0                                            # a flipped key: long arcs
    keys = np.array([1.0, 41.0, 81.0])
    frames = np.arange(1.0, 82.0)
    raw = np.stack([np.interp(frames, keys, kq[:, c]) for c in range(4)], axis=1)
    a = analysis.analyze_object("Cam", "QUATERNION", frames, raw, keys, kq, "slerp", raw_values=raw)
    return json.loads(json_report.dumps(json_report.build_report(
        [a], blender_version="5.0.1", file="x.blend", method="slerp",
        errors=[("Empty", 'Object "Empty" has no rotation keys.')])))


def test_a_real_report_fits_and_carries_its_long_arcs():
    report = validate_report(_report())
    assert report["objects"][0]["long_arc_segments"] == [[1, 41], [41, 81]]


@pytest.mark.parametrize("break_it, where", [
    (lambda r: r.pop("schema"), "(top)"),
    (lambda r: r.update(schema="quatbake.report/2"), "schema"),
    (lambda r: r.update(method="cubic"), "method"),
    (lambda r: r["objects"][0].pop("max_deviation_deg"), "objects/0"),
    (lambda r: r["objects"][0].update(rotation_mode="EULER"), "objects/0/rotation_mode"),
    (lambda r: r["objects"][0]["per_frame"].pop("deviation_deg"), "objects/0/per_frame"),
    (lambda r: r["objects"][0]["per_frame"]["deviation_deg"].__setitem__(3, "1.0"),
     "objects/0/per_frame/deviation_deg/3"),
    (lambda r: r["objects"][0].update(long_arc_segments=[[1, 41, 81]]), "objects/0/long_arc_segments/0"),
    (lambda r: r["errors"][0].update(message=""), "errors/0/message"),
])
def test_a_broken_report_is_refused_naming_where(break_it, where):
    report = copy.deepcopy(_report())
    break_it(report)
    with pytest.raises(AssertionError, match=re.escape(f"at {where}:")):
        validate_report(report)


def test_new_fields_are_allowed_so_the_schema_can_grow():
    report = _report()
    report["objects"][0]["a_later_field"] = {"anything": [1, 2]}
    report["producer"] = "a later QuatBake"
    validate_report(report)


def test_the_schema_itself_is_valid_json_schema():
    type(REPORT).check_schema(REPORT.schema)
    assert REPORT.schema["properties"]["schema"]["const"] == json_report.SCHEMA
