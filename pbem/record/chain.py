"""The hash chain of a game's record: each entry's hash covers the one before.

``entry_hash`` is computed over a canonical JSON of (seq, at, kind, payload,
prev_hash), so any edit, insertion, deletion or reordering shows up when the
chain is re-walked (``verify_chain``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

GENESIS = "0" * 64


def canonical_json(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def state_hash(state: Any) -> str:
    return hashlib.sha256(canonical_json(state)).hexdigest()


def entry_hash(seq: int, at: str, kind: str, payload: Mapping[str, Any], prev_hash: str) -> str:
    body = {"seq": seq, "at": at, "kind": kind, "payload": payload, "prev": prev_hash}
    return hashlib.sha256(canonical_json(body)).hexdigest()


def verify_chain(entries: Iterable[Mapping[str, Any]]) -> list[str]:
    """Problems found walking ``entries`` (dicts with seq, at, kind, payload, prev_hash, hash)."""
    problems: list[str] = []
    prev = GENESIS
    expected_seq = 1
    for e in entries:
        if e["seq"] != expected_seq:
            problems.append(f"record entry {e['seq']}: expected sequence number {expected_seq}")
        if e["prev_hash"] != prev:
            problems.append(f"record entry {e['seq']}: previous-hash link broken")
        h = entry_hash(e["seq"], e["at"], e["kind"], e["payload"], e["prev_hash"])
        if h != e["hash"]:
            problems.append(
                f"record entry {e['seq']} ({e['kind']}): hash mismatch, content altered"
            )
        prev = e["hash"]
        expected_seq = e["seq"] + 1
    return problems
