"""The schema-driven sweep of the TS layer's composites: the generator is tests/parity/sweep.py."""

import sweep


def build(fam, rng):
    sweep.build(fam, rng, ts=True)
