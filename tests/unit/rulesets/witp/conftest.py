from __future__ import annotations

import pytest

from pbem.rulesets.witp.loader import load_library
from pbem.rulesets.witp.ruleset import WitpRuleset

SCENARIO = "coral-sea-1942"


@pytest.fixture(scope="session")
def witp() -> WitpRuleset:
    return WitpRuleset(load_library())
