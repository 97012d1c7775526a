"""report.files.write_text: every report, record and summary QuatBake writes goes through
it, so that a reader never sees half a file and a failure leaves nothing behind."""
import os

import pytest

from quatbake.report import files


@pytest.fixture
def umask_027():
    """A farm account's umask (group may read, others nothing), put back after."""
    previous = os.umask(0o027)
    try:
        yield 0o027
    finally:
        os.umask(previous)


def test_the_file_gets_the_modes_the_umask_gives_a_new_file(tmp_path, umask_027):
    path = tmp_path / "report.json"
    files.write_text("{}\n", path)
    assert path.read_text(encoding="utf-8") == "{}\n"
    # mkstemp's own 0600 would keep the summary task (another farm account) out.
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask_027 == 0o640
    assert os.listdir(tmp_path) == ["report.json"]


def test_a_reader_of_the_old_file_keeps_reading_it_whole(tmp_path):
    path = tmp_path / "summary.json"
    files.write_text("old\n" * 1000, str(path))
    with open(path, encoding="utf-8") as reader:
        files.write_text("new\n", path)
        assert reader.read() == "old\n" * 1000
    assert path.read_text(encoding="utf-8") == "new\n"
    assert os.listdir(tmp_path) == ["summary.json"]


def test_a_failure_leaves_nothing_beside_the_target(tmp_path):
    """A folder where the file goes: the temporary file written first is removed."""
    (tmp_path / "in_the_way.json" / "inside").mkdir(parents=True)
    with pytest.raises(OSError):
        files.write_text("{}\n", tmp_path / "in_the_way.json")
    assert os.listdir(tmp_path) == ["in_the_way.json"]
    with pytest.raises(FileNotFoundError):
        files.write_text("{}\n", tmp_path / "no_folder" / "report.json")
    assert os.listdir(tmp_path) == ["in_the_way.json"]
