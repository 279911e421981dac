"""End-to-end fixtures: one real mail lab (Dovecot + SMTP on loopback) per test session."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from tests.maillab import MailLab

_user_numbers = itertools.count(1)


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
