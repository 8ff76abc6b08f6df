"""What the diagnosis reads in an operator's report: the lines that give versions, the GPU and its
memory, a launch command, the model, errors and the phase of a server's life. Both engines
(opsmanual/engines/diagnose.py and docs/javascripts/sgm/diagnose.js) take these rules from the
diagnosis bundle (opsmanual/render/diagnose.py), so they are written once, here.

Every regex is in the subset Python's ``re``, RE2 and JavaScript's ``RegExp`` (with the ``u`` flag)
read alike: no inline flags, no possessive quantifiers, no lookaround, no ``\\Z``, no ``\\s``/``\\S``
(write ``[ \\t]``); flags are given apart ("i" for case). Each is tried on one line at a time (a match
never spans lines: no class takes a line break). Python runs them with RE2, in time linear in the
report; the browser's RegExp backtracks, so each is written to keep it linear too (tests/test_diagnose.py
checks every rule): no two repeats in a row (optional items between) that can take the same
character, no repeat inside an unbounded repeat, and in a rule not anchored with ``^``, no unbounded
repeat that can take a character a match starts with (bound it instead, ``{0,400}``). The
wording they look for is what SGLang and its tools print:
``python -m sglang.check_env`` (``sglang: 0.5.4``, ``GPU 0,1: NVIDIA H100 80GB HBM3``,
``PyTorch: 2.8.0+cu128``), ``pip freeze`` (``sglang==0.5.4``), ``nvidia-smi``'s table, PyTorch's
out-of-memory message (``GPU 0 has a total capacity of 79.11 GiB``) and the scheduler's log lines.
"""

from __future__ import annotations

from typing import Any

from opsmanual.data import programs
from opsmanual.data.exposure_words import CUT_MARKS

FORMAT = "sgm-diagnose/1"

# a release number as it is written; never 0.0.x, which a build from source reports (0.0.0.dev13972+g4f08):
# no release, so no range can be read from it
_V_TAIL = r"(?:\.?post\d+|rc\d+|\.dev\d+)?"  # a post, pre or dev release's suffix
_V = r"v?((?:[1-9]\d*\.\d+|0\.[1-9]\d*)\.\d+" + _V_TAIL + ")"
_V_FROM = r"v?\d+\.\d+\.\d+" + _V_TAIL  # a release number, not kept

# Versions: (product, regex with the version as group 1, flags). The first rule that finds a
# product's version wins; rules are listed from the most to the least explicit.
VERSIONS: list[dict[str, Any]] = [
    {"product": "sglang", "re": r"^[ \t]*sglang[ \t]*(?::|==)[ \t]*" + _V, "flags": "i"},
    {"product": "sglang-router", "re": r"^[ \t]*sglang[-_]router[ \t]*(?::|==)[ \t]*" + _V, "flags": "i"},
    {"product": "miles", "re": r"^[ \t]*miles[ \t]*(?::|==)[ \t]*" + _V, "flags": "i"},
    {
        "product": "torch",
        "flags": "i",
        "re": r"^[ \t]*(?:pytorch|torch)[ \t]*(?::|==)[ \t]*(\d+\.\d+(?:\.\d+)?(?:\+[a-z0-9]{1,40})?)",
    },
    {"product": "cuda", "re": r"cuda version:?[ \t]*(\d+\.\d+)", "flags": "i"},
    {"product": "cuda", "re": r"cuda compilation tools, release (\d+\.\d+)", "flags": "i"},
    {
        "product": "cuda",
        # a list's item and a bold or code name too: "- **CUDA**: 13.0"
        "re": r"^[ \t]*(?:[-*+][ \t]+)?[`*]{0,2}cuda(?: runtime| toolkit)?[`*]{0,2}[ \t]*(?::|==)[ \t]*[`*]{0,2}(\d+\.\d+)",
        "flags": "i",
    },
    {
        "product": "sglang-router",
        "flags": "i",
        "re": r"sglang[-_ ]router(?:[ \t]+version)?[ \t]*(?:(?::|==|=)[ \t]*)?" + _V,
    },
    {"product": "sglang", "re": r"lmsysorg/sglang:" + _V, "flags": "i"},
    # a move between releases: the release it runs is the one it moved to ("upgraded sglang from 0.5.9 to
    # 0.5.22", "from sglang 0.5.9 to 0.5.22")
    {
        "product": "sglang",
        "re": r"\bsglang[ \t]+from[ \t]+" + _V_FROM + r"[ \t]+(?:to|->)[ \t]+(?:sglang[ \t]+)?" + _V,
        "flags": "i",
    },
    {
        "product": "sglang",
        "re": r"\bfrom[ \t]+sglang[ \t]+" + _V_FROM + r"[ \t]+(?:to|->)[ \t]+(?:sglang[ \t]+)?" + _V,
        "flags": "i",
    },
    # an image named by its release ("sglang official v0.5.10 image")
    {"product": "sglang", "re": r"\bsglang\b[^\n]{0,40}?[ \t]" + _V + r"[ \t]+(?:docker[ \t]+)?image\b", "flags": "i"},
    # (with pip's extras: pip install "sglang[all]==0.4.6.post4"; in code or bold, the name or the number:
    # `0.5.9`, **v0.5.17**, **SGLang**: 0.5.9)
    {
        "product": "sglang",
        "re": r"\bsglang(?:\[[a-z0-9_,-]{1,40}\])?(?:[ \t]+version)?[`*]{0,2}[ \t]*(?:(?::|==|=)[ \t]*)?[`*]{0,2}" + _V,
        "flags": "i",
    },
    {
        "product": "miles",
        "re": r"\bmiles(?:[ \t]+version)?[`*]{0,2}[ \t]*(?:(?::|==|=)[ \t]*)?[`*]{0,2}" + _V,
        "flags": "i",
    },
    {
        "product": "torch",
        "flags": "i",
        "re": r"\b(?:pytorch|torch)(?:[ \t]+version)?[`*]{0,2}[ \t]*(?:(?::|==|=)[ \t]*)?`?(\d+\.\d+\.\d+(?:\+[a-z0-9]{1,40})?)",
    },
    {"product": "cuda", "re": r"\bcuda(?:[ \t]+version)?[ \t]*(?:(?::|==|=)[ \t]*)?(1\d\.\d)\b", "flags": "i"},
    {"product": "cuda", "re": r"\+cu(1\d)(\d)\b", "flags": "i"},
]
PRODUCTS = ["sglang", "sglang-router", "miles", "torch", "cuda"]
PRODUCT_LABELS = {**programs.PRODUCT_LABELS, "torch": "PyTorch", "cuda": "CUDA"}  # SGLang's: data/programs.py

# The GPU: a line that names it, in the order tried (group 1 is the name).
GPU_LINES: list[dict[str, Any]] = [
    {"re": r"^[ \t]*[GN]PU [\d,]+:[ \t]*([^ \t\n].*)$", "flags": ""},  # check_env (an Ascend build's NPU too)
    {"re": r"^\|[ \t]*\d+[ \t]+(NVIDIA [^|\n]*?)[ \t](?:On|Off)[ \t]+\|", "flags": ""},  # nvidia-smi
    {"re": r"^[ \t]*GPU \d+: (.+?) \(UUID", "flags": ""},  # nvidia-smi -L
]
# A GPU named by a number alone ("4090") is no GPU where the text before it makes the number a value: after
# `:`, `=`, `#`, `/`, `.`, `-` or `_`, or after a word that numbers follow in logs and commands (`#token: 4090`,
# `--port 5090`, `rank 3090`); tried on the 24 characters before the number, in ASCII lower case.
GPU_NUMBER_NOT = {
    "flags": "",
    "re": r"(?:[:=#/._-]|\b(?:port|tokens?|bs|batch|size|len|length|steps?|ids?|pid|rank|seed|max|min|top)\b)[ \t]*$",
}
GPU_NUMBER_REACH = 24
# Any GPU name is no GPU right after `#`, or after `#L<n>-`: a URL's fragment, as a GitHub link to lines of
# a file writes them (`x.py#L20-L40` names no L20 and no L40); tried on the same characters before the name.
GPU_NAME_NOT = {"flags": "", "re": r"#(?:l[0-9]+-)?$"}
GPU_NAME_MAX = 80  # characters of a GPU line's name shown when the manual does not list that GPU
# The memory of one GPU, in GiB (group 1), in the order tried.
GPU_MEMORY: list[dict[str, Any]] = [
    {"re": r"total capacity of ([\d.]+) GiB", "flags": ""},
    {"re": r"\|[ \t]*\d+MiB[ \t]*/[ \t]*(\d+)MiB[ \t]*\|", "flags": "", "mib": True},
]

# The size of the allocation PyTorch's out-of-memory message says failed (group 1, in group 2's unit).
ALLOCATION = {"re": r"Tried to allocate ([\d.]+) (GiB|MiB)", "flags": ""}

# The GPU's architecture as a report writes it (``sm_120``, ``SM90a``, ``compute capability 12.0``): "SM" and
# the groups. Read from the GPU the report names, else from these when they name one architecture only
# (a build that lists several names none).
ARCH: list[dict[str, Any]] = [
    {"re": r"(?:^|[^A-Za-z0-9])sm[_ ]?([1-9][0-9]{1,2})[a-z]?\b", "flags": "i"},
    # (NVIDIA's 5.0 and up, the GPUs a CUDA 12 build runs on: a MUSA card's "Compute Capability: 3.1" is none)
    {"re": r"compute capability[: =]{1,3}([5-9]|1[0-9])\.([0-9])\b", "flags": "i"},
]
# A line that lists the architectures a build supports, not the GPU's own: PyTorch's warning names the
# GPU's ("with CUDA capability sm_120 is not compatible …") and then, on its next line, every one its
# build has ("The current PyTorch install supports CUDA capabilities sm_50 sm_60 …").
ARCH_LIST_LINE = {"re": r"supports CUDA capabilities", "flags": "i"}

# A launch command starts on a line that holds one of these; a line ending in a backslash goes on.
COMMAND_START = {
    "flags": "",
    "re": (
        r"(?:^|[ \t;&|(`\x27\x22])(?:(?:python3?|uv run python3?|torchrun)[ \t](?:[^\n]{0,400}?[ \t])?-m[ \t]{1,16}"
        r"(?:sglang\.launch_server|sglang_router\.launch_router|sglang_router\.launch_server|sglang\.bench_serving)\b"
        r"|sglang[ \t]{1,16}serve\b|docker[ \t]{1,16}run\b)"
    ),
}
COMMAND_PROMPT = {"re": r"^[ \t]*(?:[$#>+][ \t]+|\w+@[\w.-]+:[^$#\n]*[$#][ \t]+)", "flags": ""}
MAX_COMMANDS = 4
MAX_COMMAND_LINES = 200

# The model when no command names it: SGLang's server_args line, or a "model:" line.
MODEL_LINES: list[dict[str, Any]] = [
    {"re": r"model_path='([^'\n]{1,400})'", "flags": ""},
    # (not the next option: `--model-path --tp 4` in a sentence names no model; nor a shell variable,
    # `--model-path $MODEL_PATH`)
    {"re": r"--model(?:-path)?[= ]{1,16}([^ \t\\=\n$-][^ \t\\\n]{0,400})", "flags": ""},
    {
        "flags": "i",
        "re": r"^[ \t]*(?:model|model name|model path)[ \t]*[:=][ \t]*`?([A-Za-z0-9_./-]+/[A-Za-z0-9_.-]+)`?[ \t]*$",
    },
]

# Lines that say where in a server's life a line came: the last one before the first error decides,
# read outside tracebacks (their frames and code lines); FRAME_PHASES reads those.
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
            ]
        ),
    },
]
# Where the first error's own Python traceback says it failed: the function of each frame line
# (`File "…", line N, in <function>`), the innermost frame that tells one deciding. It outranks PHASES,
# which are read before the error; a report with no error line and no phase line outside tracebacks
# takes the last frame that tells one. Functions, not paths: a crash while serving also runs through
# cuda_graph_runner.py (replaying a graph), and a capture at start-up through ModelRunner.__init__. The
# names are SGLang's: capture_one_batch in older releases, capture_one_shape and capture_cuda_graphs in
# 0.5.22, event_loop_normal and event_loop_overlap in both.
FRAME_PHASES: list[dict[str, Any]] = [
    {
        "phase": "start-up",
        "flags": "",
        "re": "|".join(
            [
                r", in (?:load_model|load_weights|init_memory_pool|_create_buffers|init_torch_distributed"
                r"|initialize_model_parallel|init_attention_backend)[ \t]*$",
                r'(?:model_runner|tp_worker|scheduler)\.py", line \d+, in __init__[ \t]*$',
            ]
        ),
    },
    {
        "phase": "capture",
        "flags": "",
        # the capture path's own functions (others named capture_* run while serving: MoRI-EP's
        # _capture_event_if_async, a model's capture_aux_hidden_states); CudaGraphRunner.__init__
        # captures the graphs, replay is another method; PyTorch's torch.cuda.CUDAGraph.capture_begin and
        # capture_end (torch/cuda/graphs.py) begin and end every capture
        "re": r", in (?:_?capture|capture_one[a-z_]{0,24}|_capture_one_stream|capture_(?:cuda|decode|prefill)_graphs?"
        r"|capture_prepare|capture_session|capture_begin|capture_end)[ \t]*$"
        r'|cuda_graph_runner\.py", line \d+, in __init__[ \t]*$',
    },
    {
        "phase": "serving",
        "flags": "",
        "re": r", in (?:event_loop[a-z_]{0,40}|run_batch|forward_batch_generation)[ \t]*$",
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
            "panicked",  # Rust's "thread 'main' panicked at src/main.rs:10:5:" (the router)
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
# The prefix a multi-process launcher writes before each line of a worker's output, taken off before the
# report is read, so a worker's traceback reads as a traceback: torchrun's ``[rank0]: ``, Ray's and vLLM's
# ``(VllmWorker rank=3 pid=1090) `` and vLLM's ``ERROR 06-05 06:18:13 [multiproc_executor.py:470] `` (older
# releases: ``ERROR 08-23 08:25:25 multiproc_worker_utils.py:226] ``).
# SGLang's own prefix (``[2026-01-02 10:00:00 TP0] ``) stays.
PROCESS_PREFIX = {
    "flags": "",
    "re": r"^(?:\[rank[0-9]{1,5}\]:[ \t]?|\([A-Za-z_][A-Za-z0-9_.]{0,60}(?:[ ,]{1,2}[a-z_]{1,20}=[^)\n ,]{1,40}){1,6}\)[ \t]?"
    r"|(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) [0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})? \[?[A-Za-z0-9_.-]{1,80}:[0-9]{1,6}\][ \t]?){1,2}",
}
# A traceback's frames say where the code ran, not what went wrong: Python's frame line (its source line, the
# indented line after it, is code too, as is an indented line right before the exception line), the carets
# under a source line, and C++ stack frames. Their words are no evidence and they are no error lines.
FRAME_LINE = {"re": r'^[ \t]*File "[^"\n]{1,500}", line \d', "flags": ""}
CODE_LINE = {"re": r"^[ \t]*(?:[\^~]{3,}[ \t]*$|frame #\d{1,4}: |Exception raised from \S)", "flags": ""}
# The line a traceback ends with: an exception's name (``RuntimeError``, ``triton.runtime.errors.OutOfResources``)
# and its message; the indented line right before it is the source line that raised.
RAISED_LINE = {
    "re": r"^(?:[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Warning)\b|[a-z_]\w*(?:\.\w+)+: )",
    "flags": "",
}
# The lines every healthy SGLang run prints (the scheduler's batch lines, the model runner's and the KV cache
# configurator's start-up lines, as 0.5.22 and earlier releases write them, and the HTTP server's access
# log): they tell nothing of a failure, so their words are no evidence and they tell no kind of failure
# ("#cached-token: 0, cache hit rate: 0.00%").
ROUTINE_LINE = {
    "flags": "",
    "re": r"(?:Prefill|Decode) batch(?: \[\d{1,12}\])?[.,] #|Load weight (?:begin|end)\. |Memory pool end\. "
    r"|KV Cache is allocated\. |Capture (?:[a-z]{1,20} ){0,3}(?:cuda|CUDA) graph (?:begin|end)\. "
    r"|max_total_num_tokens=\d|The server is fired up and ready to roll|INFO: {1,8}\S{1,80} - \x22(?:GET|POST) /",
}
EXCEPTION_LINE = {"re": r"^[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Warning)\b", "flags": ""}
LINE_PREFIX = {
    "flags": "",
    "re": (
        r"^(?:\[[^\]\n]{0,80}\][ \t]*|\d{4}-\d\d-\d\d[T ][\d:.,][^ \t\n]*[ \t]*"
        r"|(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\b:?[ \t]*"
        # glog's, as Mooncake's transfer engine writes it: E0612 14:05:26.176716 1192408 tcp_transport.cpp:136]
        r"|[IWEF][0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{1,9}[ \t]{1,8}[0-9]{1,9}[ \t]{1,8}[^ \t\]\n]{1,100}:[0-9]{1,6}\][ \t]*"
        r"){1,8}"
    ),
}
MAX_ERROR_LINES = 8
# The lines after an error line that continue its message with advice ("Possible solutions:", "1. set
# --mem-fraction-static to a smaller value"): SGLang's words, like the error line itself, so the flags and
# variables they name are no flags the report gives (at most ERROR_ADVICE_LINES of them after each).
ERROR_ADVICE = {"flags": "", "re": r"^[ \t]*(?:Possible (?:solutions|suggestions):|\d{1,2}\.[ \t])"}
ERROR_ADVICE_LINES = 8

MAX_CHARS = 1_000_000  # characters of a report that are read
# Fewer non-empty lines than this, with no log line, command, version or GPU in them, are words typed
# (or one line pasted) into a search box: the finder searches them (sgm/logmatch.js looksLikeLog reads
# two lines or more as a log, or one line as a log prints it), so the diagnosis lists the incidents in
# the finder's order.
TYPED_LINES = 2
MAX_LINE = 4000  # characters of a line that the line rules read

# What an incident's launch conditions can need of a GPU besides where it was seen (opsmanual/engines/diagnose.py
# _gpu_needs): the GPU record's field, and how the need reads when the report's GPU is outside it
GPU_NEEDS = {
    "vendor": "vendor {value}",
    "architecture": "architecture {value}",
    "compute_capability": "compute capability {value}",
}

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
    "gpuOut": -30,  # the report's GPU is outside the GPUs it needs (their vendor, architecture, compute capability)
    "hardware": 8,  # the report names the incident's hardware
    "textMax": 60,  # text relevance, at most
    "textScale": 4,  # text points per unit of weight / sqrt(the incident's whole weight)
    "matches": 100,  # a total from which an incident with strong evidence "matches"
    "strongText": 30,  # text points that corroborate a launch condition that holds
    "support": 1,  # pieces of evidence of the same failure besides words (its kind, a line it prints)
    # that, with a launch condition the report states, make its mechanism: the incident matches
    "lead": 150,  # an incident whose points are at least this percentage of every other's ...
    "leadKinds": 2,  # ... on evidence of at least this many kinds (kind, line, words; one condition at most)
    "related": 12,  # a total from which an incident is shown as related
    "shown": 10,  # incidents listed at most
    "kind": 15,  # the report tells a kind of failure the incident's own text tells
    "relatedMax": 3,  # incidents listed as related at most (after those that match)
    "wordsAloneMax": 2,  # of them, related by words alone (and the finder's rank) when a common error tells the failure
    "relatedWords": 20,  # text points from which words alone (with the GPU) make an incident related ...
    "relatedWordsMin": 2,  # ... when there are at least this many different words
    "words": 4,  # words shown in one incident's reasons
    "finder": 30,  # the finder's first for the report's own words; its second and third get 2/3 and 1/3
    "cited": 100,  # the report cites a thread of the incident (its report, the fix)
    "component": 8,  # each component of the incident that the report's opening names (after the finder's rank:
    "components": 2,  # it makes no incident far ahead), for at most this many components
}

# The finder ranks the incidents for a report's own words: its headline (the first line, when it is a
# sentence rather than a log line, a command or a traceback) and its first error lines that no common
# error and no several incidents print. Its first FINDER_RANKS count as evidence (WEIGHTS "finder").
FINDER_RANKS = ["first", "second", "third"]
FINDER_ERRORS = 2  # error lines asked for besides the headline
FINDER_CHARS = 500  # characters of those words asked for (the finder reads 512)
HEADLINE_WORDS = {"re": r"[A-Za-z]{3,}", "flags": "", "min": 3}  # a headline has this many words of 3 letters
# A first line whose prefix (LINE_PREFIX) holds a digit or a level is a log line, not a headline ("[Bug]" is none)
LOG_PREFIX = {"re": r"[0-9]|\b(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\b", "flags": ""}

# The reasons and texts both engines write, as templates: {name} is replaced by a value (text or number).
MESSAGES = {
    "certainLine": "log line {line}: {text}",
    "certainMore": " (and {more} more)",
    "possibleLine": "log line {line}, which other failures print too: {text}",
    "hardware": "your GPU: {gpu}",
    "hardwareArch": "your GPU's architecture: {arch}",
    "words": "your words: {words}",
    "finderRank": "the finder's {rank} for these words (it matched {words})",
    "finderReport": "the finder's {rank} for your report's own words",
    "phaseAdvice": "{label}: {advice}",
    "kind": "the kind of failure: {kind}",
    "component": "your report names its component: {components}",
    "cited": "your report cites {thread}, a thread of this incident",
    "citedTitle": "your report has the title of {thread}, a thread of this incident",
    "versionSeen": "{version} is a version where it was seen",
    "versionIn": "{version} is in the affected range {range}",
    "versionOut": "{version} is outside the affected range {range}",
    "allocationAboveGpu": "One allocation asked for {allocation} GiB, more than the {memory} GiB of the whole GPU: "
    "no memory setting makes room for it, and a lower `--mem-fraction-static` cannot help. Find the operation "
    "that asked for it in the traceback's last frames; a tensor that grows with the tokens of one forward pass "
    "shrinks with a smaller `--chunked-prefill-size` or shorter prompts.",
    "ruledOut": "the launch command shown rules it out ({why}), unless the server that failed was started otherwise",
    "deniedFlags": "your report says it does not use {flags}, which it needs",
    "gpuOut": "your GPU, {gpu}, is outside the GPUs it needs: {wanted}",
    "spanBoth": "{min} to {max}",
    "spanMin": "{min} or higher",
    "spanMax": "{max} or lower",
    "spanNot": "other than {value}",
    "or": " or ",
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
EXPOSURE_GENERIC = {"re": r"^(?:the command is|(?:SGLang|sglang-router|Miles) [^ \t\n]*\d)", "flags": ""}
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
    "first": "What to do first",
    "firstWorkaround": "its workaround",
    "firstFix": "its fix",
    "firstIncident": "the incident",  # no workaround or release that fixes it: its state, what to do, the thread
    "firstGuidance": "a common error",
    "fixedIn": "Fixed in",
    "known": "Yes: an incident matches your report.",
    "unknown": "Not a known incident: nothing in your report is strong evidence for one.",
    "facts": "Read from your report (edit the report below if something is wrong):",
    "versions": "Versions",
    "gpu": "GPU",
    "gpuWritten": 'read from "{written}"',  # the GPU's name as the report wrote it, when it is not the full name
    "gpuUnlisted": "{name}: not a GPU the manual lists",  # a GPU line's GPU that data/gpus.yaml does not hold
    "arch": "GPU architecture",
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

# --------------------------------------------------------------------------- evidence an expert accepts
# A line of an environment dump (python -m torch.utils.collect_env or sglang.check_env, lscpu, pip freeze,
# nvidia-smi and nvidia-smi -q), or one that PyTorch or Python prints with every error of its sort (the
# advice PyTorch appends to each CUDA or HIP error, c10/cuda/CUDAMiscFunctions.cpp and
# c10/cuda/CUDAException.cpp; Python's lines between chained tracebacks): never an error line, and its
# words are no evidence ("the stacktrace below might be incorrect" tells no wrong output). Bounded
# repeats only.
ENV_LINE = {
    "flags": "",
    "re": "|".join(
        [
            r"^[ \t]*Vulnerability [^:]{1,80}:",  # lscpu, in collect_env
            r"^[ \t]*[A-Za-z][\w .()/+-]{0,80}:[ \t]{2,}\S",  # "Key:     value" (aligned columns)
            r"^[ \t]*[A-Za-z][\w .()/+-]{0,80}[ \t]{2,}:[ \t]",  # nvidia-smi -q: "Key      : value"
            r"^[ \t]*(?:\[(?:pip3?|conda)\][ \t]+)?[A-Za-z0-9][\w.-]{0,80}(?:==|[ \t]+@[ \t]+)\S{1,200}[ \t]*$",  # pip
            r"^[ \t]*\|.{0,400}\|[ \t]*$",  # nvidia-smi's table
            r"^[ \t]*\+[-=+]{3,}",
            r"^[ \t]*[A-Za-z][\w .()/+-]{0,80}:[ \t]*(?:True|False|N/A|None|Could not collect|No|Yes)[ \t]*$",  # "Key: True"
            r"^[ \t]*[A-Za-z][\w ()+-]{0,60}(?:version|Version|platform|used to build| OS|configuration):[ \t]",
            r"^[ \t]{4,}[A-Z][A-Za-z0-9]{0,40}(?:[ \t][A-Z][A-Za-z0-9]{0,40}){0,8}[ \t]*$",  # nvidia-smi -q's headings
            r"^=+[ \t]*NVSMI LOG[ \t]*=+",
            # python3 -m sglang.check_env: "name: version" of each package, the toolkit, the topology table and
            # its legend, the hypervisor and ulimit (a one-space "Key: value" otherwise reads as prose)
            # (a version has two dots or a suffix: "Accuracy: 0.000" is a result, not a package)
            r"^[ \t]*[A-Za-z][\w.-]{0,60}:[ \t]?(?:v?[0-9]+\.[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)+(?:[+-][0-9A-Za-z.+-]{0,60})?"
            r"|v?[0-9]+\.[0-9]+(?:[+-]|rc|post|dev|a[0-9])[0-9A-Za-z.+-]{0,60}|Module Not Found|Not Available)[ \t]*$",
            r"^[ \t]*Python: [0-9]+\.[0-9]+",
            r"^[ \t]*GPU [0-9][0-9,]*(?: Compute Capability)?: \S",
            r"^[ \t]*(?:CUDA_HOME|ROCM_HOME|MUSA_HOME|NVCC|HIPCC|MCC|(?:CUDA|ROCM|MUSA|NPU) available):",
            r"^[ \t]*(?:NVIDIA |AMD |NIC |MTHREADS )?(?:Topology|Legend):[ \t]*$",
            r"^[ \t]*[A-Z][A-Z0-9#]{0,5}[ \t]+= \S",
            r"^[ \t]*NIC[0-9]+: \S+[ \t]*$",
            r"^[ \t]*(?:GPU|NIC|mlx5_)[0-9A-Za-z_]*[ \t]+(?:X|NV[0-9]+|SYS|NODE|PHB|PXB|PIX|GPU[0-9]+|NIC[0-9]+|CPU Affinity)(?:[ \t]|$)",
            r"^[ \t]*(?:Hypervisor vendor:|ulimit (?:soft|hard):)",
            # what SGLang's issue and pull-request templates put in every report (.github/ISSUE_TEMPLATE/1-bug-report.yml,
            # .github/pull_request_template.md, as GitHub renders them): the ticked checklist, the form's
            # headings, an empty field, the template's hidden comments
            r"^[ \t]*[-*][ \t]+\[[ xX]\][ \t]",
            r"^[ \t]*#{2,3}[ \t]+(?:Checklist|Describe the bug|Reproduction|Environment|Motivation|Modifications"
            r"|Benchmark & Profiling|Accuracy Tests)[ \t]*$",
            r"^[ \t]*_No response_[ \t]*$",
            r"^[ \t]*<!--.{0,1000}-->[ \t]*$",
            # Markdown's markup around pasted text: a code fence and its language, a folded block
            r"^[ \t]*(?:```|~~~)[A-Za-z0-9_+-]{0,20}[ \t]*$",
            r"^[ \t]*</?(?:details|summary)\b[^>]{0,100}>",
            r"^[ \t]*(?:CUDA|HIP) kernel errors might be asynchronously reported at some other API call",
            r"^[ \t]*For debugging consider passing [A-Z_]{1,40}=",
            r"^[ \t]*Compile with `TORCH_USE_(?:CUDA|HIP)_DSA` to enable device-side assertions",
            r"^[ \t]*Search for `[A-Za-z]{1,60}' in https?://\S{1,200} for more information",
            r"^[ \t]*During handling of the above exception, another exception occurred:",
            r"^[ \t]*The above exception was the direct cause of the following exception:",
        ]
    ),
}
# A thread of SGLang or Miles that a report cites: a GitHub address, owner/name#N or name#N (group 1 the
# repository as written, group 2 the number), or a bare #N at a line's start or after a space or a
# bracket (group 3), which in a report of either project most often means SGLang's.
CITATION = {
    "flags": "i",
    "re": r"\b(sgl-project/sglang|radixark/miles|sglang|miles)(?:/(?:issues|pull)/|#)([0-9]{1,6})\b"
    r"|(?:^|[ \t(\[,;:])#([0-9]{3,6})\b",
}
# A citation in a sentence that denies it ("I saw #8463 but I don't think it's the same", "not #123") names
# nothing: the sentence (up to . ! ? or a line break on each side), in ASCII lower case, holds one of these.
CITED_NOT_REACH = 300  # characters read each way from a citation for its sentence
CITED_NOT = {"flags": "", "re": r"\b(?:not|never|unlike|unrelated)\b|n't\b|\bdifferent (?:from|than)\b"}
CITED_REPOSITORIES = {
    "sgl-project/sglang": "sgl-project/sglang",
    "sglang": "sgl-project/sglang",
    "radixark/miles": "radixark/miles",
    "miles": "radixark/miles",
}
CITED_DEFAULT = "sgl-project/sglang"
# A report that is one of an incident's own threads, pasted with its title first, cites that thread: its first
# line, without the tags a title opens with ("[Bug]", "[Bug]:"), in ASCII lower case with every run of other
# characters one space, is that thread's title read the same way, of at least TITLE_WORDS words.
TITLE_TAGS = {"flags": "", "re": r"^(?:[ \t]*\[[^\]\n]{1,30}\][ \t]*:?)+"}
TITLE_WORDS = 4
# What to do first, for a matching incident: its action's kind (opsmanual/render/actions.py) -> the kind of
# the answer's first block; any other action (what to do, unsupported, its state and thread) is the incident's.
FIRST_KINDS = {"workaround": "workaround", "upgrade": "fix"}
FIRST_OTHER = "incident"
# A report that names Miles may be one of Miles' threads, where a bare #N is Miles' own: when SGLang's thread
# of that number is no incident's, the bare #N is read as Miles' thread.
CITED_MILES = {"flags": "i", "re": r"\bmiles\b"}
CITED_MILES_REPOSITORY = "radixark/miles"
# Text that is an address, not words: URLs (a path's tokens are left out as whole tokens).
URL = {"flags": "", "re": r"[A-Za-z][A-Za-z0-9+.-]{0,20}://[^ \t\n)\]>\x22\x27]{0,1000}"}
# What SGLang's own messages say a failure *may* be, whatever it was: the scheduler-died error names the OOM
# killer for any exit code, the load barrier's error guesses "(e.g., OOM)" (0.5.22's engine.py and
# load_model_utils.py). They are SGLang's words, not the report's: no kind of failure and no words of it.
HINT = {
    "flags": "",
    "re": r"If exit code is -9 \(SIGKILL\), a common cause is the OS OOM killer\.(?:[ \t]*Run `dmesg -T \| grep -i oom` to check\.)?"
    r"|It is likely due to unexpected failures \(e\.g\., OOM\) or a slow node\.",
}
# A token that is a number written in hex (an address, a request id, a hash).
# (0x..., or six or more hex digits with at least one digit; no lookaround, so RE2 reads it too)
HEX = {
    "flags": "",
    "re": "^(?:"
    + "|".join(
        [
            r"0x[0-9a-f]+",
            r"[0-9][0-9a-f]{5,}",
            r"[a-f][0-9][0-9a-f]{4,}",
            r"[a-f]{2}[0-9][0-9a-f]{3,}",
            r"[a-f]{3}[0-9][0-9a-f]{2,}",
            r"[a-f]{4}[0-9][0-9a-f]+",
            r"[a-f]{5,}[0-9][0-9a-f]*",
        ]
    )
    + ")$",
}
# A reason of the exposure check that rests on a flag being absent or a variable unset: no launch condition
# the report states, and no proof when the command is cut off or the report names the flag elsewhere.
ABSENT_REASON = {"flags": "", "re": r"^(\S+) is not (?:given|set)"}
# An open question the report leaves: it names a model that the manual's model list does not place in a
# family, so an incident's family condition stays open, or a flag without its value (``--chunked-prefill-size``
# named in a sentence), so a condition on the value stays open; either way its mechanism is not shown.
CONDITION_OPEN = {
    "flags": "",
    "re": r" is not in the manual's model list$|^`--[^`]{1,80}`.{0,200} is not a literal value$",
}
# A reason of the exposure check that places the model (or the draft model) in a family or a trait, or that
# names the GPU: a condition of the incident, but no launch condition the report states on its own; with a
# flag or a variable it is (the mechanism is the flag and the family or the GPU, not the model or the GPU
# that many unrelated reports run: every failure on an RTX 5090 is no failure of an SM120 incident).
MODEL_REASON = {"flags": "", "re": r"^(?:model|draft model) \S{1,400}: |^GPU "}


# A command cut off: its last line ends with a backslash, three dots or an ellipsis (the marks the
# launch-command check reads too: exposure_words.CUT_MARKS).
def _literal(text: str) -> str:
    """``text`` as a regex that matches it as written."""
    return "".join("\\" + c if c in "\\.^$*+?()[]{}|" else c for c in text)


CUT_COMMAND = {"flags": "", "re": "(?:" + "|".join(_literal(m) for m in CUT_MARKS) + r")[ \t`]*$"}
# A flag named in the prose (outside every launch command read): checked as given, in a launch command
# made of those flags alone, which proves no other flag absent.
# (group 1 is the flag; the character before it is read, nothing after it: no lookaround)
PROSE_FLAG = {"flags": "", "re": r"(?:^|[^A-Za-z0-9_-])(--[a-z][a-z0-9]{0,40}(?:-[a-z0-9]{1,40}){0,12})"}
# A flag the prose names with its value (``--chunked-prefill-size 4096``, ``--speculative-algorithm=EAGLE3``):
# the value is kept when the character after it ends a word and it is a number for a flag whose condition
# compares numbers (min, max), or one of the values a condition lists for it (in, equals), in any case; any
# other word after a flag ("--enable-foo and ...") is no value. (group 1 the flag, 2 the value)
PROSE_VALUE = {
    "flags": "",
    "re": r"(?:^|[^A-Za-z0-9_-])(--[a-z][a-z0-9]{0,40}(?:-[a-z0-9]{1,40}){0,12})(?:=|[ \t]{1,4})([A-Za-z0-9_.]{1,40})",
}
PROSE_VALUE_END = {"flags": "", "re": r"^(?:[^A-Za-z0-9_./%-]|$)"}  # the character after a value
PROSE_NUMBER = {"flags": "", "re": r"^[0-9]{1,12}(?:\.[0-9]{1,12})?$"}
# A flag the prose names as its server argument (``max_running_requests``): the same flag, when an incident's
# launch condition names it. Not an attribute (``self.x``), an argument with its value (``x=None``, a
# ServerArgs dump) or a call. (group 1 is the name; the character after it is read)
PROSE_NAME = {
    "flags": "",
    "re": r"(?:^|[^A-Za-z0-9_.=-])([a-z][a-z0-9]{0,40}(?:_[a-z0-9]{1,40}){1,12})(?:[^A-Za-z0-9_=(.-]|$)",
}
# A switch the prose names by its own words ("DP attention was on", "with deterministic inference"): an
# ``--enable-`` flag an incident's launch condition names, of at least PROSE_SWITCH_WORDS words after
# "enable", is given when the report writes those words (joined by a space, a hyphen or an underscore, in any
# case), the word before them is none of PROSE_SWITCH_OFF_BEFORE ("without DP attention") and the word after
# them none of PROSE_SWITCH_OFF_AFTER ("DP attention off"), each read within the line and within
# PROSE_SWITCH_REACH characters (/check/ lists the words, the switch_off_words macro). The engines build each
# switch's pattern from its flag; the character before and after the words is read (no lookaround).
PROSE_SWITCH = "--enable-"
PROSE_SWITCH_WORDS = 2
# A word right after one of these (with only spaces between) is no evidence of the failure: the report
# says it is absent ("there is no pattern", "without LoRA"); the same word written elsewhere still counts.
NEGATED_BY = ["no", "not", "without", "never"]
NEGATED_ARTICLES = ["a", "an", "the", "any"]  # ... also with one of these between ("not a benchmark")
PROSE_SWITCH_OFF_BEFORE = [*NEGATED_BY, "disable", "disabled", "disabling", "don't", "didn't", "doesn't"]
# ... also with one of these between ("do not use DP attention", "without using the router")
PROSE_SWITCH_OFF_VERBS = ["use", "using", "used", "enable", "enabling", "enabled", "run", "running", "need", "have"]
PROSE_SWITCH_OFF_ARTICLES = NEGATED_ARTICLES
PROSE_SWITCH_OFF_AFTER = ["off", "disabled"]
PROSE_SWITCH_REACH = 24
_OFF_BEFORE = "|".join(w.replace("'", "['’]") for w in PROSE_SWITCH_OFF_BEFORE)
PROSE_SWITCH_OFF_BEFORE_RX = {
    "flags": "",
    "re": rf"(?:^|[^a-z])(?:{_OFF_BEFORE})(?:[^a-z0-9\n]{{1,3}}(?:{'|'.join(PROSE_SWITCH_OFF_VERBS)}))?"
    rf"(?:[^a-z0-9\n]{{1,3}}(?:{'|'.join(PROSE_SWITCH_OFF_ARTICLES)}))?[^a-z0-9\n]{{1,3}}$",
}
PROSE_SWITCH_OFF_AFTER_RX = {
    "flags": "",
    "re": rf"^[^a-z0-9\n]{{1,3}}(?:{'|'.join(PROSE_SWITCH_OFF_AFTER)})(?:[^a-z]|$)",
}
# An environment variable the prose sets (``HF_HUB_OFFLINE=1``, ``export NCCL_DEBUG=INFO``): set for every
# command read and for the flags the prose names, unless a command sets it itself. (group 1 the name, 2 the
# value, without quotes)
PROSE_ENV = {
    "flags": "",
    # the value ends where a sentence does: "=1." is 1
    "re": r"(?:^|[^A-Za-z0-9_$.-])([A-Z][A-Z0-9_]{2,60})=[\x22\x27]?([A-Za-z0-9_.:/,-]{0,99}[A-Za-z0-9_/])",
}
MAX_PROSE_ENV = 20
# SGLang's echo of its settings at start-up (``server_args=ServerArgs(model_path='...', tp_size=8, ...)``) or an
# ``sgl.Engine(...)`` call: the arguments an incident's conditions name are read as a launch command (True
# is the flag given; False and None are not given). A whole dump lists every argument, so what it leaves out
# is not given; one cut off (no closing parenthesis at the line's end) proves nothing absent. ``NAME`` in
# ARGS_VALUE is each argument's name (the flag's, with underscores); group 1 is its value as written.
ARGS_DUMP = {"flags": "", "re": r"(?:ServerArgs|Engine)\("}
ARGS_VALUE = r"(?:^|[(, ])NAME=('[^'\n]{0,400}'|\x22[^\x22\n]{0,400}\x22|[A-Za-z0-9_.+-]{1,100})"
ARGS_END = {"flags": "", "re": r"\)[ \t]*$"}
ARGS_GIVEN = "True"  # a value that is the flag given alone
ARGS_NOT_GIVEN = ["False", "None", "''", '""']  # values that are no flag given
PROSE_COMMAND = "python -m sglang.launch_server"
# A model the report names that is checked with the flags its prose states: a path or a Hub name, nothing
# a shell would read otherwise.
MODEL_WORD = {"flags": "", "re": r"^[A-Za-z0-9][A-Za-z0-9_./-]{0,400}$"}
MAX_PROSE_FLAGS = 20
# "No such file or directory" (ENOENT) as the C library writes it in the languages operators' machines run in
# (English, German, French, Spanish, Brazilian Portuguese, Russian, Japanese, Chinese, Korean): a compiler
# on a localised system writes `cuda_fp8.h: 没有那个文件或目录`.
NO_SUCH_FILE = (
    "no such file or directory|datei oder verzeichnis nicht gefunden|aucun fichier ou dossier de ce type"
    "|no existe el (?:archivo|fichero) o el directorio|arquivo ou diretório inexistente"
    "|[нН]ет такого файла или каталога|そのようなファイルやディレクトリはありません|没有那个文件或目录"
    "|沒有此一檔案或目錄|그런 파일이나 디렉터리가 없습니다"
)
# The dynamic loader's "cannot open shared object file" in the languages it is translated to (German, Russian,
# Japanese, Chinese)
CANNOT_OPEN_SHARED = (
    "cannot open shared object file|kann die shared-object-datei nicht öffnen"
    "|[нН]е удалось открыть файл shared object|共有オブジェクトファイルを開けません|无法打开共享对象文件"
)
# The kind of failure a text tells, as the report's prose and the incidents' own text (title, symptom, name,
# log lines) word it: a report and an incident of the same kind weigh more than shared words. Bounded.
KINDS: list[dict[str, Any]] = [
    {
        "kind": "out of memory",
        "flags": "i",
        "re": r"out of memory|\boom\b|outofmemoryerror|memory allocation failed|not enough (?:gpu )?memory"
        r"|pool allocation failed|(?:did not|does not|doesn't|didn't|won't|will not|cannot|can't|could not|couldn't) fit\b",
    },
    {
        "kind": "hang",
        "flags": "i",
        # "stuck" as a process or a request is stuck, not a gauge "stuck at zero"
        "re": r"\bhangs?\b|\bhung\b|\bhanging\b|deadlock|freez|stops? (?:responding|printing)|no response"
        r"|(?:gets?|got|getting|is|was|are|were|be|been|being|seems?|remains?|becomes?|keeps?) stuck\b"
        r"|\bstuck (?:in|on|for|forever|after|when|while|during|waiting|at (?:the |[0-9]|loading|start|step|batch|capture|init))"
        r"|\bstuck(?:[.!,;:)]|$)|watchdog timeout|stopped making progress|no progress|never (?:return|finish|complete)s?\b"
        r"|unresponsive|livelock|nccl (?:watchdog )?time(?:d ?)?out|collective (?:operation )?time(?:d ?)?out",
    },
    {
        "kind": "wrong output",
        "flags": "i",
        "re": r"\bwrong(?:ly)? (?:outputs?|answers?|results?|tokens?|text|responses?|completions?|generat|decod|logits?)"
        r"|incorrect|garbage|gibberish|diverg|nondetermin|non-determin|inconsistent|mismatch"
        r"|different (?:outputs?|completions?|answers?|results?|responses?|tokens)|outputs? differ|\bflips\b"
        r"|(?:text|output|answer)s? changed|(?:different|another) prompt|(?:accepted|accepts) values"
        r"|(?:violat\w*|ignor\w*|drops?|dropping) (?:the )?(?:json )?(?:schema|grammar|constraint|length bound|minlength|maxlength)"
        r"|(?:does not|doesn't) (?:follow|respect|match) (?:the )?(?:json )?(?:schema|grammar|regex)",
    },
    {
        "kind": "refused start",
        "flags": "i",
        # ("Initialization failed" alone is no refused start: SGLang's detokenizer prints it under any failure)
        "re": r"fail(?:s|ed)? to (?:start|launch|boot|load)|cannot (?:start|launch)|refuse|importerror|no module named"
        r"|start-?up (?:ended|stopped|failed|fails|aborted)"
        r"|(?:fails?|failed|crash(?:es|ed)?) (?:during|at|on|while) (?:server |engine )?(?:start-?up|launch|initiali[sz]ation)"
        r"|unexpected keyword argument|only (?:runs?|ran|works?|worked) (?:in|with) (?:eager|`?--disable-cuda-graph)",
    },
    {
        "kind": "cache miss",
        "flags": "i",
        # "cache hits", not "HiCache hits ZeroDivisionError"
        "re": r"hit rate|(?:^|[^a-z])cache (?:hits?|miss(?:es)?) |prefix (?:cache )?(?:reuse|hits?)|reused? (?:no|nothing|none)"
        r"|(?:computed|recomputed|prefilled) again|no (?:prefix |cache )?hits?",
    },
    {
        "kind": "health check failure",
        "flags": "i",
        "re": r"health (?:check|probe)s? (?:\w+ )?fail|fail(?:ed|s|ing)? health|/health(?:_generate)? (?:fails|failed|returns? 5|timed out)",
    },
    {
        "kind": "low acceptance",
        "flags": "i",
        "re": r"(?:low|poor|lower) accept(?:ance)?(?: rate| length| len)?|accept(?:ance)?(?: rate| length| len)? (?:is |was )?(?:very |only )?(?:low|fell|drop)"
        r"|acceptance (?:of|fell|dropped)",
    },
    {
        "kind": "routing failure",
        "flags": "i",
        "re": r"fail(?:ed|s)? to select (?:a |the )?(?:prefill/decode |prefill |decode )?workers?|no (?:available|healthy) workers?",
    },
    {
        # a graph capture that failed: "capture fully succeeds" or "passes CUDA graph capture" is none
        "kind": "crash at capture",
        "flags": "i",
        "re": r"capture (?:cuda |prefill |decode |piecewise )?graphs? failed"
        r"|(?:fail\w*|crash\w*|errors?|ooms?|out of memory|hangs?|hung|stuck|dies|died|aborts?\w*) (?:during|at|in|while|on|when)"
        r" (?:the )?(?:startup'?s? )?(?:cuda |prefill |decode |piecewise |cuda-)?graph capture"
        r"|graph capture (?:fail\w*|crash\w*|errors?|ooms?|runs? out|ran out|hangs?|hung|dies|died|aborts?\w*)",
    },
    {
        # a kernel, a backend or a quantization method that the GPU's architecture does not run
        "kind": "unsupported GPU",
        "flags": "i",
        "re": r"unsupported (?:gpu |cuda |device )?(?:arch(?:itecture)?|gpu|device|compute capability)"
        r"|no kernel image is available|not compatible with the current pytorch installation"
        r"|(?:is )?not support(?:ed)? (?:for|on|by) (?:the |this |your |current |older |newer )*(?:gpus?|devices?|cards?|arch(?:itecture)?s?|hardware|sm[ _]?[0-9]{2,3})"
        r"|requires sm ?[<>=]|minimum capability|(?:ran|runs?|works?|worked) only (?:in|with) eager"
        r"|(?:runs?|works?|worked|supports?) only (?:on|for) sm[ _]?[0-9]{2,3}"
        r"|(?:older|newer) (?:cards|gpus) crash|(?:current )?platform does not support"
        r"|(?:cannot|can't|can not) be (?:served|run|used) on (?:sm[ _]?[0-9]{2,3}|pre-)"
        r"|(?:does not|doesn't) exist on sm[ _]?[0-9]{2,3}|on pre-(?:ampere|hopper|blackwell) (?:gpus|cards)",
    },
    {
        "kind": "transfer failure",
        "flags": "i",
        "re": r"kvtransfer|transfer(?:ring)? fail|bootstrap (?:fail|timeout)|timed out (?:when|while) bootstrapping|kv transfer",
    },
    {
        "kind": "missing toolchain",
        "flags": "i",
        "re": r"\.(?:h|hpp|cuh|so)(?:\.[0-9]{1,6}){0,3}[:：] ?(?:" + NO_SUCH_FILE + "|" + CANNOT_OPEN_SHARED + ")"
        r"|cannot find -l[a-z]|nvcc: not found|nvcc not found|without (?:nvcc|cuda toolkit|cuda-toolkit)"
        r"|(?:cannot|can't|could not|couldn't) find (?:the )?`?[a-z0-9_/]{1,80}\.(?:h|hpp|cuh)\b"
        r"|(?:failed to|cannot|can't|could not|couldn't) find (?:a |the )?(?:c|c\+\+|cuda) compiler|cuda_home (?:is )?not set",
    },
    {
        "kind": "slow",
        "flags": "i",
        # a title tagged [Perf] (SGLang's issue and pull request titles), a cost quadratic in the tokens
        "re": r"\bslow|\[perf(?:ormance)?\]|\bo\(n(?:\^2|²|\*\*2)\)|throughput (?:drop|fell|collapse)|(?:lower(?:ed)?|cost|costs) throughput"
        r"|(?:latency|throughput|perf(?:ormance)?|speed|ttft|itl|tpot) (?:spike|grew|regress)|(?:tail|p99) latency|cold start|square of"
        r"|regress\w* (?:in|of) (?:throughput|latency|perf|speed|ttft|itl|tpot)|(?:[0-9.]+ ?x|times) (?:throughput )?regression"
        r"|perf(?:ormance)? (?:drop|degradation)|(?:increase|higher) (?:in )?(?:ttft|itl|tpot|latency)"
        r"|(?:ttft|itl|tpot|latency) (?:increase|is (?:much )?higher)|no (?:throughput|speed) (?:improvement|gain)"
        r"|(?:show|give)s? no (?:throughput|speed)|(?:n't|nt|not) (?:show|give) (?:any )?(?:throughput|speed)(?:up)? (?:improvement|gain)"
        r"|perf(?:ormance)? (?:issues?|problems?)|(?:worse|poor|bad|low) (?:performance|throughput)"
        r"|throughput (?:is |was |will be |goes |went |gets )?(?:down|lower|worse|decreas)"
        r"|performance (?:is |was )?(?:not good|bad|poor|worse)|throughput (?:stays? |stayed |was |is |remains? |remained )?flat"
        r"|(?:showed?|shows|gave|gives) no (?:gain|speed-?up|improvement)",
    },
]
KIND_LINES = 60  # lines of the report's prose read for the kind (its error lines are read too)
