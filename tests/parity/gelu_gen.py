"""PyTorch's float32 gelu, erf and gelu gradient on dense grids over [-12, 12], for the accuracy
check of the GPU's erf fit (tests/elementwise.rs; scripts/fit-erf.py fits it).

Writes tests/parity/fixtures/gelu_grid.f32, little-endian float32, in this order:
  gelu(x_i)              x_i = float32(-12 + 24 i / 200000), i = 0 … 200000
  erf(x_j)               x_j = float32(-12 + 24 j / 20000),  j = 0 … 20000
  d gelu(x_j) / d x_j    (the gradient of gelu(x).sum())
The grid points are computed in float64 and rounded, so the test rebuilds them exactly.

Run: .venv-torch/bin/python tests/parity/gelu_gen.py
"""

from pathlib import Path

import numpy as np
import torch

OUT = Path(__file__).parent / "fixtures" / "gelu_grid.f32"


def grid(steps):
    return torch.from_numpy((-12 + 24 * np.arange(steps + 1, dtype=np.float64) / steps).astype(np.float32))


def main():
    fine = grid(200000)
    coarse = grid(20000).requires_grad_(True)
    gelu = torch.nn.functional.gelu(fine)
    erf = torch.erf(coarse.detach())
    torch.nn.functional.gelu(coarse).sum().backward()
    data = torch.cat([gelu, erf, coarse.grad]).numpy().astype("<f4")
    OUT.write_bytes(data.tobytes())
    print(f"wrote {OUT} ({len(data)} values)")


if __name__ == "__main__":
    main()
