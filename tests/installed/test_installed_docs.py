"""Every block the docs mark ``<!-- block: run RUNNER -->`` runs, verbatim, from the built wheels.

The convention and the runners' contract are tests/_doc_blocks.py's; the
unit tier (tests/unit/test_doc_blocks.py) fails a block that is not marked.
Here each page that has a block to run gets a fresh venv and a project
folder outside the checkout (a plugin author's: ``my_plugin/``,
``tiny_draft/``, the wheels), and its blocks run in the page's order, each
read from the file as it stands in the tree under test. The one thing
replaced is a placeholder the docs tell the reader to replace: pre-commit's
``repo: https://github.com/OWNER/spec-protocols`` becomes the tier's bare
copy of the repository, at the tag the docs tell the maintainer to push
(a block of its own, run here in a clone, before the configuration).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests._doc_blocks import RUNNERS, Block, commands, output_matches, pages, run_blocks, workflow_steps
from tests._paths import REPO_ROOT
from tests.installed._userland import (
    Ran,
    Venv,
    copy_plugin,
    git,
    make_venv,
    pins,
    pip_install,
    plugin_source,
    run,
    user_env,
)

if TYPE_CHECKING:
    from tests.installed.conftest import Checkout, Wheels

#: The pages whose first block to run is not an install: their venv starts
#: with the library's wheel (with its checkers) and pytest, as README's
#: Install leaves a user's environment. Every other page starts from an
#: empty venv, and its own blocks install what it uses.
PREINSTALLED = frozenset({"docs/authoring.md"})

#: Where the placeholder URL of the docs' pre-commit configuration stands.
PLACEHOLDER_REPO = "https://github.com/OWNER/spec-protocols"

TIMEOUT = 900


@dataclass
class Session:
    """One page's run: its venv, its project folder, what every command sees."""

    page: str
    venv: Venv
    project: Path
    checkout: Checkout
    env: dict[str, str]
    precommit: Callable[[], Venv]
    pre_commit_home: Path

    def shell(self, command: str, cwd: Path, *, env: dict[str, str] | None = None) -> Ran:
        return run(["bash", "-c", command], cwd=cwd, env=env or self.env, timeout=TIMEOUT)


def _fail(block: Block, what: str, ran: Ran | None = None) -> None:
    detail = f"\n{ran.describe()}" if ran is not None else ""
    pytest.fail(f"{block.where} (run {block.marker.runner if block.marker else '?'}): {what}{detail}", pytrace=False)


def _commands_in(session: Session, block: Block, cwd: Path) -> None:
    for command in commands(block):
        ran = session.shell(command.text, cwd)
        if ran.returncode != 0:
            _fail(block, f"`{command.text}` exited {ran.returncode}", ran)
        if command.output is not None and not output_matches(command.output, ran.stdout.splitlines()):
            _fail(block, f"`{command.text}` does not print the block's output:\n" + "\n".join(command.output), ran)


def _shell(session: Session, block: Block) -> None:
    _commands_in(session, block, session.project)


def _checkout(session: Session, block: Block) -> None:
    _commands_in(session, block, session.checkout.path)


def _python(session: Session, block: Block) -> None:
    script = session.project / f"doc_block_{block.line}.py"
    script.write_text(block.text, encoding="utf-8")
    ran = run([session.venv.python, script.name], cwd=session.project, env=session.env, timeout=TIMEOUT)
    if ran.returncode != 0:
        _fail(block, f"the script exited {ran.returncode}", ran)


def _pytest(session: Session, block: Block) -> None:
    if not (session.venv.bin / "pytest").exists():
        pip_install(session.venv, session.env, pins()["pytest"], home=session.project)
    module = session.project / f"test_doc_block_{block.line}.py"
    module.write_text(block.text, encoding="utf-8")
    ran = run([session.venv.python, "-m", "pytest", "-rA", "-p", "no:cacheprovider", module.name],
              cwd=session.project, env=session.env, timeout=TIMEOUT)
    if ran.returncode != 0 or " passed" not in ran.stdout or "SKIPPED" in ran.stdout:
        _fail(block, f"pytest exited {ran.returncode} (every test must pass, none skip)", ran)


def _github_actions(session: Session, block: Block) -> None:
    summary = session.project / "github-step-summary.md"
    env = {**session.env, "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_ACTIONS": "true", "CI": "true"}
    for step in workflow_steps(block):
        ran = run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step.run], cwd=session.project, env=env,
                  timeout=TIMEOUT)
        if ran.returncode != 0:
            _fail(block, f"step `{step.run}` exited {ran.returncode}", ran)


def _pre_commit(session: Session, block: Block) -> None:
    if block.text.count(PLACEHOLDER_REPO) != 1:
        _fail(block, f"the configuration names the placeholder {PLACEHOLDER_REPO} {block.text.count(PLACEHOLDER_REPO)} times, not once")
    precommit = session.precommit()
    env = {**user_env(precommit.bin, Path(session.env["SPEC_PROTOCOLS_CACHE_DIR"]), session.checkout.tree),
           "PRE_COMMIT_HOME": str(session.pre_commit_home)}
    config = block.text.replace(PLACEHOLDER_REPO, str(session.checkout.origin))
    (session.project / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    if not (session.project / ".git").exists():
        git(["init", "-q"], cwd=session.project, env=env)
    git(["add", "-A"], cwd=session.project, env=env)
    git(["commit", "-q", "--allow-empty", "-m", "the project as the page left it"], cwd=session.project, env=env)
    ran = run(["pre-commit", "run", "--all-files"], cwd=session.project, env=env, timeout=TIMEOUT)
    if ran.returncode != 0:
        _fail(block, f"pre-commit run --all-files exited {ran.returncode}", ran)


#: The runners, by the name a marker gives (tests/_doc_blocks.RUNNERS says what each does).
RUNS: dict[str, Callable[[Session, Block], None]] = {
    "shell": _shell,
    "checkout": _checkout,
    "python": _python,
    "pytest": _pytest,
    "github-actions": _github_actions,
    "pre-commit": _pre_commit,
}
assert RUNS.keys() == RUNNERS.keys(), "tests/_doc_blocks.RUNNERS and the runners here name the same set"


def _project(folder: Path, tree: Path, wheels: Wheels) -> Path:
    """A plugin author's folder: my_plugin/, tiny_draft/, the two wheels, and
    wheels/ with the library's wheel and the CPU dependency set's list (the
    folder docs/ci.md's workflow installs from)."""
    folder.mkdir(parents=True)
    copy_plugin(plugin_source("my_plugin", tree), folder)
    copy_plugin(tree / "examples" / "walkthrough" / "tiny_draft", folder)
    for wheel in (wheels.library, wheels.stubs):
        shutil.copy2(wheel, folder / wheel.name)
    (folder / "wheels").mkdir()
    shutil.copy2(wheels.library, folder / "wheels" / wheels.library.name)
    shutil.copy2(tree / "requirements" / "sglang-cpu.txt", folder / "wheels" / "sglang-cpu.txt")
    return folder


#: The checkout's pages with a block to run (each read again from the tree under test).
_PAGES = [page.relative_to(REPO_ROOT).as_posix() for page in pages() if run_blocks(page)]


@pytest.mark.parametrize("page", _PAGES)
def test_the_pages_blocks_run_verbatim(
    page: str,
    tree: Path,
    userland: Path,
    wheels: Wheels,
    make_checkout: Callable[[], Checkout],
    request: pytest.FixtureRequest,
    pre_commit_home: Path,
) -> None:
    blocks = run_blocks(tree / page)
    assert blocks, f"{page} has no block to run in the tree under test"
    slug = page.replace("/", "-").removesuffix(".md")
    folder = userland / f"page-{slug}"
    env = user_env(folder / "venv" / "bin", userland / "docs-cache", tree)
    requirements = (f"{wheels.library}[checkers]", pins()["pytest"]) if page in PREINSTALLED else ()
    venv = make_venv(folder / "venv", env, *requirements, home=userland / "home")
    session = Session(
        page=page,
        venv=venv,
        project=_project(folder / "project", tree, wheels),
        checkout=make_checkout(),
        env=env,
        precommit=lambda: request.getfixturevalue("precommit_venv"),
        pre_commit_home=pre_commit_home,
    )
    for block in blocks:
        assert block.marker is not None
        RUNS[block.marker.runner](session, block)
