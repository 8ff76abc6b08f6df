# The manual's commands. `make serve` and `make test` bootstrap what they need:
# .venv from the pinned requirements (again whenever requirements.txt changes),
# and for the tests Node's packages and a Chromium or Chrome browser.

# The first of these that is Python 3.11 or newer (pyenv shims of versions not
# installed fail the check and are skipped). Override with make PYTHON=/path/to/python.
PYTHON ?= $(firstword $(foreach p,python3.13 python3.12 python3.11 python3,\
  $(shell command -v $(p) >/dev/null 2>&1 && $(p) -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 && echo $(p))))
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1:8000
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Any Chromium or Chrome drives the browser tests; nothing downloads a browser build.
# GitHub's Ubuntu runners ship Google Chrome (their `chromium` is a snap stub).
ifeq ($(strip $(CHROMIUM)),)
override CHROMIUM := $(firstword $(foreach b,chromium google-chrome google-chrome-stable chromium-browser,\
  $(shell p=$$(command -v $(b)) && $(b) --version >/dev/null 2>&1 && echo $$p)))
endif
export CHROMIUM
# "Edit this incident" and "Report an incident" link to the repository: taken
# from an https git remote when REPO_URL is not set.
REPO_URL ?= $(shell git remote get-url origin 2>/dev/null | sed -n 's#^\(https://.*\)\.git$$#\1#p; t; s#^https://.*#&#p')
export REPO_URL
export NO_MKDOCS_2_WARNING := 1

# Install a system package ($(1): Debian/Ubuntu name, $(2): Fedora, $(3): Homebrew) with the
# system's package manager, or say in one line what to install.
define system_install
	@if command -v apt-get >/dev/null 2>&1; then echo "make: installing $(1) with apt-get"; \
	   $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $(1) >/dev/null; \
	 elif command -v dnf >/dev/null 2>&1; then echo "make: installing $(2) with dnf"; $(SUDO) dnf install -y -q $(2); \
	 elif command -v brew >/dev/null 2>&1; then echo "make: installing $(3) with brew"; brew install $(3); \
	 else echo "make: $(4) is missing and no package manager is known here; install $(4) and run make again" >&2; exit 2; fi
endef

.PHONY: serve build test lint bench linkcheck clean browser node install-node promtool

$(STAMP): requirements.txt pyproject.toml
	@test -n "$(PYTHON)" || { echo "make: no Python 3.11 or newer (tried python3.13, python3.12, python3.11, python3); install one, or run make PYTHON=/path/to/python" >&2; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	@# the package itself, editable: .venv/bin/sglang-manual, the manual's commands (pyproject.toml)
	$(PY) -m pip install --quiet --no-deps -e .
	@touch $@

serve: $(STAMP)  ## build and serve on http://127.0.0.1:8000, rebuilding when docs/, data/ or opsmanual/ change
	$(PY) -m mkdocs serve --strict --dev-addr $(HOST)

# A strict build into a fresh folder, moved into place only when it succeeds:
# site/ is always a whole build, the new one or the previous one.
build: $(STAMP)  ## strict build into site/
	@rm -rf site.new
	@$(PY) -m mkdocs build --strict --site-dir site.new || { rm -rf site.new; echo "make: the build failed; site/ keeps the previous build" >&2; exit 1; }
	@rm -rf site.old; if [ -d site ]; then mv site site.old; fi; mv site.new site; rm -rf site.old
	@echo "make: built site/"

# Node's packages for the tests (axe-core, and the search library the site vendors),
# pinned by package-lock.json. `make serve` never needs Node.
NODE_STAMP := node_modules/.installed
node:
	@command -v npm >/dev/null 2>&1 || $(MAKE) --no-print-directory install-node
install-node:
	$(call system_install,nodejs npm,nodejs npm,node,Node.js with npm)
$(NODE_STAMP): package.json package-lock.json | node
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

browser:
	@if [ -z "$(CHROMIUM)" ]; then \
	   if command -v apt-get >/dev/null 2>&1 && ! grep -qi ubuntu /etc/os-release 2>/dev/null; then \
	     echo "make: installing Debian's chromium for the browser tests"; \
	     $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium >/dev/null; \
	   else echo "make: the browser tests need Chromium or Google Chrome; install one (on Ubuntu: Google Chrome, whose chromium package is a snap stub), or set CHROMIUM=/path/to/chrome" >&2; exit 2; fi; \
	 fi

# promtool checks and unit-tests the alerting rules the site publishes (tests/test_alerts.py);
# Debian and Ubuntu ship it in the prometheus package.
promtool:
	@if ! command -v promtool >/dev/null 2>&1; then \
	   if command -v apt-get >/dev/null 2>&1; then \
	     echo "make: installing Debian's prometheus package for promtool (the alert rule tests)"; \
	     $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends prometheus >/dev/null; \
	   else echo "make: the alert rule tests need promtool; install Prometheus (its release archives hold promtool) and put promtool on PATH" >&2; exit 2; fi; \
	 fi

# Make's variables are fixed when it starts, so a browser installed just now is found by the
# recursive call that runs the tests.
test: $(STAMP) $(NODE_STAMP) browser promtool  ## the whole test suite, the benchmarks' smoke run among it (tests/test_bench.py)
	@$(MAKE) --no-print-directory run-tests

# Two workers per core: the browser tests wait for pages to settle, a build waits for its files, and
# more workers fill that time (on 2 cores, back to back: 4:46 with 4 workers, 5:21-5:29 with 3,
# 6:16 with 2). JOBS=N overrides.
CORES := $(shell nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)

.PHONY: run-tests
run-tests:
	@test -n "$(CHROMIUM)" || { echo "make: no Chromium or Chrome found; set CHROMIUM=/path/to/chrome" >&2; exit 2; }
	$(PY) -m pytest -n $(or $(JOBS),$(shell echo $$((2 * $(CORES))))) --dist loadgroup

lint: $(STAMP) $(NODE_STAMP)  ## the linters alone (the suite runs them too, tests/test_lint.py)
	node_modules/.bin/stylelint "docs/stylesheets/**/*.css"
	node_modules/.bin/eslint .
	node_modules/.bin/tsc -p tsconfig.json
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

bench: $(STAMP) browser  ## every speed figure (bench/bench.py), written to bench/results.json; takes a few minutes
	$(PY) -m mkdocs build --strict --site-dir site >/dev/null
	$(PY) bench/bench.py

linkcheck: $(STAMP)  ## every link, external ones too (needs the network; CI does not run it)
	$(PY) -m mkdocs build --strict --site-dir site
	@# through the runner: LinkChecker started as root would check no anchor under a folder the user nobody cannot enter
	$(PY) tests/linkchecker_run.py --plain -f tests/linkchecker.ini --check-extern --no-status site/index.html

clean:
	rm -rf site site.new site.old .pytest_cache node_modules .cache *.egg-info
