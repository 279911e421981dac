"""U.S.N. (SPI, 1971) ruleset."""
