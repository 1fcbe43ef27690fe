"""CNN training parity fixtures from real PyTorch (tests/node/train.test.mjs reads them).

The small CNN of examples/cnn-digits.mjs with a fixed seed:
  Sequential(Conv2d(1, 8, 3, padding=1), ReLU(), MaxPool2d(2), Conv2d(8, 16, 3, padding=1), ReLU(),
             MaxPool2d(2), Flatten(), Linear(64, 10)), cross_entropy
trained 20 steps on a fixed batch of 16 digits (the first 16 training images of data/digits.bin,
pixels / 16) with SGD-momentum and with AdamW.

Writes tests/parity/fixtures/train/:
  cnn_init.safetensors   initial weights (safetensors.torch, PyTorch's key names)
  cnn_train.json         the batch, and per optimizer: options, 20 per-step losses, final weights

Run: .venv-torch/bin/python tests/parity/cnn_gen.py   (deterministic; after scripts/make_digits.py)
"""

import json
import struct
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import save_file

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).parent / "fixtures" / "train"
STEPS = 20
BATCH = 16

RUNS = {
    "sgd_momentum": ("SGD", {"lr": 0.1, "momentum": 0.9}),
    "adamw": ("AdamW", {"lr": 0.01, "weight_decay": 0.01}),
}


def flat(t):
    return [float(f"{v:.9g}") for v in t.detach().reshape(-1).tolist()]


def cnn():
    torch.manual_seed(0)
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64, 10),
    )


def digits_batch():
    blob = (ROOT / "data" / "digits.bin").read_bytes()
    assert blob[:8] == b"DIGITS8\0"
    n_train = struct.unpack_from("<I", blob, 8)[0]
    pixels = np.frombuffer(blob, np.uint8, BATCH * 64, 24)
    labels = np.frombuffer(blob, np.uint8, BATCH, 24 + n_train * 64)
    x = torch.tensor(pixels.astype(np.float32) / 16).reshape(BATCH, 1, 8, 8)
    return x, torch.tensor(labels.astype(np.int64))


def main():
    torch.use_deterministic_algorithms(True)
    OUT.mkdir(parents=True, exist_ok=True)
    init = {k: v.clone().contiguous() for k, v in cnn().state_dict().items()}
    save_file(init, OUT / "cnn_init.safetensors")
    x, y = digits_batch()
    runs = {}
    for name, (opt_name, opts) in RUNS.items():
        model = cnn()
        model.load_state_dict(init)
        opt = getattr(torch.optim, opt_name)(model.parameters(), foreach=False, **opts)
        losses = []
        for _ in range(STEPS):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            losses.append(float(f"{loss.item():.9g}"))
        runs[name] = {
            "optimizer": opt_name,
            "options": opts,
            "losses": losses,
            "final": {k: flat(v) for k, v in model.state_dict().items()},
        }
    fixture = {
        "model": "Sequential(Conv2d(1,8,3,padding=1), ReLU(), MaxPool2d(2), Conv2d(8,16,3,padding=1), "
        "ReLU(), MaxPool2d(2), Flatten(), Linear(64,10)), cross_entropy",
        "torch": torch.__version__.split("+")[0],
        "steps": STEPS,
        # pixels are k/16 exactly: store the integers
        "x": {"shape": list(x.shape), "pixels16": [int(v) for v in (x * 16).reshape(-1).tolist()]},
        "y": y.tolist(),
        "runs": runs,
    }
    (OUT / "cnn_train.json").write_text(json.dumps(fixture, separators=(",", ":")))
    for name, r in runs.items():
        print(f"{name}: loss {r['losses'][0]:.4f} -> {r['losses'][-1]:.4f}")
    print("wrote cnn_init.safetensors, cnn_train.json")


if __name__ == "__main__":
    main()
