"""Reads data/digits.bin (the 8x8 digits the playground examples train on): a `DIGITS8\\0` magic,
then n_train, n_test, h, w as little-endian u32, then the training pixels (0..16, one byte each),
the training labels, the test pixels and the test labels."""

import struct
from pathlib import Path

import torch


def read_digits(root: Path):
    """(x_train, y_train, x_test, y_test, h, w): pixels as float32 in [0, 1] of shape (n, h, w),
    labels as int64."""
    raw = (root / "data/digits.bin").read_bytes()
    assert raw[:8] == b"DIGITS8\0"
    n_train, n_test, h, w = struct.unpack_from("<4I", raw, 8)
    off = 24

    def take(n):
        nonlocal off
        out = torch.frombuffer(bytearray(raw[off : off + n]), dtype=torch.uint8)
        off += n
        return out

    def split(n):
        x = take(n * h * w).reshape(n, h, w).float() / 16
        return x, take(n).long()

    return (*split(n_train), *split(n_test), h, w)
