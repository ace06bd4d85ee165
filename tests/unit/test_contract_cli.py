"""``spec-protocols contract``: JSON and Markdown, ``-o``, the installed
sglang, and bad ``--sglang`` values (exit 2, one line, no traceback).

Calls ``spec_protocols.gate._cli.main`` in-process, as the console script does,
on a small synthetic release; no network (``fetch_release`` is tested in
test_contract_source.py).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

import spec_protocols.gate._contract as contract_room
from spec_protocols.gate import _cli as cli
from spec_protocols.gate._contract import _release_source as _source
from spec_protocols.gate._contract._release_source import SglangSource

SCHEDULER = """\
class Scheduler:
    def init_memory_pools(self):
        if self.draft_worker is not None:
            self.draft_worker.alloc_memory_pool(memory_pool_config=None)

    def run_batch(self, batch):
        fwd_kwargs = {}
        if batch.spec_algorithm.supports_grammar_overlap():
            fwd_kwargs["grammar_barrier"] = self.barrier
        self.model_worker.forward_batch_generation(batch, **fwd_kwargs)
        if self.spec_algorithm.is_dspark():
            self.draft_worker.dump_info_records()
"""


@pytest.fixture
def release(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    (root / "sglang" / "srt" / "managers").mkdir(parents=True)
    (root / "sglang" / "version.py").write_text('__version__ = "7.7.7"\n', encoding="utf-8")
    (root / "sglang" / "srt" / "managers" / "scheduler.py").write_text(SCHEDULER, encoding="utf-8")
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json(capsys: pytest.CaptureFixture[str], release: Path) -> None:
    code, out, err = run(capsys, "contract", "--sglang", str(release))
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert document["version"] == 1 and document["release"] == "7.7.7"
    assert document["required_members"] == ["alloc_memory_pool", "forward_batch_generation"]
    forward = next(u for u in document["spec_worker"] if u["member"] == "forward_batch_generation")
    assert forward["conditional_keywords"] == ["grammar_barrier"] and forward["positional"] == 1
    assert forward["site"] == {"file": "managers/scheduler.py", "function": "Scheduler.run_batch", "line": 10}
    assert document["draft_factory"] == {"keywords": None, "site": None}
    assert out.endswith("}\n")
    # Stable: a second run is byte-identical.
    assert run(capsys, "contract", "--sglang", str(release), "--format", "json")[1] == out


def test_markdown_to_a_file(capsys: pytest.CaptureFixture[str], release: Path, tmp_path: Path) -> None:
    target = tmp_path / "contract.md"
    code, out, err = run(capsys, "contract", "--sglang", str(release / "sglang"), "--format", "markdown", "-o", str(target))
    assert (code, out, err) == (0, "", "")
    page = target.read_text(encoding="utf-8")
    assert page.startswith("# The speculative-worker contract of sglang 7.7.7\n")
    assert "| `forward_batch_generation` | `(_[, grammar_barrier=])` |" in page
    assert "### algorithm:" in page and "`dump_info_records`" in page
    assert page.endswith("\n")


def test_the_installed_sglang_by_default(
    capsys: pytest.CaptureFixture[str], release: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_source, "installed_source", lambda: SglangSource(release, "7.7.7", "installed"))
    code, out, _ = run(capsys, "contract")
    assert code == 0 and json.loads(out)["release"] == "7.7.7"


def test_no_installed_sglang(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_source, "installed_source", lambda: None)
    code, out, err = run(capsys, "contract")
    assert (code, out) == (2, "")
    assert err.startswith("spec-protocols: error: no sglang is installed") and err.count("\n") == 1


def test_a_release_is_fetched(capsys: pytest.CaptureFixture[str], release: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []

    def fetch(name: str, cache_dir: Path | None = None) -> SglangSource:
        asked.append(name)
        return SglangSource(release, name, "fetched")

    monkeypatch.setattr(_source, "fetch_release", fetch)
    code, out, _ = run(capsys, "contract", "--sglang", "0.5.21")
    assert code == 0 and asked == ["0.5.21"] and json.loads(out)["release"] == "0.5.21"


def test_offline_exits_2_naming_the_release(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SPEC_PROTOCOLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(_source, "run_pip", lambda arguments: (1, "ERROR: Could not connect to the package index\n"))
    code, out, err = run(capsys, "contract", "--sglang", "0.5.99")
    assert (code, out) == (2, "")
    assert err == "spec-protocols: error: cannot fetch sglang 0.5.99: Could not connect to the package index\n"


@pytest.mark.parametrize("value", ["0.5.2x", "../x", "no/such/dir", "sglang-0.5.23.whl"])
def test_a_bad_sglang_value_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    def no_fetch(name: str, cache_dir: Path | None = None) -> SglangSource:
        raise AssertionError("nothing is fetched for a value that is not a release")

    monkeypatch.setattr(_source, "fetch_release", no_fetch)
    code, out, err = run(capsys, "contract", "--sglang", value)
    assert (code, out) == (2, "")
    assert err.startswith("spec-protocols: error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_a_folder_without_sglang_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "contract", "--sglang", str(tmp_path))
    assert (code, out) == (2, "")
    assert "holds no sglang source" in err and err.count("\n") == 1


def test_a_missing_output_folder_exits_2(capsys: pytest.CaptureFixture[str], release: Path, tmp_path: Path) -> None:
    code, _, err = run(capsys, "contract", "--sglang", str(release), "-o", str(tmp_path / "no" / "such" / "file.json"))
    assert code == 2 and err.count("\n") == 1


def test_help_says_what_it_reads(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["contract", "--help"])
    assert exited.value.code == 0
    text = capsys.readouterr().out
    for needle in ("NEVER", "imported", "pip download", "required", "guarded", "algorithm", "isinstance", "private", "conditional"):
        assert needle in text, needle
    main_help = textwrap.dedent(cli._build_parser().format_help())
    assert "contract" in main_help


def test_the_real_installed_sglang(capsys: pytest.CaptureFixture[str]) -> None:
    installed = contract_room.installed_source()
    if installed is None:
        pytest.skip("no sglang installed in this environment")
    code, out, _ = run(capsys, "contract", "--format", "json")
    document = json.loads(out)
    assert code == 0 and document["release"] == installed.release
    assert "forward_batch_generation" in document["required_members"]


def test_several_releases_make_the_release_by_member_table(capsys: pytest.CaptureFixture[str], release: Path) -> None:
    code, out, _ = run(capsys, "contract", "--sglang", str(release), "--sglang", str(release), "--format", "markdown")
    assert code == 0
    assert out.startswith("# The speculative-worker contract, release by release\n")
    assert "| member | 7.7.7 | 7.7.7 |" in out and "| `forward_batch_generation` | required | required |" in out
    code, out, _ = run(capsys, "contract", "--sglang", str(release), "--sglang", str(release))
    assert code == 0 and [c["release"] for c in json.loads(out)] == ["7.7.7", "7.7.7"]
