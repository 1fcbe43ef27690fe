"""Trains the playground's safetensors example model in PyTorch: a 64-32-10 MLP on data/digits.bin,
saved with safetensors.torch.save_file to www/assets/digits-mlp.safetensors (keys as
nn.Sequential's state_dict names them) and its test accuracy to www/assets/digits-mlp.json, which
the example prints next to webtorch's and the playground test compares. Deterministic:

    .venv-torch/bin/python scripts/make_playground_model.py
"""

import json
from pathlib import Path

import torch
from safetensors.torch import save_file

from digits_bin import read_digits

root = Path(__file__).resolve().parent.parent
x_train, y_train, x_test, y_test, h, w = read_digits(root)
x_train, x_test = x_train.reshape(len(x_train), -1), x_test.reshape(len(x_test), -1)
n_train, n_test = len(y_train), len(y_test)

torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10)
)
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
for epoch in range(30):
    perm = torch.randperm(n_train)
    for i in range(0, n_train, 64):
        idx = perm[i : i + 64]
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x_train[idx]), y_train[idx])
        loss.backward()
        opt.step()

with torch.no_grad():
    correct = int((model(x_test).argmax(1) == y_test).sum())
out = root / "www/assets"
out.mkdir(exist_ok=True)
state = {k: v.contiguous() for k, v in model.state_dict().items()}
save_file(state, out / "digits-mlp.safetensors", metadata={"source": "scripts/make_playground_model.py"})
(out / "digits-mlp.json").write_text(
    json.dumps(
        {
            "correct": correct,
            "test_accuracy_percent": 100 * correct / n_test,
            "n_test": n_test,
            "first_logits": model(x_test[:1]).detach().flatten().tolist(),
        },
        indent=2,
    )
    + "\n"
)
print(f"test accuracy {100 * correct / n_test:.2f} % ({correct}/{n_test})")
