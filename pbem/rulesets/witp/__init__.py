"""War in the Pacific (SPI, 2nd edition): the ruleset, stages 0-2.

The kernel runs the game clock of 3.1 and 50.0 as mail rounds (clock), rolls
initiative (3.2, initiative), keeps what each side may know as recorded
disclosures (knowledge), and carries every table, unit value and map element
with its provenance (datapack). Stage 1 adds naval movement and search
(movement, search, intelligence), stage 2 air strikes against ships (air/,
airplay); the rest comes in later stages (docs/witp-rulings.md, "Stages").
Pure: imports only pbem.core and the stdlib; loader.py alone reads the data
files, and the registry hands them in.
"""
