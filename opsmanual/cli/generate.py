"""Write the whole site plan to disk, for a site generator that has no MkDocs hooks (Zensical).

    python -m opsmanual.cli.generate OUT          # OUT/mkdocs.yml and OUT/docs/, ready to build
    zensical build -f OUT/mkdocs.yml              # the site, into OUT/site/
    python -m opsmanual.cli.generate --finish OUT/site   # the pass over the built pages

This module parses the command line; the tree, the safety of OUT and the pass over the built site
are the Zensical builder's (opsmanual/builders/zensical/tree.py). OUT must be a missing folder, an
empty one, or a tree generate wrote itself (its marker, .sglang-manual-generated); anything else is
refused in one line, and nothing is written or deleted. The tree builds wherever it is copied.

Exit status: 0 when done, 2 with one line per problem.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NoReturn

from opsmanual import ROOT
from opsmanual.builders.zensical.tree import MARKER, Refused
from opsmanual.data.errors import ManualError, Problem

__all__ = ["MARKER", "main", "run"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """A usage mistake in one line (argparse prints the usage above it)."""
        self.exit(2, f"{self.prog}: {message}; usage: generate FOLDER, or generate --finish SITE\n")


def _parser() -> argparse.ArgumentParser:
    from opsmanual.cli import common

    name = common.prog("generate", "generate")
    parser = _Parser(
        prog=name,
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="exit status:\n"
        "  0  the tree was written (with --finish: the built pages were finished)\n"
        "  1  not used\n"
        "  2  bad input: a folder it did not write, the manual's data broken, a folder it cannot write\n\n"
        f"examples:\n  SITE_URL=https://manual.example/ {name} /tmp/tree\n"
        "  .venv/bin/zensical build -f /tmp/tree/mkdocs.yml\n"
        f"  {name} --finish /tmp/tree/site",
    )
    parser.add_argument(
        "folder",
        help="where to write the generated tree (a new or empty folder, or one generate wrote), or with --finish the built site to finish (OUT/site of a tree generate wrote)",
    )
    parser.add_argument("--finish", action="store_true", help="run the pass over a built site's pages")
    return parser


def main(argv: list[str] | None = None) -> int:
    from opsmanual.builders.zensical import tree

    args = _parser().parse_args(argv)
    try:
        if args.finish:
            tree.finish(Path(args.folder))
        else:
            tree.write(tree.check_target(args.folder, Path(ROOT)), Path(ROOT))
    except Refused as err:
        from opsmanual.cli.common import fail

        return fail("generate", str(err))  # control characters in a folder's name escaped on a terminal
    except ManualError as err:
        print(err.report(), file=sys.stderr)
        return 2
    except OSError as err:
        print(Problem(args.folder, None, None, f"cannot write: {err.strerror or err}"), file=sys.stderr)
        return 2
    return 0


def run() -> None:
    sys.exit(main())


if __name__ == "__main__":
    run()
