"""The data behind "Am I exposed?": GPUs, model families, the real commands and the bad inputs."""

from __future__ import annotations

import fnmatch
import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
TESTS = ROOT / "tests"


def _load(name: str):
    return yaml.safe_load((DATA / name).read_text(encoding="utf-8"))


def _fold(name: str) -> str:
    return re.sub(r"[\s_-]+", " ", name.strip().lower())


GPUS = _load("gpus.yaml")
MODELS = _load("models.yaml")
INCIDENTS = _load("incidents.yaml")
IDS = {i["id"] for i in INCIDENTS}


@pytest.mark.parametrize("name", ["gpus", "models"])
def test_valid_against_schema(name):
    schema = json.loads((DATA / f"{name}.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(_load(f"{name}.yaml"))]
    assert errors == []


def gpu_by_name(name: str):
    for g in GPUS:
        if _fold(name) in {_fold(n) for n in [g["name"], *g["aliases"]]}:
            return g
    return None


def test_gpu_ids_and_names_are_unique():
    assert len({g["id"] for g in GPUS}) == len(GPUS)
    seen: dict[str, str] = {}
    for g in GPUS:
        for n in [g["name"], *g["aliases"]]:
            assert seen.setdefault(_fold(n), g["id"]) == g["id"], n


@pytest.mark.parametrize(
    "written, gpu_id",
    [
        ("NVIDIA L4", "l4"),
        ("L4", "l4"),
        ("RTX 4090", "rtx-4090"),
        ("GeForce RTX 4090", "rtx-4090"),
        ("NVIDIA GeForce RTX 4090", "rtx-4090"),
        ("H100 80GB HBM3", "h100-sxm"),
        ("NVIDIA H100 80GB HBM3", "h100-sxm"),
        ("Apple M3 Max", "apple-m3-max"),
        ("nvidia-h20", "h20"),
        ("DGX Spark", "gb10"),
        ("Apple MPS", "apple-silicon"),
        # as people write them (issue 25)
        ("Apple M4", "apple-m4"),
        ("Apple Silicon (MPS)", "apple-silicon"),
        ("4090", "rtx-4090"),
        ("H100 SXM", "h100-sxm"),
        ("GB200", "gb200"),
    ],
)
def test_gpu_spellings(written, gpu_id, engine):
    assert gpu_by_name(written)["id"] == gpu_id
    assert engine.find_gpu(written)["id"] == gpu_id  # the engine folds a name as the data test does


@pytest.fixture(scope="module")
def engine():
    from opsmanual.data.loader import load_manual
    from opsmanual.engines.exposure import Engine
    from opsmanual.render.bundle import bundle

    return Engine(bundle(load_manual(ROOT)))


def test_every_incident_gpu_is_known():
    # hardware facets that are GPUs; SM120 is a compute capability, not a part
    named = {h for i in INCIDENTS for h in i.get("hardware", [])} - {"SM120"}
    assert [h for h in sorted(named) if gpu_by_name(h) is None] == []


def model_of(path: str):
    value, fam, traits = path.rstrip("/").lower(), None, set()
    for m in MODELS:
        if any(fnmatch.fnmatchcase(value, p) for p in m["patterns"]):
            if m["traits"] and set(m["traits"]) <= {"fp8", "fp4"}:
                traits |= set(m["traits"])
            elif fam is None:
                fam, traits = m["family"], traits | set(m["traits"])
    return fam, traits


@pytest.mark.parametrize(
    "path, family, traits",
    [
        ("Qwen/Qwen3-Next-80B-A3B-Instruct", "qwen3-next", {"hybrid-linear-attention", "moe"}),
        ("Qwen/Qwen3.5-122B-A10B-FP8", "qwen3.5-moe", {"hybrid-linear-attention", "moe", "fp8"}),
        ("RadixArk/Qwen3.8-Flash-Next-NVFP4", "qwen3.8", {"hybrid-linear-attention", "fp4"}),
        ("deepseek-ai/DeepSeek-V3-0324", "deepseek-v3", {"mla", "moe"}),
        ("/data/models/DeepSeek-R1/", "deepseek-v3", {"mla", "moe"}),
        ("sgl-project/DeepSeek-V4-Pro-FP8", "deepseek-v4", {"sliding-window", "moe", "fp8"}),
        ("openai/gpt-oss-20b", "gpt-oss", {"sliding-window", "moe"}),
        ("lmsys/SGLang-EAGLE3-Qwen3-30B-A3B-Instruct-2507-SpecForge-Nex", "eagle3-draft", set()),
        ("Qwen/Qwen3-30B-A3B-Instruct-2507", "qwen3-30b-a3b", {"moe"}),
        ("meta-llama/Meta-Llama-3.1-8B-Instruct", "llama-3", set()),
        ("google/gemma-3-27b-it", "gemma-3", {"sliding-window"}),
        ("nvidia/Nemotron-H-8B-Base-8K", "nemotron-h", {"mamba"}),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", None, set()),
    ],
)
def test_model_families(path, family, traits):
    assert model_of(path) == (family, traits)


def test_model_families_are_unique():
    families = [m["family"] for m in MODELS]
    assert len(families) == len(set(families))


def _conditions(c, out):
    key, value = next(iter(c.items()))
    if key in ("all", "any"):
        for x in value:
            _conditions(x, out)
    elif key == "not":
        _conditions(value, out)
    else:
        out.append((key, value))
    return out


def test_exposure_conditions_name_known_families_and_gpus():
    families = {m["family"] for m in MODELS}
    gpu_ids = {g["id"] for g in GPUS}
    architectures = {g["architecture"] for g in GPUS}
    problems = []
    for i in INCIDENTS:
        when = (i.get("exposure") or {}).get("when")
        for key, value in _conditions(when, []) if when else []:
            if key == "model" and "family" in value:
                problems += [(i["id"], f) for f in value["family"] if f not in families]
            if key == "gpu" and "name" in value:
                problems += [(i["id"], g) for g in value["name"] if g not in gpu_ids]
            if key == "gpu" and "architecture" in value:
                problems += [(i["id"], a) for a in value["architecture"] if a not in architectures]
    assert problems == []


COMMANDS = yaml.safe_load((TESTS / "exposure_commands.yaml").read_text(encoding="utf-8"))
BAD = yaml.safe_load((TESTS / "exposure_bad_inputs.yaml").read_text(encoding="utf-8"))


def test_real_commands_file():
    assert len(COMMANDS) >= 35
    forms = {
        "python -m sglang.launch_server": r"\bpython -m sglang\.launch_server\b",
        "python3 -m": r"\bpython3 -m sglang\.",
        "sglang serve": r"\bsglang serve\b",
        "router": r"-m sglang_router\.launch_router\b",
        "docker run": r"^docker run\b",
        "environment prefix": r"^[A-Z_][A-Z0-9_]*=\S+",
        "--flag=value": r"--[a-z-]+=\S",
        "--tp alias": r"--tp \d",
        "sgl.Engine": r"^sgl\.Engine\(",
        "bench_serving": r"-m sglang\.bench_serving\b",
    }
    for form, pattern in forms.items():
        assert any(re.search(pattern, c["command"], re.M) for c in COMMANDS), form
    for c in COMMANDS:
        assert set(c) <= {"command", "gpu", "version", "source", "must", "must_not", "not_applies"}
        assert c["command"].strip() and c["source"].startswith("https://")
        assert set(c["must"]) <= IDS and set(c["must_not"]) <= IDS and set(c.get("not_applies", ())) <= IDS
        assert not set(c["must"]) & set(c["must_not"])
        assert not set(c.get("not_applies", ())) & set(c["must_not"])
        if "gpu" in c:
            assert gpu_by_name(c["gpu"]) is not None, c["gpu"]


def test_bad_inputs_file():
    assert {b["expect"] for b in BAD} == {"refuse", "undecidable"}
    for b in BAD:
        assert set(b) <= {"command", "gpu", "version", "source", "expect", "problem"}
        assert isinstance(b["command"], str) and b["problem"]
