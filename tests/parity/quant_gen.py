"""Fixtures for the custom-dtype test in tests/node/extend.test.mjs: a linear layer quantized to
int8 with one float32 scale per output row (symmetric, as weight-only int8 schemes store it),
saved with safetensors (weight as I8, weight.scale and bias as F32), and PyTorch's dequantized
weight and layer output for a fixed input.

Run: .venv-torch/bin/python tests/parity/quant_gen.py
"""

import json
import pathlib

import torch
from safetensors.torch import save_file

DIR = pathlib.Path(__file__).parent / "fixtures" / "extend"


def r(t):
    return [float(f"{v:.8g}") for v in t.detach().flatten().tolist()]


def main():
    torch.manual_seed(3)
    w = torch.randn(6, 5)
    b = torch.randn(6)
    scale = w.abs().amax(dim=1, keepdim=True) / 127
    q = torch.clamp(torch.round(w / scale), -128, 127).to(torch.int8)
    save_file(
        {"weight": q, "weight.scale": scale, "bias": b},
        str(DIR / "qlinear.safetensors"),
    )
    deq = q.float() * scale
    x = torch.randn(3, 5)
    y = torch.nn.functional.linear(x, deq, b)
    (DIR / "qlinear.json").write_text(
        json.dumps({"q": q.flatten().tolist(), "dequantized": r(deq), "x": r(x), "y": r(y)}) + "\n"
    )
    print(f"wrote {DIR / 'qlinear.safetensors'} and qlinear.json")


if __name__ == "__main__":
    main()
