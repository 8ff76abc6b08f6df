"""Lighthouse's scores of the built site, on a phone and a desktop, for each page type.

    .venv/bin/python bench/lighthouse.py SITE_DIR [--out FILE] [--runs N]

SITE_DIR is a built site (`mkdocs build --site-dir SITE_DIR`); it is served from this machine for the
run, compressed as a static host serves it. Lighthouse is the one package.json pins (npm's
node_modules/.bin/lighthouse) and runs the machine's own Chromium (CHROME_PATH, else CHROMIUM, else the first of chromium, chromium-browser,
google-chrome on the PATH): nothing downloads a browser. Each page is measured --runs times
(default 1) and the median run's figures kept: the performance score, total blocking time (ms),
bytes loaded and the accessibility score. Timing figures depend on the machine and its load, so
they are measured here, not asserted in tests; the accessibility rules are asserted through
axe-core in tests/test_accessibility.py.

Exit status: 0 when every page was measured, 2 on bad input (a missing site or Lighthouse), 1 when
Lighthouse failed on a page (its message is printed).
"""

from __future__ import annotations

import argparse
import functools
import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"

# One page of each type; the incident and section pages are ones the manual has had from its start.
PAGES = {
    "home": "",
    "incidents": "incidents/",
    "incident": "incidents/sglang-36889/",
    "section": "part-3/3-2-sizing-the-pool/",
    "check": "check/",
    "about": "about/",
}
FORMS = ("mobile", "desktop")


def chromium() -> str | None:
    for name in ("CHROME_PATH", "CHROMIUM"):
        if os.environ.get(name):
            return os.environ[name]
    return next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")) if p),
        None,
    )


class _Host(SimpleHTTPRequestHandler):
    """The site as a static host serves it: text files gzip-compressed for a browser that accepts
    it (GitHub Pages and the like do; Python's own server does not, and Lighthouse would count
    every page's HTML and the theme's CSS at full size)."""

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not self.path.split("?")[0].endswith("/"):
                return super().send_head()  # the redirect to the folder's address
            path = path / "index.html"
        text = path.suffix in {".html", ".css", ".js", ".json", ".svg", ".xml", ".txt"}
        if not (text and path.is_file() and "gzip" in self.headers.get("Accept-Encoding", "")):
            return super().send_head()
        body = gzip.compress(path.read_bytes(), compresslevel=6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, format, *args):
        pass


def serve(folder: Path) -> tuple[ThreadingHTTPServer, str]:
    handler = functools.partial(_Host, directory=str(folder))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


def measure(url: str, form: str, browser: str, tmp: Path) -> dict:
    out = tmp / "report.json"
    command = [
        str(LIGHTHOUSE),
        url,
        "--quiet",
        "--only-categories=performance,accessibility",
        "--output=json",
        f"--output-path={out}",
        "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
    ]
    if form == "desktop":
        command.append("--preset=desktop")
    done = subprocess.run(command, env=dict(os.environ, CHROME_PATH=browser), capture_output=True, text=True)
    if done.returncode != 0 or not out.exists():
        raise RuntimeError(f"lighthouse failed on {url} ({form}): {(done.stderr or done.stdout).strip()[-400:]}")
    report = json.loads(out.read_text("utf-8"))
    audits, categories = report["audits"], report["categories"]
    return {
        "performance": round(categories["performance"]["score"] * 100),
        "accessibility": round(categories["accessibility"]["score"] * 100),
        "total_blocking_time_ms": round(audits["total-blocking-time"]["numericValue"]),
        "bytes": round(audits["total-byte-weight"]["numericValue"]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/lighthouse.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="a built site's folder")
    parser.add_argument("--out", type=Path, help="write the figures to this JSON file too")
    parser.add_argument("--runs", type=int, default=1, help="runs per page and form factor; the median is kept")
    parser.add_argument(
        "--pages", default=",".join(PAGES), help=f"comma-separated page types (default: {','.join(PAGES)})"
    )
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        print(f"bench/lighthouse.py: {args.site}: no built site here (no index.html)", file=sys.stderr)
        return 2
    if not LIGHTHOUSE.exists():
        print(f"bench/lighthouse.py: {LIGHTHOUSE}: missing; run `npm ci` (package.json pins it)", file=sys.stderr)
        return 2
    browser = chromium()
    if browser is None:
        print("bench/lighthouse.py: no Chromium found; set CHROME_PATH", file=sys.stderr)
        return 2
    pages = [p for p in args.pages.split(",") if p]
    unknown = [p for p in pages if p not in PAGES]
    if unknown or not pages:
        print(
            f"bench/lighthouse.py: --pages: unknown page type {unknown or pages} (known: {', '.join(PAGES)})",
            file=sys.stderr,
        )
        return 2
    if args.runs < 1:
        print("bench/lighthouse.py: --runs must be at least 1", file=sys.stderr)
        return 2
    httpd, base = serve(args.site)
    figures: dict[str, dict[str, dict]] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="sgm-lighthouse-") as tmp:
            for name in pages:
                path = PAGES[name]
                for form in FORMS:
                    runs = [measure(base + path, form, browser, Path(tmp)) for _ in range(args.runs)]
                    runs.sort(key=lambda r: r["total_blocking_time_ms"])
                    figures.setdefault(name, {})[form] = kept = runs[len(runs) // 2]
                    print(
                        f"{name:10} {form:8} performance {kept['performance']:3}  accessibility "
                        f"{kept['accessibility']:3}  TBT {kept['total_blocking_time_ms']:5} ms  "
                        f"{kept['bytes'] / 1024:7.0f} KiB",
                        flush=True,
                    )
    except RuntimeError as error:
        print(f"bench/lighthouse.py: {error}", file=sys.stderr)
        return 1
    finally:
        httpd.shutdown()
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n", "utf-8")
    scores = {name: figures[name]["mobile"]["performance"] for name in ("home", "incidents") if name in figures}
    if scores:
        print(f"mobile performance: {scores} (goal: at least 90)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
