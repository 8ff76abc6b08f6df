"""Miles, from a git checkout at a tag or commit: its own parser, with the copies of SGLang's and the
router's it makes (``--sglang-*``, ``--eval-sglang-*``, ``--router-*``)."""

from __future__ import annotations

from tools.gen_args.interp import FuncObj, Interp
from tools.gen_args.output import finish
from tools.gen_args.sglang import _install_sglang
from tools.gen_args.trees import Tree
from tools.gen_args.values import ParserObj


def read_miles(tree: Tree, warn=None) -> tuple[list[dict], str]:
    """Miles' own arguments, its FSDP backend's, and the ``--sglang-*``, ``--eval-sglang-*`` and
    ``--router-*`` copies it makes of SGLang's and the router's parsers when their code is in the tree.
    Megatron-LM's arguments (the default backend) come from outside Miles and are not listed."""
    interp = Interp(tree, warn)
    _install_sglang(interp)
    mod = interp.module("miles.utils.arguments")
    if mod is None:
        raise SystemExit("gen_args: miles/utils/arguments.py not found")
    provider = mod.lookup("get_miles_extra_args_provider")
    if not isinstance(provider, FuncObj):
        raise SystemExit("gen_args: get_miles_extra_args_provider not found")
    add = interp.run_function(provider, [], {})
    if not isinstance(add, FuncObj):
        raise SystemExit("gen_args: get_miles_extra_args_provider() did not give a function")
    fsdp = interp.module("miles.backends.fsdp_utils.arguments")
    build = fsdp.lookup("build_fsdp_parser") if fsdp else None
    if isinstance(build, FuncObj):
        parser = interp.run_function(build, [add], {})
    else:
        parser = ParserObj({})
        interp.parsers.append(parser)
        interp.run_function(add, [parser], {})
    if not isinstance(parser, ParserObj):
        raise SystemExit("gen_args: Miles' parser could not be followed")
    files = "miles/utils/arguments.py, miles/backends/fsdp_utils/arguments.py and the modules they call"
    return finish(interp, parser, None, abbreviations=False), files
