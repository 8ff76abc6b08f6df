"""The logging filter the site publishes for SGLANG_LOGGING_CONFIG_PATH: one file of Python's standard
library (sglang_incident_links.py) named by sglang-logging.json, loaded as SGLang 0.5.22 loads the
configuration (the file read as JSON, then logging.config.dictConfig). It links a matching record to
its incident, leaves every other record as it was, and never raises into the logger call, stops
dictConfig or reads more than its first LIMIT characters of a message, whatever the data, the load or
the message."""

from __future__ import annotations

import ast
import importlib.util
import io
import json
import logging
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

from opsmanual.cli.logfilter import ARROW, LIMIT, IncidentLinks, annotation
from opsmanual.data.loader import load_guidance
from opsmanual.engines.logscan import Matcher, match_line
from opsmanual.render.operations import LINKS_FILE, LOGGING_CONFIG, incident_links_module, logging_config

SITE = "https://manual.example/"
LOG_LINES = yaml.safe_load((ROOT / "tests" / "log_lines.yaml").read_text("utf-8"))
MATCHING = "Failed to select PD pair: Failed to select worker pair"  # the line the Logs page shows
MATCHING_LINK = f"{SITE}incidents/sglang-10608/"
ORDINARY = "Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00"
WARNING_LINE = "sglang_incident_links.IncidentLinks: cannot read its patterns"


@pytest.fixture(scope="module")
def guidance(site, incidents):
    return load_guidance(ROOT / "data" / "guidance.yaml", site, incidents)


@pytest.fixture(scope="module")
def published(tmp_path_factory, site, incidents, guidance) -> Path:
    """A folder with the two files the site publishes, rendered from the manual's data."""
    folder = tmp_path_factory.mktemp("published")
    (folder / LINKS_FILE).write_text(incident_links_module(incidents, guidance, site), "utf-8")
    (folder / LOGGING_CONFIG).write_text(logging_config(SITE), "utf-8")
    return folder


def _module(path: Path, name: str = "published_links"):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def standalone(published):
    return _module(published / LINKS_FILE)


def _stdlib_python(folder: Path, script: str, cwd: Path, config_dir: Path | None = None) -> subprocess.CompletedProcess:
    """``script`` in a fresh Python with only the standard library (-I -S: no site-packages, no
    environment, not even the working folder on the path) and ``folder`` first on its path, as
    PYTHONPATH puts it there for SGLang."""
    head = f"import sys\nsys.path.insert(0, {str(folder)!r})\n" if folder else ""
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", head + script],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


LOAD = """
import json, logging, logging.config
with open({config!r}, encoding="utf-8") as file:
    logging.config.dictConfig(json.loads(file.read()))
"""


def _three_records(config: Path) -> str:
    return (
        LOAD.format(config=str(config))
        + f"""
log = logging.getLogger("sglang.srt.managers.scheduler")
log.info("Failed to select PD pair: %s", "Failed to select worker pair")
log.info({ORDINARY!r})
log.warning("Decode out of memory happened. #retracted_reqs: %d", 1)
outside = sorted(n for n in sys.modules if n.split(".")[0] not in sys.stdlib_module_names and n != "__main__")
print(json.dumps(outside))
"""
    )


def _assert_three_annotated(result: subprocess.CompletedProcess) -> None:
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 3, lines
    assert lines[0].startswith("[20")  # SGLang's "[time] message" format
    assert lines[0].endswith(f"] {MATCHING}{ARROW}{MATCHING_LINK}")
    assert lines[1].endswith(f"] {ORDINARY}")
    assert ARROW not in lines[1]
    # three incidents and a common error print it: the common error's entry, which lists them
    assert lines[2].split(ARROW, 1)[1].startswith(f"{SITE}errors/#kv-cache-pool-full")
    # the filter imported nothing but itself and the standard library
    assert json.loads(result.stdout) == ["sglang_incident_links"]


def test_the_built_site_publishes_the_filter_and_plain_python_loads_it(built, tmp_path, server):
    """The two files as the site publishes them, read from the build's output folder: a Python with
    only the standard library, the folder on its path, applies the configuration and links a line."""
    module = built / LINKS_FILE
    config = json.loads((built / LOGGING_CONFIG).read_text("utf-8"))
    assert config["filters"]["incident_links"]["()"] == "sglang_incident_links.IncidentLinks"
    tree = ast.parse(module.read_text("utf-8"))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert imported and imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
    # the build's own address, as the configuration names it
    config["filters"]["incident_links"]["site_url"] = SITE
    (tmp_path / LOGGING_CONFIG).write_text(json.dumps(config), "utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _assert_three_annotated(_stdlib_python(built, _three_records(tmp_path / LOGGING_CONFIG), elsewhere))
    assert "DATA = None\n" not in module.read_text("utf-8")
    assert json.loads(_module(module, "built_links").DATA)["site_url"].rstrip("/") == server.rstrip("/")


def test_the_published_config_links_a_matching_record_and_leaves_others(published, tmp_path):
    _assert_three_annotated(_stdlib_python(published, _three_records(published / LOGGING_CONFIG), tmp_path))


def _dev_lines(incidents, guidance) -> list[str]:
    """Every log line of the development set: the held-out lines, every incident's and common
    error's examples, and each line of the bug reports the diagnosis is measured on."""
    lines = [item["line"] for item in LOG_LINES]
    lines += [e for inc in incidents for e in inc.log_examples]
    lines += [e for g in guidance for e in g.examples]
    reports = yaml.safe_load((ROOT / "tests" / "diagnose_reports.yaml").read_text("utf-8"))
    lines += [line for report in reports for line in report["text"].splitlines() if line.strip()]
    return lines


def test_the_published_filter_and_the_triage_engine_agree_on_every_line(standalone, site, incidents, guidance):
    matcher = Matcher(incidents, guidance)
    links = standalone.IncidentLinks(site_url=SITE)
    lines = _dev_lines(incidents, guidance)
    linked = 0
    for line in lines:
        want = annotation(match_line(matcher, line.encode("utf-8")), site, SITE)
        assert links.annotation(line) == want, line
        linked += bool(want)
    assert linked > len(incidents) / 2  # the examples alone link every incident that has patterns
    # a message of many lines (a traceback, a report) is read line by line, as the engine reads it
    reports = yaml.safe_load((ROOT / "tests" / "diagnose_reports.yaml").read_text("utf-8"))
    for report in reports:
        text = report["text"][:LIMIT]
        assert links.annotation(text) == annotation(match_line(matcher, text.encode("utf-8")), site, SITE)


def test_the_package_filter_gives_the_published_annotations(standalone, incidents, guidance):
    package, published = IncidentLinks(site_url=SITE), standalone.IncidentLinks(site_url=SITE)
    for line in _dev_lines(incidents, guidance):
        assert package.annotation(line) == published.annotation(line), line


THREADS = 48
PER_THREAD = 200

CONCURRENT = """
import threading
log = logging.getLogger("sglang.srt.managers.scheduler")
barrier = threading.Barrier({threads})
errors = []

def work(n):
    barrier.wait()
    for k in range({per}):
        try:
            if k % 2:
                log.info("Failed to select PD pair: %s (thread %d, record %d)", "Failed to select worker pair", n, k)
            else:
                log.info("Prefill batch. #new-seq: %d, thread %d", k, n)
        except BaseException as err:
            errors.append(repr(err))

threads = [threading.Thread(target=work, args=(n,)) for n in range({threads})]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps(errors[:5] + [len(errors)]))
"""


@pytest.mark.parametrize("factory", ["published", "package"])
def test_many_threads_logging_at_once_never_get_an_exception(published, tmp_path, factory):
    """48 threads log through the real logging module at once, the filter installed by dictConfig:
    no exception escapes a logger call, and every record is written, each matching one linked."""
    script = CONCURRENT.format(threads=THREADS, per=PER_THREAD)
    if factory == "published":
        result = _stdlib_python(published, LOAD.format(config=str(published / LOGGING_CONFIG)) + script, tmp_path)
    else:
        config = json.loads(logging_config(SITE))
        config["filters"]["incident_links"]["()"] = "opsmanual.cli.logfilter.IncidentLinks"
        (tmp_path / LOGGING_CONFIG).write_text(json.dumps(config), "utf-8")
        result = subprocess.run(
            [sys.executable, "-c", LOAD.format(config=str(tmp_path / LOGGING_CONFIG)) + script],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout) == [0], result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == THREADS * PER_THREAD, lines[:5]
    linked = [line for line in lines if "Failed to select PD pair" in line]
    assert len(linked) == THREADS * PER_THREAD // 2
    assert all(line.endswith(f"){ARROW}{MATCHING_LINK}") for line in linked), linked[:3]
    assert not any(ARROW in line for line in lines if "Prefill batch" in line)


def _broken_copy(published: Path, folder: Path, data_line: str | None) -> Path:
    """The published files in ``folder``, the module's DATA line replaced (None: as the package holds
    it, without patterns)."""
    folder.mkdir()
    shutil.copy(published / LOGGING_CONFIG, folder / LOGGING_CONFIG)
    source = (published / LINKS_FILE).read_text("utf-8")
    if data_line is None:
        source = (ROOT / "opsmanual" / "render" / LINKS_FILE).read_text("utf-8")
    else:
        source = re.sub(r"(?m)^DATA = .*$", lambda _m: data_line, source, count=1)
    (folder / LINKS_FILE).write_text(source, "utf-8")
    return folder


@pytest.mark.parametrize(
    "data_line",
    [
        None,  # no patterns at all
        'DATA = \'{"layout": 1, "site_url": "x", "entries": [["sglang-1", "incid\'',  # cut half way
        'DATA = \'{"layout": 1, "site_url": "x", "entries": [["a", "b", false]], "patterns": [["Failed", "(", 0, false]]}\'',
        "DATA = '{\"layout\": 99}'",
        "DATA = 42",
    ],
    ids=["missing", "truncated", "bad-regex", "other-layout", "not-json"],
)
def test_broken_or_missing_patterns_pass_records_through_with_one_warning(published, tmp_path, data_line):
    folder = _broken_copy(published, tmp_path / "broken", data_line)
    result = _stdlib_python(folder, _three_records(folder / LOGGING_CONFIG), tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 4, lines
    assert lines[0].startswith(WARNING_LINE), lines[0]
    assert "pass through" in lines[0]
    assert lines[1].endswith(f"] {MATCHING}")  # unchanged
    assert lines[2].endswith(f"] {ORDINARY}")
    assert lines[3].endswith("] Decode out of memory happened. #retracted_reqs: 1")


def test_a_half_edited_incidents_file_never_stops_the_package_filter(tmp_path, capsys):
    """The issue's case: data/incidents.yaml half edited in the clone the package filter reads."""
    project = tmp_path / "project"
    for name in ("data", "docs"):
        shutil.copytree(ROOT / name, project / name, ignore=shutil.ignore_patterns("__pycache__"))
    text = (project / "data" / "incidents.yaml").read_text("utf-8")
    (project / "data" / "incidents.yaml").write_text(text[: len(text) // 2] + "\n  - id: [unfinished\n", "utf-8")
    links = IncidentLinks(site_url=SITE, project=str(project))
    record = _record(MATCHING)
    assert links.filter(record) is True
    assert links.filter(_record(ORDINARY)) is True
    assert record.getMessage() == MATCHING
    warned = capsys.readouterr().err.splitlines()
    assert len(warned) == 1, warned
    assert warned[0].startswith("opsmanual.cli.logfilter.IncidentLinks: cannot read its patterns")
    assert "incidents.yaml" in warned[0]


@pytest.mark.parametrize("where", ["published", "package"])
def test_an_option_the_filter_does_not_know_is_ignored_with_one_warning(standalone, where, capsys):
    """A misspelt option in the logging configuration would make dictConfig fail on a TypeError."""
    factory = standalone.IncidentLinks if where == "published" else IncidentLinks
    links = factory(site_url=SITE, siteurl="https://elsewhere.example/")
    record = _record(MATCHING)
    assert links.filter(record) is True
    assert record.getMessage() == f"{MATCHING}{ARROW}{MATCHING_LINK}"
    warned = capsys.readouterr().err.splitlines()
    assert len(warned) == 1 and warned[0].endswith("ignores the options it does not know: siteurl"), warned


def _page_check() -> str:
    """The one-line check the Logs page gives, to run in SGLang's environment before a restart."""
    page = (ROOT / "docs" / "logs.md").read_text("utf-8")
    checks = [line for line in page.splitlines() if "logging.config.dictConfig(json.load(" in line]
    assert len(checks) == 1, checks
    return checks[0]


def test_the_pages_check_catches_a_filter_that_sglang_cannot_import(published, tmp_path):
    """Without the file on the path, dictConfig fails (as it would in every SGLang process); the
    page's check shows it, and shows the link once the file is in place."""
    check = _page_check()
    folder = re.search(r"PYTHONPATH=(\S+) ", check).group(1)
    assert f"{folder}/{LOGGING_CONFIG}" in check
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)  # the page says `python`
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}

    def run(where: Path) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["bash", "-c", check.replace(folder, str(where))],
            cwd=elsewhere,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    missing = tmp_path / "missing"
    missing.mkdir()
    shutil.copy(published / LOGGING_CONFIG, missing / LOGGING_CONFIG)
    result = run(missing)
    assert result.returncode != 0
    assert "Unable to configure filter 'incident_links'" in result.stderr
    assert "No module named 'sglang_incident_links'" in result.stderr
    result = run(published)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip().endswith(f"{MATCHING}{ARROW}{MATCHING_LINK}"), result.stderr


class _Counted:
    """A compiled pattern that counts the characters it is asked to search."""

    def __init__(self, pattern, tally: dict):
        self.pattern, self.tally = pattern, tally

    def search(self, text, pos=0):
        found = self.pattern.search(text, pos)
        self.tally["calls"] += 1
        self.tally["chars"] += (found.end() if found else len(text)) - pos
        self.tally["longest"] = max(self.tally["longest"], len(text))
        return found


class _Message(str):
    """A message that allows only what the filter may do with it: take its first LIMIT characters,
    and append the links."""

    sliced: list

    def __getitem__(self, key):
        assert isinstance(key, slice) and key.start is None and key.stop == LIMIT, key
        self.sliced.append(key)
        return str.__getitem__(self, key)

    def __add__(self, other):
        return str.__add__(self, other)

    def _refuse(self, *args, **kwargs):
        raise AssertionError("the filter read the whole message")

    __contains__ = __iter__ = find = rfind = index = split = splitlines = encode = __len__ = _refuse
    strip = rstrip = lower = replace = startswith = endswith = count = _refuse


class _Record(logging.LogRecord):
    def getMessage(self):
        return self.msg


def _worst(standalone, size: int) -> str:
    """A message of ``size`` characters made to cost the filter most: every pattern's fixed text on
    every line, each line long, and the text a regex such as "A.*B" backtracks over."""
    data = json.loads(standalone.DATA)
    needles = " ".join(p[0] for p in data["patterns"])
    line = (needles + " " + "x" * 2000 + "\r\n") + (needles * 3)[:1000] + "\n"
    return (line * (size // len(line) + 1))[:size]


def test_a_huge_message_costs_the_same_bounded_work_as_its_first_characters(standalone):
    """Counted, not timed: the filter takes the first LIMIT characters of a 4 MB (or 16 MB) message and
    nothing more; its one search for the fixed texts covers them once; each regex runs at most once on
    each line of them."""
    tallies = []
    for size in (4 << 20, 16 << 20):
        links = standalone.IncidentLinks(site_url=SITE)
        regexes = sum(1 for _needle, owners in links._needles for regex, *_rest in owners if regex is not None)
        assert regexes > 0
        tally = {"calls": 0, "chars": 0, "longest": 0}
        regex_tally = {"calls": 0, "chars": 0, "longest": 0}
        links._screen = _Counted(links._screen, tally)
        links._needles = [
            (needle, [(None if r is None else _Counted(r, regex_tally), *rest) for r, *rest in owners])
            for needle, owners in links._needles
        ]
        message = _Message(_worst(standalone, size))
        message.sliced = []
        record = _Record("sglang", logging.INFO, __file__, 1, message, None, None)
        assert links.filter(record) is True
        assert message.sliced == [slice(None, LIMIT)]
        assert ARROW in str.__getitem__(record.msg, slice(size, None))  # linked: the worst case reads every line
        assert tally["chars"] <= LIMIT
        assert regex_tally["longest"] <= LIMIT
        lines = str.__getitem__(message, slice(None, LIMIT)).count("\n") + 1
        assert regex_tally["calls"] <= regexes * lines
        assert regex_tally["chars"] <= regexes * LIMIT
        tallies.append((tally, regex_tally))
    assert tallies[0] == tallies[1]  # four times the message, the same work


def test_filter_never_raises_whatever_it_meets(standalone, capsys):
    """A failure inside the filter (here: a record whose attributes refuse to be set) leaves the
    record to be written, with one warning however often it happens."""
    links = standalone.IncidentLinks(site_url=SITE)

    class Frozen(logging.LogRecord):
        def __setattr__(self, name, value):
            if self.__dict__.get("frozen") and name in ("incident_links", "msg"):
                raise RuntimeError("read-only record")
            super().__setattr__(name, value)

    def frozen():
        record = Frozen("sglang", logging.INFO, __file__, 1, MATCHING, None, None)
        record.frozen = True
        return record

    for _ in range(3):
        assert links.filter(frozen()) is True
    assert links.filter(_record(12345)) is True  # a message that is not text

    class Unprintable(Exception):
        def __str__(self):
            raise ValueError("cannot print")

    class Refusing(str):  # a message whose reading raises an error that cannot be printed
        def __str__(self):
            return self

        def __getitem__(self, key):
            raise Unprintable()

    assert links.filter(_record(Refusing(MATCHING))) is True
    warned = capsys.readouterr().err.splitlines()
    assert len(warned) == 1 and "skipped a record" in warned[0], warned
    # a fresh filter names such an error by its type
    fresh = standalone.IncidentLinks(site_url=SITE)
    assert fresh.filter(_record(Refusing(MATCHING))) is True
    warned = capsys.readouterr().err.splitlines()
    assert len(warned) == 1 and "Unprintable" in warned[0], warned


def test_a_filter_without_patterns_answers_nothing_from_its_public_methods(standalone, capsys):
    """annotation() and matches(), which the module documents, answer nothing (never raise) when the
    patterns could not be read."""
    broken = standalone.IncidentLinks(site_url=SITE, data="{not json")
    assert broken.annotation(MATCHING) == "" and broken.matches(MATCHING) == []
    assert len(capsys.readouterr().err.splitlines()) == 1


# --- The package's filter (opsmanual.cli.logfilter), on the same records --------------------------


@pytest.fixture(scope="module")
def links():
    return IncidentLinks(site_url=SITE)


def _record(message, *args) -> logging.LogRecord:
    return logging.LogRecord("sglang", logging.INFO, __file__, 1, message, args or None, None)


def test_every_held_out_line_gets_its_incident_and_ordinary_lines_nothing(links):
    missed, wrong = [], []
    for item in LOG_LINES:
        record = _record(item["line"].replace("%", "%%"))
        assert links.filter(record) is True
        text = record.getMessage()
        if not item["expect"]:
            if ARROW in text:
                wrong.append(text)
            continue
        if ARROW not in text:
            missed.append(item["line"])
            continue
        tail = text.split(ARROW, 1)[1]
        assert tail.startswith(SITE)
    assert not wrong, wrong
    assert len(missed) <= 0.1 * sum(1 for item in LOG_LINES if item["expect"]), missed


def test_a_record_is_annotated_once_even_through_two_handlers(links):
    record = _record(MATCHING)
    links.filter(record)
    links.filter(record)
    assert record.getMessage().count(ARROW) == 1


def test_a_record_whose_format_is_broken_passes_untouched(links):
    record = _record("Failed to select PD pair: %d", "not a number")
    assert links.filter(record) is True
    assert record.msg == "Failed to select PD pair: %d"


def test_a_traceback_in_the_message_is_searched_line_by_line(links):
    record = _record(
        'Scheduler hit an exception: Traceback (most recent call last):\n  File "x.py", line 1\n'
        "RuntimeError: Decode out of memory. Try to lower your batch size."
    )
    links.filter(record)
    assert ARROW in record.getMessage()


def test_the_filter_works_with_a_plain_handler(links):
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(links)
    logger = logging.getLogger("test-logfilter")
    logger.propagate = False
    logger.addHandler(handler)
    logger.error(MATCHING)
    logger.error("nothing to see")
    logger.removeHandler(handler)
    assert stream.getvalue().splitlines() == [f"{MATCHING}{ARROW}{MATCHING_LINK}", "nothing to see"]


def test_a_line_that_carries_its_cause_links_the_cause_first(standalone, published):
    """SGLang's capture failure carries the CUDA error that made it fail: the filter links that error's
    entry first, as triage does, and the capture failure after it."""
    line = "Exception: Capture cuda graph failed: CUDA error: an illegal memory access was encountered"
    links = standalone.IncidentLinks(site_url=SITE).annotation(line).removeprefix(ARROW).split(" , ")
    assert links == [f"{SITE}errors/#cuda-illegal-memory-access", f"{SITE}errors/#cuda-graph-capture-failed"]
    assert json.loads(standalone.DATA)["consequences"]  # the published data says which lines they are
