"""The standard library's ``email.policy.default``, with its header classes and
header objects cached.

``HeaderRegistry.__getitem__`` builds a new class (``type(...)``) for every
header it parses or sets, and the policy parses a header's value again on every
access (a part's Content-Type is read several times while a mail is taken
apart). Both were a large share of the CPU time per order. The cached registry
hands out the same classes, and the same (immutable) header object for the same
name and value, so headers parse and fold exactly as under ``policy.default``.
"""

from __future__ import annotations

import email.policy
from email.headerregistry import HeaderRegistry
from typing import Any

# Header objects are remembered for headers whose values repeat (within a mail,
# across a player's mails, in every answer), for values up to this long, this
# many at most (then all are forgotten: hostile mail cannot grow the cache).
_MEMO_NAMES = frozenset(
    {
        "content-type",
        "content-transfer-encoding",
        "content-disposition",
        "mime-version",
        "from",
        "to",
        "reply-to",
        "sender",
        "return-path",
        "auto-submitted",
        "x-pbem-loop",
        "x-auto-response-suppress",
    }
)
_MEMO_CHARS = 256
_MEMO_SIZE = 256


class CachedHeaderRegistry(HeaderRegistry):
    def __init__(self) -> None:
        super().__init__()
        self._classes: dict[str, type] = {}
        self._made: dict[tuple[str, str], Any] = {}

    def __call__(self, name: str, value: Any) -> Any:
        if (
            not isinstance(value, str)
            or len(value) > _MEMO_CHARS
            or name.lower() not in _MEMO_NAMES
        ):
            return super().__call__(name, value)
        key = (name, value)
        made = self._made.get(key)
        if made is None:
            if len(self._made) >= _MEMO_SIZE:
                self._made.clear()
            made = self._made[key] = super().__call__(name, value)
        return made

    def __getitem__(self, name: str) -> Any:
        key = name.lower()
        cls = self._classes.get(key)
        if cls is None:
            cls = self._classes[key] = super().__getitem__(name)
        return cls


DEFAULT = email.policy.default.clone(header_factory=CachedHeaderRegistry())
"""``policy.default`` semantics, faster."""
