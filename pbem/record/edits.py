"""The moderator's correcting edit: one value set inside a phase's state by JSON pointer.

An upheld dispute may be settled by correcting the state instead of replaying
the phase. The edit is applied the same way by the game machine (``EDIT``)
and by replay (the ``state-edited`` record entry), so ``pbem verify`` reaches
the same states. Pure: the state given is never changed, a new one is returned.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from pbem.core.ruleset import State


class EditError(ValueError):
    pass


def parse_pointer(pointer: str) -> list[str]:
    """RFC 6901 tokens: "/a/b~1c" -> ["a", "b/c"]. The whole state ("") cannot be edited."""
    if not pointer.startswith("/"):
        raise EditError(
            f"{pointer!r} is not a JSON pointer (it starts with '/', e.g. /score/north)"
        )
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def _child(node: Any, token: str, pointer: str) -> Any:
    if isinstance(node, Mapping):
        if token not in node:
            raise EditError(f"{pointer}: no key {token!r} in the state")
        return node[token]
    if isinstance(node, list):
        return node[_index(node, token, pointer)]
    raise EditError(f"{pointer}: {token!r} goes below a value that is neither object nor list")


def _index(node: list[Any], token: str, pointer: str) -> int:
    if not token.isdigit() or (token != "0" and token.startswith("0")):
        raise EditError(f"{pointer}: {token!r} is not a list index")
    i = int(token)
    if i >= len(node):
        raise EditError(f"{pointer}: index {i} is past the end of a list of {len(node)}")
    return i


def value_at(state: State, pointer: str) -> Any:
    """The value at ``pointer``; ``EditError`` if nothing is there (a key or list
    item the state does not hold)."""
    node: Any = state
    for token in parse_pointer(pointer):
        node = _child(node, token, pointer)
    return node


def apply_edit(state: State, pointer: str, value: Any) -> tuple[dict[str, Any], Any]:
    """The state with the value at ``pointer`` replaced, and the value it had.

    Only an existing key or list item may be replaced, or a new key added to an
    existing object: a correction, not a restructuring (a typo in the pointer
    fails instead of growing a stray branch).
    """
    tokens = parse_pointer(pointer)
    new = copy.deepcopy(dict(state))
    node: Any = new
    for token in tokens[:-1]:
        node = _child(node, token, pointer)
    last = tokens[-1]
    if isinstance(node, dict):
        old = node.get(last)
        node[last] = copy.deepcopy(value)
    elif isinstance(node, list):
        i = _index(node, last, pointer)
        old = node[i]
        node[i] = copy.deepcopy(value)
    else:
        raise EditError(f"{pointer}: the parent of {last!r} is neither object nor list")
    return new, old
