# The manual's commands. `make serve` and `make test` bootstrap .venv from the
# pinned requirements on first use (and again whenever requirements.txt changes).

PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1:8000
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve build test clean

$(STAMP): requirements.txt
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "make: $(PYTHON) not found; install Python 3.11 or run make PYTHON=/path/to/python3.11" >&2; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	@touch $@

serve: $(STAMP)  ## build and serve on http://127.0.0.1:8000, rebuilding when docs/, data/ or macros/ change
	$(PY) -m mkdocs serve --strict --dev-addr $(HOST)

build: $(STAMP)  ## strict build into site/
	$(PY) -m mkdocs build --strict --site-dir site

test: $(STAMP)  ## the whole test suite
	$(PY) -m pytest

clean:
	rm -rf site .pytest_cache
