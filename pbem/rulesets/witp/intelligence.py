"""42 Strategic intelligence in a Naval Phase's Plot Segment: the Japanese-first
plotting gate, Sigint samples of the Japanese plot cards (the dummy plot card of
42.9 among them), ruses, and Magic chits.

Sigint (42.3.1): after the Japanese cards close, a secret 1D6; each pip shows the
Allies 10% of the cards, rounded up, drawn at random; the Japanese learn only
that "a Sigint event occurred", which a ruse (42.3.5) makes look the same. Once a
Naval Phase (42.3.2). The gate (ruling R19): while the Allies hold Sigint uses
this cycle, the Japanese plot closes first.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pbem.core.dice import Dice
from pbem.core.errors import IllegalOrderError
from pbem.core.events import Event
from pbem.rulesets.witp import draws
from pbem.rulesets.witp.clock import Slot
from pbem.rulesets.witp.knowledge import MODERATOR, PRIVATE, PUBLIC, disclose
from pbem.rulesets.witp.sides import ALLIED, JAPANESE

MAGIC_TABLE = "tables/magic-cup"
DUMMY_CARDS = "tables/dummy-plot-cards"


def sigint_uses(state: Mapping[str, Any]) -> int:
    return int(state[PRIVATE][ALLIED].get("intelligence", {}).get("sigint_left", 0))


def japanese_plot_first(state: Mapping[str, Any]) -> bool:
    """R19 (42.3.1): the Japanese plot closes first while the Allies can call Sigint."""
    return sigint_uses(state) > 0


def plot_cards(state: Mapping[str, Any], slot: Slot) -> list[dict[str, Any]]:
    """The Japanese cards of this Naval Phase: each TF's plot, and the dummy plot card
    of 42.9 if one is played this Game-Turn (the Allies cannot tell it apart)."""
    private = state[PRIVATE][JAPANESE]
    cards = [
        {"tf": tf, "card": rec.get("mission")} for tf, rec in sorted(private.get("tfs", {}).items())
    ]
    fake = private.get("dummy_plot_card")
    if fake and fake.get("turn") == slot.turn:
        cards.append({"tf": str(fake["tf"]), "card": fake["card"]})
    return cards


def file_dummy_plot_card(state: dict[str, Any], tf: str, card: str, slot: Slot) -> None:
    """42.9: only in the 4 Game-Turns before a JN-25 counter is played, once a
    Game-Turn, one card held at a time."""
    private = state[PRIVATE][JAPANESE]
    window = int(state[PUBLIC]["pack"][DUMMY_CARDS]["value"]["window_game_turns"])
    jn25 = private.get("jn25_play_turn")
    if jn25 is None or not 0 < jn25 - slot.turn <= window:
        raise IllegalOrderError(
            f"a dummy plot card serves only in the {window} Game-Turns before a JN-25 code change",
            rule="42.9",
        )
    held = private.get("dummy_plot_card")
    if held and held.get("turn") == slot.turn:
        raise IllegalOrderError("one dummy plot card a Game-Turn, one held at a time", rule="42.9")
    private["dummy_plot_card"] = {"tf": tf, "card": card, "turn": slot.turn}


def sigint(state: dict[str, Any], slot: Slot, secret: Dice, *, ruse: bool = False) -> list[Event]:
    """42.3.1 (or a 42.3.5 ruse): the Allies see a random 10% per pip of the cards."""
    intel = state[PRIVATE][ALLIED].setdefault("intelligence", {})
    if intel.get("sigint_phase") == slot.time:
        raise IllegalOrderError("Sigint may be used once a Naval Phase", rule="42.3.2")
    key = "ruses_left" if ruse else "sigint_left"
    if int(intel.get(key, 0)) < 1:
        raise IllegalOrderError(
            f"no {'ruse' if ruse else 'Sigint use'} is left this cycle",
            rule="42.3.5" if ruse else "42.2.2",
        )
    intel[key] -= 1
    intel["sigint_phase"] = slot.time
    events = [disclose(state, {"kind": "sigint-event"}, [JAPANESE], slot.time, "42.3.1")]
    if ruse:
        return [*events, disclose(state, {"kind": "sigint-ruse"}, [ALLIED], slot.time, "42.3.5")]
    pips = secret.d6("sigint")
    cards = plot_cards(state, slot)
    n = min(len(cards), math.ceil(len(cards) * pips / 10))
    pool = list(range(len(cards)))
    seen = sorted(pool.pop(draws.below(secret, len(pool), "sigint card")) for _ in range(n))
    fact = {"kind": "sigint", "pips": pips, "cards": [cards[i] for i in seen]}
    state.setdefault(MODERATOR, {}).setdefault("sigint", []).append(
        {"time": slot.time, "seen": seen}
    )
    return [*events, disclose(state, fact, [ALLIED], slot.time, "42.3.1")]


def draw_magic(state: dict[str, Any], count: int, secret: Dice, slot: Slot) -> Event:
    """42.4: the Allies draw ``count`` Magic chits (kept secret until played, 42.4.2)."""
    mod = state.setdefault(MODERATOR, {})
    cup = mod.setdefault("magic_cup", dict(state[PUBLIC]["pack"][MAGIC_TABLE]["value"]["chits"]))
    drawn: list[str] = []
    for _ in range(count):
        pool = [c for c, n in sorted(cup.items()) for _ in range(n)]
        chit = pool[draws.below(secret, len(pool), "magic chit")]
        cup[chit] -= 1
        drawn.append(chit)
    state[PRIVATE][ALLIED].setdefault("intelligence", {}).setdefault("magic", []).extend(drawn)
    return disclose(state, {"kind": "magic-drawn", "chits": drawn}, [ALLIED], slot.time, "42.4")


def play_magic(state: dict[str, Any], chit: str, slot: Slot) -> Event:
    """42.4.2: a Magic chit is shown when played, all but Report False."""
    held: list[str] = state[PRIVATE][ALLIED].get("intelligence", {}).get("magic", [])
    if chit not in held:
        raise IllegalOrderError(f"you hold no Magic chit {chit!r}", rule="42.4")
    held.remove(chit)
    state[MODERATOR]["magic_cup"][chit] += 1
    # 42.5.2: one SI +1 counter in the next Japanese cup; kept by the moderator, as a
    # Report False must stay secret until the cycle's draw
    state[MODERATOR]["si_plus_one"] = state[MODERATOR].get("si_plus_one", 0) + 1
    secret_ones: Sequence[str] = state[PUBLIC]["pack"][MAGIC_TABLE]["value"]["secret_when_played"]
    audience = [ALLIED] if chit in secret_ones else [ALLIED, JAPANESE]
    return disclose(state, {"kind": "magic-played", "chit": chit}, audience, slot.time, "42.4.2")
