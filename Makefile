# QuatBake developer commands. `make demo` and `make test` do all set-up themselves.
PYTHON      ?= python3.11
VENV        ?= .venv
BPY_VERSION ?= 5.0.1
BLENDER     ?= /usr/bin/blender
PY          := $(VENV)/bin/python

.PHONY: test test-core test-bpy test-blender-program demo bench sysdeps venv clean

venv: $(VENV)/.installed

$(VENV)/.installed: requirements/test.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "QuatBake tests need Python 3.11 or newer")'
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q -r requirements/test.txt "bpy==$(BPY_VERSION)"
	$(VENV)/bin/pip install -q --no-deps -e .
	touch $@

sysdeps:
	bash scripts/install-system-deps.sh

# Every test: core and Blender tests with the bpy module, then the Blender
# tests again inside Debian's Blender 3.4.1 program through pytest-blender.
test: venv sysdeps
	$(PY) -m pytest tests
	$(MAKE) test-blender-program

test-core: venv
	$(PY) -m pytest tests/core

test-bpy: venv
	$(PY) -m pytest tests/blender

test-blender-program: venv sysdeps
	$(PY) -m pytest -p pytest-blender --blender-executable $(BLENDER) tests/blender

bench: venv
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis out artifacts
