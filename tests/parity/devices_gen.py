"""Fixtures for tests/node/devices.test.mjs: what PyTorch's casts give (`Tensor.half()`,
`.bfloat16()` at rounding ties, overflow, subnormals), what `Module.half()` / `.bfloat16()` do to
a module's parameters and buffers (integer buffers keep their dtype), and two SGD steps with
momentum of a module moved between the steps (the optimizer made before the move).

Run: .venv-torch/bin/python tests/parity/devices_gen.py
"""

import json
import pathlib

import torch

OUT = pathlib.Path(__file__).parent / "fixtures" / "devices" / "casts.json"


def num(v):
    # JSON has no infinities: "inf" / "-inf" (the test reads them back).
    return float(f"{v:.9g}") if abs(v) != float("inf") else ("inf" if v > 0 else "-inf")


def r(t):
    return [num(v) for v in t.detach().float().flatten().tolist()]


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 4)
        self.bn = torch.nn.BatchNorm1d(4)

    def forward(self, x):
        return self.bn(self.fc(x))


def main():
    torch.manual_seed(5)
    # Rounding cases: float16 ties (1 + 2^-11, 1 + 3·2^-11), its overflow and subnormals;
    # bfloat16 ties (1 + 2^-8, 1 + 3·2^-8) and values beyond float16's range.
    values = torch.cat(
        [
            torch.tensor(
                [1 + 2**-11, 1 + 3 * 2**-11, 65504.0, 65520.0, 70000.0, -1e5, 6e-8,
                 3e-8, 1e-4, 1 + 2**-8, 1 + 3 * 2**-8, 3.0e38, -1.5e-30, 0.1, -0.0]
            ),
            torch.randn(17) * 100,
        ]
    )
    net = Net()
    with torch.no_grad():
        net.bn.running_mean.copy_(torch.randn(4))
        net.bn.running_var.copy_(torch.rand(4) + 0.5)
    net.bn.num_batches_tracked.fill_(3)
    state = {k: r(v) for k, v in net.state_dict().items() if v.is_floating_point()}
    cast = {}
    for name, dtype in [("float16", torch.float16), ("bfloat16", torch.bfloat16)]:
        m = Net()
        m.load_state_dict(net.state_dict())
        m.to(dtype)
        sd = m.state_dict()
        cast[name] = {
            "values": r(values.to(dtype)),
            "state": {k: r(v) for k, v in sd.items() if v.is_floating_point()},
            "dtypes": {k: str(v.dtype).removeprefix("torch.") for k, v in sd.items()},
        }

    # Two SGD steps with momentum; the module moves between them (the optimizer made before).
    x = torch.randn(5, 3)
    m = Net()
    m.load_state_dict(net.state_dict())
    opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    for _ in range(2):
        opt.zero_grad()
        m(x).pow(2).mean().backward()
        opt.step()
    trained = {k: r(v) for k, v in m.state_dict().items() if v.is_floating_point()}

    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(
        json.dumps(
            {
                "values": r(values),
                "state": state,
                "cast": cast,
                "x": r(x),
                "trained": trained,
            },
            separators=(",", ":"),
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
