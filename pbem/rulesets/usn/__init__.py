"""U.S.N. (SPI, 1971) ruleset.

The modules form a one-way stack (tests/unit/rulesets/test_structure.py checks it:
no import cycle, no import inside a function):

- domain types: ``sides`` (Side), ``hexgrid`` (HexId, ``fmt`` writes a hex,
  ``hex_of`` reads a location), ``state`` (the JSON game state), ``sequence``;
- world data: ``data`` and ``map`` build it from files that ``loader`` alone
  reads (importlib.resources); the registry hands it to ``UsnRuleset`` and the
  rules consult it through ``world``;
- the engine: ``work`` (the round's working state; refusals are
  pbem.core.errors.IllegalOrderError with their rule), movement, combat, supply,
  victory. Where the rulebook lets a scenario or optional rule in, the engine
  consults the hook table in ``hooks`` (pbem.core.hooks) and never imports the rule;
- scenario and optional rules: ``scenario_rules``, ``indian_ocean``, ``ferry`` fill
  the hooks they implement;
- ``phases`` runs a mail round, ``ruleset`` assembles everything for the lifecycle.

A second ruleset (War in the Pacific) takes the same shape.
"""
