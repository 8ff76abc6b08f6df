"""The router's Python launcher, ``python -m sglang_router.launch_router``: from a wheel or from its
source archive (read, never built)."""

from __future__ import annotations

from pathlib import Path

from tools.gen_args.dataclass_args import Schema
from tools.gen_args.interp import ClassObj, Interp, _run_main
from tools.gen_args.output import finish
from tools.gen_args.trees import DirTree, Tree


def _sdist_tree(sdist: Path, tmp: str) -> Tree:
    """The Python files of a router source archive, from the folder that holds ``sglang_router/``
    (``py_src/`` in 0.1.x, ``bindings/python/src/`` later); its version from PKG-INFO."""
    import tarfile

    out = Path(tmp) / "sdist"
    with tarfile.open(sdist) as tar:
        for member in tar.getmembers():
            parts = member.name.split("/")
            data = tar.extractfile(member) if member.isfile() else None
            if data is None:
                continue
            if "sglang_router" in parts[1:-1] and member.name.endswith(".py"):
                k = parts.index("sglang_router", 1)
                target = out / "/".join(parts[k:])
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data.read())
            elif len(parts) == 2 and parts[1] == "PKG-INFO":
                text = data.read().decode("utf-8", errors="replace")
                meta = out / "sglang_router-sdist.dist-info" / "METADATA"
                meta.parent.mkdir(parents=True, exist_ok=True)
                meta.write_text(text, encoding="utf-8")
    return DirTree(out)


def read_router(tree: Tree, warn=None) -> tuple[list[dict], str]:
    interp = Interp(tree, warn)
    parser = _run_main(interp, "sglang_router.launch_router")
    # RouterArgs moved from launch_router.py to router_args.py in later releases (0.1.9 has it in launch_router)
    mod = interp.module("sglang_router.router_args")
    files = "sglang_router/launch_router.py and sglang_router/router_args.py"
    if mod is None:
        mod, files = interp.module("sglang_router.launch_router"), "sglang_router/launch_router.py"
    classes = [mod.lookup("RouterArgs")] if mod else []
    schema = Schema(interp, [c for c in classes if isinstance(c, ClassObj)])
    return finish(interp, parser, schema, abbreviations=True), files
