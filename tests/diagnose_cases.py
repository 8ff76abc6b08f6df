"""The diagnosis conformance cases (tests/diagnose_conformance.json): every report of the development
set (tests/diagnose_reports.yaml) and a few made-up edge cases. Both engines must answer each alike.

    .venv/bin/python tests/diagnose_cases.py    (rewrites the file)
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "diagnose_conformance.json"

EDGE = {
    "empty": "",
    "crlf-bom": "\ufeffsglang: 0.5.18\r\nGPU 0: NVIDIA H100 80GB HBM3\r\nRuntimeError: something went wrong here\r\n",
    "pip-freeze-nvidia-smi": "sglang==0.5.4\nsglang-router==0.2.1\ntorch==2.8.0+cu128\n"
    "| NVIDIA-SMI 570.86.15    Driver Version: 570.86.15    CUDA Version: 12.8     |\n"
    "|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |\n"
    "|  0%   30C    P0    60W / 400W |  81000MiB / 81920MiB |      0%      Default |\n",
    "oom-start-up": "_create_buffers begins\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
    "GPU 0 has a total capacity of 23.57 GiB of which 13.00 MiB is free.\n",
    "oom-serving": "[2025-03-02 10:00:00 TP0] Decode batch, #running-req: 4, #token: 12345\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 32.00 MiB. GPU 0 has a total "
    "capacity of 23.57 GiB of which 13.00 MiB is free.\n",
    "docker-and-prompt": "user@host:~$ docker run --gpus all lmsysorg/sglang:v0.5.4 "
    "python3 -m sglang.launch_server \\\n"
    "    --model-path Qwen/Qwen3-8B --tp 2 --enable-hierarchical-cache\n"
    "$ python -m sglang.launch_server --model-path $MODEL --dp 2\n",
    "traceback": 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n    main()\n'
    '  File "y.py", line 2, in main\nAssertionError: capture failed for batch size 160\n',
    "pip-extras": 'pip install "sglang[all]==0.4.6.post4"\nsglang[srt]>=0.4.6\nsgl_kernel: 0.3.9.post2\n'
    "RuntimeError: the server exited during start-up\n",
    "unicode": "Le serveur se bloque après une requête très longue — naïve café\n日本語のエラー\n😀 emoji line\n",
    "unknown": "sglang: 0.5.18\nValueError: the frobnicator refused the widget configuration\n",
    "localised-enoent": "FlashInfer JIT build failed on start\n"
    "utils.cuh:21:10: 致命错误： cuda_fp8.h：没有那个文件或目录\ncompilation terminated.\n",
    "cited-threads": "Same failure as #37707 and sgl-project/sglang#15626, see also"
    " https://github.com/sgl-project/sglang/pull/15626 and radixark/miles#860; item #12 and a#37707\n",
    # a thread the reporter rules out names nothing (the sentence denies it); one in the next sentence does
    "cited-denied": "Server crashed at start-up. I saw #8463 mentioned in Slack but I don't think it's the same.\n"
    "RuntimeError: NCCL error: unhandled system error\n",
    # a denial further than the sentence's reach from the citation is not read as its sentence's
    "cited-denied-far": "It looks like #8463 "
    + "and the scheduler keeps retracting requests " * 8
    + "but I don't know.\n",
    # an incident's own line with the release read outside its range: related, not a match; the other
    # incident that prints the line, in range, matches
    "own-line-outside": "sglang 0.5.22 on an M3 Max, 32 concurrent requests:\n"
    "RuntimeError: [METAL] Command buffer execution failed: Insufficient Memory "
    "(00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory).\n",
    # a model's own context length exceeded (not a draft's): no draft-model incident matches
    "context-length-not-draft": "python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --context-length 65536\n"
    "User-specified context_length (65536) is greater than the derived context_length (32768)\n",
    # a move between releases: the release it runs is the one it moved to; an image named by its release
    "upgrade-versions": "We upgraded sglang from 0.5.9 to 0.5.22 last week and decode throughput dropped by half\n"
    "torch from 2.7.0 to 2.8.0 too\n",
    "image-version": "Deployed with the sglang official v0.5.10 image on two nodes; health check failed\n",
    # numbers that are values, not GPUs (`#token: 4090`, `--port 5090`); a GPU named by its number in prose
    "gpu-number-values": "[2026-01-02 10:00:00 TP0] Decode batch, #running-req: 3, #token: 4090, token usage: 0.50\n"
    "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 5090\n",
    "gpu-number-prose": "It crashes on my 4090 at start-up\nRuntimeError: CUDA error: out of memory\n",
    # a shell variable names no model (`--model-path $MODEL_PATH` in a line the command reader does not take)
    "model-shell-variable": "./run.sh: line 19: 867080 Killed   python -m sglang.launch_server --model-path $MODEL_PATH --tp-size 8\n",
    # `Exit code: N` after a dead scheduler is a start-up failure (not the shutdown phase)
    "scheduler-dead-exit-code": "[12-16 14:27:08] Rank 0 scheduler is dead. Please check if there are relevant logs.\n"
    "[12-16 14:27:10] Exit code: -9\n",
    # SGLang's own guess at a cause ("a common cause is the OS OOM killer", for any exit code) tells no kind of
    # failure and no words of it
    "sglang-hint-not-a-kind": "RuntimeError: Rank 0 scheduler died during initialization (exit code: -3). If exit code "
    "is -9 (SIGKILL), a common cause is the OS OOM killer. Run `dmesg -T | grep -i oom` to check.\n",
    # a common error tells the failure (an architecture SGLang does not implement): an incident that only shares
    # words and a kind with the report is not far ahead of the others (sglang#12835, trimmed)
    "common-error-not-ahead": "[Bug] Qwen3NextForCausalLM has no SGlang implementation\n"
    "INFO 11-07 12:20:09 [importing.py:53] Triton module has been replaced with a placeholder.\n"
    "INFO 11-07 12:20:09 [__init__.py:243] No platform detected, vLLM is running on UnspecifiedPlatform\n"
    "WARNING 11-07 12:20:11 [_custom_ops.py:21] Failed to import from vllm._C with ModuleNotFoundError"
    "(\"No module named 'vllm._C'\")\n"
    "[2025-11-07 12:20:13] WARNING server_args.py:1082: At this moment Ascend attention backend only supports a "
    "page_size of 128, change page_size to 128.\n",
    # a report pasted from an incident's own thread, title first, cites that thread (its tag and case aside)
    "thread-title": "[bug]: high concurrency with Prefill/Decode disaggregation and sgl-router causes many KV cache "
    "transmission failures\nThe decode side logs errors under load.\n",
    # an environment written as a Markdown list, the names in bold (sglang#21132's form)
    "markdown-versions": "Decode crashes after a few hours\n- **SGLang**: 0.5.9\n- **PyTorch**: 2.9.1\n- **CUDA**: 13.0\n",
    # a link to lines of a file names no GPU (`#L20-L40`); the GPU the prose names after it still counts
    "gpu-link-fragment": "The check at https://github.com/sgl-project/sglang/blob/v0.5.22/python/sglang/srt/x.py#L20-L40 "
    "fails on an H800\nRuntimeError: CUDA error: out of memory\n",
    # a coloured log behind Ray's prefix reads as the plain log
    "ansi-ray-prefix": '\x1b[36m(WorkerDict pid=616, ip=10.0.0.1)\x1b[0m   File "/x/sglang/srt/distributed/pynccl.py", '
    "line 108, in __init__\n"
    '\x1b[36m(WorkerDict pid=616, ip=10.0.0.1)\x1b[0m     raise RuntimeError(f"NCCL error: {error_str}")\n'
    "\x1b[36m(WorkerDict pid=616, ip=10.0.0.1)\x1b[0m \x1b[31mRuntimeError: NCCL error: unhandled system error\x1b[0m\n",
    # a capture that failed because another rank went away: the peer first, not memory
    "capture-gloo-peer": "Exception: Capture cuda graph failed: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] "
    "Connection closed by peer <address>\n",
    # a GPU line's GPU that the manual does not list: said, not dropped
    "gpu-unlisted": "GPU 0: NVIDIA A16\nGPU 1: NVIDIA A16\nRuntimeError: CUDA error: out of memory\n",
    # a flag the prose denies is not given ("without --enable-dp-attention", "--enable-hierarchical-cache off")
    "prose-flag-denied": "DeepSeek-V3 with --tp 8 (without --enable-dp-attention, we removed it) and "
    "--enable-hierarchical-cache off runs out of memory\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n",
    # a component the report denies ("no router", "without HiCache") is neither its component nor its words
    "component-denied": "Decode hangs after a few minutes (no router, no PD disaggregation, without HiCache)\n"
    "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2\n",
    # a command shown whole that rules a related incident out says so, and one cut off rules nothing out
    "command-rules-out": "Server hangs after 2 hours under load, all ranks stuck\nsglang 0.5.5\n"
    "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --port 30000\n"
    "python -m sglang.launch_server --model-path Qwen/Qwen3-8B \\\n  ...\n"
    "[2025-11-02 10:00:00 TP3] Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)\n",
    # one allocation larger than the whole GPU: no memory-flag advice; one in MiB that fits keeps it
    "allocation-above-gpu": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 372.53 GiB. GPU 0 has a "
    "total capacity of 139.80 GiB of which 139.29 GiB is free.\n",
    "allocation-fits": "[2026-01-02 10:00:00 TP0] Decode batch, #running-req: 3, #token: 4090\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1536.00 MiB. GPU 0 has a total capacity of "
    "79.11 GiB of which 13.00 MiB is free.\n",
    # a GPU alone is no mechanism: any failure on an RTX 5090 is no failure of an SM120 incident
    "gpu-alone-no-mechanism": "[Bug] GPT OSS not supported on SM120 / RTX 50 Series GPU\n"
    "python3 -m sglang.launch_server --model-path openai/gpt-oss-20b --port 30000\n"
    "GPU: NVIDIA GeForce RTX 5090 (compute capability 12.0)\n"
    "triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error\n",
    # what the report says it does not use ("do not use DP attention", "no --enable-dp-attention") rules out
    # the incidents that need it; a word right after "no" is no evidence
    "prose-denied-use": "DeepSeek-V3 on 16x H20. We do not use DP attention (no --enable-dp-attention), there is "
    "no pattern, this is not a benchmark and we don't use the router.\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.81 GiB. GPU 3 has a total capacity of 95.00 GiB"
    " of which 5.12 GiB is free.\n",
    # a line several incidents print and the kind of failure it tells are one kind of evidence: no match
    "shared-line-and-kind": "PD kv transfer failed with Mooncake\n"
    "[2025-11-05 16:39:09 TP0] Decode transfer failed for request rank=0 decode_req.req.rid='78fd' "
    "decode_req.req.bootstrap_room=4793981895866140836 with exception KVTransferError(bootstrap_room=4793981895866140836): "
    "Aborted by AbortReq.\n",
    # an error line and SGLang's advice after it name no flag and set no variable the report gives
    "error-advice-not-given": "sglang 0.5.22\n"
    "python3 -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --speculative-algorithm EAGLE3 "
    "--speculative-draft-model-path lmsys/SGLang-EAGLE3-Qwen3-30B-A3B --tp 4\n"
    "ValueError: Warning: Target model's context_length (262144) is greater than the derived context_length (2048). "
    "To allow overriding this maximum, set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1\n"
    "Exception: Capture cuda graph failed: CUDA out of memory.\nPossible solutions:\n"
    "1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)\n"
    "3. disable decode CUDA graph by --cuda-graph-backend-decode=disabled.\n",
    # a match on its own line keeps no "rules it out" reason from the command shown
    "own-line-ruled-command": "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30000\n"
    "RuntimeError: The memory capacity is unbalanced. Some GPUs may be occupied by other processes.\n",
    # facts as reports write them: a count glued to the GPU, a bold release, Rust's panic line
    "facts-as-written": "sglang **v0.5.17** on 8xH100, the router dies:\n"
    "thread 'tokio-runtime-worker' panicked at src/routers/http/router.rs:123:45:\n",
    # a settings dump with log_level='error' is no error line
    "server-args-log-level": "decode is slow on one request\n"
    "[2026-05-01 10:00:00] engine.py:177: server_args=ServerArgs(model_path='qwen/qwen2.5-0.5b-instruct', "
    "log_level='error', disable_cuda_graph=True, tp_size=1)\n",
    # ROCm's check_env: an AMD GPU and its gfx "compute capability", which names no SM architecture
    "rocm-check-env": "GPU 0: AMD Instinct MI300X VF\nCompute Capability: 9.4\nRuntimeError: HIP error: out of memory\n",
    # a build from source and an Ascend NPU
    "source-build-npu": "sglang: 0.0.0.dev13972+g4f080703c.d20260615\nNPU 0: Ascend910_9382\nRuntimeError: boom\n",
    "cited-miles-bare": "Miles replays routes from other weights after a retraction\n#3277 says what goes wrong.\n",
    "server-args": "The server hangs after an hour with long prompts\n"
    "[2026-05-01 10:00:00] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3', tp_size=8, "
    "max_running_requests=None, enable_hierarchical_cache=True, hicache_storage_backend=None, "
    "speculative_algorithm='EAGLE3', disable_radix_cache=False)\n"
    "llm = sgl.Engine(model_path='Qwen/Qwen3-8B', enable_dp_attention=True, ...\n",
    "arch": "Capture fails on an sm_120 card\nBuilt for sm_80 and compute capability 9.0\n",
    # flags with their values in prose: a number, `=`, a listed value under a shortened flag, a word that is
    # no value, a unit after a number, and a family named without any flag
    "prose-values": "Start-up did not fit on a 24 GB L4 with `--chunked-prefill-size 8192 --attention-backend triton`\n"
    "It also ran out of memory with --speculative-algo NEXTN --speculative-num-steps 3 and --mem-fraction-static=0.85;\n"
    "--enable-dp-attention and --cuda-graph-max-bs 512MB, then --chunked-prefill-size 4096 (ignored: first kept)\n",
    # a worker's traceback behind a launcher's prefix (torchrun, vLLM's old and new worker prefixes, Ray)
    "launcher-prefix": '[rank0]:   File "/usr/lib/python3/dist-packages/torch/cuda/graphs.py", line 82, in capture_end\n'
    "[rank0]:     super().capture_end()\n"
    "(VllmWorker rank=3 pid=1090) ERROR 06-05 06:18:13 [multiproc_executor.py:470] RuntimeError: CUDA error: out of memory\n"
    "(VllmWorkerProcess pid=236) ERROR 08-23 08:25:25 multiproc_worker_utils.py:226] Traceback (most recent call last):\n"
    "(RayWorkerWrapper pid=1234, ip=10.0.0.1) [2026-01-02 10:00:00 TP0] Scheduler hit an exception\n",
    "gpu-outside": "FP4 checkpoint fails on an RTX PRO 6000 Blackwell: kernel not supported on SM120, only work on SM100\n"
    "Insufficient Memory on sm_90 while serving Qwen3-8B at concurrency 32\n",
    "gpu-outside-arch": "NVFP4 model on sm_120: NotImplementedError: Current platform does not support w4a4 nvfp4 quantization.\n",
    "mechanism-behind": "[Bug] HiCache with TP=16: the ranks diverge in check_prefetch_progress, one rank skips the "
    "all_reduce and the server hangs\n"
    "python -m sglang.launch_server --model-path zai-org/GLM-5-FP8 --enable-hierarchical-cache --tp 16\n",
    "model-family-alone": "Out of memory serving deepseek-ai/DeepSeek-V4-Flash on H100\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n",
    "code-and-routine": "[2026-01-02 10:00:00 TP0] Prefill batch, #new-seq: 1, #new-token: 6, #cached-token: 0, "
    "cache hit rate: 0.00%, token usage: 0.00, #running-req: 0, #queue-req: 0\n"
    "[2026-01-02 10:00:01 TP0] Capture decode CUDA graph begin. This can take up to several minutes.\n"
    '    raise OutOfResources(self.metadata.shared, max_shared, "shared memory")\n'
    "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072\n"
    "Traceback (most recent call last):\n"
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 191, in maybe_init_draft_worker\n'
    "    self.tp_worker = TpWorkerClass(\n"
    "                     ^^^^^^^^^^^^^^\n"
    "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f in libc10.so)\n"
    "Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43\n"
    "RuntimeError: CUDA error: an illegal memory access was encountered\n",
    "common-error-and-many-words": "Our setup: mamba radix cache with the extra_buffer strategy and replayssm, "
    "xgrammar rollback of accepted_tokens,\nthe cache-aware router with its pool isolation, flashinfer autotune "
    "with dflash, detokenizer incremental window.\n"
    "RuntimeError: CUDA error: an illegal memory access was encountered\n",
    "switch-words": "DP attention on, Deterministic-Inference on, but without hierarchical cache;\n"
    "no dp_attention here, enable-deterministic-inference, HIERARCHICAL CACHE\ndisabled\nhierarchical cache off\n",
    "consequence-before-cause": "[2026-09-06 07:46:05 DP1 TP1 EP1] Scheduler hit an exception: Traceback (most recent call last):\n"
    "Exception: Capture cuda graph failed: CUDA error: an illegal memory access was encountered\n"
    "SIGQUIT received. signum=3, frame=None. It usually means one child failed.\n",
    # a placeholder in a reported command is a value left out, not the shell's redirections
    "placeholder": "Outputs differ between runs.\n"
    "python -m sglang.launch_server --model-path <model_path> --tensor-parallel-size 8 "
    "--enable-deterministic-inference --disable-cuda-graph\n",
    # components named in the opening (HiCache, speculative decoding, in any case): points and a reason for
    # the incidents about them
    "components": "Server OOMs while allocating the draft pools with EAGLE and HiCache on\n"
    "The KV cache pool is sized before the draft model's copies are freed.\n",
    # a line that makes one of the entry's checks the first thing to do (first_when): that check leads,
    # before the advice by phase of an entry that has it
    "lead-check": "ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\n"
    "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401\n",
    "lead-check-and-phase": "Capture cuda graph failed: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling "
    "`cublasCreate(handle)`\n",
    # the phase from the error's own traceback: a crash in graph replay is serving, though its path names
    # cuda_graph_runner.py; a capture at start-up runs through ModelRunner.__init__ first; a report whose
    # traceback has no error line takes its last frame that tells a phase
    "replay-is-serving": "Traceback (most recent call last):\n"
    '  File "/sgl/python/sglang/srt/managers/scheduler.py", line 661, in event_loop_overlap\n'
    "    batch_result = self.run_batch(batch)\n"
    '  File "/sgl/python/sglang/srt/model_executor/model_runner.py", line 1152, in forward\n'
    "    return self.cuda_graph_runner.replay(forward_batch)\n"
    '  File "/sgl/python/sglang/srt/model_executor/cuda_graph_runner.py", line 510, in replay\n'
    "    self.graphs[self.bs].replay()\n"
    "RuntimeError: CUDA error: an illegal memory access was encountered\n",
    "capture-after-start-up-frames": "Load weight end. type=LlamaForCausalLM\n"
    "[TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
    '  File "/sgl/python/sglang/srt/managers/scheduler.py", line 240, in __init__\n'
    "    self.tp_worker = TpWorkerClass(\n"
    '  File "/sgl/python/sglang/srt/model_executor/model_runner.py", line 128, in __init__\n'
    "    self.init_cuda_graphs()\n"
    '  File "/sgl/python/sglang/srt/model_executor/cuda_graph_runner.py", line 148, in __init__\n'
    "    self.capture()\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB.\n",
    "frames-without-an-error": "The pool did not fit\n"
    '  File "/sgl/python/sglang/srt/model_executor/model_runner.py", line 313, in load_model\n'
    "    self.model = get_model(config)\n"
    '  File "/sgl/python/sglang/srt/model_executor/model_runner.py", line 900, in init_memory_pool\n'
    "    self.token_to_kv_pool = MHATokenToKVPool(\n",
    # PyTorch's warning names the GPU's architecture, then lists its build's: the GPU's is read; another
    # architecture on a line of its own (its match starts on the newline before it) makes two
    "arch-and-the-builds-list": "/usr/lib/python3/site-packages/torch/cuda/__init__.py:287: UserWarning:\n"
    "NVIDIA GeForce RTX 5060 Ti with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n"
    "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n",
    "arch-on-a-line-of-its-own": "NVIDIA GeForce RTX 5060 Ti with CUDA capability sm_120 is not compatible\n"
    "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\nsm_86",
    "common-flag-and-open-model": "ModuleNotFoundError: No module named 'sgl_kernel'\n"
    "python -m sglang.launch_server --model-path /data/models/Qwen2.5-72B-Instruct --tp 4 --enable-dp-attention\n"
    "Capture cuda graph failed with Qwen3-30B-A3B; the cache hit rate fell and health checks failed\n",
    "prose-names-and-env": "The benchmark crashed, with max_running_requests set to 8 and export HF_HUB_OFFLINE='1'\n"
    "ServerArgs(enable_hierarchical_cache=True, tp_size=2)\n    if self.enable_dp_attention:\n"
    "python -m sglang.bench_serving --dataset-name random --num-prompts 10\n",
    "controls": 'sglang: 0.5.18\nRuntimeError: the "widget"\x7f\x85\ufffe\x01\x9b\ufeff config: \\x41 # failed to load\n'
    "- failed to load the widget configuration\n"
    "\x1cValueError: the widget failed to load at its ends\x85\n"
    "\u3000ValueError: the gadget failed to load at its ends\ufeff\x1f\n",
    # a launch command's option names and program are no words of the failure: only its values are
    "command-options": "Structured output hangs on GLM-4.5-Air, the request never returns\n"
    "python3 -m sglang.launch_server --model-path zai-org/GLM-4.5-Air --tp 4 --tool-call-parser glm45 "
    "--reasoning-parser=glm45 --host 0.0.0.0 --port 8000\n",
    # a kind of failure the words before it deny is not told; the architecture read is no word
    "denied-kind": "It is **not an OOM** and it didn't hang: the scheduler exits after a long prompt.\n"
    "TypeError: 'NoneType' object cannot be interpreted as an integer\n",
    "architecture-words": "sglang 0.5.19 on 2x RTX 5070 (sm_120): CUDA graphs captured, prefill stalls at long context\n",
    # a GPU an incident must not have ({not: {gpu: ...}}) rules it out
    "gpu-it-must-not-be": "GPU 0: NVIDIA H100 80GB HBM3\nmiles rollout with --true-on-policy-mode: the SGLang engine died\n"
    "retrying... (attempt 3/60)\n",
    # a line that tells another cause than the phase's advice fixes: its check stands alone
    "capture-not-memory": "[2026-05-02 10:00:00 TP0] Capture cuda graph begin. This can take up to several minutes.\n"
    "RuntimeError: HIP error: operation not permitted when stream is capturing\n",
    # a model path left out in a sentence: the next option is no model
    "model-path-left-out": "When serving with python -m sglang.launch_server --model-path --tp 4 the embedding request fails\n"
    "AttributeError: 'EmbeddingReqInput' object has no attribute 'image_data'\n",
    "padded": "".join(
        line + " " * 1500 + "\n"
        for line in [
            "sglang",
            "sglang router",
            "sglang: 0.5.18",
            "GPU 0: NVIDIA H100 80GB HBM3",
            "|   0  NVIDIA A100-SXM4-80GB" + " " * 1500 + "On  |",
            "python -m sglang.launch_server --model-path Qwen/Qwen3-8B " + "`" * 300,
            "model_path='" * 100,
            "RuntimeError: the widget failed",
        ]
    ),
}


def cases() -> list[dict]:
    reports = yaml.safe_load((ROOT / "tests" / "diagnose_reports.yaml").read_text("utf-8"))
    out = [{"name": r["url"], "text": r["text"]} for r in reports]
    out += [{"name": f"edge: {k}", "text": v} for k, v in EDGE.items()]
    # real environment dumps and errors (tests/diagnose_background: an H200 machine's text, SGLang's check_env)
    background = ROOT / "tests" / "diagnose_background"
    dump = ROOT / "tests" / "env_dumps" / "sglang-check-env.txt"
    for path in [*sorted(background.glob("h200-*.txt")), dump]:
        out.append({"name": f"real: {path.name}", "text": path.read_text("utf-8")})
    # a report filed through SGLang's bug-report form (its checklist, headings and an empty field, as GitHub
    # renders them), with a pull request template's hidden comment
    out.append(
        {
            "name": "edge: issue-form",
            "text": "[Bug] Server hangs with HiCache after a few hours\n\n### Checklist\n\n"
            "- [x] I searched related issues but found no solution.\n- [x] The bug persists in the latest version.\n"
            "- [ ] Please use English. Otherwise, it will be closed.\n\n### Describe the bug\n\n"
            "Requests stop getting answers; the watchdog fires.\n<!-- Explain the purpose of this PR. -->\n\n"
            "### Reproduction\n\n_No response_\n\n### Environment\n\n_No response_\n",
        }
    )
    # a report with SGLang's check_env output, as its issue template asks: the release, the GPU and no words
    out.append(
        {
            "name": "real: a report with sglang-check-env.txt",
            "text": "[Bug] Decode throughput fell sevenfold after upgrading FlashInfer on Hopper\n"
            "Single-stream decode is much slower with the FlashInfer attention backend.\n\n"
            + dump.read_text("utf-8").replace("0.5.12.dev93+g9f64d51c7", "0.5.8"),
        }
    )
    return out


def document() -> dict:
    return {
        "about": [
            "Reports that the diagnosis engines (opsmanual/engines/diagnose.py and",
            "docs/javascripts/sgm/diagnose.js) must answer alike, on the bundles built from the",
            "repository's data: the development set of tests/diagnose_reports.yaml and made-up edge",
            "cases. Written by tests/diagnose_cases.py; tests/test_diagnose.py compares the two engines.",
        ],
        "cases": cases(),
    }


if __name__ == "__main__":
    OUT.write_text(json.dumps(document(), ensure_ascii=False, indent=1) + "\n", "utf-8")
