"""Reading Python source without importing it: the one toolkit the contract and discovery share.

Rooms, one job each:

``_locate``      where a module lives, found as the import system would
                 (``PathFinder``: no ``__init__`` runs): its file, or every
                 folder a namespace package spans
``_parse``       a file read and parsed once: its text, its tree, the digest
                 of its bytes; a cache of them for a lenient reader; one
                 parse of a file for every reader in a release's run
``_names``       names in source: dotted names, relative imports made
                 absolute, what a ``from`` import binds, ``self.<attr>``
``_statements``  the statements a body runs at its own level (the one walker
                 of module and class bodies), with the branches the static
                 checkers see as false; the nodes of a body short of
                 the functions and classes nested in it
``_static_truth`` the static truth of a test (``sys.version_info``,
                 ``sys.platform``; ``TYPE_CHECKING`` deliberately unknown)

The search path these look modules up on is :func:`spec_protocols.gate._paths.search_path`.
Nothing here imports another part of the gate: it is the lowest stage,
beside :mod:`~spec_protocols.gate._paths` and the model.
"""

from __future__ import annotations

from spec_protocols.gate._source._locate import find_module_file, is_module_name, module_locations, module_spec
from spec_protocols.gate._source._names import absolute_module, assigned, dotted_name, from_imports, package_of, self_attribute
from spec_protocols.gate._source._parse import ParseCache, ParsedFile, parse_file, parses_shared
from spec_protocols.gate._source._statements import FalseBranch, blocks, body_nodes, statements
from spec_protocols.gate._source._static_truth import static_truth, truth_of

__all__ = [
    "FalseBranch",
    "ParseCache",
    "ParsedFile",
    "absolute_module",
    "assigned",
    "blocks",
    "body_nodes",
    "dotted_name",
    "find_module_file",
    "from_imports",
    "is_module_name",
    "module_locations",
    "module_spec",
    "package_of",
    "parse_file",
    "parses_shared",
    "self_attribute",
    "static_truth",
    "statements",
    "truth_of",
]
