from __future__ import annotations

import pytest

from pbem.rulesets.witp.loader import load_library
from pbem.rulesets.witp.map import TheatreMap, load_map
from pbem.rulesets.witp.ruleset import WitpRuleset

SCENARIO = "coral-sea-1942"


@pytest.fixture(scope="session")
def theatre() -> TheatreMap:
    return load_map()


@pytest.fixture(scope="session")
def witp(theatre: TheatreMap) -> WitpRuleset:
    return WitpRuleset(load_library(), theatre)
