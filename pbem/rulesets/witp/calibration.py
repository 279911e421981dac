"""Calibration of the air-naval combat values against the carrier battles of 1942.

A case (``pbem/scenarios/witp/calibration/<name>.toml``) is a historical engagement
as a small fixture: the task forces on both sides (ships by class, the carriers' air
groups in APs of ten aircraft, 4.0), the strikes that reached their targets, in the
order they flew, and the outcome history records (a ship's damage level, the APs a
side lost), each with its sources. ``run`` replays a case ``trials`` times through
the naval strike the adjudication resolves (``naval_strike.resolve_into``), each
trial with its own seeded dice, on the game's tables (packs/tables-stage1.toml,
tables-stage2.toml) and the Coral Sea scenario's unit values, and gives the
distribution of each measured outcome. Pure: cases in, distributions out; the
command line prints them (``pbem data calibrate witp``).

What a case does not replay, and why:

- the carrier coordination check (8.1.4) decides how much of a plotted strike
  launches; history gives what arrived, so each side's CTF commander is given an
  Air Rating that passes the first check (``ARRIVED``), and no admiral's column
  shift, attack DRM or bounce bonus (8.1.5, 8.1.6) is applied;
- a strike may play 42.4.3's Planes on Deck (``planes_on_deck = <wave>``): the
  Allies hold its two Strike Sequence chits;
- one wave a launching hex attacks one ship (the doctrine, R92), so a carrier
  attacked with its own screen is its own target TF, as the carriers of 1942
  manoeuvred apart under attack, each in its ring of escorts.

A ship's damage level is 0 (undamaged) to 4 (D4), 5 sunk (7.8.1 Step 7, 16.7).
"""

from __future__ import annotations

import copy
import math
import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

from pbem.core.dice import SeededDice
from pbem.core.errors import DataError
from pbem.core.sides import ALLIED, JAPANESE, SIDES, Side
from pbem.rulesets.witp import intelligence
from pbem.rulesets.witp.air import naval_strike, strikes
from pbem.rulesets.witp.air.coordination import Ratings
from pbem.rulesets.witp.datapack import DataPack, parse_pack, resolve
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.knowledge import DISCLOSURES, MODERATOR, PRIVATE, PUBLIC
from pbem.rulesets.witp.work import Work

HEXES: dict[str, str] = {
    JAPANESE: "E2010",
    ALLIED: "E2016",
}  # 6 hexes apart: 36 MP, normal range for all
MP = 36
TIME = "T1/air2/strike"
# 8.1.4: an Air Rating whose first CC check number is the table's maximum (99 on
# 2D10): the strike as it arrived, not as a coordination roll would cut it
ARRIVED = 99
SUNK = 5
CENTRAL = (0.1, 0.9)  # the central 80 % of a distribution
FOLDER = ("scenarios", "witp", "calibration")
ON_DECK_CHITS = ("strike-sequence-2", "strike-sequence-1")  # 42.4.3: any two


@dataclass(frozen=True, slots=True)
class Element:
    """APs of one type in a strike: bombers (role D, T or B) or escorts (role F)."""

    type: str
    n: int
    role: str
    alt: str
    posture: str | None = None


@dataclass(frozen=True, slots=True)
class Strike:
    """A strike as it reached its target: ``side`` from its TF ``origin`` against the
    enemy TF ``target``; ``planes_on_deck``: the wave the US player nominates for
    42.4.3's Planes on Deck (None: not played), the two chits it needs held."""

    label: str
    side: Side
    origin: str
    target: str
    bombers: tuple[Element, ...]
    escorts: tuple[Element, ...] = ()
    planes_on_deck: int | None = None


@dataclass(frozen=True, slots=True)
class Record:
    """An outcome history records: ``metric`` ("damage <ship>", "lost <side>") after
    strike ``after`` (None: all), between ``low`` and ``high`` (a damage level, or APs
    of ten aircraft); ``calibrated``: the values are chosen to hold it (else ``why``)."""

    metric: str
    low: float
    high: float
    source: str
    after: int | None = None
    calibrated: bool = True
    why: str = ""

    @property
    def key(self) -> str:
        return self.metric if self.after is None else f"{self.metric} @{self.after}"


@dataclass(frozen=True, slots=True)
class Bound:
    """A design bound: the share of trials with ``metric`` at least ``at_least`` stays
    under ``share`` (a small strike rarely sinks a large ship)."""

    metric: str
    at_least: float
    share: float
    why: str


@dataclass(frozen=True, slots=True)
class Case:
    """A historical engagement as a fixture (the module's docstring says how)."""

    name: str
    title: str
    source: str
    note: str
    tfs: Mapping[str, Mapping[str, Any]]  # "<side>:<tf>" -> {side, id, ships}
    strikes: tuple[Strike, ...]
    records: tuple[Record, ...] = ()
    bounds: tuple[Bound, ...] = ()


@dataclass(frozen=True, slots=True)
class Distribution:
    """The values one metric took over the trials."""

    values: tuple[float, ...]

    def percentile(self, q: float) -> float:
        """The smallest value at or under which a share ``q`` of the trials lie."""
        ordered = sorted(self.values)
        k = max(0, math.ceil(q * len(ordered)) - 1)
        return ordered[k]

    @property
    def central(self) -> tuple[float, float]:
        return self.percentile(CENTRAL[0]), self.percentile(CENTRAL[1])

    def share(self, at_least: float) -> float:
        return sum(v >= at_least for v in self.values) / len(self.values)

    def counts(self) -> dict[float, int]:
        return dict(sorted(Counter(self.values).items()))


@dataclass(frozen=True, slots=True)
class Outcome:
    """A record beside the distribution of its metric: inside when the historical
    range meets the central 80 %."""

    record: Record
    distribution: Distribution

    @property
    def inside(self) -> bool:
        lo, hi = self.distribution.central
        return self.record.low <= hi and self.record.high >= lo


@dataclass(frozen=True, slots=True)
class BoundResult:
    bound: Bound
    share: float

    @property
    def holds(self) -> bool:
        return self.share < self.bound.share


@dataclass(frozen=True, slots=True)
class Result:
    """One case run: every metric's distribution, the records and bounds judged."""

    case: Case
    trials: int
    metrics: Mapping[str, Distribution]
    outcomes: tuple[Outcome, ...]
    bounds: tuple[BoundResult, ...] = field(default=())


# --- the cases, as the package ships them --------------------------------------------


def folder() -> Traversable:
    return files("pbem").joinpath(*FOLDER)


def case_names() -> list[str]:
    """The shipped cases, in the order of the battles (each case's ``order``)."""
    order: dict[str, int] = {}
    for path in folder().iterdir():
        if path.name.endswith(".toml") and path.name != "units.toml":
            doc = tomllib.loads(path.read_text(encoding="utf-8"))
            order[path.name[: -len(".toml")]] = int(doc["case"]["order"])
    return sorted(order, key=lambda n: (order[n], n))


def load_case(name: str) -> Case:
    """The shipped case ``name``; DataError if there is none."""
    path = folder().joinpath(f"{name}.toml")
    if not path.is_file():
        raise DataError(f"calibration/{name}", f"no such case; cases: {', '.join(case_names())}")
    return parse_case(tomllib.loads(path.read_text(encoding="utf-8")), name)


def parse_case(doc: Mapping[str, Any], name: str) -> Case:
    head = doc["case"]
    tfs = {f"{t['side']}:{t['id']}": dict(t) for t in doc.get("tf", [])}
    return Case(
        name=name,
        title=str(head["title"]),
        source=str(head["source"]),
        note=str(head.get("note", "")),
        tfs=tfs,
        strikes=tuple(_strike(s) for s in doc.get("strike", [])),
        records=tuple(_record(r) for r in doc.get("history", [])),
        bounds=tuple(
            Bound(str(b["metric"]), float(b["at_least"]), float(b["share"]), str(b["why"]))
            for b in doc.get("bound", [])
        ),
    )


def _element(raw: Mapping[str, Any], escort: bool) -> Element:
    role = "F" if escort else str(raw["role"])
    alt = str(raw.get("alt", "L" if role == "T" else "M"))  # 7.1 B a: T low, D/F rated
    return Element(str(raw["type"]), int(raw["n"]), role, alt, raw.get("posture"))


def _strike(raw: Mapping[str, Any]) -> Strike:
    return Strike(
        label=str(raw["label"]),
        side=Side(raw["side"]),
        origin=str(raw["from"]),
        target=str(raw["target"]),
        bombers=tuple(_element(e, False) for e in raw.get("bombers", [])),
        escorts=tuple(_element(e, True) for e in raw.get("escorts", [])),
        planes_on_deck=raw.get("planes_on_deck"),
    )


def _record(raw: Mapping[str, Any]) -> Record:
    low, high = raw["value"] if isinstance(raw["value"], list) else (raw["value"],) * 2
    return Record(
        metric=str(raw["metric"]),
        low=float(low),
        high=float(high),
        source=str(raw["source"]),
        after=raw.get("after"),
        calibrated=bool(raw.get("calibrated", True)),
        why=str(raw.get("why", "")),
    )


# --- the tables and the fixture's state ------------------------------------------------


def _toml(*path: str) -> DataPack:
    raw = files("pbem").joinpath(*path).read_text(encoding="utf-8")
    doc = tomllib.loads(raw)
    return parse_pack(doc, path[-1])


def game_pack(extra: Iterable[DataPack] = ()) -> DataPack:
    """The tables a game reads (stage 1 and 2), the Coral Sea scenario's unit values
    and the calibration's own units (the classes and types the Coral Sea lacks);
    ``extra``: packs over them (a moderator's own tables, tried against the cases)."""
    coral = _toml("scenarios", "witp", "scenarios", "coral-sea-1942.toml")
    units = {k: v for k, v in coral.items.items() if k.startswith("units/")}
    return resolve(
        [
            _toml("scenarios", "witp", "packs", "tables-stage1.toml"),
            _toml("scenarios", "witp", "packs", "tables-stage2.toml"),
            DataPack(coral.name, coral.title, units),
            _toml(*FOLDER, "units.toml"),
            *extra,
        ]
    )


def state(case: Case, pack: DataPack) -> dict[str, Any]:
    """The case's task forces as a game keeps them (the TF Display's schema)."""
    private: dict[str, dict[str, Any]] = {
        s: {"tfs": {}, "ships": {}, "air_bases": {}} for s in SIDES
    }
    located = {}
    for key, tf in case.tfs.items():
        side, tf_id = str(tf["side"]), str(tf["id"])
        hexid = HEXES[side]
        ships = [_ship(s) for s in tf["ships"]]
        private[side]["tfs"][tf_id] = {
            "hex": hexid,
            "ships": [s["name"] for s in ships],
            "dummy": False,
            "speed_class": "SC3",
            "mission": None,
            "log": [],
        }
        private[side]["ships"].update({s["name"]: s for s in ships})
        located[key] = {
            "owner": side,
            "tf": tf_id,
            "hex": hexid,
            "label": "Located 1A",
            "placed": 0,
            "time": "T1/air1/search",
            "source": "air",
        }
    return {
        "scenario": f"calibration-{case.name}",
        PUBLIC: {
            "clock": {"at": 0, "game_turns": 1, "turn_in_cycle": 1},
            "pack": pack.public(),
            "located": located,
        },
        PRIVATE: private,
        DISCLOSURES: [],
        MODERATOR: {},
    }


def _ship(raw: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: copy.deepcopy(v) for k, v in raw.items()}
    out.setdefault("damage", 0)
    return out


def plotted(strike: Strike, case: Case, number: int) -> strikes.AirStrike:
    """The strike as the Air Strike Plot holds it (5.0), from its TF's launch hex."""
    target_side = next(Side(t["side"]) for k, t in case.tfs.items() if t["id"] == strike.target)
    hexid = HEXES[strike.side]

    def flown(e: Element) -> strikes.AirElement:
        return strikes.AirElement(e.type, e.n, e.role, e.alt, posture=e.posture, range="normal")

    part = strikes.StrikePart(
        base=strike.origin,
        hex=hexid,
        carrier=True,
        mp=MP,
        elements=tuple(flown(e) for e in strike.bombers),
        escorts=tuple(flown(e) for e in strike.escorts),
    )
    target = strikes.StrikeTarget(target_side, strike.target, HEXES[target_side])
    wave = strike.planes_on_deck
    on_deck = None if wave is None else strikes.PlanesOnDeck(wave, ON_DECK_CHITS)
    return strikes.AirStrike(
        f"S{number}", strike.side, target, parts=(part,), planes_on_deck=on_deck
    )


def _committed(case: Case, tf: str) -> dict[str, int]:
    """5.3: the TF's fighters flying escort in the case's strikes fly no CAP."""
    out: dict[str, int] = {}
    for s in case.strikes:
        if s.origin == tf:
            for e in s.escorts:
                out[e.type] = out.get(e.type, 0) + e.n
    return out


def _air(work: Work, side: str) -> int:
    """The APs embarked on ``side``'s ships (sunk ones' records included)."""
    ships = work.part(side).ship_records().values()
    return sum(n for s in ships for n in (s.air or {}).values())


def _damage(work: Work) -> dict[str, int]:
    return {name: s.damage for side in SIDES for name, s in work.part(side).ship_records().items()}


def trial(case: Case, start: Mapping[str, Any], seed: bytes, number: int) -> dict[str, float]:
    """One replay of the case: each strike in turn through the naval strike the
    adjudication resolves; the measured outcomes."""
    work = Work.begin(start)
    ratings: dict[str, Ratings] = {s: Ratings("", 0, ARRIVED) for s in SIDES}
    dice = SeededDice(seed, f"calibration {case.name}", number, "strikes")
    secret = SecretDice(seed + number.to_bytes(4, "big"), f"calibration {case.name}")
    before = {side: _air(work, side) for side in SIDES}
    on_deck = sum(s.planes_on_deck is not None for s in case.strikes)
    if on_deck:  # 42.4.3: the Allies hold the chits Planes on Deck plays
        held = intelligence.Holdings(magic=ON_DECK_CHITS * on_deck)
        intelligence.put_holdings(work, held)
    out: dict[str, float] = {}
    for k, s in enumerate(case.strikes, start=1):
        naval_strike.resolve_into(
            work,
            plotted(s, case, k),
            dice,
            secret,
            TIME,
            ratings=ratings,
            committed=_committed(case, s.target),
        )
        for ship, level in _damage(work).items():
            out[f"damage {ship} @{k}"] = level
    for ship, level in _damage(work).items():
        out[f"damage {ship}"] = level
    for side in SIDES:
        out[f"lost {side}"] = before[side] - _air(work, side)
    return out


def run(case: Case, trials: int, seed: int, pack: DataPack | None = None) -> Result:
    """The case replayed ``trials`` times from ``seed``: each metric's distribution,
    its records judged against the central 80 %, its bounds."""
    start = state(case, pack or game_pack())
    key = seed.to_bytes(8, "big")
    runs = [trial(case, start, key, i) for i in range(trials)]
    metrics = {m: Distribution(tuple(r[m] for r in runs)) for m in runs[0]}
    outcomes = tuple(Outcome(r, metrics[r.key]) for r in case.records)
    bounds = tuple(BoundResult(b, metrics[b.metric].share(b.at_least)) for b in case.bounds)
    return Result(case, trials, metrics, outcomes, bounds)


def shown(result: Result) -> list[str]:
    """The metrics a report shows: those history records, the ships of the strikes'
    targets, the aircraft lost by each side."""
    keys = [o.record.key for o in result.outcomes] + [b.bound.metric for b in result.bounds]
    for tf in result.case.tfs.values():
        if any(s.target == tf["id"] for s in result.case.strikes):
            keys += [f"damage {s['name']}" for s in tf["ships"]]
    keys += [f"lost {s}" for s in SIDES]
    return list(dict.fromkeys(keys))
