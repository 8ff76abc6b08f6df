"""The old command lines `python -m macros.triage` and `python -m macros.exposure` (triage.py and
exposure.py beside this file); the commands themselves are `sglang-manual triage` and
`sglang-manual exposure`.

The macros the pages call are registered in opsmanual/site/macros.py, by each builder's macros
module: opsmanual/builders/mkdocs/macros.py (mkdocs.yml's ``module_name``) and
opsmanual/builders/zensical/macros.py (the generated tree's).
"""
