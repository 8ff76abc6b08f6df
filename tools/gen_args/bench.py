"""``sglang.bench_serving``: its launcher's parser (in ``sglang/benchmark/serving.py`` since 0.5.2x)."""

from __future__ import annotations

from tools.gen_args.interp import Interp, _run_main
from tools.gen_args.output import finish
from tools.gen_args.trees import Tree


def read_bench(tree: Tree, warn=None) -> tuple[list[dict], str]:
    interp = Interp(tree, warn)
    parser = _run_main(interp, "sglang.bench_serving")
    files = sorted(
        {
            m.path
            for m in interp._modules.values()
            if m is not None and m.name.startswith("sglang.") and ("bench" in m.name)
        }
    )
    return finish(interp, parser, None, abbreviations=True), " and ".join(files)
