"""Write a release's command-line arguments as data, read from its code without running it.

The exposure checker (``data/*-args-<version>.json``) needs every argument a
release accepts: its option strings, the ``ServerArgs`` field it sets, its type,
default and choices. This module reads them from the release's own
Python source with :mod:`ast`. Nothing of the release is imported or executed:
a small evaluator follows the code that builds the ``argparse`` parser
(``ServerArgs.add_cli_args`` and the ``arg_groups`` field classes it derives
arguments from, a launcher's ``__main__`` block, the functions they call) and
records each ``add_argument``.

Regenerate the files for a new release
--------------------------------------
Run from the project root; each command writes ``data/<program>-args-<version>.json``
(``--out PATH`` writes elsewhere, ``--out -`` to standard output)::

    # SGLang's server arguments (launch_server, `sglang serve`, sgl.Engine keywords)
    .venv/bin/python -m tools.gen_args sglang --version 0.5.23      # pip download sglang==0.5.23 --no-deps
    .venv/bin/python -m tools.gen_args sglang --wheel sglang-0.5.23-cp311-...whl
    .venv/bin/python -m tools.gen_args sglang --src /work/scratch/src/sglang-0.5.22   # an unpacked wheel

    # sglang.bench_serving (its parser lives in sglang/benchmark/serving.py since 0.5.2x)
    .venv/bin/python -m tools.gen_args bench --version 0.5.22

    # the router's Python launcher, python -m sglang_router.launch_router
    .venv/bin/python -m tools.gen_args router --version 0.3.2
    .venv/bin/python -m tools.gen_args router --sdist /work/wheels/router-sdists/sglang_router-0.1.9.tar.gz

    # Miles, from a git checkout or bare repository at a tag or commit. Miles copies SGLang's
    # parser as --sglang-* / --eval-sglang-* and the router's as --router-*: pass the unpacked
    # releases its image builds on (docker/Dockerfile, SGLANG_IMAGE_TAG) with --with-src
    .venv/bin/python -m tools.gen_args miles --git /path/to/miles/.git --ref v0.1.0 --label 0.1.0 \
        --with-src /work/scratch/src/sglang-0.5.16 --with-src /work/scratch/src/sglang-router-0.3.2

With ``--version`` the wheel comes from ``pip download <package>==<version>
--no-deps`` into a temporary directory. Output is sorted by name and is
byte-identical on every run over the same release. Commit the file; never edit
it by hand. Then run ``.venv/bin/python -m pytest -q tests/test_gen_args.py``.
Warnings on standard error name what the evaluator could not resolve (a
choice list built at run time, a default chosen at run time); read them when a
release changes how it builds its parser.

Modules
-------
One module per program reads its arguments: ``sglang.py``, ``bench.py``, ``router.py`` and
``miles.py``. They share the evaluator (``interp.py``, over the values of ``values.py``), where the
code is read from (``trees.py``), SGLang's dataclass-derived arguments (``dataclass_args.py``) and
the step from recorded calls to the output (``output.py``); ``cli.py`` is the command line.

Output shape
------------
::

    {"program": "sglang" | "bench" | "router" | "miles",
     "version": "0.5.22",                 # the release, or the Miles tag / commit
     "source": "...",                     # which package and files it was read from
     "arguments": [                       # sorted by name
       {"name": "--tp-size",              # the main option string
        "aliases": ["--tensor-parallel-size", "--tp"],
        "field": "tp_size",               # ServerArgs / RouterArgs field it sets, which is
                                          # also the sgl.Engine(...) keyword; null when no
                                          # field of that name exists (CLI-only, or a
                                          # deprecated alias that writes another field)
        "type": "int",                    # int | float | str | bool | json
        "default": 1,                     # null when chosen at run time
        "choices": null,                  # list, or null
        "nargs": null,                    # null: one value; 0: a switch that takes no value;
                                          # "+", "*", "?" or a number as in argparse
        "deprecated": false}]}            # from the code, or a help text that says so

The help texts are read only to tell a deprecated option; they are not written
out. The engines do not need them, and they are other projects' prose.

``aliases`` lists the other option strings first (declared aliases, then the
``--no-...`` forms ``argparse.BooleanOptionalAction`` adds), then the
abbreviations ``argparse`` accepts because they are the unique prefix of one
option string ending at a hyphen (``--tp`` for ``--tp-size``). SGLang's parsers
keep ``allow_abbrev`` on, so ``--tp 2`` works only for that reason; a release
that adds another ``--tp-...`` option makes ``--tp`` ambiguous, and the file of
that release then no longer lists it. Miles' file lists no abbreviations:
Megatron-LM adds its own arguments to the same parser at run time, and they
are not in Miles' code, so they are not listed either (the FSDP backend's are).
``argparse`` also accepts any other unique prefix (``--speculative-algo``,
``--max-running-request`` and ``--trust-remote`` appear in real commands), so a
command parser must apply that rule over all option strings; the list holds
only the prefixes that end at a hyphen, the ones people write on purpose.

Releases up to 0.5.9 register some options under another name than the field
(``--tensor-parallel-size`` / ``--tp-size``) and copy the value over in
``ServerArgs.from_cli_args``; those copies give the ``field`` too.

Which files exist: the newest release (0.5.23), the release the manual
describes (0.5.22), and older releases an incident's version range needs
(0.5.8, 0.5.9, 0.5.17, 0.5.18); the router release of SGLang 0.5.22's time (0.3.2,
the newest sglang-router on PyPI then) and 0.1.9, which a router range needs (read from
its source archive); bench_serving of 0.5.22; Miles v0.1.0.

A switch (``store_true``, ``store_false``, ``store_const``, a deprecated flag
that takes no value, ``BooleanOptionalAction``) has ``type: "bool"`` and
``nargs: 0``; its default is whether it is on without the flag. A value type
comes from ``type=`` or the field's annotation; parser functions map by name
(``json`` -> json, ``int`` -> int, ``float`` -> float, otherwise str).
``default`` is the field's declared default; ``None`` with an ``Arg(fallback=)``
that resolution does not override gives the fallback, else null.
"""

from __future__ import annotations

from tools.gen_args.bench import read_bench
from tools.gen_args.cli import DATA, DISTS, OUT_NAMES, PACKAGES, READERS, ROOT, generate, main
from tools.gen_args.dataclass_args import FieldInfo, Schema, emulate_add_cli_args_from_dataclass
from tools.gen_args.interp import BUILTINS, ClassObj, Env, FuncObj, Interp, Module, _module_file, _run_main
from tools.gen_args.miles import read_miles
from tools.gen_args.output import finish, render
from tools.gen_args.router import read_router
from tools.gen_args.sglang import _install_sglang, read_sglang
from tools.gen_args.trees import ChainTree, DirTree, GitTree, MemTree, Tree, ZipTree
from tools.gen_args.values import MISSING, Ext, ExtCall, Instance, ParserObj, Recorded, Unknown, unknown

__all__ = [
    "BUILTINS",
    "DATA",
    "DISTS",
    "MISSING",
    "OUT_NAMES",
    "PACKAGES",
    "READERS",
    "ROOT",
    "ChainTree",
    "ClassObj",
    "DirTree",
    "Env",
    "Ext",
    "ExtCall",
    "FieldInfo",
    "FuncObj",
    "GitTree",
    "Instance",
    "Interp",
    "MemTree",
    "Module",
    "ParserObj",
    "Recorded",
    "Schema",
    "Tree",
    "Unknown",
    "ZipTree",
    "_install_sglang",
    "_module_file",
    "_run_main",
    "emulate_add_cli_args_from_dataclass",
    "finish",
    "generate",
    "main",
    "read_bench",
    "read_miles",
    "read_router",
    "read_sglang",
    "render",
    "unknown",
]
