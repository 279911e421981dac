"""7.1 One naval strike, step by step in the order the rules play them; the
composition is ``air.naval_strike.resolve_into``:

- ``plotted``: the strike as plotted and the phase around it (5.0, 7.1), the
  resolution the steps share;
- ``launch``: 5.0 the launch, 8.1.4 carrier coordination, 9.3 joint availability;
- ``contact``: 7.1 A the True report on the target, 7.3 the target priority;
- ``placement``: 7.2 placement face down, 38.3.1 ships in port, 7.1 B altitudes;
- ``cap``: 5.3, 7.1 B the CAP over the target TF (R92, R110, R135);
- ``aircombat``: 6.x air combat, level by level;
- ``waves``: 7.5-7.7 the waves, their entry and target ring; 14.2.3 night contact;
- ``antiaircraft``: 7.9 AA suppression and 10.1 AA fire at a wave;
- ``attacks``: 7.8.1 a wave's attack on the ship it targets;
- ``damage``: 16.7 critical hits;
- ``losses``: the strike's losses: 6.3.3 extended range, 5.15 extreme range,
  7.11.2 elite and 58.2.1 green APs.
"""
