"""A stored contract, as its entry file holds it: apart from the cache's face, which imports no stage
(the contract's model is read only where a run reads the contract)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from spec_protocols.gate._contract import Contract

__all__ = ["ContractEntry"]


@dataclass(frozen=True, slots=True)
class ContractEntry:
    """A stored contract."""

    format: int
    key: str
    stage: Literal["contract"]
    value: Contract
