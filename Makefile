# The manual's commands. `make serve` and `make test` bootstrap .venv from the
# pinned requirements on first use (and again whenever requirements.txt changes).

PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1:8000
# Debian's Chromium drives the browser tests; nothing downloads a browser build.
CHROMIUM ?= /usr/bin/chromium
# "Edit this incident" and "Report an incident" link to the repository: taken
# from an https git remote when REPO_URL is not set.
REPO_URL ?= $(shell git remote get-url origin 2>/dev/null | sed -n 's#^\(https://.*\)\.git$$#\1#p; t; s#^https://.*#&#p')
export REPO_URL
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve build test bench linkcheck clean

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

# axe-core, for the accessibility tests, comes from the npm registry, pinned by package-lock.json.
NODE_STAMP := node_modules/.installed
$(NODE_STAMP): package.json package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "make: npm not found; install Node.js for the accessibility tests" >&2; exit 2; }
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

$(CHROMIUM):
	@echo "make: installing Debian's chromium for the browser tests"
	@if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium; \
	 else sudo apt-get update -qq && sudo apt-get install -y -qq chromium; fi

test: $(STAMP) $(CHROMIUM) $(NODE_STAMP)  ## the whole test suite
	$(PY) -m pytest

bench: $(STAMP) $(CHROMIUM)  ## the four speed ratios (bench/bench.py); takes a few minutes
	$(PY) -m mkdocs build --strict --site-dir site >/dev/null
	$(PY) bench/bench.py

linkcheck: $(STAMP)  ## every link, external ones too (needs the network; CI does not run it)
	$(PY) -m mkdocs build --strict --site-dir site
	$(VENV)/bin/linkchecker -f tests/linkchecker.ini --check-extern --no-status site/index.html

clean:
	rm -rf site .pytest_cache node_modules
