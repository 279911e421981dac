"""The demonstration (``pbem demo``): a whole game played by signed mail through a
real daemon. runner.py plays it; usn.py and witp.py are the scripted players of
U.S.N. and of War in the Pacific (the tiny demo game's players pick at random).
"""
