"""What the diagnosis reads in an operator's report: the lines that give versions, the GPU and its
memory, a launch command, the model, errors and the phase of a server's life. Both engines
(opsmanual/engines/diagnose.py and docs/javascripts/sgm/diagnose.js) take these rules from the
diagnosis bundle (opsmanual/render/diagnose.py), so they are written once, here.

Every regex is in the subset Python's ``re`` and JavaScript's ``RegExp`` (with the ``u`` flag) read
alike: no inline flags, no possessive quantifiers, no ``\\Z``; flags are given apart ("i" for case).
Each is tried on one line at a time (a match never spans lines). A case-insensitive rule is best
written in lower case: the Python engine then runs it, faster, on the report in lower case. The
wording they look for is what SGLang and its tools print:
``python -m sglang.check_env`` (``sglang: 0.5.4``, ``GPU 0,1: NVIDIA H100 80GB HBM3``,
``PyTorch: 2.8.0+cu128``), ``pip freeze`` (``sglang==0.5.4``), ``nvidia-smi``'s table, PyTorch's
out-of-memory message (``GPU 0 has a total capacity of 79.11 GiB``) and the scheduler's log lines.
"""

from __future__ import annotations

from typing import Any

FORMAT = "sgm-diagnose/1"

_V = r"v?(\d+\.\d+\.\d+(?:\.?post\d+|rc\d+|\.dev\d+)?)"  # a release number as it is written

# Versions: (product, regex with the version as group 1, flags). The first rule that finds a
# product's version wins; rules are listed from the most to the least explicit.
VERSIONS: list[dict[str, Any]] = [
    {"product": "sglang", "re": r"^[ \t]*sglang[ \t]*(?::|==)[ \t]*" + _V, "flags": "i"},
    {"product": "sglang-router", "re": r"^[ \t]*sglang[-_]router[ \t]*(?::|==)[ \t]*" + _V, "flags": "i"},
    {"product": "miles", "re": r"^[ \t]*miles[ \t]*(?::|==)[ \t]*" + _V, "flags": "i"},
    {
        "product": "torch",
        "flags": "i",
        "re": r"^[ \t]*(?:pytorch|torch)[ \t]*(?::|==)[ \t]*(\d+\.\d+(?:\.\d+)?(?:\+[a-z0-9]+)?)",
    },
    {"product": "cuda", "re": r"cuda version:?[ \t]*(\d+\.\d+)", "flags": "i"},
    {"product": "cuda", "re": r"cuda compilation tools, release (\d+\.\d+)", "flags": "i"},
    {"product": "cuda", "re": r"^[ \t]*cuda(?: runtime| toolkit)?[ \t]*(?::|==)[ \t]*(\d+\.\d+)", "flags": "i"},
    {
        "product": "sglang-router",
        "flags": "i",
        "re": r"sglang[-_ ]router(?:[ \t]+version)?[ \t]*(?::|==|=)?[ \t]*" + _V,
    },
    {"product": "sglang", "re": r"lmsysorg/sglang:" + _V, "flags": "i"},
    {"product": "sglang", "re": r"\bsglang(?:[ \t]+version)?[ \t]*(?::|==|=)?[ \t]*`?" + _V, "flags": "i"},
    {"product": "miles", "re": r"\bmiles(?:[ \t]+version)?[ \t]*(?::|==|=)?[ \t]*`?" + _V, "flags": "i"},
    {
        "product": "torch",
        "flags": "i",
        "re": r"\b(?:pytorch|torch)(?:[ \t]+version)?[ \t]*(?::|==|=)?[ \t]*`?(\d+\.\d+\.\d+(?:\+[a-z0-9]+)?)",
    },
    {"product": "cuda", "re": r"\bcuda(?:[ \t]+version)?[ \t]*(?::|==|=)?[ \t]*(1\d\.\d)\b", "flags": "i"},
    {"product": "cuda", "re": r"\+cu(1\d)(\d)\b", "flags": "i"},
]
PRODUCTS = ["sglang", "sglang-router", "miles", "torch", "cuda"]
PRODUCT_LABELS = {
    "sglang": "SGLang",
    "sglang-router": "sglang-router",
    "miles": "Miles",
    "torch": "PyTorch",
    "cuda": "CUDA",
}

# The GPU: a line that names it, in the order tried (group 1 is the name).
GPU_LINES: list[dict[str, Any]] = [
    {"re": r"^[ \t]*GPU [\d,]+:[ \t]*(.+?)[ \t]*$", "flags": ""},  # check_env
    {"re": r"^\|[ \t]*\d+[ \t]+(NVIDIA [^|]*?)[ \t]+(?:On|Off)[ \t]+\|", "flags": ""},  # nvidia-smi
    {"re": r"^[ \t]*GPU \d+: (.+?) \(UUID", "flags": ""},  # nvidia-smi -L
]
# The memory of one GPU, in GiB (group 1), in the order tried.
GPU_MEMORY: list[dict[str, Any]] = [
    {"re": r"total capacity of ([\d.]+) GiB", "flags": ""},
    {"re": r"\|[ \t]*\d+MiB[ \t]*/[ \t]*(\d+)MiB[ \t]*\|", "flags": "", "mib": True},
]

# A launch command starts on a line that holds one of these; a line ending in a backslash goes on.
COMMAND_START = {
    "flags": "",
    "re": (
        r"(?:^|[ \t;&|(`\x27\x22])(?:(?:python3?|uv run python3?|torchrun)[ \t]+(?:\S+[ \t]+)*?-m[ \t]+"
        r"(?:sglang\.launch_server|sglang_router\.launch_router|sglang_router\.launch_server|sglang\.bench_serving)\b"
        r"|sglang[ \t]+serve\b|docker[ \t]+run\b)"
    ),
}
COMMAND_PROMPT = {"re": r"^[ \t]*(?:[$#>+][ \t]+|\w+@[\w.-]+:[^$#]*[$#][ \t]+)", "flags": ""}
MAX_COMMANDS = 4
MAX_COMMAND_LINES = 200

# The model when no command names it: SGLang's server_args line, or a "model:" line.
MODEL_LINES: list[dict[str, Any]] = [
    {"re": r"model_path='([^']+)'", "flags": ""},
    {"re": r"--model(?:-path)?[= ]+([^ \t\\]+)", "flags": ""},
    {
        "flags": "i",
        "re": r"^[ \t]*(?:model|model name|model path)[ \t]*[:=][ \t]*`?([A-Za-z0-9_./-]+/[A-Za-z0-9_.-]+)`?[ \t]*$",
    },
]

# Lines that say where in a server's life a line came: the last one before the first error decides.
PHASES: list[dict[str, Any]] = [
    {
        "phase": "start-up",
        "flags": "",
        "re": "|".join(
            [
                r"Load weight (?:begin|end)",
                r"Loading safetensors",
                r"_create_buffers",
                r"init_memory_pool",
                r"Memory pool end",
                r"KV Cache is allocated",
                r"Init torch distributed",
                r"Init attention backend",
                r"load_model\b",
                r"ModelRunner\(",
            ]
        ),
    },
    {
        "phase": "capture",
        "flags": "",
        "re": "|".join(
            [
                r"[Cc]apture (?:prefill |decode |piecewise )?(?:cuda|CUDA) graph",
                r"[Cc]apturing batches",
                r"capture_one_batch",
                r"cuda_graph_runner",
                r"CudaGraphRunner",
            ]
        ),
    },
    {
        "phase": "serving",
        "flags": "",
        "re": "|".join(
            [
                r"#running-req:",
                r"Decode batch",
                r"Prefill batch",
                r"The server is fired up",
                r"POST /(?:v1/|generate)",
                r"Uvicorn running",
            ]
        ),
    },
    {
        "phase": "shutdown",
        "flags": "",
        "re": "|".join(
            [
                r"SIGTERM",
                r"SIGQUIT",
                r"SIGKILL",
                r"[Ss]hutting down",
                r"[Rr]eceived signal",
                r"Killing process",
                r"Exit code",
            ]
        ),
    },
]
# The phases' labels are data/guidance.schema.json's x-labels (opsmanual/data/loader.labels("phase")).

# Lines that read like errors (as the finder's log reading, docs/javascripts/sgm/logmatch.js).
ERRORISH = {
    "flags": "i",
    "re": r"\b(?:"
    + "|".join(
        [
            "error",
            "errors",
            "exception",
            "traceback",
            "fail",
            "failed",
            "failure",
            "fatal",
            "killed",
            "timed out",
            "timeout",
            "abort",
            "aborted",
            "oom",
            "panic",
            "crash",
            "crashed",
            "assert",
            "assertion",
            "refused",
            "unable",
            "cannot",
            "invalid",
            "denied",
            "unsupported",
            "not supported",
            "out of memory",
        ]
    )
    + r")\b",
}
TRACEBACK = {"re": r"^Traceback \(most recent call last\):", "flags": ""}
EXCEPTION_LINE = {"re": r"^[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Warning)\b", "flags": ""}
LINE_PREFIX = {
    "flags": "",
    "re": (
        r"^(?:\[[^\]]{0,80}\][ \t]*|\d{4}-\d\d-\d\d[T ][\d:.,]+\S*[ \t]*"
        r"|(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\b:?[ \t]*)+"
    ),
}
MAX_ERROR_LINES = 8

MAX_CHARS = 1_000_000  # characters of a report that are read
MAX_LINE = 4000  # characters of a line that the line rules read

# How evidence counts (points); verdicts follow from the total and from what kind of evidence it is.
WEIGHTS = {
    "certain": 100,  # a line only this incident prints
    "certainMore": 10,  # each further such line, up to ...
    "certainLines": 5,
    "possible": 20,  # only lines several incidents print
    "exposure": 15,  # each condition of the launch command that holds (a flag, the GPU, the model) ...
    "exposureMax": 30,  # ... up to this
    "mayApply": 5,  # when what the command leaves out decides
    "mayApplyMax": 10,
    "versionIn": 5,  # the reported version is in the affected range
    "versionOut": -30,  # the reported version is outside it
    "hardware": 8,  # the report names the incident's hardware
    "textMax": 60,  # text relevance, at most
    "textScale": 4,  # text points per unit of weight / sqrt(the incident's whole weight)
    "matches": 100,  # a total from which an incident with strong evidence "matches"
    "strongText": 30,  # text points that, with a launch condition that holds, make strong evidence
    "related": 12,  # a total from which an incident is shown as related
    "shown": 10,  # incidents listed at most
    "words": 4,  # words shown in one incident's reasons
}

# The reasons and texts both engines write, as templates: {name} is replaced by a value (text or number).
MESSAGES = {
    "certainLine": "log line {line}: {text}",
    "certainMore": " (and {more} more)",
    "possibleLine": "log line {line}, which several incidents print: {text}",
    "hardware": "your GPU: {gpu}",
    "words": "your words: {words}",
    "versionSeen": "{version} is a version where it was seen",
    "versionIn": "{version} is in the affected range {range}",
    "versionOut": "{version} is outside the affected range {range}",
    "versionShown": "{product} {version}",
    "cut": "Only the first {limit} characters were read.",
    "notCommand": "not read as a launch command: {error}",
    "reportTitle": "Incident: {symptom}",
    "factVersion": "{product} {version}",
    "factGpu": "GPU: {gpu}",
    "factMemory": " ({memory} GiB)",
    "factModel": "Model: {model}",
    "factPhase": "Phase: {phase}",
    "factCommand": "Command: {command}",
    "factError": "Error (line {line}): {text}",
}
# Reasons of the exposure check that say nothing specific of an incident (the program, a version).
EXPOSURE_GENERIC = {"re": r"^(?:the command is|(?:SGLang|sglang-router|Miles) \S*\d)", "flags": ""}
# The draft entry for data/incidents.yaml: {symptom}, {name}, {hardware} are JSON strings; a line with
# {symptom} in the "logged" part is left out when the report has no error line.
DRAFT = [
    "- id: TODO  # sglang-<issue number>, or see the id scheme on the About page",
    "  name: {name}",
    "  title: TODO",
    "  symptom: {symptom}",
    "  cause: not recorded",
    "  fix: not recorded",
    "  status: reported",
    "  checked: TODO  # YYYY-MM-DD",
    "  sections: []",
    "  hardware: {hardware}",
    "  components: []",
]
DRAFT_LOGGED = [
    "  log_patterns:",
    "    - literal: {symptom}",
    "      source: TODO  # where the line is printed",
    "  log_examples:",
    "    - {symptom}",
]
DRAFT_TAIL = [
    "  sources:",
    "    - TODO  # the thread that reports it",
]

# The words of the diagnosis box on the incidents page (docs/javascripts/sgm/diagnosis-box.js).
LABELS = {
    "heading": "Is this a known incident?",
    "known": "Yes: an incident matches your report.",
    "unknown": "Not a known incident: nothing in your report is strong evidence for one.",
    "facts": "Read from your report (edit the report below if something is wrong):",
    "versions": "Versions",
    "gpu": "GPU",
    "memory": "GPU memory",
    "model": "Model",
    "phase": "Phase",
    "commands": "Launch command",
    "errors": "Error lines",
    "symptoms": "Words",
    "none": "none found",
    "matches": "matches",
    "related": "related",
    "relatedHead": "The closest incidents:",
    "guidance": "A common error",
    "report": "Report a new incident with these facts",
    "draft": "A draft entry for data/incidents.yaml",
    "text": "Your report",
    "forget": "Forget the report",
    "loading": "Reading your report…",
    "failed": "The diagnosis could not load; the rows below still match the log lines.",
}
