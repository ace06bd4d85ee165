"""Discovery, the first stage: what to check, found by reading source only.

Rooms, one job each, in the order the data flows:

``_targets``       locating a TARGET on disk: which modules it names, walking
                   packages the way the import system sees them
``_source_index``  what each module binds at import time, and what a name
                   resolves to (the source itself is read with the gate's one
                   toolkit, :mod:`spec_protocols.gate._source`)
``_injections``    every value given to ``draft_worker_cls``, and what it is
                   (followed through attributes and declared types)
``_registrations`` what a plugin hands ``SpeculativeAlgorithm.register``: the
                   classes its factories return, ``spec_class``, flags, partials
``_decorated``     classes marked with spec_protocols' class decorators
``_built``         modules whose import makes classes by a call (``type(...)``,
                   a class factory): the runtime checker lists their workers
``_members``       where a class gets each member (its body, or a base, in MRO order)
``_selection``     choosing the classes to check and their roles, the
                   injection sites, and what to note

Nothing here imports a target. The output is a :class:`~spec_protocols.gate._model.Discovery`.
"""

from __future__ import annotations

from spec_protocols.gate._discovery._built import REGISTER_CALL_NAMES, require_found, require_importing
from spec_protocols.gate._discovery._selection import DRAFT_ROOTS, SPEC_ROOTS, discover
from spec_protocols.gate._discovery._source_index import SourceReads
from spec_protocols.gate._discovery._targets import resolve_target

__all__ = ["DRAFT_ROOTS", "REGISTER_CALL_NAMES", "SPEC_ROOTS", "SourceReads", "discover", "require_found", "require_importing", "resolve_target"]
