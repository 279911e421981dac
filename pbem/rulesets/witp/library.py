"""The packs an installation holds, and the scenarios that use them.

``Library.from_documents`` takes the parsed pack and scenario documents the loader
read (pure: no file is read here); ``resolve`` gives the one pack a game plays
with: the installation's packs a scenario uses, the scenario's own items, then
the moderator's pack for that game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pbem.core.errors import DataError
from pbem.core.sides import SIDES
from pbem.rulesets.witp.datapack import DataPack, parse_pack, resolve


@dataclass(frozen=True, slots=True)
class ScenarioPack:
    name: str
    title: str
    sides: tuple[str, ...]
    uses: tuple[str, ...]  # the installation's packs, in merge order
    pack: DataPack  # the scenario's own items (set-up, forces)


@dataclass(frozen=True, slots=True)
class Library:
    packs: Mapping[str, DataPack]
    scenarios: Mapping[str, ScenarioPack]

    @classmethod
    def from_documents(
        cls, packs: Mapping[str, Mapping[str, Any]], scenarios: Mapping[str, Mapping[str, Any]]
    ) -> Library:
        """``packs`` and ``scenarios``: parsed documents by file name."""
        parsed = [parse_pack(raw, fname) for fname, raw in sorted(packs.items())]
        by_name = {p.name: p for p in parsed}
        out: dict[str, ScenarioPack] = {}
        for fname, raw in sorted(scenarios.items()):
            pack = parse_pack(raw, fname)
            head = raw.get("pack", {})
            uses = tuple(str(u) for u in head.get("uses", ()))
            missing = [u for u in uses if u not in by_name]
            if missing:
                raise DataError(f"{fname}: pack.uses", f"no installed pack {', '.join(missing)}")
            sides = tuple(str(s) for s in head.get("sides", SIDES))
            if set(sides) != set(SIDES):
                raise DataError(f"{fname}: pack.sides", f"the sides are {', '.join(SIDES)}")
            out[pack.name] = ScenarioPack(pack.name, pack.title, sides, uses, pack)
        return cls(by_name, out)

    def scenario(self, name: str) -> ScenarioPack:
        try:
            return self.scenarios[name]
        except KeyError:
            raise DataError("scenarios", f"no scenario {name!r}") from None

    def resolve(self, scenario: str, moderator: Mapping[str, Any] | None = None) -> DataPack:
        """The pack ``scenario`` plays with, the moderator's items last (over all)."""
        sc = self.scenario(scenario)
        packs = [self.packs[u] for u in sc.uses] + [sc.pack]
        if moderator:
            packs.append(parse_pack(moderator, "datapack", moderator=True))
        return resolve(packs)
