"""The import paths docs/api.md names keep working after the move to feature
packages: each package forwards its public names, and the one module that was
renamed (report_results, now analyze.entries) is still reachable by its old name."""
import importlib

import pytest

pytestmark = pytest.mark.bpy

DOCUMENTED = {
    "quatbake.addon.bake": ["bake_objects", "revert_objects", "can_revert", "BakeSettings",
                            "BakeError", "BakeResult", "MAX_BAKE_FRAMES"],
    "quatbake.addon.transform": ["AnimatedTransform", "transforms_of_objects",
                                 "transforms_named"],
    "quatbake.addon.analyze": ["analyze_object", "analyze_into", "results", "worst_first",
                               "is_stale"],
    "quatbake.addon.export_check": ["check_objects", "parse_exporter_options",
                                    "ExportCheckError"],
    "quatbake.addon.animdata": ["get_action", "evaluate_rotation", "rotation_fcurves",
                                "new_action_for", "write_keys", "object_clips"],
    "quatbake.addon.cli": ["main", "EXIT_OK", "EXIT_FAIL_ABOVE", "EXIT_BAD_INPUT"],
}


@pytest.mark.parametrize("module", sorted(DOCUMENTED))
def test_a_documented_name_is_there_where_the_docs_say(module):
    found = importlib.import_module(module)
    missing = [name for name in DOCUMENTED[module] if not hasattr(found, name)]
    assert missing == []


def test_the_old_report_results_path_is_the_analysis_entries_module():
    from quatbake.addon import report_results
    from quatbake.addon.analyze import entries

    assert report_results is entries
    assert report_results.analyze_into is entries.analyze_into


def test_an_unknown_name_is_still_an_attribute_error():
    from quatbake import addon
    from quatbake.addon import bake

    with pytest.raises(AttributeError):
        bake.no_such_name
    with pytest.raises(AttributeError):
        addon.no_such_module


@pytest.mark.parametrize("package", ["quatbake.addon.bake", "quatbake.addon.export_check"])
def test_every_name_a_package_forwards_lazily_is_in_its_engine(package):
    forwarding = importlib.import_module(package)
    engine = importlib.import_module(package + ".engine")
    assert [n for n in forwarding.ENGINE_NAMES if not hasattr(engine, n)] == []
    assert set(forwarding.ENGINE_NAMES) <= set(dir(forwarding))
