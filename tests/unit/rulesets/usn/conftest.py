"""Rule modules consult the installed world data and the hook table: install the
package's world and load every scenario module, as building the ruleset does."""

from __future__ import annotations

import pytest

from pbem.rulesets.usn import ruleset, world  # ruleset: fills the hook table
from pbem.rulesets.usn.loader import load_world


@pytest.fixture(autouse=True)
def installed_world() -> None:
    assert ruleset.UsnRuleset is not None
    world.install(load_world())
