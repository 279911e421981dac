"""42 Strategic intelligence in a Naval Phase's Plot Segment: the Japanese-first
plotting gate, Sigint samples of the Japanese plot cards (the dummy plot card of
42.9 among them), ruses, and Magic chits.

Sigint (42.3.1): after the Japanese cards close, a secret 1D6; each pip shows the
Allies 10% of the cards, rounded up, drawn at random; the Japanese learn only
that "a Sigint event occurred", which a ruse (42.3.5) makes look the same. Once a
Naval Phase (42.3.2). The gate (ruling R19): while the Allies hold Sigint uses
this cycle, the Japanese plot closes first.

Magic (42.4.1): Reveal 1/2 TF shows the Allies plot cards by the SI differential
(nominees told to the Japanese at +1 and +2, never which card was read); Reveal
Dummy TF removes a Japanese dummy of their choice, or burns an unused sortie.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pbem.core.dice import Dice
from pbem.core.errors import IllegalOrderError
from pbem.core.events import Event
from pbem.rulesets.witp import draws, dummies
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


# -- Magic: Reveal TF and Reveal Dummy TF (42.4.1) -------------------------------

REVEAL_TF = "tables/magic-reveal-tf"
SI_LEVELS = "scenario/si-levels"
REVEAL_DUMMY_ORDER = "reveal_dummy_order"  # private["japanese"]["standing"][...]: TF list


def si_difference(state: Mapping[str, Any]) -> int:
    """The Allied SI level less the Japanese (42.2.2), as the Allies hold it this
    cycle (``intelligence["si_difference"]``), else the scenario's levels."""
    intel = state[PRIVATE][ALLIED].get("intelligence", {})
    if "si_difference" in intel:
        return int(intel["si_difference"])
    levels = state[PUBLIC]["pack"][SI_LEVELS]["value"]
    return int(levels["allied"]) - int(levels["japanese"])


def on_map_japanese(public: Mapping[str, Any]) -> list[str]:
    """The Japanese TF markers the Allies see (R30: those a rule put on the map, the
    Located ones), which they may nominate for Reveal TF (42.4.1)."""
    return sorted(m["tf"] for m in public.get("located", {}).values() if m["owner"] == JAPANESE)


def reveal_tf_problem(
    public: Mapping[str, Any], difference: int, chit: str, named: Sequence[str]
) -> str | None:
    """Why the Allies may not name ``named`` with Reveal 1/2 TF at SI ``difference``
    (42.4.1, ruling R25); None if they may. Reads only what the Allies know."""
    table = public["pack"][REVEAL_TF]["value"]
    if chit not in table["picks"]:
        return f"{chit!r} is not a Reveal TF chit"
    if difference < 1:
        return "Magic needs the Allied SI level above the Japanese (42.2.1)"
    if len(set(named)) != len(named):
        return "name each TF once (42.4.1)"
    rule = table[f"+{min(difference, 3)}"]
    if not rule["on_map_only"]:
        return None if len(named) <= table["picks"][chit] else "name at most the cards you see"
    seen = on_map_japanese(public)
    lo, hi = rule["nominate"]
    if any(t not in seen for t in named):
        return f"only Japanese TFs on the map may be named ({', '.join(seen) or 'none is'})"
    if not min(lo, len(seen)) <= len(named) <= hi or not named:
        return f"name {lo}-{hi} Japanese TFs on the map ({len(seen)} are) (42.4.1)"
    return None


def reveal_tf(
    state: dict[str, Any], chit: str, named: Sequence[str], slot: Slot, secret: Dice
) -> list[Event]:
    """Magic Reveal 1 TF / Reveal 2 TF (42.4.1). At SI +1 and +2 the Allies name
    on-map TFs, the Japanese are told which (they hand those cards over) and the
    moderator picks 1 (2) at random for the Allies' eyes only. At +3 the Allies see
    the numbered backs of every card, hidden TFs and a 42.9 dummy card included, and
    read the ones they named (a name with no card: one drawn at random, R25); the
    Japanese learn only that the chit was played."""
    diff = si_difference(state)
    problem = reveal_tf_problem(state[PUBLIC], diff, chit, named)
    if problem:
        raise IllegalOrderError(problem, rule="42.4.1")
    events = [play_magic(state, chit, slot)]
    cards = {c["tf"]: c for c in plot_cards(state, slot)}
    picks = int(state[PUBLIC]["pack"][REVEAL_TF]["value"]["picks"][chit])
    rng = draws.fork(secret, f"magic {chit} {slot.time}")
    if diff >= 3:
        backs = sorted(cards)
        fact = {"kind": "magic-card-backs", "tfs": backs}
        events.append(disclose(state, fact, [ALLIED], slot.time, "42.4.1"))
        chosen = [t for t in named if t in cards]
        pool = [t for t in backs if t not in chosen]
        while len(chosen) < min(picks, len(backs)):
            chosen.append(pool.pop(draws.below(rng, len(pool), "magic card")))
    else:
        fact = {"kind": "magic-reveal-named", "tfs": list(named)}
        events.append(disclose(state, fact, [ALLIED, JAPANESE], slot.time, "42.4.1"))
        pool = [t for t in named if t in cards]
        chosen = [pool.pop(draws.below(rng, len(pool), "magic card")) for _ in range(picks) if pool]
    state.setdefault(MODERATOR, {}).setdefault("magic_reveals", []).append(
        {"time": slot.time, "chit": chit, "seen": chosen}
    )
    fact = {"kind": "magic-reveal-tf", "cards": [cards[t] for t in chosen]}
    return [*events, disclose(state, fact, [ALLIED], slot.time, "42.4.1")]


def reveal_dummy(state: dict[str, Any], slot: Slot) -> list[Event]:
    """Magic Reveal Dummy TF (42.4.1): the Japanese reveal one dummy at sea of their
    choice (their standing ``REVEAL_DUMMY_ORDER``, else the lowest-numbered, R26),
    which leaves the map (13.6.3); with none at sea, one unused dummy sortie of the
    cycle is burnt. Both sides are told which happened."""
    events = [play_magic(state, "reveal-dummy-tf", slot)]
    own = state[PRIVATE][JAPANESE]
    at_sea = sorted(
        (t for t, r in own.get("tfs", {}).items() if r.get("dummy") and r.get("hex")),
        key=lambda t: (len(t), t),
    )
    preferred = [t for t in own.get("standing", {}).get(REVEAL_DUMMY_ORDER, []) if t in at_sea]
    if at_sea:
        tf = (preferred or at_sea)[0]
        return [*events, *dummies.reveal(state, JAPANESE, tf, "Magic Reveal Dummy TF", slot)]
    allot = own.get("dummy_allotment", {"allowed": 0, "sorties": 0})
    burnt = 1 if allot["allowed"] > allot["sorties"] else 0
    if burnt:
        allot["allowed"] -= 1
    fact = {"kind": "dummy-sortie-burnt", "burnt": burnt}
    return [*events, disclose(state, fact, [ALLIED, JAPANESE], slot.time, "42.4.1")]
