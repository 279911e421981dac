"""End-to-end fixtures: one real mail lab (Dovecot + SMTP on loopback) per test session."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.maillab import MailLab

_E2E_DIR = Path(__file__).parent
_user_numbers = itertools.count(1)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Everything under tests/e2e talks to real servers: mark it so `-m "not e2e"` skips it.
    for item in items:
        if _E2E_DIR in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def mail_lab() -> Iterator[MailLab]:
    lab = MailLab()
    try:
        yield lab
    finally:
        lab.close()


@pytest.fixture
def mail_user(mail_lab: MailLab) -> tuple[str, str]:
    """A fresh mailbox for one test: (address, password)."""
    n = next(_user_numbers)
    password = f"pw-{n}"
    return mail_lab.add_user(f"player{n}", password), password
