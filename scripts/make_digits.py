"""Writes data/digits.bin: scikit-learn's 8x8 handwritten digits (1,797 images) in a compact binary
file with a fixed, seeded train/test split (format: data/README.md).

The digits ship inside scikit-learn (sklearn/datasets/data/digits.csv.gz; no download): the UCI
"Optical Recognition of Handwritten Digits" test set, 8x8 images with pixels 0-16.

Run: .venv-torch/bin/python scripts/make_digits.py   (needs numpy and scikit-learn; deterministic)
"""

import hashlib
import struct
from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits

OUT = Path(__file__).resolve().parent.parent / "data" / "digits.bin"
MAGIC = b"DIGITS8\0"
N_TEST = 360
SEED = 0


def main():
    d = load_digits()
    pixels = d.images.astype(np.uint8).reshape(-1, 64)  # values 0..16
    labels = d.target.astype(np.uint8)
    assert pixels.shape == (1797, 64) and pixels.max() == 16 and labels.max() == 9
    perm = np.random.default_rng(SEED).permutation(len(labels))
    test, train = perm[:N_TEST], perm[N_TEST:]
    blob = b"".join(
        [
            MAGIC,
            struct.pack("<IIII", len(train), len(test), 8, 8),
            pixels[train].tobytes(),
            labels[train].tobytes(),
            pixels[test].tobytes(),
            labels[test].tobytes(),
        ]
    )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(blob)
    print(
        f"wrote {OUT.relative_to(OUT.parent.parent)}: {len(blob)} bytes, "
        f"{len(train)} train / {len(test)} test, sha256 {hashlib.sha256(blob).hexdigest()[:16]}"
    )


if __name__ == "__main__":
    main()
