"""Fixtures for tests/node/extend.test.mjs: a small MLP whose activation is a custom op, swish
with a scalar beta (z * sigmoid(beta * z)), trained with plain SGD on a fixed batch. The test
registers the op as user WGSL + JS CPU kernels with a backward kernel and must reproduce these
per-step losses and final weights. Also the values of a few ops for the custom-device test.

Run: .venv-torch/bin/python tests/parity/extend_gen.py
"""

import json
import pathlib

import torch

OUT = pathlib.Path(__file__).parent / "fixtures" / "extend" / "swish_train.json"
DEVICE = OUT.with_name("device_ops.json")


def r(t):
    return [float(f"{v:.8g}") for v in t.detach().flatten().tolist()]


def main():
    torch.manual_seed(11)
    beta, lr, steps = 1.5, 0.2, 8
    x = torch.randn(16, 4)
    y = torch.randn(16, 2)
    w1 = (torch.randn(4, 8) * 0.5).requires_grad_()
    b1 = (torch.randn(8) * 0.1).requires_grad_()
    w2 = (torch.randn(8, 2) * 0.5).requires_grad_()
    b2 = torch.zeros(2).requires_grad_()
    init = {k: r(v) for k, v in dict(w1=w1, b1=b1, w2=w2, b2=b2).items()}
    losses = []
    for _ in range(steps):
        z = x @ w1 + b1
        h = z * torch.sigmoid(beta * z)
        loss = ((h @ w2 + b2 - y) ** 2).mean()
        losses.append(loss.item())
        for p in (w1, b1, w2, b2):
            p.grad = None
        loss.backward()
        with torch.no_grad():
            for p in (w1, b1, w2, b2):
                p -= lr * p.grad
    # One forward/backward of the op alone, with edge values.
    z = torch.tensor([-30.0, -2.0, -0.5, 0.0, 0.5, 2.0, 30.0], requires_grad=True)
    out = z * torch.sigmoid(beta * z)
    out.backward(torch.arange(1.0, 8.0))
    fixture = {
        "beta": beta,
        "lr": lr,
        "steps": steps,
        "x": r(x),
        "y": r(y),
        "init": init,
        "losses": [float(f"{v:.8g}") for v in losses],
        "final": {k: r(v) for k, v in dict(w1=w1, b1=b1, w2=w2, b2=b2).items()},
        "op": {"z": r(z), "out": r(out), "grad": r(z.grad)},
    }
    OUT.write_text(json.dumps(fixture) + "\n")
    print(f"wrote {OUT}")
    # A custom device's ops: matmul, broadcast add and relu on the device, tanh through the CPU.
    x, w, b = torch.randn(3, 4), torch.randn(4, 2), torch.randn(2)
    h = torch.relu(x @ w + b)
    device = {"x": r(x), "w": r(w), "b": r(b), "h": r(h), "y": r(torch.tanh(h) * 2)}
    # Backward through the device's ops: gradients of sum(tanh(relu(x @ w + b)) * 2).
    w.requires_grad_()
    b.requires_grad_()
    (torch.tanh(torch.relu(x @ w + b)) * 2).sum().backward()
    device["dw"], device["db"] = r(w.grad), r(b.grad)
    DEVICE.write_text(json.dumps(device) + "\n")
    print(f"wrote {DEVICE}")


if __name__ == "__main__":
    main()
