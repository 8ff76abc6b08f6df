"""What every speed figure shares: timing (best, median, alternating runs), running commands, the
synthetic projects (1,000 incidents for the build and the exposure check, 5,000 for the finder),
Chromium (serving a folder, opening a page) and the Bench record each figure module registers."""

from __future__ import annotations

import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from opsmanual.data.loader import load_manual  # noqa: E402
from opsmanual.data.site import load_site  # noqa: E402
from opsmanual.render import html as render  # noqa: E402

PY = sys.executable
ENV = dict(os.environ, NO_MKDOCS_2_WARNING="1")


def best(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(fn) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of ``fn``, which runs commands and waits for them: the CPU time
    is what those commands used (user and system), which other work on the machine does not inflate
    the way it inflates the wall time."""
    cpu, start = _children_cpu(), time.perf_counter()
    fn()
    return time.perf_counter() - start, _children_cpu() - cpu


def side_by_side(first, second, runs: int, clock: str = "wall") -> tuple[float, float]:
    """Best times of two commands, run alternately so that both see the same machine."""
    first_time, second_time = alternately([first, second], runs, clock)
    return first_time, second_time


def alternately(commands, runs: int, clock: str = "wall") -> list[float]:
    """Best times of several commands, run in turn so that all see the same machine: their wall
    time, or with clock="cpu" the CPU time of the commands they run (timed())."""
    k = 1 if clock == "cpu" else 0
    return [min(t[k] for t in seen) for seen in alternate_times(commands, runs)]


def alternate_times(commands, runs: int) -> list[list[tuple[float, float]]]:
    """Every (wall, CPU) time of several commands, run in turn ``runs`` times (see timed())."""
    times: list[list[tuple[float, float]]] = [[] for _ in commands]
    for _ in range(runs):
        for fn, seen in zip(commands, times, strict=False):
            seen.append(timed(fn))
    return times


def median(values) -> float:
    return statistics.median(values)


def load() -> str:
    """The machine's load averages (1, 5 and 15 minutes), for a figure's detail."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "load unknown"
    return f"load {one:.1f} {five:.1f} {fifteen:.1f}"


def run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, ok=(0,)):
    result = subprocess.run(cmd, cwd=cwd, env=ENV, stdout=stdout, stderr=subprocess.PIPE, text=True)
    if result.returncode not in ok:
        raise SystemExit(f"bench: {' '.join(map(str, cmd))} failed:\n{result.stderr[-2000:]}")
    return result


def project():
    manual = load_manual(ROOT)
    return manual.site, manual.incidents


def ripgrep() -> str | None:
    return shutil.which("rg")


def builder(project_dir: Path, out: Path, strict: bool = True):
    # The plain builds lose the anchors that the macros make, so they run without --strict.
    flags = ["--strict"] if strict else ["--no-strict"]
    return lambda: run([PY, "-m", "mkdocs", "build", *flags, "--site-dir", str(out)], cwd=project_dir)


def synthetic_project(tmp: Path, count: int) -> Path:
    """A copy of the manual whose data holds ``count`` synthetic incidents, told on its section pages,
    made once per run and count (every figure that needs it shares it)."""
    final = tmp / f"synthetic-{count}"
    if final.exists():
        return final
    dest = tmp / f"synthetic-{count}.part"  # renamed once whole
    dest.mkdir()
    for name in ("mkdocs.yml", "data", "macros", "opsmanual", "includes", "overrides"):
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, dest / name)
    shutil.copytree(ROOT / "docs", dest / "docs")
    site = load_site(ROOT / "data" / "manual.yaml", ROOT / "docs")
    numbers = list(site.sections)
    rng = random.Random(11)
    statuses = list(render.STATUS_LABELS)
    out, told = ["# yaml-language-server: $schema=./incidents.schema.json"], {n: [] for n in numbers}
    for k in range(count):
        sec = numbers[k % len(numbers)]
        ident = f"capture-synthetic-{k}"
        told[sec].append(ident)
        out += [
            f"- id: {ident}",
            f"  name: Synthetic incident {k} (log)",
            f"  title: Synthetic incident number {k}",
            f"  symptom: The server printed warning {rng.randint(1, 10**6)} under load `--flag-{k % 50}`",
            f"  cause: A cause that stands for cause {k}",
            f"  fix: Set `--option-{k % 30} {k}`",
            f"  status: {statuses[k % len(statuses)]}",
            "  evidence: sources",
            *(
                {
                    "fixed": ['  fixed_in: [{version: "0.5.22"}]'],
                    "workaround": [f"  workaround: Set `--option-{k % 30}`"],
                }.get(statuses[k % len(statuses)], [])
            ),
            '  checked: "2026-10-16"',
            f'  sections: ["{sec}"]',
            "  hardware: [L4]",
            "  components: [scheduler]",
            (
                '  exposure: {versions: [{product: sglang, unknown: true}], when: {flag: {name: "--tp-size", min: 2}}}'
                if k % 2 == 0
                else '  exposure: {not_configuration: "A synthetic incident with no launch setting."}'
            ),
            "  sources:",
            "    - {kind: capture, path: capture/out/server-default.log}",
        ]
    (dest / "data" / "incidents.yaml").write_text("\n".join(out) + "\n", "utf-8")
    # The synthetic data replaces the real incidents, so it publishes its own ids, and the common
    # errors point at none of the real ones.
    (dest / "data" / "published-ids.txt").write_text("".join(f"capture-synthetic-{k}\n" for k in range(count)), "utf-8")
    guidance = dest / "data" / "guidance.yaml"
    guidance.write_text(re.sub(r"(?m)^  related: \[.*\]$", "  related: []", guidance.read_text("utf-8")), "utf-8")
    (dest / "data" / "redirects.yaml").write_text("{}\n", "utf-8")
    metrics = dest / "data" / "metrics.yaml"  # the alert rules lead to synthetic incidents
    metrics.write_text(
        re.sub(r"(?m)^    incident: .*$", "    incident: capture-synthetic-0", metrics.read_text("utf-8")), "utf-8"
    )
    for number, section in site.sections.items():
        text = f'---\nsection: "{number}"\n---\n\nA synthetic section page.\n\n{{{{ callout() }}}}\n\n## Incidents\n\n'
        text += "".join(f'{{{{ story("{i}") }}}}\n\nA story.\n\n' for i in told[number])
        (dest / "docs" / section.page).write_text(text, "utf-8")
    dest.rename(final)
    return final


_REAL_STORIES: dict = {}


def real_stories(tmp: Path) -> dict:
    """The manual's own stories, read from the section pages as a build reads them (for realistic
    story text)."""
    if not _REAL_STORIES:
        from mkdocs.config import load_config

        from opsmanual.site.state import BuildState

        config = load_config(str(ROOT / "mkdocs.yml"))
        state = BuildState.load(
            ROOT, ROOT / "docs", None, None, markdown=(list(config["markdown_extensions"]), dict(config["mdx_configs"]))
        )
        for inc in state.incidents:
            _REAL_STORIES[inc.id] = state.stories_of(inc)
    return _REAL_STORIES


def finder_site(tmp: Path, count: int) -> Path:
    """A standalone incidents page with ``count`` synthetic incidents (the real ones, varied, with
    their real stories), its finder.json, and the manual's CSS and scripts: what the finder loads."""
    import json

    import markdown

    from opsmanual.render.stories import Story

    site, incidents = project()
    stories = real_stories(tmp)
    rng = random.Random(5)
    words = (
        "kv cache pool retract scheduler prefill decode graph memory router health metrics "
        "detokenizer token latency throughput mooncake hicache radix speculative grammar"
    ).split()
    many, told = [], {}
    for k in range(count):
        base = incidents[k % len(incidents)]
        extra = " ".join(rng.choice(words) for _ in range(8))
        inc = replace(base, id=f"{base.id}-{k}", name=f"{base.name} #{k}", symptom=f"{base.symptom} {extra}")
        many.append(inc)
        told[inc.id] = [Story(inc.id, s.section, s.page_url, "", f"{s.text} {extra}") for s in stories.get(base.id, [])]
    dest = tmp / f"finder-{count}"
    page = dest / "incidents" / "index.html"
    page.parent.mkdir(parents=True)
    data = render.finder_data(many, site, told, load_manual(ROOT).synonyms)
    (page.parent / render.FINDER_DATA).write_text(json.dumps(data, separators=(",", ":")), "utf-8")
    from opsmanual.site import markdown as page_md

    body = render.finder(many, site) + "\n\n" + page_md.incident_table(render.incident_table(many, site, "../"))
    html = markdown.markdown(body, extensions=["attr_list", "md_in_html", "tables"])
    shutil.copytree(ROOT / "docs" / "javascripts", dest / "javascripts")
    shutil.copytree(ROOT / "docs" / "stylesheets", dest / "stylesheets")
    material = (
        next((ROOT / "site" / "assets" / "stylesheets").glob("main.*.min.css"), None)
        if (ROOT / "site").exists()
        else None
    )
    links = '<link rel="stylesheet" href="../stylesheets/manual.css">'
    if material:
        shutil.copy2(material, dest / "stylesheets" / material.name)
        links += f'<link rel="stylesheet" href="../stylesheets/{material.name}">'
    page.write_text(
        f"<!doctype html><html><head><meta charset='utf-8'>{links}</head>"
        f"<body><article class='md-typeset'><h1>Incidents</h1>{html}</article>"
        f"<script type='module' src='../javascripts/manual.js'></script></body></html>",
        "utf-8",
    )
    return dest


def serve_dir(directory: Path):
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(directory)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


def page_result(page_dir: Path, timeout: int) -> dict:
    """Serve ``page_dir``, open its index.html in Chromium and return what the page leaves in
    ``window.__result`` (the in-browser figures: the exposure check, the diagnosis)."""
    from playwright.sync_api import sync_playwright

    httpd, url = serve_dir(page_dir)
    try:
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page()
            page.goto(f"{url}index.html")
            page.wait_for_function("window.__result !== undefined", timeout=timeout)
            result = page.evaluate("window.__result")
            browser.close()
    finally:
        httpd.shutdown()
    return result


def launch(p):
    """The machine's Chromium, started as every browser figure starts it (``p``: sync Playwright)."""
    return p.chromium.launch(
        executable_path=chromium(), args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
    )


def browser_page(p, **options):
    browser = launch(p)
    return browser, browser.new_page(viewport={"width": 1300, "height": 900}, **options)


def real_site(tmp: Path) -> Path:
    """The manual, built once for the page-weight figures (or the build SGM_BENCH_SITE names: the
    test run's own, for the smoke run)."""
    given = os.environ.get("SGM_BENCH_SITE")
    if given and (Path(given) / "index.html").is_file():
        return Path(given)
    out = tmp / "site-real"
    if not out.exists():
        builder(ROOT, out)()
    return out


EXPOSURE_COMMAND = [
    "SGLANG_ENABLE_JIT_DEEPGEMM=0",
    "python",
    "-m",
    "sglang.launch_server",
    "--model-path",
    "Qwen/Qwen3-Next-80B-A3B-Instruct",
    "--tp",
    "4",
    "--enable-mixed-chunk",
    "--host",
    "0.0.0.0",
]  # a command the exposure check reads, never run
EXPOSURE_WHEN = [  # a mix of every condition kind, with flags SGLang 0.5.22 has
    "{flag: {name: --tp-size, min: %d}}",
    "{all: [{flag: {name: --enable-mixed-chunk, present: true}}, {gpu: {architecture: [ada, hopper]}}]}",
    "{any: [{model: {trait: moe}}, {env: {name: SGLANG_SYNTHETIC_%d, present: true}}]}",
    "{not: {deployment: {pd_role: [prefill]}}}",
    "{all: [{program: sglang}, {flag: {name: --disable-radix-cache, absent: true}}, {gpu: {compute_capability: {min: '8.0'}}}]}",
]


def exposure_project(tmp: Path, count: int) -> Path:
    """A copy of the manual's data with ``count`` synthetic incidents that carry exposure conditions,
    made once per run and count (every figure that needs it shares it)."""
    final = tmp / f"exposure-{count}"
    if final.exists():
        return final
    dest = tmp / f"exposure-{count}.part"  # renamed once whole
    for name in ("data", "docs"):
        shutil.copytree(ROOT / name, dest / name)
    out = ["", "# synthetic incidents for the exposure benchmark"]
    for k in range(count):
        when = EXPOSURE_WHEN[k % len(EXPOSURE_WHEN)]
        when = when % (1 + k % 8) if "%d" in when else when
        out += [
            f"- id: capture-exposure-{k}",
            f"  name: Synthetic exposure incident {k} (log)",
            f"  title: Synthetic exposure incident number {k}",
            f"  symptom: A symptom that stands for symptom {k}",
            f"  cause: A cause that stands for cause {k}",
            "  fix: A fix",
            "  status: guidance",
            "  evidence: sources",
            '  checked: "2026-10-16"',
            '  sections: ["3.2"]',
            "  sources:",
            "    - {kind: capture, path: capture/out/server-default.log}",
            "  exposure:",
            "    versions: [{product: sglang, introduced: '0.5.16', fixed: '0.5.23', kind: bug}]",
            f"    when: {when}",
        ]
    path = dest / "data" / "incidents.yaml"
    path.write_text(path.read_text("utf-8") + "\n".join(out) + "\n", "utf-8")
    dest.rename(final)
    return final


@dataclass(frozen=True)
class Bench:
    label: str  # what the figure is
    what: str  # what is measured, for the How fast page
    against: str  # its baseline
    op: str  # ">=" or "<=": the goal's direction
    goal: float
    unit: str  # "x" for ratios, " ms" for times
    run: Callable  # (tmp, smoke, runs, args) -> (value, detail)
    needs: tuple[str, str] | None = None  # (command, its package) the baseline runs, when not always installed

    def missing(self) -> str | None:
        """Why the figure cannot be measured here (its baseline's tool is not installed), or None."""
        return f"{self.needs[1]} not installed" if self.needs and not shutil.which(self.needs[0]) else None


def machine() -> dict:
    """What the figures were measured on."""
    import platform

    cpu = (
        next(
            (
                line.split(":", 1)[1].strip()
                for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")
            ),
            platform.processor(),
        )
        if Path("/proc/cpuinfo").exists()
        else platform.processor()
    )

    def version(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.splitlines()[0].strip()
        except (OSError, IndexError, subprocess.SubprocessError):
            return None

    return {
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "arch": platform.machine(),
        "os": platform.system(),
        "python": platform.python_version(),
        "grep": version(["grep", "--version"]),
        "ripgrep": version([ripgrep(), "--version"]) if ripgrep() else None,
        "chromium": version([chromium(), "--version"]),
    }


def chromium() -> str:
    return os.environ.get("CHROMIUM") or next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")) if p),
        "/usr/bin/chromium",
    )
