"""The checker adapters: one module per checker, one shared reading of the harness.

``base``     running a checker, and :func:`~spec_protocols.gate._checkers._interpret.interpret`,
             which turns (harness line -> diagnostics) into verdicts for mypy and pyright alike
``mypy``     configuration and ``--output json``
``pyright``  configuration and ``--outputjson``
``runtime``  imports the target in a subprocess (``runtime_probe``) and runs
             ``verify_conformance`` / ``validate_draft_worker_cls``
"""
