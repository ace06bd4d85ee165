"""The sglang releases whose contract the protocols describe, and how to pin one.

The protocols (``spec_protocols._protocols``) describe the newest supported
release. A member that older releases do not call is defined under a branch
on named constants, the way typeshed writes ``sys.version_info`` branches::

    if not (SGLANG_0_5_19 or SGLANG_0_5_20):
        def weight_update_runners(self) -> ...: ...   # called from 0.5.21 on

Both checkers evaluate such branches once told which constant holds:
mypy with ``always_true = SGLANG_0_5_21`` and ``always_false`` for the others,
pyright with ``"defineConstant": {"SGLANG_0_5_21": true, ...}``. Told
nothing, they analyse the branch and keep the member: the default is the
newest release. (``spec-protocols pin RELEASE`` prints both configurations; the gate sets
them itself for the release it checks.)

At runtime the constants are ``False`` (no pin): ``isinstance`` and
``verify_conformance`` use the newest release's members, and the gate's
runtime checker judges only the members of the release it checks.

Only *additions* can be written this way: an unconfigured checker keeps every
branch, so a member an older release calls and a newer one does not would be
required by the default. Between the supported releases no protocol member
was removed, and the constructor keyword sets that changed (``ps`` until
0.5.20; ``random_seed`` from 0.5.21, ``load_group`` from 0.5.22) are checked
by the gate from each release's contract.
"""

from __future__ import annotations

import ast
import re
from typing import Final

__all__ = [
    "NEWEST",
    "OLDEST",
    "OLDEST_READABLE",
    "SGLANG_0_5_19",
    "SGLANG_0_5_20",
    "SGLANG_0_5_21",
    "SGLANG_0_5_22",
    "SGLANG_0_5_23",
    "SUPPORTED_RELEASES",
    "branch_holds",
    "constant_name",
    "pin_constants",
    "pinned_release",
    "release_key",
    "version_order",
    "STUBS_RELEASE",
]

#: The sglang releases the protocols describe, oldest first: every release
#: that has ``build_draft_tp_worker(draft_worker_cls=...)``.
SUPPORTED_RELEASES: Final = ("0.5.19", "0.5.20", "0.5.21", "0.5.22", "0.5.23")
OLDEST: Final = SUPPORTED_RELEASES[0]
NEWEST: Final = SUPPORTED_RELEASES[-1]

#: The release the sglang stubs (stubs/sglang, the sglang-stubs wheel) are
#: written for and verified against with stubtest. A check against another
#: release reads that release's own source for the modules the stubs cover:
#: a stub of 0.5.23's ``build_draft_tp_worker`` (no ``ps``) would fail a
#: correct 0.5.20 worker that passes ``ps=`` as 0.5.20 asks.
STUBS_RELEASE: Final = "0.5.23"

#: The oldest release whose construction of a plugin's spec worker the gate
#: reads (the contract extractor finds the call and its keywords), measured by
#: running it on the releases from 0.4.0 to 0.5.18 and 0.5.3.post3 to
#: 0.5.4.post3: 0.5.4.post2 is the first whose algorithm keeps a registry
#: (``register_speculative_algorithm(name, worker_cls)``, which the scheduler
#: reaches through ``spec_algorithm.create_draft_worker(**kwargs)``). Up to
#: 0.5.4.post1 the scheduler constructs its own classes by name, so no
#: plugin's worker is ever a spec worker there; the gate refuses a release
#: older than this one before fetching it (compared with :func:`version_order`).
OLDEST_READABLE: Final = "0.5.4.post2"

# One constant per release: True when type checkers are pinned to it. Plain
# bool (neither Final nor Literal), so that a checker told nothing evaluates
# neither way, and mypy does not call the branches redundant.
SGLANG_0_5_19: bool = False
SGLANG_0_5_20: bool = False
SGLANG_0_5_21: bool = False
SGLANG_0_5_22: bool = False
SGLANG_0_5_23: bool = False


def constant_name(release: str) -> str:
    """``"0.5.21"`` -> ``"SGLANG_0_5_21"``."""
    return "SGLANG_" + release.replace(".", "_")


def release_key(release: str) -> tuple[int, ...]:
    """``"0.5.23.post1"`` -> ``(0, 5, 23)``: the release's first three numbers, for ordering."""
    numbers: list[int] = []
    for part in release.split(".")[:3]:
        digits = ""
        for char in part:
            if not char.isdigit():
                break
            digits += char
        numbers.append(int(digits or 0))
    return tuple(numbers)


#: A PEP 440 public version as sglang writes them: ``0.5.23``, ``0.5.9rc1``,
#: ``0.5.4.post2``, ``0.5.0.dev2``.
_VERSION = re.compile(r"^(?P<release>\d+(?:\.\d+)*)(?:(?P<pre>a|b|rc)(?P<pre_n>\d+))?(?:\.post(?P<post>\d+))?(?:\.dev(?P<dev>\d+))?$")
_PRE_ORDER: Final = {"a": 0, "b": 1, "rc": 2}
_FINAL: Final = 3
_NO_DEV: Final = 1 << 62


def version_order(release: str) -> tuple[tuple[int, ...], tuple[int, int], int, int]:
    """A key that orders versions as PEP 440 does (``0.5.4 < 0.5.4.post1 <
    0.5.4.post2 < 0.5.5rc0 < 0.5.5``; ``0.5.5.dev1`` before ``0.5.5rc0``);
    a ValueError for a string that is not a version sglang could publish."""
    match = _VERSION.match(release)
    if match is None:
        raise ValueError(f"not a release version: {release!r}")
    numbers = [int(n) for n in match["release"].split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()  # 0.5.0 == 0.5
    pre: tuple[int, int]
    if match["pre"] is not None:
        pre = (_PRE_ORDER[match["pre"]], int(match["pre_n"]))
    elif match["dev"] is not None and match["post"] is None:
        pre = (-1, 0)  # 0.5.5.dev1: before every pre-release of 0.5.5
    else:
        pre = (_FINAL, 0)
    post = int(match["post"]) if match["post"] is not None else -1
    dev = int(match["dev"]) if match["dev"] is not None else _NO_DEV
    return tuple(numbers), pre, post, dev


def pinned_release(release: str) -> str | None:
    """The supported release that ``release`` pins the protocols to: itself,
    or the supported release of which it is a pre- or post-release
    (``0.5.23.post1`` -> ``0.5.23``); ``None`` outside the supported range."""
    key = release_key(release)
    return next((r for r in SUPPORTED_RELEASES if release_key(r) == key), None)


def pin_constants(release: str) -> dict[str, bool]:
    """The value of every constant when pinned to ``release`` (a supported one)."""
    if release not in SUPPORTED_RELEASES:
        raise ValueError(f"sglang {release} is not a supported release ({OLDEST} to {NEWEST})")
    return {constant_name(r): r == release for r in SUPPORTED_RELEASES}


def branch_holds(test: ast.expr, release: str | None) -> bool:
    """The value of a release branch's test when pinned to ``release``
    (``None``: no pin, the newest release), as mypy and pyright evaluate it.

    Tests are made of the ``SGLANG_*`` constants, ``not``, ``and`` and ``or``.
    Unpinned, every constant is false, so ``if not (SGLANG_0_5_19 or ...)``
    holds: the newest release has every member.
    """
    if isinstance(test, ast.Name):
        if not test.id.startswith("SGLANG_"):
            raise ValueError(f"not a release constant: {test.id}")
        return release is not None and test.id == constant_name(release)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return not branch_holds(test.operand, release)
    if isinstance(test, ast.BoolOp):
        values = [branch_holds(v, release) for v in test.values]
        return all(values) if isinstance(test.op, ast.And) else any(values)
    raise ValueError(f"not a release branch test: {ast.unparse(test)}")
