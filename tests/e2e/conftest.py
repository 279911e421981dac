"""End-to-end fixtures: one real mail lab (Dovecot + SMTP on loopback) per test process."""

from __future__ import annotations

import fcntl
import itertools
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.maillab import MailLab

_user_numbers = itertools.count(1)


# bin/test's parallel workers each start a lab: one at a time, so that on a new
# machine only the first creates the system user the labs store mail as.
_LAB_START_LOCK = Path(tempfile.gettempdir()) / "pbem-maillab-start.lock"


def _start_lab() -> MailLab:
    with _LAB_START_LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return MailLab()


@pytest.fixture(scope="session")
def mail_lab() -> Iterator[MailLab]:
    lab = _start_lab()
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
