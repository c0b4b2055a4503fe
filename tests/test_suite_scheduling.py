"""The suite's own xdist scheduling (tests/conftest.py): `--dist loadfile`, with the calibration files as one unit of
work, and any other `--dist` left to xdist; `-n auto`'s worker count; the test processes' collector pace."""

from __future__ import annotations

import gc
from types import SimpleNamespace

from harness.gc_policy import SUITE_THRESHOLDS
from tests.conftest import ONE_PROCESS, pytest_xdist_auto_num_workers, pytest_xdist_make_scheduler


class _Config(SimpleNamespace):
    def getoption(self, name: str) -> object:
        return self.options[name]


def _config(dist: str) -> _Config:
    from _pytest.config import get_config

    real = get_config()
    values = {"tx": ["2*popen"]}
    return _Config(options={"dist": dist}, option=real.option, pluginmanager=real.pluginmanager, getvalue=values.get)


def test_the_calibration_files_are_one_unit_and_every_other_file_its_own() -> None:
    scheduling = pytest_xdist_make_scheduler(_config("loadfile"), log=None)
    scopes = {scheduling._split_scope(f"{path}::test_x") for path in ONE_PROCESS}
    assert scopes == {"calibration"} and len(ONE_PROCESS) == 4
    assert scheduling._split_scope("tests/test_release.py::test_release_gates_pass_on_the_catalog") == "tests/test_release.py"
    assert scheduling._split_scope("tests/test_retail.py::test_a[x]") == "tests/test_retail.py"


def test_another_distribution_is_left_to_xdist() -> None:
    assert pytest_xdist_make_scheduler(_config("load"), log=None) is None
    assert pytest_xdist_make_scheduler(_config("no"), log=None) is None


def test_test_processes_collect_at_the_suite_pace() -> None:
    assert gc.get_threshold() == SUITE_THRESHOLDS


def test_auto_gives_one_worker_more_than_the_cores_unless_the_environment_says(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import os

    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    assert pytest_xdist_auto_num_workers(None) == 5  # type: ignore[arg-type]
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "2")
    assert pytest_xdist_auto_num_workers(None) is None  # type: ignore[arg-type]  # xdist's own hook answers
