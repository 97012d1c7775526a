"""report.files.write_text: every report, record and summary QuatBake writes goes through
it, so that a reader never sees half a file and a failure leaves nothing behind."""
import os
import sys
import threading

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


def test_writers_in_threads_keep_the_umask_and_its_modes(tmp_path, umask_027):
    """batch --jobs N writes its shots' records from its pool's threads. Reading the umask
    set it: two threads at once read the other's 022 back as the mask, and it stayed the
    process's, the records 0644 where the user's umask gave 0640. (A race: each round
    caught it about half the time; four rounds.)"""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)     # switch threads as often as Python will
    try:
        for round_ in range(4):
            folder = tmp_path / str(round_)
            folder.mkdir()

            def write(k: int, folder=folder) -> None:
                for i in range(150):
                    files.write_text("{}\n", folder / f"{k}-{i}.json")

            threads = [threading.Thread(target=write, args=(k,)) for k in range(8)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert os.umask(umask_027) == umask_027, round_
            modes = {path.stat().st_mode & 0o777 for path in folder.iterdir()}
            assert modes == {0o640}, (round_, sorted(oct(m) for m in modes))
            assert len(os.listdir(folder)) == 8 * 150
    finally:
        sys.setswitchinterval(interval)
