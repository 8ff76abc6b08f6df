"""The manual's benchmarks: each figure is measured side by side with its baseline in one run,
or against a fixed budget in milliseconds.

    make bench                 (or: .venv/bin/python bench/bench.py [--only NAME] [--size-mb N] [--smoke])

The benchmarks, their baselines and their goals are listed in BENCHES below; a
full run writes them to bench/results.json, which the How fast page shows. A
benchmark whose baseline tool is not installed (ripgrep) is skipped with one line.
--smoke runs every one of them at tiny sizes, so that `make test` notices a
benchmark that no longer runs (its figures are not judged).

Times are the best of several runs (min), which is the least noisy estimate of
what the code costs on an otherwise idle machine, unless a benchmark says
otherwise. Everything is written to a temporary folder and removed afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
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


def side_by_side(first, second, runs: int) -> tuple[float, float]:
    """Best times of two commands, run alternately so that both see the same machine."""
    first_time, second_time = alternately([first, second], runs)
    return first_time, second_time


def alternately(commands, runs: int) -> list[float]:
    """Best times of several commands, run in turn so that all see the same machine."""
    times = [[] for _ in commands]
    for _ in range(runs):
        for fn, seen in zip(commands, times, strict=False):
            seen.append(best(fn, 1))
    return [min(seen) for seen in times]


def run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, ok=(0,)):
    result = subprocess.run(cmd, cwd=cwd, env=ENV, stdout=stdout, stderr=subprocess.PIPE, text=True)
    if result.returncode not in ok:
        raise SystemExit(f"bench: {' '.join(map(str, cmd))} failed:\n{result.stderr[-2000:]}")
    return result


def project():
    manual = load_manual(ROOT)
    return manual.site, manual.incidents


# --- 1. triage against grep and ripgrep -------------------------------------

# Text a real server log holds besides the scheduler's lines: prompts in several scripts (logged by
# --log-requests, whole requests on one line) and a launcher banner drawn with emoji.
PROMPTS = [
    "请用三句话解释一下什么是KV缓存，以及为什么它会被占满。",
    "東京の天気を教えてください。明日は雨が降りますか？",
    "대규모 언어 모델의 추론 속도를 높이는 방법은 무엇인가요?",
    "Объясни, пожалуйста, как работает спекулятивное декодирование.",
    "ما هو الفرق بين التدريب والاستدلال في نماذج اللغة؟",
    "कृपया इस लेख का सारांश हिंदी में लिखें।",
    "Γράψε ένα σύντομο ποίημα για τη θάλασσα.",
    "ช่วยแปลประโยคนี้เป็นภาษาอังกฤษหน่อยครับ",
    "Résumé: le modèle a répondu « trop tard » après 3 s d'attente — pourquoi ?",
    "Write a haiku about GPUs 🔥🚀 and end it with an emoji 😅",
]
BANNER = [
    "🚀 SGLang router starting",
    "  ✅ policy: cache_aware   🌐 host: 0.0.0.0:30000   👷 workers: 8",
    "  📊 metrics: http://0.0.0.0:29000/metrics   ⏱️ request timeout: 1800 s",
    "✨ router ready: accepting requests ✨",
]
NON_ASCII = 0.0013  # the share of a log's lines that are not ASCII
LONG = 0.002  # the share that are whole requests of several KB


def request_line(rng: random.Random, n: int, prompt: str, size: int) -> str:
    """A request logged by --log-requests: its prompt and its output (in the prompt's language) on one
    line of about ``size`` characters."""
    words = (
        (
            "the scheduler keeps the radix cache warm while decode batches grow and the "
            "KV pool drains slowly under sustained load"
        ).split()
        if prompt.isascii()
        else prompt.split()
    )
    output, length = [], 0
    while length < size:
        output.append(rng.choice(words))
        length += len(output[-1]) + 1
    return (
        f"[2026-10-16 12:{n // 60 % 60:02d}:{n % 60:02d}] Finish: obj=GenerateReqInput(text='{prompt}', "
        f"sampling_params={{'max_new_tokens': 2048, 'temperature': 0.{n % 10}}}, rid='{n:032x}', stream=False), "
        f"out={{'text': '{' '.join(output)}', 'meta_info': {{'id': '{n:032x}', 'finish_reason': "
        f"{{'type': 'length', 'length': 2048}}, 'prompt_tokens': {40 + n % 300}, 'completion_tokens': 2048}}}}"
    )


def log_block(rng: random.Random) -> tuple[bytes, int, int]:
    """One stretch of a server log (about 4 MB) and how many of its lines are not ASCII, and how many
    are requests of several KB."""
    lines = []
    for n in range(20000):
        lines.append(
            f"[2026-10-16 12:{n // 60 % 60:02d}:{n % 60:02d} TP0] Decode batch, #running-req: {n % 64}, "
            f"#token: {n * 7 % 90000}, token usage: 0.{n % 99:02d}, cuda graph: True, "
            f"gen throughput (token/s): {rng.randint(100, 900)}.{n % 100:02d}, #queue-req: {n % 5}"
        )
        if n % 7 == 0:
            lines.append(
                f"[2026-10-16 12:00:00 TP0] Prefill batch, #new-seq: 1, #new-token: {n % 4096}, "
                f"#cached-token: {n % 2048}, token usage: 0.{n % 90:02d}, #running-req: {n % 64}"
            )
    total = len(lines) * (1 + NON_ASCII + LONG)
    extra = [
        request_line(rng, n, "Summarize the following report in one paragraph.", rng.randint(2000, 12000))
        for n in range(round(total * LONG))
    ]
    other = round(total * NON_ASCII)
    for n in range(other):
        if n % 10 == 0:  # a banner line
            extra.append(BANNER[n // 10 % len(BANNER)])
        elif n % 3 == 0:  # a long request whose prompt is not ASCII
            extra.append(request_line(rng, n, rng.choice(PROMPTS), rng.randint(2000, 8000)))
        else:
            prompt = rng.choice(PROMPTS)
            extra.append(
                f"[2026-10-16 12:00:{n % 60:02d}] Receive: obj=GenerateReqInput(text='{prompt}', "
                f"sampling_params={{'max_new_tokens': 512}}, rid='{n:032x}', stream=True)"
            )
    for line in extra:
        lines.insert(rng.randrange(len(lines) + 1), line)
    return ("\n".join(lines) + "\n").encode(), other, sum(len(line) > 2000 for line in extra)


def make_log(path: Path, size: int, incidents) -> str:
    """A server log of ``size`` bytes: ordinary scheduler lines, some long requests and some lines
    that are not ASCII, with the incidents' example lines scattered through it. Returns what it holds."""
    rng = random.Random(7)
    examples = [e for i in incidents for e in i.log_examples]
    block, other, long = log_block(rng)
    lines = block.count(b"\n")
    with path.open("wb") as out:
        written = 0
        while written < size:
            out.write(block)
            written += len(block)
            out.write((rng.choice(examples) + "\n").encode())
    return f"{100 * other / lines:.2f} % of lines non-ASCII, {100 * long / lines:.2f} % of several KB"


def ripgrep() -> str | None:
    return shutil.which("rg")


_TRIAGE_TIMES: dict = {}


def triage_times(tmp: Path, size_mb: int, runs: int) -> dict:
    """The best times of grep -F, rg -F (when installed) and triage on one generated log, run in turn
    so that all three see the same machine. Measured once for both figures."""
    key = (str(tmp), size_mb, runs)
    if key in _TRIAGE_TIMES:
        return _TRIAGE_TIMES[key]
    _, incidents = project()
    log = tmp / "big.log"
    holds = make_log(log, size_mb * 1024 * 1024, incidents)
    literals = tmp / "literals.txt"
    literals.write_text(
        "".join(p.literal + "\n" for i in incidents for p in i.log_patterns if p.literal is not None), encoding="utf-8"
    )
    # All write to a pipe: with its output on /dev/null, GNU grep stops at the first match.
    commands = {
        "grep -F": lambda: run(["grep", "-F", "-c", "-f", str(literals), str(log)], stdout=subprocess.PIPE, ok=(0, 1)),
        "triage": lambda: run([PY, "-m", "macros.triage", "--json", str(log)], stdout=subprocess.PIPE, ok=(0, 1)),
    }
    rg = ripgrep()
    if rg:
        commands["rg -F"] = lambda: run(
            [rg, "--no-config", "-F", "-c", "-f", str(literals), str(log)], stdout=subprocess.PIPE, ok=(0, 1)
        )
    times = dict(zip(commands, alternately(list(commands.values()), runs), strict=False))
    times["size"], times["holds"] = log.stat().st_size / 1e9, holds
    log.unlink()
    os.sync()  # write the disk's backlog now, not during the next benchmark's timings
    _TRIAGE_TIMES[key] = times
    return times


def bench_triage(tmp: Path, size_mb: int, runs: int, against: str) -> tuple[float, str]:
    times = triage_times(tmp, size_mb, runs)
    size, theirs, ours = times["size"], times[against], times["triage"]
    return theirs / ours, (
        f"{size:.2f} GB ({times['holds']}): {against} {theirs:.2f} s ({size / theirs:.2f} GB/s), "
        f"triage {ours:.2f} s ({size / ours:.2f} GB/s)"
    )


# --- 2. the manual's build against a plain build -----------------------------


def plain_config(dest: Path, hooks: list[str] | None = None) -> None:
    """mkdocs.yml without the manual's own machinery (the macros plugin and the hooks):
    the same theme, Markdown extensions, snippets and assets, so that the two builds
    differ only by what the manual adds."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor(
        "!ENV",
        lambda loader, node: (
            (loader.construct_sequence(node) or [None])[-1] if isinstance(node, yaml.SequenceNode) else None
        ),
    )
    config = yaml.load((ROOT / "mkdocs.yml").read_text("utf-8"), Loader=Loader)  # noqa: S506 -- a SafeLoader subclass
    config.pop("hooks", None)
    if hooks:
        config["hooks"] = hooks
    config.pop("watch", None)
    site = load_site(ROOT / "data" / "manual.yaml", ROOT / "docs")
    config["nav"] = site.nav()  # what the hooks would have set
    config["not_in_nav"] = "/incidents/*.md"
    config["plugins"] = [p for p in config.get("plugins", []) if p != "macros" and "macros" not in p]
    config["site_url"] = config.get("site_url") or "http://127.0.0.1:8000/"
    config.pop("repo_url", None)
    (dest / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False), "utf-8")
    for name in ("includes", "overrides"):
        shutil.copytree(ROOT / name, dest / name)


# The whole of the plain builds' machinery: put back the HTML that a page's placeholders stand for.
PLAIN_HOOK = """import json, re
from pathlib import Path

SLOTS = json.loads((Path(__file__).parent / "slots.json").read_text("utf-8"))
SLOT = re.compile(r'<div data-sgm-slot="([0-9]+)"></div>')


def on_page_content(html, page, config, files):
    slots = SLOTS.get(page.file.src_uri)
    return SLOT.sub(lambda m: slots[int(m.group(1))], html) if slots else html
"""


def plain_copy(src_docs: Path, dest: Path, pages: dict[str, dict]) -> Path:
    """A plain project of the same pages: the static files of ``src_docs`` and, for each page,
    the Markdown that the manual's build hands to Markdown; a hook puts the macros' HTML back."""
    shutil.copytree(src_docs, dest / "docs")
    for name, page in pages.items():
        target = dest / "docs" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page["markdown"], "utf-8")
    (dest / "slots.json").write_text(json.dumps({name: page["slots"] for name, page in pages.items()}), "utf-8")
    (dest / "plain_hook.py").write_text(PLAIN_HOOK, "utf-8")
    plain_config(dest, hooks=["plain_hook.py"])
    return dest


def builder(project_dir: Path, out: Path, strict: bool = True):
    # The plain builds lose the anchors that the macros make, so they run without --strict.
    flags = ["--strict"] if strict else ["--no-strict"]
    return lambda: run([PY, "-m", "mkdocs", "build", *flags, "--site-dir", str(out)], cwd=project_dir)


def rendered_pages(project_dir: Path, tmp: Path) -> dict[str, dict]:
    """Every page of a project as its build hands it to Markdown, with the HTML (story cards,
    tables, forms, each incident page's stories) that its placeholders stand for
    (bench/capture_pages.py)."""
    out = tmp / f"rendered-{project_dir.name}.json"
    run(
        [PY, str(ROOT / "bench" / "capture_pages.py"), str(out), str(tmp / f"site-capture-{project_dir.name}")],
        cwd=project_dir,
    )
    return json.loads(out.read_text("utf-8"))


def bench_build(tmp: Path, runs: int) -> tuple[float, str]:
    # The plain build publishes the same content as static pages: every page the manual builds,
    # the macros' output written in. The ratio is then the cost of the machinery, not of the
    # content it adds.
    pages = rendered_pages(ROOT, tmp)
    plain = plain_copy(ROOT / "docs", tmp / "plain", pages)
    # A build keeps the section pages' converted stories in .cache/markdown-pieces.json, and a
    # rebuild converts only what changed: the timed builds are rebuilds, and the first build
    # without that file is reported beside them.
    cold = None
    if runs > 1:  # not in a smoke run: the timed builds below prove the build runs
        (ROOT / ".cache" / "markdown-pieces.json").unlink(missing_ok=True)
        started = time.perf_counter()
        builder(ROOT, tmp / "site-cold")()
        cold = time.perf_counter() - started
    ours, theirs = side_by_side(
        builder(ROOT, tmp / "site-ours"), builder(plain, tmp / "site-plain", strict=False), runs
    )
    count = len(project()[1])
    return ours / theirs, (
        f"manual {ours:.2f} s, plain {theirs:.2f} s, best of {runs} each ({len(pages)} pages in both, "
        f"{count} of them incidents)"
        + (f"; a first build, with no stories converted yet, {cold:.2f} s" if cold is not None else "")
    )


# --- 3. 1,000 synthetic incidents ---------------------------------------------


def synthetic_project(tmp: Path, count: int) -> Path:
    """A copy of the manual whose data holds ``count`` synthetic incidents, told on its section pages."""
    dest = tmp / "synthetic"
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
    return dest


def bench_scale(tmp: Path, count: int, runs: int) -> tuple[float, str]:
    synthetic = synthetic_project(tmp, count)
    pages = rendered_pages(synthetic, tmp)
    plain = plain_copy(synthetic / "docs", tmp / "plain-n", pages)
    ours, theirs = side_by_side(
        builder(synthetic, tmp / "site-synthetic"), builder(plain, tmp / "site-plain-n", strict=False), runs
    )
    return ours / theirs, (
        f"{count} incidents: manual {ours:.2f} s, the same {len(pages)} pages as a plain build {theirs:.2f} s"
    )


# --- 4. the finder: keystrokes, loading the index, long tasks, hostile input ------

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
            browser = p.chromium.launch(
                executable_path=chromium(), args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
            )
            page = browser.new_page()
            page.goto(f"{url}index.html")
            page.wait_for_function("window.__result !== undefined", timeout=timeout)
            result = page.evaluate("window.__result")
            browser.close()
    finally:
        httpd.shutdown()
    return result


def browser_page(p, **options):
    browser = p.chromium.launch(
        executable_path=chromium(), args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
    )
    return browser, browser.new_page(viewport={"width": 1300, "height": 900}, **options)


MEASURE = """
(() => {
  window.__lat = [];
  window.__shown = [];
  let t0 = 0;
  window.addEventListener("keydown", (e) => { t0 = e.timeStamp; }, true);
  window.addEventListener("input", () => {
    document.body.getBoundingClientRect();           // style and layout of the next frame
    window.__lat.push(performance.now() - t0);
  });
  // when the ranked rows of a keystroke's query are on screen (the finder measures it)
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.name === "sgm-finder-shown") window.__shown.push(e.duration);
  }).observe({ type: "measure" });
})();
"""


def bench_finder(tmp: Path, count: int, rounds: int = 3, queries: int | None = None) -> tuple[float, str]:
    """Keystroke to paint, p95: the time from a key's event to the style and layout of the next
    frame, for queries typed 30 ms apart; beside it, the same typing into a bare input on an empty
    page (what this machine and browser cost anyway), and when the ranked rows came on screen."""
    from playwright.sync_api import sync_playwright

    site_dir = finder_site(tmp, count)
    (site_dir / "bare.html").write_text("<!doctype html><html><body><input class='sgm-finder__q'></body></html>")
    httpd, url = serve_dir(site_dir)
    typed = ["kv cache", "retract", "mooncake hicache", "server hangs", "zzz", "router timeout", "graph memory"]
    typed = typed[:queries]  # a smoke run types the first few only

    def typing(page):
        page.evaluate(MEASURE)
        page.focus(".sgm-finder__q")
        for _ in range(rounds):
            for q in typed:
                page.keyboard.type(q, delay=30)
                page.wait_for_timeout(300)  # a reader's pause: the ranked rows come on screen
                page.keyboard.press("Escape")
        page.wait_for_timeout(500)
        return page.evaluate("window.__lat"), page.evaluate("window.__shown")

    try:
        with sync_playwright() as p:
            browser, page = browser_page(p)
            page.goto(f"{url}bare.html")
            floor, _ = typing(page)
            page.goto(f"{url}incidents/")
            page.wait_for_selector(".sgm-finder[data-ready]")
            latencies, shown = typing(page)
            browser.close()
    finally:
        httpd.shutdown()
    p95 = statistics.quantiles(latencies, n=20)[18]
    floor95 = statistics.quantiles(floor, n=20)[18]
    results = (
        f"; after the last key of a query, its ranked rows (searched in a worker, shown once typing "
        f"pauses) were on screen after median {statistics.median(shown):.0f} ms, p95 "
        f"{statistics.quantiles(shown, n=20)[18]:.0f} ms"
        if len(shown) >= 2
        else ""
    )
    return p95, (
        f"{count} incidents with story text, {len(latencies)} keystrokes, "
        f"median {statistics.median(latencies):.1f} ms; a bare input on an empty page: p95 {floor95:.1f} ms"
        f"{results}"
    )


def bench_finder_index(tmp: Path, count: int, runs: int) -> tuple[float, str]:
    """Loading the finder's data and its search index (fetch, parse, MiniSearch.loadJS)."""
    from playwright.sync_api import sync_playwright

    site_dir = finder_site(tmp, count)
    size = (site_dir / "incidents" / "finder.json").stat().st_size
    httpd, url = serve_dir(site_dir)
    times = []
    try:
        with sync_playwright() as p:
            browser, page = browser_page(p)
            page.goto(f"{url}incidents/")
            page.wait_for_selector(".sgm-finder[data-ready]")
            on_load = page.evaluate("performance.getEntriesByName('sgm-finder-index')[0].duration")
            for _ in range(max(runs, 5)):  # a fresh search, started once the page is idle
                times.append(
                    page.evaluate("""async () => {
                  const { searchClient } = await import('../javascripts/sgm/search-client.js');
                  const started = performance.now();
                  const client = await searchClient(new URL('finder.json', location.href));
                  await client.ready;
                  const took = performance.now() - started;
                  client.close();
                  return took;
                }""")
                )
            browser.close()
    finally:
        httpd.shutdown()
    return statistics.median(times), (
        f"{count} incidents, finder.json {size / 1e6:.2f} MB: start the worker, fetch, "
        f"parse, load the index; median of {len(times)} "
        f"({', '.join(f'{t:.0f}' for t in times)} ms); {on_load:.0f} ms while the page "
        "itself was loading"
    )


LONGTASKS = """
window.__longest = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
}).observe({ type: "longtask", buffered: true });
"""


def bench_longtask(tmp: Path, count: int, runs: int) -> tuple[float, str]:
    """The longest main-thread task while /incidents/ loads, against the About page of the same
    site (a build with ``count`` synthetic incidents), best of several loads each."""
    from playwright.sync_api import sync_playwright

    out = tmp / f"site-synthetic-{count}"
    if not out.exists():
        project_dir = synthetic_project(tmp, count) if not (tmp / "synthetic").exists() else tmp / "synthetic"
        builder(project_dir, out)()
    httpd, url = serve_dir(out)
    longest = {"incidents/": [], "about/": []}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=chromium(), args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
            )
            for _ in range(runs if runs == 1 else max(runs, 3)):  # a smoke run (runs=1) loads each page once
                for path, times in longest.items():
                    page = browser.new_page(viewport={"width": 1300, "height": 900})
                    page.add_init_script(LONGTASKS)
                    page.goto(url + path)
                    page.wait_for_load_state("networkidle")
                    if path.startswith("incidents"):
                        page.wait_for_selector(".sgm-finder[data-ready]")
                    page.wait_for_timeout(300)
                    times.append(page.evaluate("window.__longest"))
                    page.close()
            browser.close()
    finally:
        httpd.shutdown()
    ours, about = min(longest["incidents/"]), min(longest["about/"])
    return ours / max(about, 1.0), f"{count} incidents: /incidents/ {ours:.0f} ms, /about/ {about:.0f} ms"


PAGE_TYPES = {
    "home": "",
    "incidents": "incidents/",
    "incident": "incidents/sglang-36889/",
    "section": "part-2/2-3-retraction/",
    "check": "check/",
    "about": "about/",
}


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


def bench_page_bytes(tmp: Path) -> tuple[float, str]:
    """Every byte each page type loads in Chromium, its workers' fetches included (the header search
    index among them), uncompressed as the test server sends it; the figure is the home page's."""
    from playwright.sync_api import sync_playwright

    httpd, url = serve_dir(real_site(tmp))
    weights = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=chromium(), args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
            )
            for name, path in PAGE_TYPES.items():
                context = browser.new_context(viewport={"width": 1300, "height": 900})
                sizes = []
                context.on(
                    "requestfinished", lambda request, sizes=sizes: sizes.append(request.sizes()["responseBodySize"])
                )
                page = context.new_page()
                page.goto(url + path)
                page.wait_for_load_state("networkidle")
                page.wait_for_timeout(300)
                weights[name] = sum(sizes) / 1024
                context.close()
            browser.close()
    finally:
        httpd.shutdown()
    detail = ", ".join(f"{name} {kb:,.0f} KB" for name, kb in weights.items())
    return weights["home"], detail


CLS = """() => new Promise(resolve => {
  let total = 0;
  new PerformanceObserver(list => { for (const e of list.getEntries()) if (!e.hadRecentInput) total += e.value; })
    .observe({type: "layout-shift", buffered: true});
  setTimeout(() => resolve(total), 1500);
})"""


def bench_cls(tmp: Path, runs: int) -> tuple[float, str]:
    """The cumulative layout shift of /incidents/ while it loads and the finder starts, at a desktop
    and a phone width; the figure is the worse of the two (each the worst of several loads)."""
    from playwright.sync_api import sync_playwright

    httpd, url = serve_dir(real_site(tmp))
    shifts = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=chromium(), args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
            )
            for name, size in (("desktop", (1280, 800)), ("phone", (390, 844))):
                worst = 0.0
                for _ in range(runs if runs == 1 else max(runs, 2)):  # a smoke run (runs=1) loads once
                    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
                    page.goto(url + "incidents/")
                    page.wait_for_selector(".sgm-finder[data-ready]")
                    worst = max(worst, page.evaluate(CLS))
                    page.close()
                shifts[name] = worst
            browser.close()
    finally:
        httpd.shutdown()
    return max(shifts.values()), ", ".join(f"{name} {value:.3f}" for name, value in shifts.items())


def bench_finder_hostile(tmp: Path, count: int) -> tuple[float, str]:
    """The finder's own main-thread work for a 40 KB ?filter= link and for a 1 MB paste of
    repeated words (the longer of the two)."""
    from playwright.sync_api import sync_playwright

    httpd, url = serve_dir(
        finder_site(tmp, count) if not (tmp / f"finder-{count}").exists() else tmp / f"finder-{count}"
    )
    try:
        with sync_playwright() as p:
            browser, page = browser_page(p)
            page.goto(f"{url}incidents/?filter=" + "retract%20" * 4096)
            page.wait_for_selector(".sgm-finder[data-ready]")
            link = page.evaluate("performance.getEntriesByName('sgm-finder-apply').at(-1).duration")
            paste = page.evaluate("""() => {
              const input = document.querySelector('.sgm-finder__q');
              const data = new DataTransfer();
              data.setData('text/plain', 'retract '.repeat(131072));
              const started = performance.now();
              input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
              return performance.now() - started;
            }""")
            browser.close()
    finally:
        httpd.shutdown()
    return max(link, paste), f"40 KB link {link:.1f} ms, 1 MB paste {paste:.1f} ms ({count} incidents)"


# --- 5. and 6. the exposure checker at 1,000 incidents ------------------------

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
    """A copy of the manual's data with ``count`` synthetic incidents that carry exposure conditions."""
    dest = tmp / "exposure"
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
    return dest


def bench_exposure_cli(tmp: Path, count: int, runs: int) -> tuple[float, str]:
    project = exposure_project(tmp, count)
    run(
        [PY, "-m", "compileall", "-q", str(ROOT / "macros"), str(ROOT / "opsmanual")]
    )  # as any checkout has after its first run
    cmd = [PY, "-m", "macros.exposure", "--project", str(project), "--", *EXPOSURE_COMMAND]
    run(cmd, ok=(0, 1))  # the first run builds the cache
    times = sorted(best(lambda: run(cmd, ok=(0, 1)), 1) for _ in range(max(runs, 15)))
    bare = sorted(best(lambda: run([PY, "-c", "pass"]), 1) for _ in range(max(runs, 15)))
    return times[0] * 1000, (
        f"{count} incidents: best {times[0] * 1000:.1f} ms, median "
        f"{times[len(times) // 2] * 1000:.1f} ms; `python -c pass` alone {bare[0] * 1000:.1f} ms"
    )


def bench_upgrade_cli(tmp: Path, count: int, runs: int) -> tuple[float, str]:
    """`upgrade` from 0.5.9 to 0.5.22 with the exposure benchmark's command: two exposure checks (one at
    each release) and the command's options followed through every release's argument list."""
    project = tmp / "exposure" if (tmp / "exposure").exists() else exposure_project(tmp, count)
    run([PY, "-m", "compileall", "-q", str(ROOT / "macros"), str(ROOT / "opsmanual")])
    cmd = [PY, "-m", "opsmanual", "upgrade", "--project", str(project), "--from", "0.5.9", "--to", "0.5.22"]
    cmd += ["--", *EXPOSURE_COMMAND]
    run(cmd, ok=(0, 1))  # the first run builds the caches
    times = sorted(best(lambda: run(cmd, ok=(0, 1)), 1) for _ in range(max(runs, 15)))
    return times[0] * 1000, (
        f"{count} incidents, 0.5.9 to 0.5.22 with a command: best {times[0] * 1000:.1f} ms, "
        f"median {times[len(times) // 2] * 1000:.1f} ms"
    )


EXPOSURE_PAGE = """<!doctype html><meta charset="utf-8"><title>exposure bench</title>
<script type="module">
import { Engine } from "./exposure.js";
const bundle = await (await fetch("bundle.json")).json();
const engine = new Engine(bundle);
const command = %s;
for (let k = 0; k < 50; k++) engine.check(command);
const runs = 300, times = [];
let out;
for (let k = 0; k < runs; k++) {
  const t = performance.now();
  out = engine.check(command);
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
window.__result = {median: times[runs >> 1], p95: times[Math.floor(runs * 0.95)], results: out.results.length,
                   checked: out.checked};
</script>"""


def bench_exposure_js(tmp: Path, count: int) -> tuple[float, str]:
    import json

    from opsmanual.render.bundle import bundle

    project = tmp / "exposure" if (tmp / "exposure").exists() else exposure_project(tmp, count)
    page_dir = tmp / "exposure-page"
    page_dir.mkdir()
    for js in (ROOT / "docs" / "javascripts" / "sgm").glob("*.js"):
        shutil.copy2(js, page_dir / js.name)
    (page_dir / "bundle.json").write_text(json.dumps(bundle(load_manual(project), project / "data")), "utf-8")
    (page_dir / "index.html").write_text(EXPOSURE_PAGE % json.dumps(" ".join(EXPOSURE_COMMAND)), "utf-8")

    result = page_result(page_dir, timeout=60000)
    return result["median"], (
        f"{result['checked']} incidents checked, {result['results']} reported; "
        f"median {result['median']:.2f} ms, p95 {result['p95']:.2f} ms per command"
    )


def bench_logfilter(records: int, runs: int) -> tuple[float, str]:
    """The logging filter's cost on records that match no incident: the ordinary lines of
    tests/log_lines.yaml, without the time and rank prefix SGLang's formatter adds."""
    import logging

    import yaml

    from opsmanual.cli.logfilter import ARROW, IncidentLinks

    links = IncidentLinks(site_url="https://manual.example/")
    lines = [
        re.sub(r"^\[[^\]]*\] ", "", item["line"])
        for item in yaml.safe_load((ROOT / "tests" / "log_lines.yaml").read_text("utf-8"))
        if not item["expect"]
    ]

    def fresh() -> list:
        return [
            logging.LogRecord("sglang", logging.INFO, __file__, 1, lines[k % len(lines)], None, None)
            for k in range(records)
        ]

    check = fresh()
    for record in check:
        links.filter(record)
    assert not any(ARROW in r.getMessage() for r in check), "an ordinary line matched an incident"
    per_record = []
    for _ in range(max(runs, 5)):
        batch = fresh()
        start = time.perf_counter()
        for record in batch:
            links.filter(record)
        per_record.append((time.perf_counter() - start) / records * 1e6)
    per_record.sort()
    return per_record[0], (
        f"{records:,} records of {len(lines)} ordinary SGLang lines: best {per_record[0]:.2f} \u00b5s, "
        f"median {per_record[len(per_record) // 2]:.2f} \u00b5s per record"
    )


def bench_follow(tmp: Path, lines: int) -> tuple[float, str]:
    """`triage --follow`: the time from a line's write to the log to its report on standard output,
    one matching line every 10 ms (the 95th percentile; the slowest in the detail)."""
    log = tmp / "follow.log"
    log.write_text("", "utf-8")
    proc = subprocess.Popen(
        [PY, "-m", "macros.triage", "--follow", "--json", str(log)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "SITE_URL": "https://manual.example/"},
    )
    try:
        ready = proc.stderr.readline().decode()
        assert "following" in ready, ready
        line = "[2026-05-01 08:00:00] Failed to select PD pair: Failed to select worker pair\n"
        waits = []
        with log.open("a", encoding="utf-8") as handle:
            for _ in range(lines):
                handle.write(line)
                handle.flush()
                start = time.perf_counter()
                report = proc.stdout.readline()
                waits.append((time.perf_counter() - start) * 1000)
                assert b"sglang-10608" in report, report
                time.sleep(0.01)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    waits.sort()
    p95 = waits[min(len(waits) - 1, int(len(waits) * 0.95))]
    return p95, (
        f"{lines} lines, one every 10 ms: median {waits[len(waits) // 2]:.1f} ms, p95 {p95:.1f} ms, "
        f"slowest {waits[-1]:.1f} ms from write to report"
    )


# --- The runner -------------------------------------------------------------------


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


DIAGNOSE_HEAD = """The server hangs after a while with huge prompts and hierarchical cache on; health checks fail.

python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 \\
  --mem-fraction-static 0.8 --enable-hierarchical-cache

sglang: 0.5.18
PyTorch: 2.8.0+cu128
GPU 0,1,2,3,4,5,6,7: NVIDIA H100 80GB HBM3
"""


def diagnose_report(size: int) -> str:
    """A report of ``size`` bytes: words, a command, an environment, then a serving log ending in an error."""
    rng = random.Random(7)
    lines = [DIAGNOSE_HEAD]
    total = len(DIAGNOSE_HEAD)
    n = 0
    while total < size - 300:
        line = (
            f"[2026-10-16 10:{n // 60 % 60:02d}:{n % 60:02d} TP0] Decode batch, "
            f"#running-req: {rng.randint(1, 64)}, "
            f"#token: {rng.randint(1000, 90000)}, token usage: 0.{rng.randint(10, 99)}, cuda graph: True, "
            f"gen throughput (token/s): {rng.uniform(100, 900):.2f}, #queue-req: {rng.randint(0, 9)}\n"
        )
        lines.append(line)
        total += len(line)
        n += 1
    lines.append(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 32.00 MiB. GPU 0 has a total "
        "capacity of 79.11 GiB of which 13.00 MiB is free.\n"
    )
    return "".join(lines)


def bench_diagnose(tmp: Path, count: int, runs: int) -> tuple[float, str]:
    """The diagnosis engine (what `python -m macros.diagnose` runs) on a 200 KB report, with the
    manual's incidents and with ``count`` synthetic ones added; the bundles are loaded beforehand."""
    sys.path.insert(0, str(ROOT))
    from opsmanual.cli.diagnose import load_bundles
    from opsmanual.engines.diagnose import Diagnoser

    report = diagnose_report(200_000)
    figures = []
    for project in (ROOT, tmp / "exposure" if (tmp / "exposure").exists() else exposure_project(tmp, count)):
        bundle, exposure = load_bundles(str(project), None)
        engine = Diagnoser(bundle, exposure)
        engine.diagnose(report)
        times = sorted(best(lambda engine=engine: engine.diagnose(report), 1) for _ in range(max(runs, 5)))
        figures.append((len(bundle["incidents"]), times[0] * 1000, times[len(times) // 2] * 1000))
    (n0, best0, med0), (n1, best1, med1) = figures
    return med1, (
        f"200 KB report: {n0} incidents best {best0:.1f} ms, median {med0:.1f} ms (target 100 ms); "
        f"{n1} incidents best {best1:.1f} ms, median {med1:.1f} ms"
    )


DIAGNOSE_PAGE = """<!doctype html><meta charset="utf-8"><title>diagnose bench</title>
<script type="module">
import { Diagnoser } from "./diagnose.js";
const load = async (name) => (await fetch(name)).json();
const report = await (await fetch("report.txt")).text();
const out = {};
for (const set of ["manual", "more"]) {
  const engine = new Diagnoser(await load(`${set}-diagnose.json`), await load(`${set}-exposure.json`));
  for (let k = 0; k < 3; k++) engine.diagnose(report);
  const runs = %d, times = [];
  let answer;
  for (let k = 0; k < runs; k++) {
    const t = performance.now();
    answer = engine.diagnose(report);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  out[set] = {incidents: engine.incidents.length, best: times[0], median: times[runs >> 1],
              results: answer.results.length};
}
window.__result = out;
</script>"""


def bench_diagnose_js(tmp: Path, count: int, runs: int) -> tuple[float, str]:
    """The browser's diagnosis engine (docs/javascripts/sgm/diagnose.js) in headless Chromium on the
    same 200 KB report, the manual's incidents and ``count`` synthetic ones added."""
    import json

    sys.path.insert(0, str(ROOT))
    from opsmanual.render.bundle import bundle
    from opsmanual.render.diagnose import from_manual

    page_dir = tmp / "diagnose-page"
    page_dir.mkdir()
    for js in (ROOT / "docs" / "javascripts" / "sgm").glob("*.js"):
        shutil.copy2(js, page_dir / js.name)
    more = tmp / "exposure" if (tmp / "exposure").exists() else exposure_project(tmp, count)
    for name, project in (("manual", ROOT), ("more", more)):
        manual = load_manual(project)
        (page_dir / f"{name}-diagnose.json").write_text(json.dumps(from_manual(manual)), "utf-8")
        (page_dir / f"{name}-exposure.json").write_text(json.dumps(bundle(manual, project / "data")), "utf-8")
    (page_dir / "report.txt").write_text(diagnose_report(200_000), "utf-8")
    (page_dir / "index.html").write_text(DIAGNOSE_PAGE % max(runs, 15), "utf-8")

    result = page_result(page_dir, timeout=120000)
    m, x = result["manual"], result["more"]
    return x["median"], (
        f"200 KB report in Chromium: {m['incidents']} incidents best {m['best']:.1f} ms, median "
        f"{m['median']:.1f} ms (target 100 ms); {x['incidents']} incidents best {x['best']:.1f} ms, "
        f"median {x['median']:.1f} ms"
    )


BENCHES = {
    "triage": Bench(
        "triage throughput / grep -F throughput",
        "The triage command on a generated 1 GB log",
        "`grep -F -f` with the same literal patterns, on the same file",
        ">=",
        1.0,
        "x",
        lambda tmp, smoke, runs, args: bench_triage(tmp, 8 if smoke else args.size_mb, runs, "grep -F"),
    ),
    "triage-rg": Bench(
        "triage throughput / rg -F throughput",
        "The triage command on a generated 1 GB log",
        "`rg -F -f` (ripgrep) with the same literal patterns, on the same file",
        ">=",
        1.0,
        "x",
        lambda tmp, smoke, runs, args: bench_triage(tmp, 8 if smoke else args.size_mb, runs, "rg -F"),
        needs=("rg", "ripgrep"),
    ),
    "build": Bench(
        "manual build time / plain build time",
        "The strict build of the manual",
        "a plain Material build of the same pages and content: a hook of a few lines puts the HTML back",
        "<=",
        1.2,
        "x",
        lambda tmp, smoke, runs, args: bench_build(tmp, runs if smoke else max(runs, 5)),
    ),
    "scale": Bench(
        "1,000-incident build / the same pages built plain",
        "A build with 1,000 synthetic incidents and their pages",
        "a plain Material build of the same pages and content: a hook of a few lines puts the HTML back",
        "<=",
        1.5,
        "x",
        lambda tmp, smoke, runs, args: bench_scale(tmp, 20 if smoke else 1000, max(1, runs - 1)),
    ),
    "finder": Bench(
        "finder keystroke-to-paint p95 at 5,000 incidents",
        "The finder at 5,000 synthetic incidents with story text, in headless Chromium",
        "16 ms, one frame at 60 Hz",
        "<=",
        16.0,
        " ms",
        lambda tmp, smoke, runs, args: bench_finder(
            tmp, 20 if smoke else 5000, 1 if smoke else 3, 2 if smoke else None
        ),
    ),
    "finder-index": Bench(
        "loading and indexing the finder's search at 1,000 incidents",
        "Fetching finder.json and loading its search index, 1,000 synthetic incidents with stories",
        "100 ms",
        "<=",
        100.0,
        " ms",
        lambda tmp, smoke, runs, args: bench_finder_index(tmp, 50 if smoke else 1000, runs),
    ),
    "longtask": Bench(
        "longest task loading /incidents/ / longest task loading /about/, 1,000 incidents",
        "The longest main-thread task while the incidents page loads, in a build with 1,000 incidents",
        "the longest task of a plain page of the same site (About)",
        "<=",
        1.5,
        "x",
        lambda tmp, smoke, runs, args: bench_longtask(tmp, 20 if smoke else 1000, runs),
    ),
    "finder-hostile": Bench(
        "finder work for a 40 KB link or a 1 MB paste",
        "The finder's main-thread work for a 40 KB ?filter= link and a 1 MB paste of repeated words",
        "50 ms",
        "<=",
        50.0,
        " ms",
        lambda tmp, smoke, runs, args: bench_finder_hostile(tmp, 100 if smoke else 1000),
    ),
    "exposure-cli": Bench(
        "exposure CLI, whole process, 1,000 incidents",
        "`python -m macros.exposure` on one launch command, 1,000 synthetic incidents",
        "50 ms for the whole process (best of 15)",
        "<=",
        50.0,
        " ms",
        lambda tmp, smoke, runs, args: bench_exposure_cli(tmp, 20 if smoke else 1000, runs),
    ),
    "upgrade-cli": Bench(
        "upgrade CLI, whole process, 1,000 incidents",
        "`python -m opsmanual upgrade --from 0.5.9 --to 0.5.22` on one launch command, 1,000 synthetic incidents",
        "200 ms for the whole process (best of 15)",
        "<=",
        200.0,
        " ms",
        lambda tmp, smoke, runs, args: bench_upgrade_cli(tmp, 20 if smoke else 1000, runs),
    ),
    "exposure-js": Bench(
        "exposure check in Chromium, 1,000 incidents (median)",
        "The launch-command check in headless Chromium, 1,000 synthetic incidents",
        "5 ms per command (median of 300)",
        "<=",
        5.0,
        " ms",
        lambda tmp, smoke, runs, args: bench_exposure_js(tmp, 20 if smoke else 1000),
    ),
    "diagnose": Bench(
        "diagnosis of a 200 KB report, 1,000 incidents (median)",
        "The diagnosis engine on a 200 KB report (words, command, environment, log), the manual's "
        "incidents and 1,000 synthetic ones added",
        "300 ms at 1,000 incidents (and 100 ms at the manual's own, in the detail)",
        "<=",
        300.0,
        " ms",
        lambda tmp, smoke, runs, args: bench_diagnose(tmp, 20 if smoke else 1000, runs),
    ),
    "diagnose-js": Bench(
        "diagnosis of a 200 KB report in Chromium, 1,000 incidents (median)",
        "The browser's diagnosis engine in headless Chromium on the same 200 KB report, the "
        "manual's incidents and 1,000 synthetic ones added",
        "300 ms at 1,000 incidents (and 100 ms at the manual's own, in the detail)",
        "<=",
        300.0,
        " ms",
        lambda tmp, smoke, runs, args: bench_diagnose_js(tmp, 20 if smoke else 1000, runs),
    ),
    "page-bytes": Bench(
        "bytes the home page loads",
        "Everything each page type loads in Chromium, workers' fetches included, uncompressed",
        "1,080 KB, what the home page loaded before the check modules loaded lazily and the "
        "incident pages left the header search index",
        "<=",
        1080.0,
        " KB",
        lambda tmp, smoke, runs, args: bench_page_bytes(tmp),
    ),
    "cls": Bench(
        "layout shift of /incidents/ while it loads",
        "Cumulative layout shift of the incidents page until the finder is ready, desktop and phone",
        "0.05, a good score by Chrome's measure",
        "<=",
        0.05,
        "",
        lambda tmp, smoke, runs, args: bench_cls(tmp, runs),
    ),
    "follow": Bench(
        "triage --follow, from a line written to its report (p95)",
        "`triage --follow --json` on a file that grows by one matching line every 10 ms",
        "100 ms",
        "<=",
        100.0,
        " ms",
        lambda tmp, smoke, runs, args: bench_follow(tmp, 20 if smoke else 500),
    ),
    "logfilter": Bench(
        "logging filter, per record that matches nothing",
        "The filter SGLang's logging configuration installs, on ordinary SGLang log records",
        "20 \u00b5s per record",
        "<=",
        20.0,
        " \u00b5s",
        lambda tmp, smoke, runs, args: bench_logfilter(1_000 if smoke else 200_000, runs),
    ),
    "mcp-start": Bench(
        "MCP server start, 1,000 incidents",
        "`sglang-manual mcp` started by the MCP SDK's stdio client, until it has listed its tools, on "
        "the manual's data with 1,000 synthetic incidents added",
        "1 s",
        "<=",
        1000.0,
        " ms",
        lambda tmp, smoke, runs, args: bench_mcp_start(tmp, 20 if smoke else 1000, runs),
    ),
    "mcp-search": Bench(
        "MCP search, 1,000 incidents (median)",
        "The MCP server's `search` tool asked over stdio by the SDK's client, after its first answer, "
        "on the manual's data with 1,000 synthetic incidents added",
        "100 ms",
        "<=",
        100.0,
        " ms",
        lambda tmp, smoke, runs, args: bench_mcp_search(tmp, 20 if smoke else 1000, runs),
    ),
}


MCP_QUESTIONS = [
    "graph capture crash",
    "oom at startup",
    "one rank stuck",
    "weights sync fails",
    "tokenization latency",
]


def search_project(tmp: Path, count: int) -> Path:
    """The exposure benchmark's copy of the data (``count`` synthetic incidents added), with a story
    for each of them on their section page, as the build and the search's data require."""
    dest = tmp / "search"
    if not dest.exists():
        source = tmp / "exposure" if (tmp / "exposure").exists() else exposure_project(tmp, count)
        shutil.copytree(source, dest)
        page = dest / "docs" / "part-3" / "3-2-sizing-the-pool.md"
        told = "".join(f'{{{{ story("capture-exposure-{k}") }}}}\n\nA story.\n\n' for k in range(count))
        page.write_text(page.read_text("utf-8") + "\n" + told, "utf-8")
    return dest


def mcp_times(tmp: Path, count: int, runs: int) -> dict:
    """The MCP server (`sglang-manual mcp`) on a copy of the data with ``count`` synthetic incidents,
    asked by the SDK's stdio client: from the start of the process to its list of tools, the first
    search (which loads the data), and each later search."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    project = search_project(tmp, count)
    params = StdioServerParameters(
        command=PY, args=["-m", "opsmanual", "mcp", "--project", str(project)], cwd=str(ROOT)
    )

    async def once() -> tuple[float, float, list[float]]:
        start = time.perf_counter()
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            started = time.perf_counter() - start
            t = time.perf_counter()
            first = await session.call_tool("search", {"query": MCP_QUESTIONS[0]})
            assert not first.is_error, first.content
            loaded = time.perf_counter() - t
            searches = []
            for k in range(max(runs, 5) * len(MCP_QUESTIONS)):
                t = time.perf_counter()
                answer = await session.call_tool("search", {"query": MCP_QUESTIONS[k % len(MCP_QUESTIONS)]})
                searches.append(time.perf_counter() - t)
                assert not answer.is_error, answer.content
            return started, loaded, searches

    runs_out = [anyio.run(once) for _ in range(max(1, min(runs, 3)))]
    starts = sorted(r[0] * 1000 for r in runs_out)
    loads = sorted(r[1] * 1000 for r in runs_out)
    searches = sorted(s * 1000 for r in runs_out for s in r[2])
    return {"count": count, "start": starts, "load": loads, "search": searches}


def bench_mcp_start(tmp: Path, count: int, runs: int) -> tuple[float, str]:
    t = mcp_times(tmp, count, runs)
    return t["start"][0], (
        f"{count} synthetic incidents added: start to the list of tools best {t['start'][0]:.0f} ms; "
        f"the first search, which loads the data, {t['load'][0]:.0f} ms"
    )


def bench_mcp_search(tmp: Path, count: int, runs: int) -> tuple[float, str]:
    t = mcp_times(tmp, count, runs)
    s = t["search"]
    return s[len(s) // 2], (
        f"{count} synthetic incidents added, {len(s)} searches over stdio: best {s[0]:.1f} ms, median "
        f"{s[len(s) // 2]:.1f} ms, p95 {s[int(len(s) * 0.95)]:.1f} ms; the first, which loads the data, "
        f"{t['load'][0]:.0f} ms"
    )


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


RESULTS = ROOT / "bench" / "results.json"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=list(BENCHES), action="append")
    parser.add_argument("--size-mb", type=int, default=1024, help="size of the triage log (default 1024)")
    parser.add_argument("--runs", type=int, default=3, help="runs per timing; the best is kept (default 3)")
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="tiny sizes and one run: proves every benchmark still runs; its figures mean nothing",
    )
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        help=f"where to write the figures (default {RESULTS.relative_to(ROOT)}, "
        "which the How fast page shows; a smoke run writes nothing unless asked)",
    )
    parser.add_argument(
        "--update",
        action="store_true",
        help="with --only: replace those figures in the results file and keep the others",
    )
    args = parser.parse_args(argv)
    if args.update and (args.smoke or not args.only):
        parser.error("--update goes with --only, on a full run")
    wanted = args.only or list(BENCHES)
    runs = 1 if args.smoke else args.runs
    results_path = args.results or (None if args.smoke or (args.only and not args.update) else RESULTS)
    figures, missed, skipped = [], 0, {}
    with tempfile.TemporaryDirectory(prefix="sgm-bench-") as name:
        tmp = Path(name)
        for key in wanted:
            bench = BENCHES[key]
            why = bench.missing()
            if why:
                print(f"{key:7} {bench.label}: not measured, {why}", flush=True)
                skipped[key] = why
                continue
            value, detail = bench.run(tmp, args.smoke, runs, args)
            ok = value >= bench.goal if bench.op == ">=" else value <= bench.goal
            missed += not ok
            shown = f"{value:.2f}{bench.unit}" if bench.unit == "x" else f"{value:.1f}{bench.unit}"
            verdict = "(smoke)" if args.smoke else ("ok" if ok else "MISSED")
            print(f"{key:7} {bench.label}: {shown} (goal {bench.op} {bench.goal}{bench.unit.strip()}) {verdict}")
            print(f"        {detail}", flush=True)
            figures.append(
                {
                    "key": key,
                    "label": bench.label,
                    "what": bench.what,
                    "against": bench.against,
                    "value": round(value, 3),
                    "unit": bench.unit.strip(),
                    "goal": {"op": bench.op, "value": bench.goal},
                    "met": ok,
                    "detail": detail,
                }
            )
    if results_path:
        import datetime
        import json

        today = datetime.date.today().isoformat()
        for figure in figures:
            figure["date"] = today
        if args.update and results_path.exists():
            # the other figures as the earlier run measured them, each with its own date
            earlier = json.loads(results_path.read_text("utf-8"))
            kept = {
                f["key"]: {"date": earlier.get("date"), **f}
                for f in earlier.get("figures", [])
                if f["key"] not in wanted and f["key"] in BENCHES
            }
            skipped = {**{k: v for k, v in earlier.get("skipped", {}).items() if k not in wanted}, **skipped}
            measured = {f["key"]: f for f in figures}
            figures = [kept.get(k) or measured[k] for k in BENCHES if k in kept or k in measured]
        results_path.write_text(
            json.dumps(
                {
                    "date": today,
                    "smoke": args.smoke,
                    "runs": runs,
                    "machine": machine(),
                    "figures": figures,
                    **({"skipped": skipped} if skipped else {}),
                },
                indent=1,
            )
            + "\n",
            "utf-8",
        )
        print(f"bench: wrote {results_path}")
    return 0 if args.smoke or not missed else 1


if __name__ == "__main__":
    sys.exit(main())
