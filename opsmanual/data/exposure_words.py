"""The words of the launch-command check, once: the verdicts, the headline, what a reader could add
to decide an incident that may apply, and the labels of the check page. The Python engine and the
command line read them here; the browser's engine and page read the same strings from the exposure
bundle (opsmanual/render/bundle.py puts ``WORDS`` in it), so no message is typed twice.

A template names its values in braces (``{n}``, ``{checked}``); :func:`fill` (and ``fill`` in
docs/javascripts/sgm/exposure.js) replaces each with its value, and nothing else.
"""

from __future__ import annotations

from opsmanual.data.programs import ARG_LISTS, PRODUCT_LABELS, bundle_programs, list_product_label
from opsmanual.data.programs import PROGRAMS as _PROGRAMS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the exposure command starts fast
if TYPE_CHECKING:
    from typing import Any

# The four verdicts an incident gets from a check, in the order the answer gives them.
VERDICTS = {
    "applies": "applies",  # every condition holds and the version is in the affected range
    "may apply": "may apply",  # nothing is false, but something the command leaves out decides
    "does not apply": "does not apply",  # a condition is false, or the version is outside the range
    "not checkable": "not checkable",  # no launch setting is behind the incident
}

# Whoever reads the answer could add one of these to decide an undecided condition. Each has the
# words of the command line (an option) and of the check page (a field, or the command line).
ADD = {
    "gpu": {"cli": "give --gpu NAME", "page": "name the GPU"},
    "version": {"cli": "give --version X.Y.Z", "page": "give the version"},
    "model-config": {
        "cli": "give --model-config config.json",
        "page": "check on the command line with --model-config config.json",
    },
    "config": {
        "cli": "write the options the file or variable sets into the command",
        "page": "write the options the file or variable sets into the command",
    },
    "runtime": {
        "cli": "answer the questions about the running server that no command shows",
        "page": "answer the questions about the running server that no command shows",
    },
    "cut": {"cli": "give the whole command (it is cut off)", "page": "paste the whole command (it is cut off)"},
}

# What the last line of a command cut off ends with, and the words that stand for options left out of a
# pasted command: such a command proves no flag absent. The diagnosis reads a cut-off command in a report
# by the same marks (opsmanual/data/diagnosis.py's CUT_COMMAND).
CUT_MARKS = ["\\", "...", "…"]
ELISIONS = ["...", "…"]

# How many incidents an answer lists; the others that may apply (those with the least evidence) are
# counted and named, not described.
LISTED = 10

# The product whose releases an argument list follows, for the rename finding ("`--x` is the name
# SGLang 0.5.21 lists for ..."): the version it names is a release of that product, so the
# bench_serving list is named by SGLang's (opsmanual/data/programs.py says why).
LIST_LABEL = {name: list_product_label(name) for name in ARG_LISTS}

# What the reasons call the programs, model traits and products.
PROGRAMS = {program: entry["launch"] for program, entry in _PROGRAMS.items()}
TRAITS = {
    "hybrid-linear-attention": "hybrid linear attention",
    "mamba": "Mamba layers",
    "sliding-window": "sliding-window attention",
    "moe": "mixture of experts",
    "mla": "multi-head latent attention (MLA)",
    "fp8": "FP8 weights",
    "fp4": "FP4 weights",
}
PRODUCTS = dict(PRODUCT_LABELS)

# Every reason, note and error the check gives, by name. `{x}` is filled in; a backtick pair marks code.
MESSAGES = {
    # versions and affected ranges
    "range_before": "every release before {fixed}",
    "range_from_before": "{intro} to before {fixed}",
    "range_up_to": "every release up to {last}",
    "range_from_to": "{intro} to {last}",
    "range_all": "every release",
    "range_from": "{intro} and later",
    "range_paren": "({range})",
    "range_none": "(no published release)",
    "version_none": "no {label} version given",
    "version_shown": "{label} {version}{tag}",
    "version_seen": "{shown} is a version where it was seen",
    "version_unknown": "the affected {label} versions are not known{seen}",
    "version_seen_on": " (seen on {versions})",
    "version_in": "{shown} is in the affected range {range}",
    "version_out": "{shown} is outside the affected range {range}",
    "version_unaffected": "no published {label} release is affected",
    # values compared with a condition
    "code": "`{text}`",
    "or": " or ",
    "list": ", ",
    "equals": "{subject} equals {value}",
    "not_equals": "{subject} does not equal {value}",
    "one_of": "{subject} is one of {value}",
    "not_one_of": "{subject} is not one of {value}",
    "not_number": "{subject} is not a number",
    "at_least": "{subject} is at least {value}",
    "less_than": "{subject} is less than {value}",
    "at_most": "{subject} is at most {value}",
    "more_than": "{subject} is more than {value}",
    "span_both": "{min} to {max}",
    "span_min": "at least {min}",
    "span_max": "at most {max}",
    # flags
    "flag_kwarg": "`{written}={raw}`",
    "flag_value": "`{name} {raw}`",
    "flag_written": " (written `{written}`)",
    "is_program": "the command is {program}",
    "not_program": "the command is not {program}",
    "flag_given": "{flag} is given",
    "flag_not_given": "{flag} is not given",
    "flag_opaque": "{flag} is not given, but {opaque} may set it",
    "not_literal": "{subject} is not a literal value",
    "no_default": "{flag} is not given and the manual has no default for it",
    "default_at_run_time": "{flag} is not given and its default is decided at run time",
    "default_is": "{flag} is not given, so its default {value}",
    "default_no_list": "{flag} is not given, and the manual has no argument list for {product} {version} to take "
    "its default from",
    "default_unlisted": "{flag} is not given, and {product} {version} has no such argument to take a default from",
    "flag_refused": "{flag} is given, but {product} {version} has no such argument, so the server would refuse it",
    # environment variables
    "env_opaque": "`{name}` is not set in the command, but {opaque} may set it",
    "env_not_set": "`{name}` is not set",
    "env_host": "`{name}` (passed through from the host)",
    "env_value": "`{name}={value}`",
    "env_set": "{shown} is set",
    "env_host_value": "`{name}` is passed through from the host; its value is not in the command",
    "env_from": "`{name}` (set from {source})",
    "env_from_value": "`{name}` is set from {source}; its value is not in the file",
    # GPUs
    "gpu_none": "no GPU given",
    "gpu_is": "GPU {name}",
    "gpu_is_not": "GPU {name} is not {names}",
    "gpu_arch": "GPU {name}: architecture {value}",
    "gpu_arch_not": "GPU {name}: architecture {value}, not {wanted}",
    "gpu_vendor": "GPU {name}: vendor {value}",
    "gpu_vendor_not": "GPU {name}: vendor {value}, not {wanted}",
    "gpu_no_cc": "GPU {name} has no CUDA compute capability",
    "gpu_cc": "GPU {name}: compute capability {value}",
    "gpu_cc_not": "GPU {name}: compute capability {value}, not {wanted}",
    "gpu_memory_unknown": "GPU {name}: the manual does not know its memory size",
    "gpu_memory": "GPU {name}: {value} GB of memory",
    "gpu_memory_not": "GPU {name}: {value} GB of memory, not {wanted}",
    # models
    "who_model": "model",
    "who_draft": "draft model",
    "draft_none": "no draft model (`--speculative-draft-model-path` is not given)",
    "model_none": "no model path given",
    "model_none_opaque": "no model path given ({opaque} may set it)",
    "model_dynamic": "{who} path `{name}` is not a literal value",
    "config_trait": "model config {name}: {trait}",
    "config_no_trait": "model config {name}: no {trait}",
    "config_no_family": "model config {name} does not name the model family",
    "model_trait": "{who} {name}: {trait} ({family})",
    "model_no_trait": "{who} {name} ({families}): no {trait}",
    "model_unlisted": "{who} {name} is not in the manual's model list",
    "model_no_quant": "{who} {name}: the name shows no {trait}",
    "model_family": "{who} {name}: family {family}",
    "model_family_not": "{who} {name}: family {families}, not {wanted}",
    # deployment
    "policy_default": "the default; {flag} is not given",
    "policy_no_default": "{flag} is not given and its default is not known",
    "policy": "router policy {policy} ({how})",
    "policy_not": "router policy {policy} ({how}), not {wanted}",
    "policy_side": "{side} {policy} ({how})",
    "policy_sides": "router policies in PD mode: {sides}",
    "policy_sides_not": "router policies in PD mode: {sides}, neither {wanted}",
    "policy_sides_one": "router policies in PD mode: {sides}; only one side routes by {wanted}",
    "ipv6": "{subject} holds an IPv6 address",
    "ipv6_not": "{subject} holds no IPv6 address",
    "ipv6_question": "Does the host `{host}` in {subject} resolve to an IPv6 address?",
    "pd_role": "PD role {role} ({flag})",
    "pd_role_not": "PD role {role} ({flag}), not {wanted}",
    "pd_none_written": "no PD role ({flag})",
    "pd_none": "no PD role ({flag} is not given)",
    "multi_node": "multi-node: {reason}",
    "single_node": "a single node: {reason}",
    # what only the running server shows
    "runtime": "no command shows it: {question}",
    # the check as a whole
    "not_a_version": "`{given}` is not a version number such as {version}",
    "no_release": "{product} has no release {given}; its releases run from {first} to {last}",
    "tag_image": " (from the image tag)",
    "tag_assumed": " (assumed)",
    "from_image": "SGLang {version} is taken from the image tag `{image}`",
    "assumed": "No SGLang version given: {version} is assumed, the release this manual describes",
    "unknown_gpu": "unknown GPU `{gpu}`{hint}",
    "gpu_did_you_mean": "; did you mean {names}?",
    "gpu_knows": "; the manual knows {n} GPUs, such as `{first}`",
    "gpu_no_list": "; the manual has no GPU list",
    "no_arglist": "The manual has no argument list for {product} {version}; flags are checked against {checked}",
    "not_checkable_one": "1 incident is not checkable from a command (not configuration-triggered)",
    "not_checkable_many": "{n} incidents are not checkable from a command (not configuration-triggered)",
    "unconditioned_one": "1 incident has no exposure conditions yet",
    "unconditioned_many": "{n} incidents have no exposure conditions yet",
}

# What the command parser (opsmanual/engines/command.py and docs/javascripts/sgm/command.js) says.
MESSAGES.update(
    {
        "p_not_a_command": "not a command this checker reads: paste `python -m sglang.launch_server ...`, "
        "`sglang serve ...`, `python -m sglang_router.launch_router ...`, "
        "`python -m sglang.bench_serving ...`, a `docker run` (`podman run`, `kubectl exec ... --`) line that "
        "runs one of them, "
        "or a Python `sgl.Engine(...)` call",
        "p_where": "line {line}, column {column}",
        "p_unbalanced": "unbalanced quote: the {quote} at {where} is never closed",
        "p_unbalanced_paren": "unbalanced parenthesis: the ${paren} at {where} is never closed",
        "p_more_findings": "more findings than are shown here; correct these and check again",
        "p_dash": "`{word}` starts with a typographic dash; the shell needs `{fixed}`",
        "p_unexpected": "`{word}` is not a flag or a flag's value",
        "p_ambiguous": "`{flag}` is ambiguous in {list}: it could be {options}",
        "p_did_you_mean": "; did you mean {options}?",
        "p_unknown": "`{flag}` is not {list} argument{hint}",
        "p_takes_no_value": "`{word}`: `{flag}` takes no value",
        "p_needs_value": "`{flag}` needs a value",
        "p_deprecated": "`{flag}` is deprecated in {list}",
        "p_repeated": "`{flag}` is given more than once; the last one counts",
        "p_opaque": "{subject} may set {noun} the paste does not show; tests on {noun} it does not give are undecided",
        "p_noun_flags": "flags",
        "p_noun_env": "environment variables",
        "p_cut_end": "the lines cut off after `{mark}`",
        "p_cut_word": "the options `{mark}` stands for",
        "p_bad_value": "`{flag} {raw}` is not {what}",
        "p_an_integer": "an integer",
        "p_a_number": "a number",
        "p_valid_json": "valid JSON",
        "p_invalid_choice": "`{flag} {value}` is not one of the allowed values: {choices}",
        "p_python_invalid": "the `Engine(...)` call is not valid Python (check its brackets and quotes)",
        "p_engine_label": "a Python `Engine(...)` call",
        "p_positional": "positional arguments to `Engine(...)` are not checked",
        "p_only_cli": ": `{option}` exists only on the command line",
        "p_unknown_kwarg": "`{name}` is not a ServerArgs field in SGLang {version}{only_cli}{hint}",
        "p_docker_own": "the `{tool} {mode}` line runs the image's own command, which the paste does not show; "
        "paste the command the container runs",
        "p_module": "`python -m {module}` is not a command this checker reads; it reads `sglang.launch_server`, "
        "`sglang_router.launch_router` and `sglang.bench_serving`",
        "p_label_miles": "`python {script}` (Miles)",
        "p_label_module": "`python -m {module}`",
        "p_label_serve": "`sglang serve`",
        "p_no_arglist": "the manual has no argument list for {label}; flags are read as written",
        "p_in_c": "in the `-c` text: {error}",
        "p_placeholder_one": "{word} looks like a placeholder: a shell reads `<` and `>` as redirections, so it is not "
        "passed on and the word after it is lost; put a real value in its place",
        "p_placeholder_many": "{words} and {last} look like placeholders: a shell reads `<` and `>` as redirections, "
        "so they are not passed on and the word after each is lost; put real values in their place",
        "p_empty": "the command is empty",
        "p_lost_continuation": "a line starts with `{word}` but the line before it does not end with a backslash; "
        "it is read as part of the command above",
        "p_too_long": "the paste is {length} characters long; a launch command is at most {max}",
        "p_more_commands": "the paste holds {n} commands; only the first, {label}, is checked",
        "p_list_label": "{article} {label} {version}",
        "p_list_name": "{label} {version}",
    }
)

# What the scan of a deploy folder (`sglang-manual scan`) says of the SGLang release it checks a command at:
# the release a file pins, a range of them, and a pin that names no release the manual lists. The scan runs
# only on the command line, so the browser's bundle does not carry these.
SCAN = {
    "from_version": "SGLang {version}, from --version",
    "pinned": "SGLang {version}, pinned by {pins}",
    "range": "SGLang {releases}, a range and not one release: {pins} {allow} them; each is checked",
    "question": "which release does the deploy install? ({pins} {allow} {releases})",
    "pin_at": "`{written}` at {where}",
    "and": " and ",
    "allows": "allows",
    "allow": "allow",
    "span": "{first} to {last} ({n} releases)",
    "not_listed": "{where}: `{written}` pins SGLang {release}, which is not a release the manual lists",
    "allows_none": "{where}: `{written}` allows no release the manual lists",
    "unreadable": "{where}: `{written}` is not a version requirement pip can read",
    "assumed": "; its commands are checked at {version}, the release the manual describes",
}

# Folders the scan walks below a path given: a deploy tree is a few deep; deeper ones are noted, not walked
# (the check page says how deep, through the scan_max_depth variable).
SCAN_MAX_DEPTH = 64

# How findings name each program's argument list (article, name).
ARG_LABELS = {name: [entry["article"], entry["name"]] for name, entry in ARG_LISTS.items()}

# The options of the commands a launch line may start with that take a value (everything else is a switch):
# `docker run` / `docker exec`, `sudo` and `uv run`.
SHELL_OPTIONS = {
    "docker": [
        "-a",
        "--attach",
        "--add-host",
        "--annotation",
        "--blkio-weight",
        "-c",
        "--cpu-shares",
        "--cap-add",
        "--cap-drop",
        "--cgroup-parent",
        "--cgroupns",
        "--cidfile",
        "--cpu-period",
        "--cpu-quota",
        "--cpus",
        "--cpuset-cpus",
        "--cpuset-mems",
        "--detach-keys",
        "--device",
        "--device-cgroup-rule",
        "--dns",
        "--dns-option",
        "--dns-search",
        "--domainname",
        "-e",
        "--env",
        "--entrypoint",
        "--env-file",
        "--expose",
        "--gpus",
        "--group-add",
        "--health-cmd",
        "--health-interval",
        "--health-retries",
        "--health-start-period",
        "--health-timeout",
        "-h",
        "--hostname",
        "--ip",
        "--ip6",
        "--ipc",
        "--isolation",
        "-l",
        "--label",
        "--label-file",
        "--link",
        "--log-driver",
        "--log-opt",
        "--mac-address",
        "-m",
        "--memory",
        "--memory-reservation",
        "--memory-swap",
        "--mount",
        "--name",
        "--network",
        "--net",
        "--network-alias",
        "--pid",
        "--pids-limit",
        "--platform",
        "-p",
        "--publish",
        "--pull",
        "--restart",
        "--runtime",
        "--security-opt",
        "--shm-size",
        "--stop-signal",
        "--stop-timeout",
        "--storage-opt",
        "--sysctl",
        "--tmpfs",
        "-u",
        "--user",
        "--ulimit",
        "--userns",
        "--uts",
        "-v",
        "--volume",
        "--volume-driver",
        "--volumes-from",
        "-w",
        "--workdir",
    ],
    "sudo": ["-u", "-g", "-C", "-D", "-r", "-t", "-U", "-p"],
    "uv": [
        "--with",
        "--with-requirements",
        "--python",
        "-p",
        "--project",
        "--directory",
        "--env-file",
        "--extra",
        "--group",
        "--index",
        "--index-url",
        "--extra-index-url",
        "--package",
        "--isolated",
    ],
}

# the words the command line and the browser share; "headline" and "page" are groups of words
WORDS: dict[str, Any] = {
    "headline": {
        "both": "{applies} and {may} may apply, of {checked} checked.",
        "applies": "{applies}, of {checked} checked.",
        "may": "{may_incidents} may apply, though none is certain to, of {checked} checked: "
        "what the command leaves out decides.",
        "none": "No incident applies ({checked} checked).",
        "one_applies": "1 incident applies",
        "many_apply": "{n} incidents apply",
        "one_incident": "1 incident",
        "many_incidents": "{n} incidents",
    },
    "to_decide": "To decide: {what}.",
    # an option written by a name an earlier release gave it (the argument lists of the releases show it)
    "renamed": "`{old}` is the name {product} {last} lists for `{new}`; {first} lists it as `{new}`{tail}",
    "renamed_kept": " and still accepts the old name",
    "renamed_gone": " and no longer accepts the old name, so the server stops at startup",
    "to_decide_item": "{action} ({n})",
    "more": "{n} more may apply, with fewer conditions confirmed: {ids}.",
    "page": {
        "applies": "Incidents that apply ({n})",
        "may": "Incidents that may apply ({n})",
        "may_explain": "Each of these needs something the command does not say: a GPU, a version, a model the manual "
        "does not list, a setting decided at run time, or a fact of the running server that no command shows "
        "(another process on the GPU, the load, the prompts). Those with more conditions confirmed come first.",
        "findings": "About the command itself",
        "assumed": "Assumed",
        "unchecked": "Not checkable from a command ({n})",
        "unchecked_explain": "These incidents are not triggered by a launch setting: a benchmark method, how the server "
        "is stopped or probed, the machine around it. Read them by their symptoms.",
        "show_them": "Show them",
        "why": "Why",
        "cannot_decide": "Cannot decide",
        "to_decide": "To decide",
        "nothing_confirmed": "No condition could be confirmed yet.",
        "note": "Note: ",
        "error": "Cannot check this: ",
        "permalink_lead": "This answer has an address of its own: ",
        "permalink": "link to this answer",
        "loading": "Loading the incidents…",
        "failed": "The incident data ({url}) could not be loaded: {error}. The command-line check below works without it.",
        "crashed": "the checker failed on this input ({name}); please report the command",
    },
}


def fill(template: str, **values: object) -> str:
    """``template`` with each ``{name}`` replaced by its value (as the browser's ``fill`` does)."""
    out, i = [], 0
    while i < len(template):
        j = template.find("{", i)
        k = template.find("}", j + 1) if j >= 0 else -1
        if j < 0 or k < 0:
            out.append(template[i:])
            break
        name = template[j + 1 : k]
        out.append(template[i:j])
        out.append(str(values[name]) if name in values else template[j : k + 1])
        i = k + 1
    return "".join(out)


def bundle_words() -> dict[str, Any]:
    """What the browser needs of these words, as plain JSON."""
    return {
        "verdicts": dict(VERDICTS),
        "add": {k: dict(v) for k, v in ADD.items()},
        "listed": LISTED,
        "list_label": dict(LIST_LABEL),
        "programs": dict(PROGRAMS),
        "traits": dict(TRAITS),
        "products": dict(PRODUCTS),
        "messages": dict(MESSAGES),
        "arg_labels": {k: list(v) for k, v in ARG_LABELS.items()},
        "shell_options": {k: list(v) for k, v in SHELL_OPTIONS.items()},
        "cut_marks": list(CUT_MARKS),
        "elisions": list(ELISIONS),
        "program_table": bundle_programs(),  # the programs, their argument lists and products, once
        **WORDS,
    }


def say(key: str, **values: object) -> str:
    """The message ``key`` of MESSAGES, filled in."""
    return fill(MESSAGES[key], **values)
