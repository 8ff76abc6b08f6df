"""What each page type weighs and how much the incidents page shifts while it loads, in the manual's own build."""

from __future__ import annotations

from pathlib import Path

from harness import Bench, launch, real_site, serve_dir

PAGE_TYPES = {
    "home": "",
    "incidents": "incidents/",
    "incident": "incidents/sglang-36889/",
    "section": "part-2/2-3-retraction/",
    "check": "check/",
    "about": "about/",
}


def bench_page_bytes(tmp: Path) -> tuple[float, str]:
    """Every byte each page type loads in Chromium, its workers' fetches included (the header search
    index among them), uncompressed as the test server sends it; the figure is the home page's."""
    from playwright.sync_api import sync_playwright

    httpd, url = serve_dir(real_site(tmp))
    weights = {}
    try:
        with sync_playwright() as p:
            browser = launch(p)
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
            browser = launch(p)
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


BENCHES = {
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
}
