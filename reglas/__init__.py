"""The rules engine of Partida: pure Python + numpy, no Django.

Every function takes plain values (frozen dataclasses, numbers, numpy arrays) and, when it
rolls, a ``numpy.random.Generator``; it returns plain values that carry their dice and their
modifier breakdown. Nothing here reads a clock, a database or a global random generator.

Source: RULES.md (the resolved reading of ../shared/seeds/000_ec529db51fedaa15.txt).
"""

ENGINE_VERSION = "1"
