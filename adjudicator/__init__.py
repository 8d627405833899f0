"""Umpire's rules: a pure kernel plus one package per game. No I/O except reading data/."""
