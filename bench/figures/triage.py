"""The triage command against grep -F and ripgrep on a generated 1 GB server log."""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

from harness import PY, Bench, alternately, project, ripgrep, run

# --- 1. triage against grep and ripgrep -------------------------------------

# Text a real server log holds besides the scheduler's lines: prompts in several scripts (logged by
# --log-requests, whole requests on one line) and a launcher banner drawn with emoji.
PROMPTS = [
    "请用三句话解释一下什么是KV缓存，以及为什么它会被占满。",
    "東京の天気を教えてください。明日は雨が降りますか？",
    "대규모 언어 모델의 추론 속도를 높이는 방법은 무엇인가요?",
    "Объясни, пожалуйста, как работает спекулятивное декодирование.",
    "ما هو الفرق بين التدريب والاستدلال في نماذج اللغة؟",
    "कृपया इस लेख का सारांश हिंदी में लिखें।",
    "Γράψε ένα σύντομο ποίημα για τη θάλασσα.",
    "ช่วยแปลประโยคนี้เป็นภาษาอังกฤษหน่อยครับ",
    "Résumé: le modèle a répondu « trop tard » après 3 s d'attente — pourquoi ?",
    "Write a haiku about GPUs 🔥🚀 and end it with an emoji 😅",
]
BANNER = [
    "🚀 SGLang router starting",
    "  ✅ policy: cache_aware   🌐 host: 0.0.0.0:30000   👷 workers: 8",
    "  📊 metrics: http://0.0.0.0:29000/metrics   ⏱️ request timeout: 1800 s",
    "✨ router ready: accepting requests ✨",
]
NON_ASCII = 0.0013  # the share of a log's lines that are not ASCII
LONG = 0.002  # the share that are whole requests of several KB


def request_line(rng: random.Random, n: int, prompt: str, size: int) -> str:
    """A request logged by --log-requests: its prompt and its output (in the prompt's language) on one
    line of about ``size`` characters."""
    words = (
        (
            "the scheduler keeps the radix cache warm while decode batches grow and the "
            "KV pool drains slowly under sustained load"
        ).split()
        if prompt.isascii()
        else prompt.split()
    )
    output, length = [], 0
    while length < size:
        output.append(rng.choice(words))
        length += len(output[-1]) + 1
    return (
        f"[2026-10-16 12:{n // 60 % 60:02d}:{n % 60:02d}] Finish: obj=GenerateReqInput(text='{prompt}', "
        f"sampling_params={{'max_new_tokens': 2048, 'temperature': 0.{n % 10}}}, rid='{n:032x}', stream=False), "
        f"out={{'text': '{' '.join(output)}', 'meta_info': {{'id': '{n:032x}', 'finish_reason': "
        f"{{'type': 'length', 'length': 2048}}, 'prompt_tokens': {40 + n % 300}, 'completion_tokens': 2048}}}}"
    )


def log_block(rng: random.Random) -> tuple[bytes, int, int]:
    """One stretch of a server log (about 4 MB) and how many of its lines are not ASCII, and how many
    are requests of several KB."""
    lines = []
    for n in range(20000):
        lines.append(
            f"[2026-10-16 12:{n // 60 % 60:02d}:{n % 60:02d} TP0] Decode batch, #running-req: {n % 64}, "
            f"#token: {n * 7 % 90000}, token usage: 0.{n % 99:02d}, cuda graph: True, "
            f"gen throughput (token/s): {rng.randint(100, 900)}.{n % 100:02d}, #queue-req: {n % 5}"
        )
        if n % 7 == 0:
            lines.append(
                f"[2026-10-16 12:00:00 TP0] Prefill batch, #new-seq: 1, #new-token: {n % 4096}, "
                f"#cached-token: {n % 2048}, token usage: 0.{n % 90:02d}, #running-req: {n % 64}"
            )
    total = len(lines) * (1 + NON_ASCII + LONG)
    extra = [
        request_line(rng, n, "Summarize the following report in one paragraph.", rng.randint(2000, 12000))
        for n in range(round(total * LONG))
    ]
    other = round(total * NON_ASCII)
    for n in range(other):
        if n % 10 == 0:  # a banner line
            extra.append(BANNER[n // 10 % len(BANNER)])
        elif n % 3 == 0:  # a long request whose prompt is not ASCII
            extra.append(request_line(rng, n, rng.choice(PROMPTS), rng.randint(2000, 8000)))
        else:
            prompt = rng.choice(PROMPTS)
            extra.append(
                f"[2026-10-16 12:00:{n % 60:02d}] Receive: obj=GenerateReqInput(text='{prompt}', "
                f"sampling_params={{'max_new_tokens': 512}}, rid='{n:032x}', stream=True)"
            )
    for line in extra:
        lines.insert(rng.randrange(len(lines) + 1), line)
    return ("\n".join(lines) + "\n").encode(), other, sum(len(line) > 2000 for line in extra)


def make_log(path: Path, size: int, incidents) -> str:
    """A server log of ``size`` bytes: ordinary scheduler lines, some long requests and some lines
    that are not ASCII, with the incidents' example lines scattered through it. Returns what it holds."""
    rng = random.Random(7)
    examples = [e for i in incidents for e in i.log_examples]
    block, other, long = log_block(rng)
    lines = block.count(b"\n")
    with path.open("wb") as out:
        written = 0
        while written < size:
            out.write(block)
            written += len(block)
            out.write((rng.choice(examples) + "\n").encode())
    return f"{100 * other / lines:.2f} % of lines non-ASCII, {100 * long / lines:.2f} % of several KB"


_TRIAGE_TIMES: dict = {}


def triage_times(tmp: Path, size_mb: int, runs: int) -> dict:
    """The best times of grep -F, rg -F (when installed) and triage on one generated log, run in turn
    so that all three see the same machine. Measured once for both figures."""
    key = (str(tmp), size_mb, runs)
    if key in _TRIAGE_TIMES:
        return _TRIAGE_TIMES[key]
    _, incidents = project()
    log = tmp / "big.log"
    holds = make_log(log, size_mb * 1024 * 1024, incidents)
    literals = tmp / "literals.txt"
    literals.write_text(
        "".join(p.literal + "\n" for i in incidents for p in i.log_patterns if p.literal is not None), encoding="utf-8"
    )
    # All write to a pipe: with its output on /dev/null, GNU grep stops at the first match.
    commands = {
        "grep -F": lambda: run(["grep", "-F", "-c", "-f", str(literals), str(log)], stdout=subprocess.PIPE, ok=(0, 1)),
        "triage": lambda: run([PY, "-m", "macros.triage", "--json", str(log)], stdout=subprocess.PIPE, ok=(0, 1)),
    }
    rg = ripgrep()
    if rg:
        commands["rg -F"] = lambda: run(
            [rg, "--no-config", "-F", "-c", "-f", str(literals), str(log)], stdout=subprocess.PIPE, ok=(0, 1)
        )
    times = dict(zip(commands, alternately(list(commands.values()), runs), strict=False))
    times["size"], times["holds"] = log.stat().st_size / 1e9, holds
    log.unlink()
    os.sync()  # write the disk's backlog now, not during the next benchmark's timings
    _TRIAGE_TIMES[key] = times
    return times


def bench_triage(tmp: Path, size_mb: int, runs: int, against: str) -> tuple[float, str]:
    times = triage_times(tmp, size_mb, runs)
    size, theirs, ours = times["size"], times[against], times["triage"]
    return theirs / ours, (
        f"{size:.2f} GB ({times['holds']}): {against} {theirs:.2f} s ({size / theirs:.2f} GB/s), "
        f"triage {ours:.2f} s ({size / ours:.2f} GB/s)"
    )


BENCHES = {
    "triage": Bench(
        "triage throughput / grep -F throughput",
        "The triage command on a generated 1 GB log",
        "`grep -F -f` with the same literal patterns, on the same file",
        ">=",
        1.0,
        "x",
        lambda tmp, smoke, runs, args: bench_triage(tmp, 8 if smoke else args.size_mb, runs, "grep -F"),
    ),
    "triage-rg": Bench(
        "triage throughput / rg -F throughput",
        "The triage command on a generated 1 GB log",
        "`rg -F -f` (ripgrep) with the same literal patterns, on the same file",
        ">=",
        1.0,
        "x",
        lambda tmp, smoke, runs, args: bench_triage(tmp, 8 if smoke else args.size_mb, runs, "rg -F"),
        needs=("rg", "ripgrep"),
    ),
}
