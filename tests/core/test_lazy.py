"""addon/lazy.py: a package's names forwarded on first use, and a broken engine
that says why it broke instead of "cannot import name"."""
import sys
import types

import pytest

from quatbake.addon.lazy import forward


def _package(tmp_path, engine_source: str, names=("good",)):
    name = f"lazy_probe_{abs(hash(engine_source)) % 10**8}"
    folder = tmp_path / name
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "engine.py").write_text(engine_source)
    sys.path.insert(0, str(tmp_path))
    package = __import__(name)
    package.__getattr__, package.__dir__ = forward(name, {"engine": names})
    return package


def test_a_forwarded_name_loads_its_module_on_first_use(tmp_path):
    package = _package(tmp_path, "good = 42\n")
    assert f"{package.__name__}.engine" not in sys.modules
    assert "good" in dir(package)
    assert package.good == 42


def test_an_engine_that_breaks_while_loading_says_why(tmp_path):
    package = _package(tmp_path, "import math\ngood = math.no_such_thing\n")
    with pytest.raises(ImportError, match="failed to load: .*no_such_thing"):
        package.good


def test_a_listed_name_the_engine_lacks_is_named(tmp_path):
    package = _package(tmp_path, "other = 1\n")
    with pytest.raises(ImportError, match="has no 'good'"):
        package.good


def test_an_unlisted_name_is_an_attribute_error(tmp_path):
    package = _package(tmp_path, "good = 1\n")
    with pytest.raises(AttributeError):
        package.missing
    assert isinstance(package, types.ModuleType)
