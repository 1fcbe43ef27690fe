"""The schema-driven sweep: the generator is tests/parity/sweep.py."""

from sweep import build  # noqa: F401
