"""PyTorch's gradients through in-place writes into views (CopySlices), for
tests/node/inplace_views.test.mjs, which runs the same programs by name.

Writes tests/parity/fixtures/inplace_views.json: {case: {name: values (flat lists)}}.

Run: .venv-torch/bin/python tests/parity/inplace_views_gen.py
"""

import json
from pathlib import Path

import torch

OUT = Path(__file__).parent / "fixtures" / "inplace_views.json"
W4 = [1.0, 2.0, 3.0, 4.0]


def leaf(values, shape=None):
    t = torch.tensor(values, dtype=torch.float32)
    return (t.view(shape) if shape else t).requires_grad_()


def flat(t):
    return t.detach().reshape(-1).tolist()


def slice_mul_():
    a = leaf(W4)
    y = a * 1
    y[0:2].mul_(5)
    (y * torch.tensor(W4)).sum().backward()
    return {"y": flat(y), "a.grad": flat(a.grad)}


def copy_into_slice():
    a, s = leaf(W4), leaf([7.0, 8.0])
    y = a * 1
    y[1:3].copy_(s * 2)
    (y * torch.tensor(W4)).sum().backward()
    return {"y": flat(y), "a.grad": flat(a.grad), "s.grad": flat(s.grad)}


def copy_into_zeros():
    s = leaf([7.0, 8.0])
    y = torch.zeros(4)
    y[1:3].copy_(s)
    (y * torch.tensor(W4)).sum().backward()
    return {"y": flat(y), "s.grad": flat(s.grad)}


def transposed_row():
    a = leaf(W4, [2, 2])
    y = a * 1
    y.t()[0].mul_(10)
    (y * torch.tensor(W4).view(2, 2)).sum().backward()
    return {"y": flat(y), "a.grad": flat(a.grad)}


def view_of_view():
    a = leaf(W4)
    y = a * 1
    v = y[1:]
    v[1:].mul_(3)
    (v * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    return {"y": flat(y), "a.grad": flat(a.grad)}


def reshaped_column():
    a = leaf(W4)
    y = a * 1
    y.view(2, 2).select(1, 0).mul_(2)
    (y * torch.tensor(W4)).sum().backward()
    return {"y": flat(y), "a.grad": flat(a.grad)}


def narrow_times_input():
    a = leaf(W4)
    y = a * 1
    y.narrow(0, 1, 2).mul_(a[1:3])
    (y * torch.tensor(W4)).sum().backward()
    return {"y": flat(y), "a.grad": flat(a.grad)}


def rows_of_zeros():
    h = leaf([1.0, 2.0, 3.0])
    out = torch.zeros(3, 3)
    for t in range(3):
        out[t].copy_(h * (t + 1))
    (out * torch.arange(9.0).view(3, 3)).sum().backward()
    return {"out": flat(out), "h.grad": flat(h.grad)}


def sibling_view():
    a = leaf(W4)
    y = a * 1
    u, v = y[0:2], y[1:3]
    v.mul_(10)
    (u * torch.tensor([1.0, 2.0])).sum().backward()
    return {"u": flat(u), "a.grad": flat(a.grad)}


def base_then_view():
    a = leaf(W4)
    y = a * 1
    u = y[0:2]
    y.mul_(3)
    (u * torch.tensor([1.0, 2.0])).sum().backward()
    return {"u": flat(u), "a.grad": flat(a.grad)}


def diagonal_add_():
    a, b = leaf([float(i) for i in range(9)], [3, 3]), leaf([1.0, -1.0, 2.0])
    m = a * 2
    m.diagonal().add_(b.exp())
    (m * torch.arange(9.0).view(3, 3)).sum().backward()
    return {"m": flat(m), "a.grad": flat(a.grad), "b.grad": flat(b.grad)}


def double_backward():
    a = leaf([0.5, -1.0, 2.0, 3.0])
    y = a * a
    y[0:2].mul_(a[0:2])
    (g,) = torch.autograd.grad(y.sum(), a, create_graph=True)
    (g * torch.tensor(W4)).sum().backward()
    return {"g": flat(g), "a.grad": flat(a.grad)}


def detached_transpose_base():
    # A base that is not contiguous and not a view (detach of a transpose): a view of it takes
    # the base's history after the base is written.
    d = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).t().detach()
    v = d[0:2, 1]
    s = leaf([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [3, 2])
    d.mul_(s)
    (v * torch.tensor([1.0, 2.0])).sum().backward()
    return {"v": flat(v), "s.grad": flat(s.grad)}


def write_into_transposed_base():
    # A write through a view of a base that is not contiguous (CopySlices on strided storage),
    # then another view of that base.
    a = leaf([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3])
    d = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).t().detach()
    u = d[:, 1]
    s = leaf([7.0, 8.0])
    d[1].copy_(s * 3)
    d.mul_(a.t())
    loss = (d * torch.arange(6.0).view(3, 2)).sum() + (u * torch.tensor([1.0, 2.0, 3.0])).sum()
    loss.backward()
    return {"d": flat(d), "u": flat(u), "s.grad": flat(s.grad), "a.grad": flat(a.grad)}


CASES = [
    slice_mul_,
    copy_into_slice,
    copy_into_zeros,
    transposed_row,
    view_of_view,
    reshaped_column,
    narrow_times_input,
    rows_of_zeros,
    sibling_view,
    base_then_view,
    diagonal_add_,
    double_backward,
    detached_transpose_base,
    write_into_transposed_base,
]


def main():
    out = {f.__name__: f() for f in CASES}
    lines = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in out.items()]
    version = torch.__version__.split("+")[0]
    OUT.write_text(f'{{"torch": "{version}", "cases": {{\n' + ",\n".join(lines) + "\n}}\n")
    print(f"wrote {OUT} ({len(out)} cases)")


if __name__ == "__main__":
    main()
