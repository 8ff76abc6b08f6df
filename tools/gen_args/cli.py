"""Write a release's command-line arguments as data, read from its code without running it.

The command line of ``python -m tools.gen_args`` (the package's docstring tells how to run it)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from tools.gen_args.bench import read_bench
from tools.gen_args.miles import read_miles
from tools.gen_args.output import render
from tools.gen_args.router import _sdist_tree, read_router
from tools.gen_args.sglang import read_sglang
from tools.gen_args.trees import ChainTree, DirTree, GitTree, Tree, ZipTree, _version_of

ROOT = Path(__file__).resolve().parents[2]


DATA = ROOT / "data"


READERS = {"sglang": read_sglang, "bench": read_bench, "router": read_router, "miles": read_miles}


PACKAGES = {"sglang": "sglang", "bench": "sglang", "router": "sglang-router"}


DISTS = {"sglang": "sglang", "bench": "sglang", "router": "sglang_router"}


OUT_NAMES = {
    "sglang": "sglang-args",
    "bench": "sglang-bench-args",
    "router": "sglang-router-args",
    "miles": "miles-args",
}


def generate(program: str, tree: Tree, version: str, origin: str, warn=None) -> str:
    arguments, files = READERS[program](tree, warn)
    return render(program, version, f"{origin}: {files} (read with ast, not run)", arguments)


def _download(package: str, version: str, into: str) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", f"{package}=={version}", "--no-deps", "-d", into, "-q"], check=True
    )
    wheels = sorted(Path(into).glob("*.whl"))
    if not wheels:
        raise SystemExit(f"gen_args: pip download {package}=={version} gave no wheel")
    return wheels[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.gen_args", description=__doc__.split("\n\n")[0])
    ap.add_argument("program", choices=sorted(READERS))
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--version", help="download this release with pip (sglang, bench, router)")
    src.add_argument("--wheel", type=Path, help="a wheel file")
    src.add_argument("--src", type=Path, help="an unpacked wheel or source tree (the folder holding the package)")
    src.add_argument("--git", type=Path, help="a git directory (with --ref): for Miles")
    src.add_argument(
        "--sdist",
        type=Path,
        help="for router: its source archive (sglang_router-<v>.tar.gz, as PyPI serves it; read, never built)",
    )
    ap.add_argument("--ref", default="HEAD", help="tag or commit in --git")
    ap.add_argument(
        "--with-src",
        type=Path,
        action="append",
        default=[],
        help="for miles: an unpacked SGLang or sglang-router wheel whose parser Miles copies "
        "(--sglang-*, --router-*); repeatable",
    )
    ap.add_argument(
        "--label",
        help="version label for the output (default: the release's own version, or the short commit for --git)",
    )
    ap.add_argument("--out", help="output path; '-' for standard output (default: data/<name>-<version>.json)")
    args = ap.parse_args(argv)

    def warn(msg):
        print(f"gen_args: warning: {msg}", file=sys.stderr)

    with tempfile.TemporaryDirectory() as tmp:
        if args.program == "miles":
            if not args.git:
                ap.error("miles needs --git DIR [--ref REF]")
            git = GitTree(args.git, args.ref)
            commit = git.commit()
            tree: Tree = ChainTree([git] + [DirTree(p) for p in args.with_src])
            version = args.label or commit[:12]
            withs = [
                f"{d}=={_version_of(DirTree(p), d)}"
                for p in args.with_src
                for d in ("sglang", "sglang_router")
                if _version_of(DirTree(p), d)
            ]
            origin = f"radixark/miles at commit {commit}" + (
                f" (its --sglang-*, --eval-sglang-* and --router-* copies taken from {' and '.join(withs)})"
                if withs
                else ""
            )
        else:
            if args.git:
                ap.error("--git is for miles")
            if args.sdist:
                if args.program != "router":
                    ap.error("--sdist is for router")
                tree = _sdist_tree(args.sdist, tmp)
            elif args.version:
                tree = ZipTree(_download(PACKAGES[args.program], args.version, tmp))
            elif args.wheel:
                tree = ZipTree(args.wheel)
            else:
                tree = DirTree(args.src)
            version = args.label or _version_of(tree, DISTS[args.program]) or args.version
            if not version:
                ap.error("the release's version is not recorded in its dist-info; pass --label")
            origin = f"{PACKAGES[args.program]}=={version} " + (
                "source archive (sdist) from PyPI" if args.sdist else "wheel from PyPI"
            )
        text = generate(args.program, tree, version, origin, warn)
    if args.out == "-":
        sys.stdout.write(text)
        return 0
    out = Path(args.out) if args.out else DATA / f"{OUT_NAMES[args.program]}-{version}.json"
    out.write_text(text, encoding="utf-8")
    print(f"gen_args: wrote {out} ({len(json.loads(text)['arguments'])} arguments)", file=sys.stderr)
    return 0
