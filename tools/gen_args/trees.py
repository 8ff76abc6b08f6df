"""Where a release's code is read from: a folder, a wheel, a git commit, several of them in turn, or
files in memory (the tests)."""

from __future__ import annotations

import re
import subprocess
import zipfile
from pathlib import Path


class Tree:
    """Python sources by path inside a package root (an unpacked wheel, a wheel, a git tree)."""

    def read(self, path: str) -> str | None:  # pragma: no cover - interface
        raise NotImplementedError

    def exists(self, path: str) -> bool:
        return self.read(path) is not None


class DirTree(Tree):
    def __init__(self, root: Path):
        self.root = Path(root)

    def read(self, path: str) -> str | None:
        p = self.root / path
        return p.read_text(encoding="utf-8") if p.is_file() else None

    def find(self, pattern: str) -> list[str]:
        return sorted(str(p.relative_to(self.root)) for p in self.root.glob(pattern))


class ZipTree(Tree):
    def __init__(self, wheel: Path):
        self.zip = zipfile.ZipFile(wheel)
        self.names = set(self.zip.namelist())

    def read(self, path: str) -> str | None:
        return self.zip.read(path).decode("utf-8") if path in self.names else None

    def find(self, pattern: str) -> list[str]:
        rx = re.compile("^" + re.escape(pattern).replace(r"\*", "[^/]*") + "$")
        return sorted(n for n in self.names if rx.match(n))


class GitTree(Tree):
    def __init__(self, git_dir: Path, ref: str):
        self.git_dir, self.ref = str(git_dir), ref
        self._cache: dict[str, str | None] = {}

    def read(self, path: str) -> str | None:
        if path not in self._cache:
            run = subprocess.run(["git", "--git-dir", self.git_dir, "show", f"{self.ref}:{path}"], capture_output=True)
            self._cache[path] = run.stdout.decode("utf-8") if run.returncode == 0 else None
        return self._cache[path]

    def commit(self) -> str:
        out = subprocess.run(
            ["git", "--git-dir", self.git_dir, "rev-parse", f"{self.ref}^{{commit}}"],
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip()


class ChainTree(Tree):
    """Several trees read as one (Miles' code, and the SGLang and router releases it imports)."""

    def __init__(self, trees: list[Tree]):
        self.trees = trees

    def read(self, path: str) -> str | None:
        for t in self.trees:
            text = t.read(path)
            if text is not None:
                return text
        return None


class MemTree(Tree):
    """Sources held in memory: for tests."""

    def __init__(self, files: dict[str, str]):
        self.files = files

    def read(self, path: str) -> str | None:
        return self.files.get(path)


def _version_of(tree: Tree, dist: str) -> str | None:
    finder = getattr(tree, "find", None)
    if finder is None:
        return None
    for meta in finder(f"{dist}-*.dist-info/METADATA"):
        text = tree.read(meta) or ""
        m = re.search(r"^Version: (\S+)$", text, re.MULTILINE)
        if m:
            return m.group(1)
    return None
