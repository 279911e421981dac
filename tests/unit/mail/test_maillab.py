"""The mail lab refuses clearly where it cannot run (no Dovecot binary)."""

from __future__ import annotations

import os
import shutil

import pytest

from tests import maillab


def test_missing_dovecot_binary_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    real_exists = os.path.exists
    monkeypatch.setattr(
        os.path, "exists", lambda p: False if "dovecot" in str(p) else real_exists(p)
    )
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    with pytest.raises(maillab.MailLabError, match=r"'dovecot' binary is missing.*apt-get"):
        maillab.MailLab()
