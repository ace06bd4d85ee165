"""The suite cannot hide breakage: a skip on an ImportError of spec_protocols fails
(tests/_hidden_skips.py, installed for the whole suite by tests/conftest.py)."""

from __future__ import annotations

import importlib

import pytest

from tests._hidden_skips import HiddenSkip, own_import_error

pytest_plugins = ["pytester"]

MISSING = "spec_protocols.no_such_module_for_this_test"


def test_importorskip_of_an_own_module_fails() -> None:
    with pytest.raises(HiddenSkip, match=r"ImportError of spec_protocols\.no_such_module_for_this_test"):
        pytest.importorskip(MISSING)


@pytest.mark.parametrize("outcome", [pytest.skip, pytest.xfail])
def test_a_skip_or_xfail_in_an_import_error_handler_fails(outcome) -> None:  # noqa: ANN001
    with pytest.raises(HiddenSkip):
        try:
            importlib.import_module(MISSING)
        except ImportError:
            outcome("spec_protocols is not importable here")


def test_a_missing_name_of_an_own_module_fails() -> None:
    with pytest.raises(HiddenSkip, match="cannot import name"):
        try:
            from spec_protocols import no_such_name_for_this_test  # type: ignore[attr-defined]  # noqa: F401
        except ImportError as exc:
            pytest.skip(str(exc))


def test_a_missing_third_party_module_still_skips() -> None:
    with pytest.raises(pytest.skip.Exception, match="could not import 'no_such_dist_for_this_test'"):
        pytest.importorskip("no_such_dist_for_this_test")


def test_an_own_error_anywhere_in_the_context_chain_counts() -> None:
    own = ModuleNotFoundError("no", name="spec_protocols.x")
    try:
        try:
            raise own
        except ImportError:
            raise RuntimeError("wrapped") from None
    except RuntimeError as outer:
        assert own_import_error(outer) is own
    assert own_import_error(ModuleNotFoundError("no", name="sglang.srt")) is None


def test_module_level_skip_fails_the_collection(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("from tests._hidden_skips import install\n\ndef pytest_configure(config):\n    install()\n")
    pytester.makepyfile(
        test_hides=f"import pytest\nmod = pytest.importorskip({MISSING!r})\n\ndef test_x():\n    pass\n",
        test_fine="import pytest\nmod = pytest.importorskip('no_such_dist_for_this_test')\n\ndef test_y():\n    pass\n",
    )
    result = pytester.runpytest("-p", "no:cacheprovider")  # in this process: its conftest imports tests/
    result.assert_outcomes(errors=1, skipped=1)
    result.stdout.fnmatch_lines(["*HiddenSkip: a skip on an ImportError of spec_protocols.no_such_module_for_this_test*"])
