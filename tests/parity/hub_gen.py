"""A small PyTorch-made safetensors state dict for tests/node/hub.test.mjs, which serves it over
HTTP to torch.hub, and its tensors' values and dtypes.

Writes tests/parity/fixtures/hub/tiny.safetensors and tests/parity/fixtures/hub/tiny.json.
Run: .venv-torch/bin/python tests/parity/hub_gen.py
"""

import json
from pathlib import Path

import torch
from safetensors.torch import save_file

OUT = Path(__file__).parent / "fixtures" / "hub"


def main():
    OUT.mkdir(exist_ok=True)
    torch.manual_seed(0)
    lin = torch.nn.Linear(64, 48)
    state = {
        "weight": lin.weight.detach(),
        "bias": lin.bias.detach(),
        "steps": torch.tensor([3, -1, 7], dtype=torch.int64),
        "mask": torch.tensor([True, False, True]),
    }
    save_file(state, str(OUT / "tiny.safetensors"))
    values = {k: {"dtype": str(v.dtype).removeprefix("torch."), "shape": list(v.shape), "values": v.flatten().tolist()} for k, v in state.items()}
    (OUT / "tiny.json").write_text(json.dumps(values, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
