"""The benchmarks print one table at the end of the run and write ``bench-results.json``
(``tests/bench/report.py``)."""

from __future__ import annotations

from typing import Any

from tests.bench import report


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not report.ROWS:
        return
    terminalreporter.write_sep("=", "benchmarks")
    terminalreporter.write_line(report.table())
    written = report.write()
    if written is not None:
        terminalreporter.write_line(f"figures written to {written}")
