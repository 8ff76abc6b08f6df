"""The argument files: regenerated from the release they name, and the extractor on small fixtures."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tools import gen_args
from tools.gen_args import MemTree, ZipTree, generate, read_sglang

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
WHEELS = ROOT / ".cache" / "wheels"  # release wheels, downloaded once per checkout
KEYS = ["name", "aliases", "field", "type", "default", "choices", "nargs", "deprecated"]


def _args(path: Path) -> dict[str, dict]:
    return {a["name"]: a for a in json.loads(path.read_text(encoding="utf-8"))["arguments"]}


# --- the committed files -----------------------------------------------------


@pytest.fixture(scope="session")
def wheel_0522() -> Path:
    """The sglang 0.5.22 wheel from PyPI: from .cache/wheels/, else downloaded there (any of the
    release's wheels: they hold the same Python sources)."""
    found = sorted(WHEELS.glob("sglang-0.5.22-*.whl"))
    if not found:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--only-binary=:all:",
                "--dest",
                str(WHEELS),
                "sglang==0.5.22",
            ],
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert result.returncode == 0, "pip could not download sglang==0.5.22: " + result.stderr[-2000:]
        found = sorted(WHEELS.glob("sglang-0.5.22-*.whl"))
    return found[0]


def test_sglang_0_5_22_regenerates_byte_identical(wheel_0522):
    text = generate("sglang", ZipTree(wheel_0522), "0.5.22", "sglang==0.5.22 wheel from PyPI")
    assert text == (DATA / "sglang-args-0.5.22.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("path", sorted(DATA.glob("*-args-*.json")), ids=lambda p: p.name)
def test_committed_file_shape(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert list(doc) == ["program", "version", "source", "arguments"]
    names = [a["name"] for a in doc["arguments"]]
    assert names == sorted(names) and len(set(names)) == len(names)
    seen: set[str] = set()
    for a in doc["arguments"]:
        assert list(a) == KEYS, a["name"]
        assert a["type"] in {"int", "float", "str", "bool", "json"}
        assert a["nargs"] != 0 or a["type"] == "bool", a["name"]
        for o in [a["name"], *a["aliases"]]:
            assert o.startswith("-") and o not in seen, o
            seen.add(o)


def test_tp_is_an_alias_of_tp_size():
    tp = _args(DATA / "sglang-args-0.5.22.json")["--tp-size"]
    assert "--tp" in tp["aliases"] and "--tensor-parallel-size" in tp["aliases"]
    assert tp["field"] == "tp_size" and tp["type"] == "int" and tp["default"] == 1


def test_piecewise_flag_is_a_deprecated_alias_only_before_0_5_21():
    # Pull request #23906 kept --disable-piecewise-cuda-graph as a deprecated CLI alias that
    # writes cuda_graph_backend_prefill, with no ServerArgs field of its own (sgl-project/sglang#36478).
    old = _args(DATA / "sglang-args-0.5.18.json")["--disable-piecewise-cuda-graph"]
    assert old["deprecated"] is True and old["field"] is None and old["nargs"] == 0
    # In 0.5.22 the name is gone from the parser as well (docs/part-4/4-1-cuda-graphs.md).
    new = _args(DATA / "sglang-args-0.5.22.json")
    assert "--disable-piecewise-cuda-graph" not in new
    assert not any("--disable-piecewise-cuda-graph" in a["aliases"] for a in new.values())
    assert new["--disable-prefill-cuda-graph"]["field"] == "disable_prefill_cuda_graph"


# --- the extractor on inline fixtures ------------------------------------------

ARG_UTILS = """
import dataclasses
from typing import Annotated, Optional, List, Literal
A = Annotated
class Arg:
    help: str = ""
def add_cli_args_from_dataclass(parser, cls, *, fields=None):
    raise RuntimeError("emulated, never read")
"""

SERVER_ARGS = """
import argparse
import dataclasses
from typing import List, Literal, Optional
from pkg.arg_utils import A, Arg, add_cli_args_from_dataclass
from pkg.actions import DeprecatedStoreTrueAction, DeprecatedAliasStoreAction
from pkg.consts import BACKENDS, Mode

def _parser_names():
    return ["a", "b"]

def _choices():
    module = sys.modules.get("x")
    if module is not None:
        return list(module.Registry)
    return _parser_names()

@dataclasses.dataclass
class ServerArgs:
    tp_size: A[int, Arg(help="The tensor parallelism size.", aliases=["--tensor-parallel-size"])] = 1
    model_path: A[str, Arg(help="Model path.", aliases=["--model"])] = None
    mem_fraction_static: A[Optional[float], "Fraction."] = None
    attention_backend: A[Optional[str], Arg(help="Kernels.", choices=BACKENDS)] = None
    mode: A[Literal["x", "y"], "A literal."] = "x"
    cuda_graph_bs: A[Optional[List[int]], f"Sizes, {Mode.FAST!r} or {Mode.SLOW}."] = None
    enable_foo: A[bool, "Turn foo on."] = False
    overlap: A[Optional[bool], Arg(help="Overlap.", action=argparse.BooleanOptionalAction)] = None
    hidden: A[bool, Arg(no_cli=True)] = False
    page: A[Optional[int], Arg(help="Page.", fallback=16)] = None
    plain: int = 3
    parser_name: Optional[str] = None

    @staticmethod
    def add_cli_args(parser):
        add_cli_args_from_dataclass(parser, ServerArgs)
        choices = _choices()
        parser.add_argument("--parser-name", type=str, choices=["auto"] + choices,
                            default=ServerArgs.parser_name, help=f"Parsers: {choices}.")
        parser.add_argument("--sampling", choices={"z", "m", "a"}, help="A set.")
        parser.add_argument("--config", type=str, help="Read a YAML file.")
        parser.add_argument("--disable-hidden", action=DeprecatedStoreTrueAction, dest="hidden",
                            help="Old spelling.")
        parser.add_argument("--old-bs", type=int, nargs="+", action=DeprecatedAliasStoreAction,
                            dest="cuda_graph_bs", help="Deprecated alias for --cuda-graph-bs.")
"""

ACTIONS = """
import argparse
class DeprecatedStoreTrueAction(argparse.Action):
    def __init__(self, option_strings, dest, nargs=0, **kwargs):
        super().__init__(option_strings, dest, nargs=nargs, **kwargs)
class DeprecatedAliasStoreAction(argparse.Action):
    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, **kwargs)
"""

CONSTS = """
import enum
class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"
class Backend:
    FA3 = "fa3"
    TRITON = "triton"
    ALL = (FA3, TRITON)
BACKENDS = list(Backend.ALL) + ["flashinfer"]
"""


def _fixture() -> MemTree:
    files = {
        "pkg/__init__.py": "",
        "pkg/arg_utils.py": ARG_UTILS,
        "pkg/actions.py": ACTIONS,
        "pkg/consts.py": CONSTS,
        "pkg/server_args.py": SERVER_ARGS,
    }
    # read_sglang looks for sglang/srt/server_args.py: put the fixture there
    return MemTree(
        {
            k.replace("pkg/", "sglang/srt/").replace("pkg.", "sglang.srt."): textwrap.dedent(v).replace(
                "pkg.", "sglang.srt."
            )
            for k, v in files.items()
        }
    )


@pytest.fixture(scope="module")
def fixture_args() -> dict[str, dict]:
    args, _files = read_sglang(_fixture())
    return {a["name"]: a for a in args}


def test_fields_become_arguments(fixture_args):
    tp = fixture_args["--tp-size"]
    assert tp["aliases"][0] == "--tensor-parallel-size" and "--tp" in tp["aliases"]
    assert (tp["field"], tp["type"], tp["default"], tp["nargs"]) == ("tp_size", "int", 1, None)
    assert fixture_args["--model-path"]["aliases"][0] == "--model"
    assert fixture_args["--mem-fraction-static"]["type"] == "float"
    assert fixture_args["--mem-fraction-static"]["default"] is None
    assert "--hidden" not in fixture_args and "--plain" not in fixture_args


def test_choices_resolved_through_imports_and_class_constants(fixture_args):
    assert fixture_args["--attention-backend"]["choices"] == ["fa3", "triton", "flashinfer"]
    assert fixture_args["--mode"]["choices"] == ["x", "y"]
    # a set's order changes between runs: it is written sorted
    assert fixture_args["--sampling"]["choices"] == ["a", "m", "z"]
    # a branch that reads a runtime registry gives way to the static fallback after it
    assert fixture_args["--parser-name"]["choices"] == ["auto", "a", "b"]


def test_help_texts_are_not_written(fixture_args):
    """Help is read only to tell a deprecated option (see test_deprecated_and_cli_only); the files carry none."""
    assert all("help" not in a for a in fixture_args.values())


def test_lists_switches(fixture_args):
    bs = fixture_args["--cuda-graph-bs"]
    assert (bs["type"], bs["nargs"]) == ("int", "+")
    foo = fixture_args["--enable-foo"]
    assert (foo["type"], foo["nargs"], foo["default"]) == ("bool", 0, False)
    ov = fixture_args["--overlap"]
    assert ov["nargs"] == 0 and "--no-overlap" in ov["aliases"] and ov["default"] is None


def test_deprecated_and_cli_only(fixture_args):
    old = fixture_args["--disable-hidden"]
    assert old["deprecated"] and old["nargs"] == 0
    assert old["field"] is None  # writes `hidden`, but there is no `disable_hidden` keyword
    alias = fixture_args["--old-bs"]
    assert alias["deprecated"] and alias["nargs"] == "+" and alias["field"] is None
    assert fixture_args["--config"]["field"] is None


def test_fallback_default(fixture_args):
    assert fixture_args["--page"]["default"] == 16


def test_abbreviations_only_when_unique(fixture_args):
    # --mem is unique; --tensor... is; --disable is not a prefix at a hyphen of one option only
    assert "--mem" in fixture_args["--mem-fraction-static"]["aliases"]
    every = [o for a in fixture_args.values() for o in [a["name"], *a["aliases"]]]
    assert len(every) == len(set(every))
    assert "--cuda" not in every or every.count("--cuda") == 1


def test_output_is_deterministic():
    a = generate("sglang", _fixture(), "0.0.1", "fixture")
    b = generate("sglang", _fixture(), "0.0.1", "fixture")
    assert a == b and a.endswith("\n")
    doc = json.loads(a)
    assert [x["name"] for x in doc["arguments"]] == sorted(x["name"] for x in doc["arguments"])


def test_nothing_is_executed():
    # the fixture's module-level code would raise if it ran; the extractor only reads it
    tree = _fixture()
    tree.files["sglang/srt/server_args.py"] = "raise SystemExit('executed')\n" + tree.files["sglang/srt/server_args.py"]
    args, _ = read_sglang(tree)
    assert any(a["name"] == "--tp-size" for a in args)


def test_main_block_program():
    tree = MemTree(
        {
            "tool/__init__.py": "",
            "tool/bench.py": textwrap.dedent("""
            from argparse import ArgumentParser
            def run(args):
                raise RuntimeError("not read")
            def cli_main():
                parser = ArgumentParser()
                group = parser.add_argument_group("g")
                group.add_argument("--num-prompts", type=int, default=1000, help="N.")
                parser.add_argument("--flush-cache", action="store_true", help="Flush.")
                parser.add_argument("--rate", type=float, default=float("inf"), help="Rate.")
                args = parser.parse_args()
                run(args)
            if __name__ == "__main__":
                cli_main()
        """),
        }
    )
    interp = gen_args.Interp(tree)
    parser = gen_args._run_main(interp, "tool.bench")
    out = {a["name"]: a for a in gen_args.finish(interp, parser, None, abbreviations=True)}
    assert out["--num-prompts"]["default"] == 1000 and out["--num-prompts"]["aliases"] == ["--num"]
    assert out["--flush-cache"]["nargs"] == 0
    assert out["--rate"]["default"] is None  # inf is not JSON


def test_a_wrapper_installed_on_the_parser_sees_every_argument():
    # Miles copies SGLang's parser by replacing parser.add_argument with a prefixing wrapper
    tree = _fixture()
    tree.files["tool/__init__.py"] = ""
    tree.files["tool/args.py"] = textwrap.dedent("""
        from sglang.srt.server_args import ServerArgs
        SKIPPED = ["model_path"]
        def add_prefixed(parser, prefix):
            old = parser.add_argument
            def wrapper(*names, **kwargs):
                dest = kwargs["dest"] if "dest" in kwargs else names[0][2:].replace("-", "_")
                if dest in SKIPPED:
                    return
                old(*[f"--{prefix}-{n.lstrip('-')}" for n in names], **kwargs)
            parser.add_argument = wrapper
            ServerArgs.add_cli_args(parser)
            parser.add_argument = old
            parser.add_argument("--own-flag", type=int, default=3)
    """)
    interp = gen_args.Interp(tree)
    gen_args._install_sglang(interp)
    parser = gen_args.ParserObj({})
    interp.parsers.append(parser)
    interp.run_function(interp.module("tool.args").lookup("add_prefixed"), [parser, "sglang"], {})
    out = {a["name"]: a for a in gen_args.finish(interp, parser, None, abbreviations=False)}
    assert "--sglang-tp-size" in out and "--sglang-tensor-parallel-size" in out["--sglang-tp-size"]["aliases"]
    assert "--sglang-config" in out and "--sglang-disable-hidden" in out
    assert "--sglang-model-path" not in out and out["--own-flag"]["default"] == 3


MILES = DATA / "miles-args-0.1.0.json"


@pytest.mark.skipif(not MILES.is_file(), reason="no Miles argument file")
def test_miles_file_has_its_own_fsdp_and_copied_arguments():
    args = _args(MILES)
    for name in (
        "--true-on-policy-mode",
        "--colocate",
        "--use-rollout-routing-replay",
        "--pause-generation-mode",
        "--attn-implementation",
        "--sglang-enable-deterministic-inference",
        "--sglang-tp-size",
        "--router-policy",
    ):
        assert name in args, name
    assert args["--pause-generation-mode"]["default"] == "retract"
    assert "--sglang-model-path" not in args  # Miles passes its own --hf-checkpoint instead


def test_from_cli_args_renames_give_the_field():
    # releases up to 0.5.9 register --tensor-parallel-size / --tp-size and copy the value in from_cli_args
    tree = MemTree(
        {
            "sglang/__init__.py": "",
            "sglang/srt/__init__.py": "",
            "sglang/srt/server_args.py": textwrap.dedent("""
        import dataclasses
        @dataclasses.dataclass
        class ServerArgs:
            tp_size: int = 1
            @staticmethod
            def add_cli_args(parser):
                parser.add_argument("--tensor-parallel-size", "--tp-size", type=int, default=ServerArgs.tp_size)
            @classmethod
            def from_cli_args(cls, args):
                args.tp_size = args.tensor_parallel_size
                return cls(tp_size=args.tp_size)
    """),
        }
    )
    args = {a["name"]: a for a in read_sglang(tree)[0]}
    tp = args["--tensor-parallel-size"]
    assert tp["field"] == "tp_size" and tp["default"] == 1 and "--tp" in tp["aliases"]


LAUNCH_ROUTER_019 = """\
import argparse
import dataclasses


@dataclasses.dataclass
class RouterArgs:
    policy: str = "cache_aware"
    service_discovery: bool = False

    @staticmethod
    def add_cli_args(parser, use_router_prefix=False):
        prefix = "router-" if use_router_prefix else ""
        parser.add_argument(f"--{prefix}policy", type=str, default=RouterArgs.policy,
                            choices=["random", "round_robin", "cache_aware", "power_of_two"])
        parser.add_argument(f"--{prefix}service-discovery", action="store_true")


def parse_router_args(args):
    parser = argparse.ArgumentParser()
    RouterArgs.add_cli_args(parser)
    return parser.parse_args(args)


if __name__ == "__main__":
    parse_router_args(None)
"""


def test_a_router_source_archive_is_read_without_building_it(tmp_path):
    """--sdist: sglang-router 0.1.x keeps RouterArgs in launch_router.py, under py_src/ in its sdist."""
    import io
    import tarfile

    sdist = tmp_path / "sglang_router-0.1.9.tar.gz"
    with tarfile.open(sdist, "w:gz") as tar:
        for name, text in [
            ("py_src/sglang_router/__init__.py", ""),
            ("py_src/sglang_router/launch_router.py", LAUNCH_ROUTER_019),
            ("src/lib.rs", "// compiled code is never read\n"),
            ("PKG-INFO", "Metadata-Version: 2.1\nName: sglang-router\nVersion: 0.1.9\n"),
        ]:
            data = text.encode()
            info = tarfile.TarInfo(f"sglang_router-0.1.9/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    out = tmp_path / "args.json"
    assert gen_args.main(["router", "--sdist", str(sdist), "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["version"] == "0.1.9" and "source archive (sdist)" in data["source"]
    assert "sglang_router/launch_router.py" in data["source"] and "router_args.py" not in data["source"]
    args = {a["name"]: a for a in data["arguments"]}
    assert args["--policy"]["field"] == "policy" and "cache_aware" in args["--policy"]["choices"]
    assert args["--service-discovery"]["nargs"] == 0
