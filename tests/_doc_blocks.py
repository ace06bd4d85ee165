"""The docs' fenced blocks, and what the line before each says the suite does with it.

The convention (README.md and every docs/*.md): the line right before each
fenced block is one HTML comment, invisible on the rendered page, that says
whether the suite runs the block:

``<!-- block: run RUNNER -->``
    The installed tier (tests/installed/test_installed_docs.py) runs the
    block verbatim, as it stands in the file, from the built wheels in a
    fresh venv outside the checkout; :data:`RUNNERS` says what each runner
    does. The block stops working: that test fails, naming its page and line.
``<!-- block: not run: REASON -->``
    A command or a configuration the suite does not run, and why (a reason
    that names a test file names one that exists).
``<!-- block: not a command: WHAT -->``
    Output, an excerpt of code, a diagram: nothing to run. A block with a
    ``$ `` prompt, or in a shell, YAML, TOML or INI fence, is a command or a
    configuration and cannot be marked so.

A fenced block without the comment, a comment that says something else, and
an indented code block (which no comment can mark) fail
tests/unit/test_doc_blocks.py: what the suite does not run is a decision
written beside the block. Nothing here imports ``spec_protocols``; the unit
tier reads the docs with it, the installed tier runs them.

How a block's commands are read (:func:`commands`): in a block with ``$ ``
prompts, each prompt line is a command (a line ending in ``\\`` continues it)
and the lines up to the next prompt are its expected output, where a line
``...`` stands for any lines (:func:`output_matches`); in a block without
prompts every line that is neither blank nor a ``#`` comment is a command.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests._paths import REPO_ROOT

#: What each runner does with a block (tests/installed/test_installed_docs.py
#: implements exactly these). "The project folder" is a plugin author's
#: folder outside the checkout: ``my_plugin/`` (tests/installed/plugins/),
#: ``tiny_draft/`` (examples/walkthrough/), the two wheels, and ``wheels/``
#: with the library's wheel and requirements/sglang-cpu.txt (docs/ci.md's
#: workflow). Each page has its own folder and venv, and its blocks run in
#: the page's order, so a block may use what an earlier one made.
RUNNERS: dict[str, str] = {
    "shell": "each command in turn, with bash, in the project folder, the page's venv first on PATH: "
    "each exits 0, and prints the block's output lines, if it shows any",
    "checkout": "as shell, in a clone of the repository under test (its origin: a bare copy the tier made), "
    "the page's venv first on PATH",
    "python": "the block as a script, run by the page's venv's python in the project folder: exits 0",
    "pytest": "the block as a test module in the project folder, run by pytest (installed at the dev extra's "
    "pin if the venv has none): exits 0, and no test skips",
    "github-actions": "each step's run: in turn, with bash -eo pipefail as GitHub Actions runs it, in the project "
    "folder, GITHUB_STEP_SUMMARY a file: each exits 0",
    "pre-commit": "the block as the .pre-commit-config.yaml of the project folder (made a git repository), its "
    "placeholder repo: URL the tier's bare copy of the repository: pre-commit run --all-files exits 0",
}

#: Fences whose blocks are commands or configuration (never "not a command").
COMMAND_LANGUAGES = frozenset({"console", "sh", "shell", "bash", "yaml", "yml", "toml", "ini"})

_FENCE = re.compile(r"^(?P<indent>[ ]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_MARKER = re.compile(r"^\s*<!--\s*block:\s*(?P<body>.*?)\s*-->\s*$")
_ANY_MARKER = re.compile(r"^\s*<!--\s*block\b")
_LIST_ITEM = re.compile(r"^(?:[-*+]|\d+[.)])\s")
_TEST_PATH = re.compile(r"\btests/[\w/.-]+\.py\b")


def pages(root: Path = REPO_ROOT) -> list[Path]:
    """README.md and docs/*.md under ``root``: the pages the convention covers."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


@dataclass(frozen=True)
class Marker:
    """What the comment before a block says: ``run`` (with its runner),
    ``not run`` or ``not a command`` (with its reason)."""

    kind: str
    runner: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its fence's info word, its text
    (dedented by the fence's indentation) and its marker (None: unmarked)."""

    page: Path
    line: int
    language: str
    text: str
    marker: Marker | None
    marker_text: str | None

    @property
    def where(self) -> str:
        return f"{_shown(self.page)}:{self.line}"


def _shown(page: Path) -> str:
    """``page`` relative to the checkout where it is in it."""
    try:
        return page.relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return str(page)


def parse_marker(body: str) -> Marker | None:
    """The marker a comment's text after ``block:`` states (None: it states none)."""
    if body.startswith("run "):
        runner = body.removeprefix("run ").strip()
        return Marker("run", runner=runner) if runner and " " not in runner else None
    for kind in ("not run", "not a command"):
        if body.startswith(f"{kind}:"):
            reason = body.removeprefix(f"{kind}:").strip()
            return Marker(kind, reason=reason) if reason else None
    return None


def read_blocks(page: Path, text: str | None = None) -> tuple[list[Block], list[str]]:
    """``page``'s fenced blocks, in order, and what breaks the convention on
    the way: an unclosed fence, a marker comment followed by no block, an
    indented code block."""
    lines = (page.read_text(encoding="utf-8") if text is None else text).splitlines()
    blocks: list[Block] = []
    problems: list[str] = []
    where = _shown(page)
    index = 0
    last_blank = True
    in_list = False
    while index < len(lines):
        line = lines[index]
        fence = _FENCE.match(line)
        if fence is None:
            if _ANY_MARKER.match(line):
                following = lines[index + 1] if index + 1 < len(lines) else ""
                if not _FENCE.match(following):
                    problems.append(f"{where}:{index + 1}: a block marker with no fenced block on the next line")
            elif line.startswith("    ") and line.strip() and last_blank and not in_list:
                problems.append(
                    f"{where}:{index + 1}: an indented code block: fence it (```) and mark it "
                    "(<!-- block: ... -->, see tests/_doc_blocks.py)"
                )
            if line.strip() and not line.startswith(" "):
                in_list = bool(_LIST_ITEM.match(line))
            last_blank = not line.strip()
            index += 1
            continue
        indent, opening = fence["indent"], fence["fence"]
        language = (fence["info"].strip().split() or [""])[0]
        end = index + 1
        while end < len(lines) and not re.match(rf"^[ ]*{re.escape(opening[0])}{{{len(opening)},}}\s*$", lines[end]):
            end += 1
        if end >= len(lines):
            problems.append(f"{where}:{index + 1}: a fence that is never closed")
            break
        body = "\n".join(raw[len(indent) :] if raw.startswith(indent) else raw.lstrip() for raw in lines[index + 1 : end])
        previous = lines[index - 1] if index > 0 else ""
        found = _MARKER.match(previous)
        marker_text = found["body"] if found else (previous.strip() if _ANY_MARKER.match(previous) else None)
        marker = parse_marker(found["body"]) if found else None
        blocks.append(Block(page, index + 1, language, body + "\n" if body else "", marker, marker_text))
        index = end + 1
        last_blank = False
    return blocks, problems


def marker_problems(block: Block) -> Iterator[str]:
    """What is wrong with ``block``'s marker (nothing: the block is marked as the convention asks)."""
    if block.marker is None:
        if block.marker_text is None:
            yield (
                f"{block.where}: a ```{block.language} block with no marker: put <!-- block: run RUNNER -->, "
                "<!-- block: not run: REASON --> or <!-- block: not a command: WHAT --> on the line before it"
            )
        else:
            yield f"{block.where}: {block.marker_text!r} is not a marker (run RUNNER, not run: REASON, not a command: WHAT)"
        return
    marker = block.marker
    if marker.kind == "run" and marker.runner not in RUNNERS:
        yield f"{block.where}: no runner named {marker.runner!r} (runners: {', '.join(RUNNERS)})"
    if marker.kind == "not a command" and (
        block.language in COMMAND_LANGUAGES or any(line.startswith("$ ") for line in block.text.splitlines())
    ):
        yield (
            f"{block.where}: a ```{block.language} block with commands or configuration is marked 'not a command': "
            "run it, or say why not (not run: REASON)"
        )
    for named in _TEST_PATH.findall(marker.reason):
        if not (REPO_ROOT / named).is_file():
            yield f"{block.where}: the marker's reason names {named}, which does not exist"


def convention_problems(root: Path = REPO_ROOT) -> list[str]:
    """Every break of the convention in the pages under ``root``."""
    found: list[str] = []
    for page in pages(root):
        blocks, problems = read_blocks(page)
        found += problems
        for block in blocks:
            found += marker_problems(block)
    return found


def run_blocks(page: Path) -> list[Block]:
    """``page``'s blocks marked ``run``, in the page's order."""
    return [b for b in read_blocks(page)[0] if b.marker is not None and b.marker.kind == "run"]


@dataclass(frozen=True)
class Command:
    """A command of a shell block and the output lines the block shows after it (None: it shows none)."""

    text: str
    output: tuple[str, ...] | None


def commands(block: Block) -> list[Command]:
    """The commands of a shell block, in order (see the module's docstring)."""
    lines = block.text.splitlines()
    prompted = any(line.startswith("$ ") for line in lines)
    found: list[Command] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if prompted:
            if not line.startswith("$ "):
                raise AssertionError(f"{block.where}: output before the first $ command: {line!r}")
            line = line[2:]
        elif not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [line]
        while parts[-1].rstrip().endswith("\\") and index < len(lines):
            parts.append(lines[index])
            index += 1
        output: list[str] = []
        while prompted and index < len(lines) and not lines[index].startswith("$ "):
            output.append(lines[index])
            index += 1
        while output and not output[-1].strip():
            output.pop()
        found.append(Command("\n".join(parts), tuple(output) if output else None))
    return found


def output_matches(expected: Sequence[str], actual: Sequence[str]) -> bool:
    """Whether ``actual`` lines are ``expected`` ones, where an expected line
    ``...`` stands for any lines (none included); trailing spaces never count."""
    want = [line.rstrip() for line in expected]
    have = [line.rstrip() for line in actual]
    segments: list[list[str]] = [[]]
    for line in want:
        if line == "...":
            segments.append([])
        else:
            segments[-1].append(line)
    if len(segments) == 1:
        return have == want
    first, *middle, last = segments
    if have[: len(first)] != first:
        return False
    position = len(first)
    for segment in middle:
        at = next(
            (i for i in range(position, len(have) - len(segment) + 1) if have[i : i + len(segment)] == segment),
            None,
        )
        if at is None:
            return False
        position = at + len(segment)
    return len(have) - len(last) >= position and (not last or have[len(have) - len(last) :] == last)


@dataclass(frozen=True)
class Step:
    """One step of a GitHub Actions block: its ``run:`` command and its other keys."""

    run: str
    keys: tuple[tuple[str, str], ...]


def workflow_steps(block: Block) -> list[Step]:
    """The steps of a block of GitHub Actions steps (``- run: COMMAND`` items,
    each with plain ``key: value`` lines under it; comment lines allowed).
    Anything else (a block scalar ``run: |``, nested mappings) is refused:
    this reader keeps to what the docs write."""
    steps: list[tuple[str, list[tuple[str, str]]]] = []
    for line in block.text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if line.startswith("- run: "):
            command = line.removeprefix("- run: ")
            if command.strip() in ("|", ">", "|-", ">-"):
                raise AssertionError(f"{block.where}: a block scalar run: is not read here: {line!r}")
            steps.append((command, []))
        elif line.startswith("  ") and ":" in stripped and steps:
            key, _, value = stripped.partition(":")
            steps[-1][1].append((key.strip(), value.strip()))
        else:
            raise AssertionError(f"{block.where}: not a `- run:` step or a key of one: {line!r}")
    return [Step(command, tuple(keys)) for command, keys in steps]
