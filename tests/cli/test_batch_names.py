"""How `batch` names each shot's outputs (no Blender needed): the stem, made unique with
parent folders where stems collide, ignoring case, never the summary's own name."""
from quatbake.addon.cli.batch import output_names


def test_unique_stems_are_kept():
    assert output_names(["/show/sh010.blend", "/show/sh020.blend"]) == ["sh010", "sh020"]


def test_colliding_stems_take_as_many_parent_folders_as_they_need():
    paths = ["/show/sq01/sh010/anim.blend", "/show/sq01/sh020/anim.blend",
             "/show/sq02/sh010/anim.blend", "/show/sq01/sh030/lights.blend"]
    assert output_names(paths) == ["sq01__sh010__anim", "sh020__anim", "sq02__sh010__anim",
                                   "lights"]


def test_case_only_differences_collide_as_on_windows_and_macos_disks():
    assert output_names(["/a/Shot.blend", "/b/shot.blend"]) == ["a__Shot", "b__shot"]


def test_summary_is_reserved_for_the_batch():
    assert output_names(["/show/sh/Summary.blend", "/show/sh010.blend"]) == ["sh__Summary",
                                                                              "sh010"]


def test_names_never_repeat_even_when_the_folders_do():
    names = output_names(["/x/a.blend", "/X/a.blend", "/x/a.BLEND"])
    assert len({n.casefold() for n in names}) == 3


def test_names_differing_only_in_case_in_one_folder_do_not_take_its_path():
    """A pipeline walk: walk.blend and Walk.blend side by side took every folder up to the
    root ("tmp__walk-td__seq__walk-0"), names that change with where a worker mounts the
    show. No folder tells them apart: they keep their stems, numbered."""
    for root in ("/show", "/mnt/farm/projects/show"):
        assert output_names([f"{root}/seq/walk.blend", f"{root}/seq/Walk.blend"]) == [
            "walk-0", "Walk-1"]


def test_a_hidden_shot_gets_a_name_summarize_reads():
    """A pipeline walk: .sh010.blend was done by batch ("2 ok") and missing from the farm's
    summary, which passes over hidden records (a share's "._x.json"). No name starts with
    a dot; one that would collide with its neighbour is numbered."""
    assert output_names(["/show/.sh010.blend", "/show/sh020.blend"]) == ["sh010", "sh020"]
    names = output_names(["/show/.sh010.blend", "/show/sh010.blend"])
    assert len(set(names)) == 2 and not any(n.startswith(".") for n in names), names
