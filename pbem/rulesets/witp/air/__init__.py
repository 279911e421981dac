"""War in the Pacific, stage 2: air strikes against ships (5-8, 10, 12, 14.2, 16.7).

Pure modules, one job each, not yet wired into the rounds:

- ``tables``: the pack's stage-2 tables (packs/tables-stage2.toml) and their lookups;
- ``altitude``: 5.2 altitude effects and 7.1 B approach modes;
- ``plot``: the AIRPLOT lines of the Allocation Segment (5.0, 5.1, 5.3, 5.10, 4.4.1),
  judged from the side's Knowledge only;
- ``availability``: the Air Point Availability Table (9.0);
- ``coordination``: carrier admirals' ratings and carrier coordination (8.1, 8.8);
- ``sequencing``: the Strike Sequence Table with the Air-rating DRM (12.0, 12.3);
- ``combat``: the bounce and the air combat routines A-E (6.1-6.3);
- ``display``: the Air/Surface Tactical Display, target priority, entry and path (7.2-7.7);
- ``aa``: TF AA fire (10.1, 14.2.2);
- ``attack``: wave attacks, Air/Surface Damage, Naval CRT, combined attacks,
  anti-torpedo rolls, coordination of waves from different hexes (7.6, 7.8);
- ``torpedo``: land-based torpedo arming (7.10);
- ``critical``: critical hits, told to the enemy only on doubles (16.7);
- ``special``: special strikes against moving TFs as standing orders (5.8, 16.6.1);
- ``naval_strike``: one naval strike from contact to critical hits (7.1), every
  disclosure through ``knowledge.disclose``.

Ships are read in either of the two shapes the TF Display uses: a name (its entry
in ``private[side]["ships"]``) or a dict with ``name``, ``type``, ``class``,
``damage`` and, on carriers, ``air`` ({AP type: n}). Damage is a level 0-4, 5 sunk.
"""
