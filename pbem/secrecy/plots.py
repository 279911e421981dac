"""Sealed plots: accepted orders encrypted at rest, with a commitment receipt.

A plot is sealed with AES-256-GCM under the key from the configuration (never
stored in the database); the associated data binds it to its game, phase and
side so a sealed blob cannot be moved to another row. The commitment mailed
in the receipt is SHA-256 over a canonical JSON of (game, side, turn, phase,
orders, nonce): revealing the nonce and orders after adjudication lets the
player, or anyone, check that the plot used is the plot sent.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from pbem.secrecy import sealing
from pbem.secrecy.sealing import SealError


@dataclass(frozen=True, slots=True)
class PlotContent:
    game: str
    side: str
    turn: int
    phase: str
    orders: tuple[str, ...]
    nonce: str  # random hex, revealed with the plot

    def canonical(self) -> bytes:
        return json.dumps(
            {
                "v": "pbem-plot-v1",
                "game": self.game,
                "side": self.side,
                "turn": self.turn,
                "phase": self.phase,
                "orders": list(self.orders),
                "nonce": self.nonce,
            },
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        ).encode("utf-8")

    def commitment(self) -> str:
        return hashlib.sha256(self.canonical()).hexdigest()

    @classmethod
    def new(cls, game: str, side: str, turn: int, phase: str, orders: Sequence[str]) -> PlotContent:
        return cls(game, side, turn, phase, tuple(orders), secrets.token_hex(16))

    @classmethod
    def from_canonical(cls, data: bytes) -> PlotContent:
        obj = json.loads(data.decode("utf-8"))
        if obj.get("v") != "pbem-plot-v1":
            raise SealError("not a pbem plot")
        return cls(
            obj["game"], obj["side"], obj["turn"], obj["phase"], tuple(obj["orders"]), obj["nonce"]
        )


def _context(game: str, phase_id: int, side: str) -> str:
    return f"{game}|{phase_id}|{side}"


def seal(key: bytes, plaintext: bytes, *, game: str, phase_id: int, side: str) -> bytes:
    return sealing.seal(key, plaintext, _context(game, phase_id, side))


def unseal(key: bytes, blob: bytes, *, game: str, phase_id: int, side: str) -> bytes:
    return sealing.unseal(key, blob, _context(game, phase_id, side))
