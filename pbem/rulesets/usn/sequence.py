"""The U.S.N. sequence of play as data, and the mail rounds built from it.

SEQ.SYN: ten steps per Game-Turn, in rulebook order. SEQ.STRICT: an operation
may only be done at its listed step, so every order verb names the steps where
it is legal and every round lists the steps it covers.

Mail rounds (documented for players in docs/usn-orders.md): consecutive steps
of one side share a round; the mutual air-strike steps are one simultaneous
sealed round for both sides (SEQ.5E, AMAC); steps 1 and 10 are automatic.

    round   sides        steps
    J-2     japanese     1 (placement of arrivals), 2
    A-3-4   allied       3, 4
    air-5   both         5 (Allied land attacks + both sides' air plots)
    A-6     allied       6
    J-7-8   japanese     7, 8
    air-9   both         9 (Japanese land attacks + both sides' air plots), 10

A scenario may open its first turn differently (``rounds_for``): the rounds
named in ``state.extra["opening"]`` (set at set-up by opening.py: the set-up
rounds setup-J then setup-A for the scenarios with free choices) come first,
and CG1's Shock turn replaces turn 1's rounds (CG1.SHOCK.*).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from pbem.core.sequence import StepTable
from pbem.core.sides import ALLIED, JAPANESE, SIDES, Side
from pbem.rulesets.usn.state import GameState


class StepKind(Enum):
    ENTRY = "entry"  # step 1: reinforcements, replacements, repaired ships
    AIR_SEA = "air-sea"  # steps 2, 4, 6, 8
    LAND_MOVE = "land-move"  # steps 3, 7
    STRIKE = "strike"  # steps 5, 9: land attacks + mutual air strikes
    BOOKKEEPING = "bookkeeping"  # step 10


@dataclass(frozen=True, slots=True)
class SubStep:
    """A lettered part of a step (SEQ.2C ...); ``combat`` marks the parts the
    combat issue resolves (they emit "combat-deferred" until then)."""

    letter: str
    rule: str
    title: str
    combat: bool = False

    @property
    def key(self) -> str:
        return self.letter


@dataclass(frozen=True, slots=True)
class Step:
    number: int
    rule: str  # "SEQ.2"
    side: Side | None  # the phasing side; None for both / automatic
    kind: StepKind
    title: str
    substeps: tuple[SubStep, ...] = ()

    @property
    def key(self) -> str:
        """SEQ.SYN numbers the steps 1-10: the number is the key."""
        return str(self.number)


def _air_sea(paradrop: bool) -> tuple[SubStep, ...]:
    subs = [
        SubStep("A", "SEQ.2A", "air transfer missions (up to twice normal range)"),
        SubStep("B", "SEQ.2B", "Japanese paratroop drops (up to four hexes)"),
        SubStep("C", "SEQ.2C", "first portion of naval movement"),
        SubStep("D", "SEQ.2D", "transports embark or debark"),
        SubStep("E", "SEQ.2E", "emergency transport of troops or supply"),
        SubStep("F", "SEQ.2F", "bombardment of land units and bases", combat=True),
        SubStep("G", "SEQ.2G", "surface engagements", combat=True),
        SubStep("H", "SEQ.2H", "bombardment of coastal defense units", combat=True),
        SubStep("I", "SEQ.2I", "second portion of naval movement; restacking"),
        SubStep("J", "SEQ.2J", "refuelling"),
    ]
    return tuple(s for s in subs if paradrop or s.letter != "B")


_LAND = (
    SubStep("A", "SEQ.3A", "supplied land units move one hex"),
    SubStep("B", "SEQ.3B", "units that did not move may try to entrench"),
    SubStep("C", "SEQ.3C", "base building and sabotage rolls", combat=True),
)

_STRIKE = (
    SubStep("A", "SEQ.5A", "opposed landings from assault transports", combat=True),
    SubStep("B", "SEQ.5B", "land attacks announced", combat=True),
    SubStep("C", "SEQ.5C", "naval gunfire support allocated", combat=True),
    SubStep("D", "SEQ.5D", "defensive ship groups formed"),
    SubStep("E", "SEQ.5E", "air missions allocated (sealed, simultaneous)"),
    SubStep("F", "SEQ.5F.1", "strikes on ships, first side", combat=True),
    SubStep("G", "SEQ.5G.1", "strikes on ships, second side", combat=True),
    SubStep("H", "SEQ.5H.1", "strikes on land targets, first side", combat=True),
    SubStep("I", "SEQ.5I.1-2c", "strikes on land targets, second side", combat=True),
    SubStep("J", "SEQ.5J", "ground support missions", combat=True),
    SubStep("K", "SEQ.5K", "land combat resolved", combat=True),
    SubStep("L", "SEQ.5L", "aircraft return to base"),
)

STEPS: StepTable[Step] = StepTable(
    (
        Step(1, "SEQ.1", None, StepKind.ENTRY, "Reinforcements, replacements and repaired ships"),
        Step(
            2, "SEQ.2", JAPANESE, StepKind.AIR_SEA, "Japanese air and sea movement", _air_sea(True)
        ),
        Step(3, "SEQ.3", ALLIED, StepKind.LAND_MOVE, "Allied land movement", _LAND),
        Step(4, "SEQ.4", ALLIED, StepKind.AIR_SEA, "Allied air and sea movement", _air_sea(False)),
        Step(
            5, "SEQ.5", ALLIED, StepKind.STRIKE, "Allied land attack, mutual air strikes", _STRIKE
        ),
        Step(6, "SEQ.6", ALLIED, StepKind.AIR_SEA, "Allied air and sea movement", _air_sea(False)),
        Step(7, "SEQ.7", JAPANESE, StepKind.LAND_MOVE, "Japanese land movement", _LAND),
        Step(
            8, "SEQ.8", JAPANESE, StepKind.AIR_SEA, "Japanese air and sea movement", _air_sea(True)
        ),
        Step(
            9,
            "SEQ.9",
            JAPANESE,
            StepKind.STRIKE,
            "Japanese land attack, mutual air strikes",
            _STRIKE,
        ),
        Step(10, "SEQ.10", None, StepKind.BOOKKEEPING, "Turn record, fuel and damage records"),
    )
)


def step(number: int) -> Step:
    return STEPS.get(str(number))


@dataclass(frozen=True, slots=True)
class MailRound:
    """One exchange of mail: who writes orders and which steps they cover.

    ``steps`` lists every step the adjudication of this round runs, in order;
    automatic steps (1, 10) ride on the round before or after them.
    """

    key: str  # Demand.phase, e.g. "J-2"
    sides: tuple[str, ...]
    steps: tuple[int, ...]
    title: str
    # Special rules restricting this round (checked by opening.restrict).
    rules: tuple[str, ...] = ()

    @property
    def simultaneous(self) -> bool:
        return len(self.sides) > 1


ROUNDS: tuple[MailRound, ...] = (
    MailRound("J-2", (JAPANESE,), (1, 2), "Japanese air and sea movement"),
    MailRound("A-3-4", (ALLIED,), (3, 4), "Allied land movement, then air and sea movement"),
    MailRound("air-5", SIDES, (5,), "Allied land attack and mutual air strikes (sealed plots)"),
    MailRound("A-6", (ALLIED,), (6,), "Allied air and sea movement"),
    MailRound("J-7-8", (JAPANESE,), (7, 8), "Japanese land movement, then air and sea movement"),
    MailRound(
        "air-9", SIDES, (9, 10), "Japanese land attack and mutual air strikes (sealed plots)"
    ),
)


# SETUP.JFIRST: the set-up rounds before turn 1, for the scenarios whose data leaves
# choices (SETUP.AREA, SETUP.FREE, SETUP.AIRANY; OPT.JVD): the Japanese deploy first,
# then the Allies, who see the Japanese set-up (ruling H12). No steps: PLACE orders.
SETUP_JAPANESE = MailRound(
    "setup-J", (JAPANESE,), (), "Japanese set-up (free choices)", ("SETUP.JFIRST",)
)
SETUP_ALLIED = MailRound(
    "setup-A", (ALLIED,), (), "Allied set-up (free choices)", ("SETUP.JFIRST",)
)

# CG1.SHOCK.PREGAME: one Japanese naval turn (two movement phases) before turn 1.
PREGAME = (
    MailRound(
        "pre-J-2",
        (JAPANESE,),
        (2,),
        "Pre-game turn: Japanese naval movement, first phase",
        ("CG1.SHOCK.PREGAME",),
    ),
    MailRound(
        "pre-J-8",
        (JAPANESE,),
        (8,),
        "Pre-game turn: Japanese naval movement, second phase",
        ("CG1.SHOCK.PREGAME",),
    ),
)

# CG1.SHOCK.T1J1 / ANOMOVE / T1J2: turn 1 of the Shock turn. The Allies may not move
# at all, so their movement steps (3, 4, 6) ride, without orders, on the next round;
# they still plot air missions in step 5 (CG1.SHOCK.NOAIR forbids them only in step 9).
SHOCK_TURN = (
    MailRound(
        "J-2",
        (JAPANESE,),
        (1, 2),
        "Japanese air and sea movement (Shock turn: naval units only, 5 hexes off)",
        ("CG1.SHOCK.T1J1",),
    ),
    MailRound(
        "air-5",
        SIDES,
        (3, 4, 5),
        "Allied land attack and mutual air strikes (Shock turn: no Allied moves)",
        ("CG1.SHOCK.ANOMOVE",),
    ),
    MailRound(
        "J-7-8",
        (JAPANESE,),
        (6, 7, 8),
        "Japanese land movement, then air and sea movement",
        ("CG1.SHOCK.ANOMOVE", "CG1.SHOCK.T1J2"),
    ),
    MailRound(
        "air-9",
        SIDES,
        (9, 10),
        "Japanese land attack and mutual air strikes (Shock turn: no Allied missions)",
        ("CG1.SHOCK.ANOMOVE", "CG1.SHOCK.NOAIR"),
    ),
)

# The opening rounds a scenario may name in state.extra["opening"], in play order.
OPENINGS: dict[str, tuple[MailRound, ...]] = {
    "setup-japanese": (SETUP_JAPANESE,),
    "setup-allied": (SETUP_ALLIED,),
    "pregame": PREGAME,
}


def rounds_for(state: GameState) -> tuple[MailRound, ...]:
    """The mail rounds of the state's turn: the normal six, or turn 1's opening
    (set-up, pre-game turn) followed by the Shock turn when the scenario has one."""
    if state.turn != 1:
        return ROUNDS
    opening = tuple(state.extra.get("opening", ()))
    if not opening:
        return ROUNDS
    rounds: list[MailRound] = []
    for name in opening:
        rounds += OPENINGS.get(name, ())
    rounds += SHOCK_TURN if "shock" in opening else ROUNDS
    return tuple(rounds)


def current_round(state: GameState) -> MailRound:
    return rounds_for(state)[state.round]


def ends_turn(state: GameState) -> bool:
    """The state's round runs Step 10 (the end of the Game-Turn)."""
    return state.round >= 0 and 10 in current_round(state).steps


def round_at(index: int) -> MailRound:
    return ROUNDS[index]


def round_by_key(key: str) -> MailRound | None:
    for r in (*ROUNDS, SETUP_JAPANESE, SETUP_ALLIED, *PREGAME, *SHOCK_TURN):
        if r.key == key:
            return r
    return None


def first_round_of_side(side: Side, rounds: tuple[MailRound, ...] = ROUNDS) -> int:
    """Index of the side's first round of a turn from Step 1 on: where it places
    new arrivals (set-up and pre-game rounds come before Step 1)."""
    start = next(i for i, r in enumerate(rounds) if 1 in r.steps)
    for i, r in enumerate(rounds):
        if i >= start and side in r.sides:
            return i
    raise ValueError(side)  # pragma: no cover - both sides have rounds


def naval_steps_of(side: Side) -> tuple[int, ...]:
    """The side's air and sea movement steps (2 and 8 Japanese, 4 and 6 Allied)."""
    return tuple(s.number for s in STEPS if s.kind is StepKind.AIR_SEA and s.side == side)


def last_naval_step(side: Side) -> int:
    """SUP.G: the last naval movement phase of the turn, where refuelling is due."""
    return naval_steps_of(side)[-1]
