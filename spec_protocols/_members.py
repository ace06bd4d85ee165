"""A protocol's members, in the order the protocol defines them: one definition for everyone.

Runtime verification lists problems in this order, ``spec-protocols
explain`` prints members in it, the scaffolds write them in it, and the
gate's harness emits its lines in it. Base protocols come first; within a
class, methods and properties in the order of the class body, then
annotation-only attributes. A protocol is a class of this package's own, so
reading its namespace runs no foreign code.
"""

from __future__ import annotations

from typing import cast

from typing_extensions import get_protocol_members

__all__ = ["protocol_members"]

# Protocols are fixed once defined: computed once per protocol.
_ORDER: dict[type, tuple[str, ...]] = {}


def protocol_members(protocol: type) -> tuple[str, ...]:
    """The members of ``protocol`` in definition order, base protocols first."""
    known = _ORDER.get(protocol)
    if known is not None:
        return known
    members = get_protocol_members(protocol)
    ordered: list[str] = []
    for klass in reversed(protocol.__mro__):
        namespace = vars(klass)
        annotations: object = namespace.get("__annotations__", {})
        names: list[str] = list(namespace)
        if isinstance(annotations, dict):
            names += [str(name) for name in cast("dict[object, object]", annotations)]
        for name in names:
            if name in members and name not in ordered:
                ordered.append(name)
    # Members that no namespace lists (none today) still come, in a fixed order.
    ordered.extend(sorted(members - set(ordered)))
    _ORDER[protocol] = tuple(ordered)
    return _ORDER[protocol]
