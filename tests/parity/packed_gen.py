"""PackedSequence parity fixtures from real PyTorch (tests/node/packed.test.mjs reads them).

Writes tests/parity/fixtures/train/packed_rnn.json:
  utils    pack_padded_sequence (sorted and not, batch_first), pad_packed_sequence (total_length),
           pack_sequence, pad_sequence (left and right), unpad_sequence, with the gradient of a
           weighted sum of the packed data with respect to the padded input
  modules  RNN/LSTM/GRU (multi-layer, bidirectional, batch_first, proj_size) over packed
           input of unsorted lengths, with and without an initial state: the state dict, the
           packed output, h_n (c_n), and the gradients of every parameter and of the padded
           input for a weighted sum of the outputs

Run: .venv-torch/bin/python tests/parity/packed_gen.py
"""

import json
from pathlib import Path

import torch
from torch import nn
from torch.nn.utils import rnn as R

OUT = Path(__file__).parent / "fixtures" / "train" / "packed_rnn.json"


def flat(t):
    return [float(f"{v:.8g}") for v in t.detach().reshape(-1).float().tolist()]


def spec(t):
    return {"shape": list(t.shape), "data": flat(t) if t.is_floating_point() else t.reshape(-1).tolist()}


def weights(t):
    return torch.linspace(-1, 1, t.numel()).reshape(t.shape)


def utils():
    g = torch.Generator().manual_seed(5)
    x = torch.randn(5, 4, 3, generator=g, requires_grad=True)
    lengths = [5, 3, 4, 2]
    p = R.pack_padded_sequence(x, lengths, enforce_sorted=False)
    (p.data * weights(p.data)).sum().backward()
    padded, lens = R.pad_packed_sequence(p, total_length=6)
    padded_bf, _ = R.pad_packed_sequence(p, batch_first=True, padding_value=-1.0)
    xs = x.detach()
    sorted_p = R.pack_padded_sequence(xs[:, [0, 2, 1, 3]], [5, 4, 3, 2])
    bf = R.pack_padded_sequence(xs.transpose(0, 1), lengths, batch_first=True, enforce_sorted=False)
    seqs = [xs[:2, 0], xs[:4, 1], xs[:3, 2]]
    ps = R.pack_sequence(seqs, enforce_sorted=False)
    return {
        "x": spec(x),
        "lengths": lengths,
        "packed": {
            "data": spec(p.data),
            "batch_sizes": p.batch_sizes.tolist(),
            "sorted_indices": p.sorted_indices.tolist(),
            "unsorted_indices": p.unsorted_indices.tolist(),
        },
        "x_grad": spec(x.grad),
        "padded": spec(padded),
        "padded_lengths": lens.tolist(),
        "padded_bf": spec(padded_bf),
        "sorted_data": spec(sorted_p.data),
        "bf_data": spec(bf.data),
        "seq_packed": {"data": spec(ps.data), "batch_sizes": ps.batch_sizes.tolist(),
                       "sorted_indices": ps.sorted_indices.tolist()},
        "pad_right": spec(R.pad_sequence(seqs, padding_value=2.0)),
        "pad_left_bf": spec(R.pad_sequence(seqs, batch_first=True, padding_side="left")),
    }


MODULES = [
    ("LSTM", {"num_layers": 2, "bidirectional": True}, False),
    ("LSTM", {"proj_size": 2, "bidirectional": True}, True),
    ("GRU", {"bidirectional": True, "batch_first": True}, True),
    ("GRU", {"num_layers": 2}, False),
    ("RNN", {"num_layers": 2, "nonlinearity": "relu", "bidirectional": True}, True),
    ("RNN", {}, False),
]


def modules():
    cases = []
    lengths = [3, 5, 2, 4]
    for i, (name, opts, with_hx) in enumerate(MODULES):
        torch.manual_seed(10 + i)
        m = getattr(nn, name)(3, 4, **opts)
        bf = opts.get("batch_first", False)
        x = torch.randn(4, 5, 3) if bf else torch.randn(5, 4, 3)
        x.requires_grad_()
        dirs = 2 if opts.get("bidirectional") else 1
        layers = opts.get("num_layers", 1)
        real = opts.get("proj_size", 0) or 4
        hx = None
        if with_hx:
            h0 = torch.randn(layers * dirs, 4, real)
            hx = (h0, torch.randn(layers * dirs, 4, 4)) if name == "LSTM" else h0
        p = R.pack_padded_sequence(x, lengths, batch_first=bf, enforce_sorted=False)
        out, h = m(p, hx)
        hs = list(h) if name == "LSTM" else [h]
        loss = (out.data * weights(out.data)).sum() + sum((t * weights(t) * 0.5).sum() for t in hs)
        loss.backward()
        case = {
            "module": name,
            "options": opts,
            "lengths": lengths,
            "state": [[k, spec(v)] for k, v in m.state_dict().items()],
            "x": spec(x),
            "hx": None if hx is None else [spec(t) for t in (hx if name == "LSTM" else [hx])],
            "out": spec(out.data),
            "batch_sizes": out.batch_sizes.tolist(),
            "h": [spec(t) for t in hs],
            "grads": [[k, spec(v.grad)] for k, v in m.named_parameters()],
            "x_grad": spec(x.grad),
        }
        cases.append(case)
    return cases


if __name__ == "__main__":
    OUT.write_text(json.dumps({"utils": utils(), "modules": modules()}, separators=(",", ":")))
    print("wrote", OUT)
