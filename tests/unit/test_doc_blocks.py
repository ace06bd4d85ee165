"""The docs' blocks convention (tests/_doc_blocks.py): every fenced block says whether the suite runs it.

The installed tier runs the blocks marked ``run``
(tests/installed/test_installed_docs.py); this module fails a block that is
marked neither ``run`` nor ``not run`` (with its reason) nor ``not a
command``, and checks the reader the installed tier relies on.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from tests._doc_blocks import (
    RUNNERS,
    Block,
    Command,
    commands,
    convention_problems,
    output_matches,
    pages,
    read_blocks,
    run_blocks,
    workflow_steps,
)
from tests._paths import REPO_ROOT


def test_every_block_of_the_readme_and_the_docs_is_marked() -> None:
    problems = convention_problems()
    assert not problems, "\n".join(problems)


def test_the_pages_are_the_readme_and_every_doc() -> None:
    names = [page.relative_to(REPO_ROOT).as_posix() for page in pages()]
    assert names[0] == "README.md" and "docs/ci.md" in names and "docs/authoring.md" in names


def _problems(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "docs").mkdir(exist_ok=True)
    (tmp_path / "README.md").write_text(text, encoding="utf-8")
    return convention_problems(tmp_path)


def test_an_unmarked_command_block_is_reported_with_its_line(tmp_path: Path) -> None:
    problems = _problems(tmp_path, "# A page\n\nRun it:\n\n```console\n$ spec-protocols check\n```\n")
    assert len(problems) == 1 and problems[0].endswith(
        "README.md:5: a ```console block with no marker: put <!-- block: run RUNNER -->, "
        "<!-- block: not run: REASON --> or <!-- block: not a command: WHAT --> on the line before it"
    ), problems


@pytest.mark.parametrize(
    ("marker", "expected"),
    [
        ("<!-- block: run shell -->", None),
        ("<!-- block: not run: installs torch -->", None),
        ("<!-- block: run nowhere -->", "no runner named 'nowhere'"),
        ("<!-- block: not run: -->", "is not a marker"),
        ("<!-- block: skip -->", "is not a marker"),
        ("<!-- block: not a command: output -->", "is marked 'not a command': run it, or say why not"),
        ("<!-- block: not run: tests/unit/test_no_such_file.py checks it -->",
         "names tests/unit/test_no_such_file.py, which does not exist"),
    ],
)
def test_what_a_marker_may_say(tmp_path: Path, marker: str, expected: str | None) -> None:
    problems = _problems(tmp_path, f"Run it:\n\n{marker}\n```console\n$ spec-protocols check\n```\n")
    if expected is None:
        assert problems == []
    else:
        assert len(problems) == 1 and expected in problems[0], problems


def test_not_a_command_fits_output_and_excerpts_only(tmp_path: Path) -> None:
    text = (
        "<!-- block: not a command: the report -->\n```\n1 checked: 1 pass\n```\n\n"
        "<!-- block: not a command: a settings file -->\n```toml\n[tool.mypy]\n```\n"
    )
    problems = _problems(tmp_path, text)
    assert len(problems) == 1 and "README.md:7: a ```toml block" in problems[0], problems


def test_an_indented_code_block_and_a_marker_without_a_block_are_reported(tmp_path: Path) -> None:
    text = (
        "Run:\n\n    scripts/gate\n\n"
        "- a list item\n\n    its second paragraph, not code\n\n"
        "<!-- block: run shell -->\n\nSome prose.\n"
    )
    problems = _problems(tmp_path, text)
    assert len(problems) == 2, problems
    assert "README.md:3: an indented code block" in problems[0]
    assert "README.md:9: a block marker with no fenced block on the next line" in problems[1]


def test_a_fence_in_a_list_item_is_read_with_its_marker(tmp_path: Path) -> None:
    page = tmp_path / "README.md"
    text = "- an item:\n\n  <!-- block: not a command: a line it prints -->\n  ```\n  the line\n  ```\n"
    (blocks, problems) = read_blocks(page, text)
    assert problems == [] and len(blocks) == 1
    assert blocks[0].text == "the line\n" and blocks[0].marker is not None and blocks[0].marker.kind == "not a command"


def _block(text: str, language: str = "console") -> Block:
    return Block(REPO_ROOT / "README.md", 1, language, text, None, None)


def test_commands_of_a_console_block_with_continuations_and_output() -> None:
    block = _block(
        "$ spec-protocols check my_plugin --write-baseline b.json \\\n"
        '    --reason "tracked"\n'
        "$ spec-protocols explain SpecWorker\n"
        "SpecWorker: ...\n"
        "...\n"
        "\n"
    )
    assert commands(block) == [
        Command('spec-protocols check my_plugin --write-baseline b.json \\\n    --reason "tracked"', None),
        Command("spec-protocols explain SpecWorker", ("SpecWorker: ...", "...")),
    ]


def test_commands_of_a_block_without_prompts_skip_blank_and_comment_lines() -> None:
    block = _block("pip install .   # a comment after it\n\n# a comment line\nscripts/build-wheels\n", "sh")
    assert commands(block) == [Command("pip install .   # a comment after it", None), Command("scripts/build-wheels", None)]


@pytest.mark.parametrize(
    ("expected", "actual", "matches"),
    [
        (["a", "b"], ["a", "b"], True),
        (["a", "b"], ["a", "b", "c"], False),
        (["a", "..."], ["a", "b", "c"], True),
        (["a", "...", "c"], ["a", "x", "y", "c"], True),
        (["a", "...", "c"], ["a", "c"], True),
        (["a", "...", "c", "d", "..."], ["a", "c", "x", "c", "d", "z"], True),
        (["a", "...", "d"], ["a", "b", "c"], False),
        (["...", "b", "..."], ["a", "c"], False),
        (["a  "], ["a"], True),
    ],
)
def test_output_matches_with_ellipsis_lines(expected: list[str], actual: list[str], matches: bool) -> None:
    assert output_matches(expected, actual) is matches


def test_workflow_steps_read_run_and_keys_and_refuse_what_they_do_not_read() -> None:
    block = _block(
        "# a comment\n- run: spec-protocols check my_plugin --format github\n"
        '- run: spec-protocols check my_plugin --format markdown >> "$GITHUB_STEP_SUMMARY"\n  if: always()\n',
        "yaml",
    )
    steps = workflow_steps(block)
    assert [s.run for s in steps] == [
        "spec-protocols check my_plugin --format github",
        'spec-protocols check my_plugin --format markdown >> "$GITHUB_STEP_SUMMARY"',
    ]
    assert steps[1].keys == (("if", "always()"),)
    with pytest.raises(AssertionError, match="block scalar"):
        workflow_steps(_block("- run: |\n    echo one\n", "yaml"))


def test_the_installed_tier_implements_exactly_the_runners() -> None:
    from tests.installed.test_installed_docs import PREINSTALLED, RUNS

    assert RUNS.keys() == RUNNERS.keys()
    shown = {page.relative_to(REPO_ROOT).as_posix() for page in pages()}
    assert PREINSTALLED <= shown


# -- the pre-commit configuration's rev: the tag the docs tell the maintainer to push ---------


def test_the_pre_commit_rev_is_the_release_tag_the_maintainer_pushes_first() -> None:
    version = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    blocks = run_blocks(REPO_ROOT / "docs" / "ci.md")
    runners = [b.marker.runner for b in blocks if b.marker is not None]
    config = blocks[runners.index("pre-commit")]
    (rev,) = re.findall(r"^\s*rev:\s*(\S+)", config.text, flags=re.M)
    assert rev == f"v{version}", f"docs/ci.md's pre-commit rev: is {rev}, the release tag is v{version}"
    # The maintainer's block, run in a checkout before the configuration in the page's order.
    tagging = [b for b in blocks[: runners.index("pre-commit")] if b.marker is not None and b.marker.runner == "checkout"]
    pushed = [c.text for b in tagging for c in commands(b)]
    assert pushed == [f"git tag v{version}", f"git push origin v{version}"], pushed
