"""Every report a test writes or builds is checked against the shipped schema.

``docs/schema/quatbake.report-1.schema.json`` is the user-facing promise for
``quatbake.report/1``; validating each report against it (with the
``jsonschema`` library, a test-only dependency) keeps the file and the writer
from drifting apart.
"""
import json
import pathlib

import jsonschema

SCHEMA_DIR = pathlib.Path(__file__).resolve().parents[1] / "docs" / "schema"


def _validator(name: str):
    schema = json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


REPORT = _validator("quatbake.report-1.schema.json")
EXPORT_CHECK = _validator("quatbake.export-check-1.schema.json")
BATCH = _validator("quatbake.batch-1.schema.json")
# A batch's per-shot record (DIR/shots/<name>.json): the same file's $defs/record.
BATCH_RECORD = jsonschema.validators.validator_for(BATCH.schema)(
    {"$defs": BATCH.schema["$defs"], "$ref": "#/$defs/record"})


def _check(validator, name: str, report: dict) -> dict:
    """``report`` itself, after checking it against schema ``name`` (raises if it does not fit)."""
    errors = sorted(validator.iter_errors(report), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(top)"
        raise AssertionError(f"report does not fit {name} at {where}: {first.message} "
                             f"({len(errors)} error(s))")
    return report


def validate_export_check(report: dict) -> dict:
    """``report`` itself, after checking it against quatbake.export-check/1."""
    return _check(EXPORT_CHECK, "quatbake.export-check/1", report)


def validate_report(report: dict) -> dict:
    """``report`` itself, after checking it against quatbake.report/1 (raises if it does not fit)."""
    return _check(REPORT, "quatbake.report/1", report)


def load_batch(path, record: bool = False) -> dict:
    """A batch's summary.json (or, with ``record``, one DIR/shots/<name>.json), read as
    strict JSON and validated against quatbake.batch/1."""
    data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"), parse_constant=_no_constant)
    if record:
        return _check(BATCH_RECORD, "quatbake.batch/1 ($defs/record)", data)
    return _check(BATCH, "quatbake.batch/1", data)


def load_report(path) -> dict:
    """Read a written report (strict JSON, no NaN) and validate it."""
    text = pathlib.Path(path).read_text(encoding="utf-8")
    return validate_report(json.loads(text, parse_constant=_no_constant))


def _no_constant(name: str):
    raise AssertionError(f"report JSON contains {name}; strict JSON has no NaN or Infinity")
