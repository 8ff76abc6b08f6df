"""The SGLang operations manual: its data, the pages and files made from it, and the commands that
read operators' logs, launch commands and bug reports against it.

Data flows one way, and the packages import the same way (import-linter checks it, see
pyproject.toml and ARCHITECTURE.md):

    text      folding, tokenising, release numbers, the regex engine, terminal-safe output
    data      YAML in, a validated model out (the loader)
    render    the model in, HTML and JSON out (pure renderers and Jinja templates)
    engines   log scanning, the launch-command parser and exposure check, diagnosis (no I/O)
    site      which pages and files the site has, builder-neutral (the plan, the macros)
    builders  one per site generator, on one contract (builders/contract.py): mkdocs/, zensical/
    cli       the commands: triage, exposure, diagnose, generate (which runs builders/zensical/)

This file stays light: the exposure command imports the package and must start fast.
"""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the project: data/, docs/, ...
