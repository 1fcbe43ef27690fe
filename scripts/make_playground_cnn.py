"""Trains the draw-a-digit example's CNN in PyTorch on data/digits.bin (8×8 digits, pixels / 16) and
saves it with safetensors.torch.save_file to www/assets/digits-cnn.safetensors (PyTorch's
state-dict names), with its test accuracy and the logits of the first test image in
www/assets/digits-cnn.json, which the example prints next to webtorch's and the playground test
compares. The architecture is the one www/src/examples/draw-digit/model.ts writes with webtorch.nn.
Training images are shifted by up to a pixel at random, so that drawings placed a little off
centre read the same. Deterministic:

    .venv-torch/bin/python scripts/make_playground_cnn.py
    npx prettier --write www/assets/digits-cnn.json   # make lint-ts checks www/ with prettier
"""

import json
from pathlib import Path

import torch
import torch.nn.functional as F
from safetensors.torch import save_file

from digits_bin import read_digits

root = Path(__file__).resolve().parent.parent
x_train, y_train, x_test, y_test, h, w = read_digits(root)
x_train, x_test = x_train.unsqueeze(1), x_test.unsqueeze(1)
n_train, n_test = len(y_train), len(y_test)


class DigitCNN(torch.nn.Module):
    """conv 3×3 → ReLU → 2×2 max pool, twice (8×8 → 4×4 → 2×2), then a linear layer."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(16, 32, 3, padding=1)
        self.fc = torch.nn.Linear(32 * 2 * 2, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


def shifted(x):
    """Each image moved by -1, 0 or 1 pixel on each axis (zero padding)."""
    padded = F.pad(x, (1, 1, 1, 1))
    dy, dx = torch.randint(0, 3, (2, x.shape[0]))
    return torch.stack(
        [padded[i, :, dy[i] : dy[i] + h, dx[i] : dx[i] + w] for i in range(x.shape[0])]
    )


torch.manual_seed(0)
model = DigitCNN()
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
for epoch in range(40):
    perm = torch.randperm(n_train)
    for i in range(0, n_train, 64):
        idx = perm[i : i + 64]
        opt.zero_grad()
        loss = F.cross_entropy(model(shifted(x_train[idx])), y_train[idx])
        loss.backward()
        opt.step()

model.eval()
with torch.no_grad():
    correct = int((model(x_test).argmax(1) == y_test).sum())
    first = model(x_test[:1]).flatten().tolist()
out = root / "www/assets"
out.mkdir(exist_ok=True)
state = {k: v.contiguous() for k, v in model.state_dict().items()}
save_file(state, out / "digits-cnn.safetensors", metadata={"source": "scripts/make_playground_cnn.py"})
(out / "digits-cnn.json").write_text(
    json.dumps(
        {
            "correct": correct,
            "test_accuracy_percent": 100 * correct / n_test,
            "n_test": n_test,
            "first_logits": first,
        },
        indent=2,
    )
    + "\n"
)
print(f"test accuracy {100 * correct / n_test:.2f} % ({correct}/{n_test})")
