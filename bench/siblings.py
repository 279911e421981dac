"""A sibling benchmark loaded for its set-up (games, mails, the SMTP server): bench/
holds scripts, not a package, so each is loaded from its file."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def sibling(name: str) -> ModuleType:
    """The benchmark script ``bench/<name>.py``, loaded as a module."""
    spec = importlib.util.spec_from_file_location(
        f"bench_{name}", Path(__file__).with_name(f"{name}.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
