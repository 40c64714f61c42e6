"""Fixtures of the cluster tests: a running cluster (Redis, 3 replicas, nginx) per module or per
test, stopped at teardown whatever happened; a failed test's report carries the cluster's logs;
the counts the tests record are printed at the end of the run."""

from __future__ import annotations

import pathlib
from collections.abc import Iterator
from typing import Any

import pytest
from harness import REPORT, Cluster, running_cluster
from wire import Endpoint


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """One cluster shared by the tests of a module (scenarios that leave it whole)."""
    with running_cluster(tmp_path_factory.mktemp("cluster")) as c:
        yield c


@pytest.fixture
def own_cluster(tmp_path: pathlib.Path) -> Iterator[Cluster]:
    """A cluster of this test alone (fault tests kill parts of it)."""
    with running_cluster(tmp_path) as c:
        yield c


@pytest.fixture
def ep(cluster: Cluster) -> Endpoint:
    """The MCP endpoint behind nginx of the module's cluster."""
    return Endpoint(cluster.url)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
    """A failed test's report ends with the logs of the cluster it used."""
    report = yield
    if report.failed:
        funcargs = getattr(item, "funcargs", {})
        for name in ("own_cluster", "cluster"):
            c = funcargs.get(name)
            if isinstance(c, Cluster):
                report.sections.append((f"cluster logs ({c.folder})", c.logs()))
                break
    return report


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The counts the tests recorded (requests sent, failed and why), for the report."""
    if REPORT:
        terminalreporter.section("cluster counts")
        for line in REPORT:
            terminalreporter.write_line(line)
