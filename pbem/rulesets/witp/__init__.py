"""War in the Pacific (SPI, 2nd edition): the ruleset, stage 0 (the kernel).

The kernel runs the game clock of 3.1 and 50.0 as mail rounds (clock), rolls
initiative (3.2, initiative), keeps what each side may know as recorded
disclosures (knowledge), and carries every table, unit value and map element
with its provenance (datapack). Naval, air and ground content comes in later
stages (docs/witp-rulings.md). Pure: imports only pbem.core and the stdlib;
loader.py alone reads the data files, and the registry hands them in.
"""
