"""PyTorch's values for the last function-index names (tests/node/surface.test.mjs): nextafter
(float32 and float64, bit-exact, with its gradients), histogram, the in-place view methods
(shapes, strides, versions, gradients) and grid_sample's bicubic mode (values and both
gradients, every padding mode and align_corners).

Writes tests/parity/fixtures/surface.json. Floats that must be exact travel as their bits
(float32: an unsigned int; float64: a decimal string of the 64 bits). Run with
.venv-torch/bin/python.
"""

import json
import struct
from pathlib import Path

import torch

INF, NAN = float("inf"), float("nan")


def bits32(t):
    return [struct.unpack("<I", struct.pack("<f", v))[0] for v in t.flatten().tolist()]


def bits64(t):
    return [str(struct.unpack("<Q", struct.pack("<d", v))[0]) for v in t.flatten().tolist()]


def error(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001 - the message is what the fixture records
        return str(e)
    raise AssertionError("expected an error")


def nextafter_cases():
    tiny32 = struct.unpack("<f", struct.pack("<I", 1))[0]
    values = [0.0, -0.0, 1.0, -1.0, tiny32, -tiny32, 1.1754943508222875e-38, 3.4028234663852886e38,
              INF, -INF, NAN, 2.5]
    a = torch.tensor([x for x in values for _ in values])
    b = torch.tensor([y for _ in values for y in values])
    out = {"a": bits32(a), "b": bits32(b), "f32": bits32(torch.nextafter(a, b))}
    tiny64 = 5e-324
    v64 = [0.0, -0.0, 1.0, -1.0, tiny64, -tiny64, 2.2250738585072014e-308, 1.7976931348623157e308,
           INF, -INF, NAN, 2.5]
    a64 = torch.tensor([x for x in v64 for _ in v64], dtype=torch.float64)
    b64 = torch.tensor([y for _ in v64 for y in v64], dtype=torch.float64)
    out.update(a64=bits64(a64), b64=bits64(b64), f64=bits64(torch.nextafter(a64, b64)))
    x = torch.tensor([1.0, -2.0, 3.0, 0.0, NAN, 1.0], requires_grad=True)
    y = torch.tensor([0.0, 5.0, 3.0, -0.0, 2.0, NAN], requires_grad=True)
    (torch.nextafter(x, y) * torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])).sum().backward()
    out["grad"] = {"x": x.grad.tolist(), "y": y.grad.tolist()}
    out["errors"] = {
        "int64": error(lambda: torch.nextafter(torch.tensor([1]), torch.tensor([2]))),
        "bool": error(lambda: torch.nextafter(torch.tensor([True]), torch.tensor([False]))),
    }
    return out


def histogram_cases():
    g = torch.Generator().manual_seed(3)
    data = torch.randn(40, generator=g) * 2
    data[3], data[7] = 5.0, -4.0
    w = torch.rand(40, generator=g)
    cases = []

    def case(x, bins, **kw):
        args = dict(kw)
        if isinstance(bins, torch.Tensor):
            spec = {"edges": bins.tolist()}
        else:
            spec = {"count": bins}
        weight = args.pop("weight", None)
        r = torch.histogram(x, bins, weight=weight, **args)
        cases.append({"x": x.tolist(), "bins": spec, "range": args.get("range"),
                      "weight": None if weight is None else weight.tolist(),
                      "density": args.get("density", False),
                      "hist": r.hist.tolist(), "edges": r.bin_edges.tolist()})

    case(data, 7)
    case(data, 5, range=(-1.0, 2.0))
    case(data, 4, range=(-1.0, 2.0), density=True)
    case(data, 6, weight=w)
    case(data, torch.tensor([-3.0, -0.5, 0.0, 1.0, 4.0]), weight=w, density=True)
    case(torch.tensor([1.0, 1.0, 1.0]), 3)
    case(torch.tensor([0.0, 1.0, 2.0, 3.0, 3.0]), 3, range=(0.0, 3.0))
    case(torch.tensor([0.1, 0.2, 0.3, 0.7, 1.0, INF, -INF]), 10, range=(0.0, 1.0))
    case(torch.tensor([]), 3)
    case(torch.tensor([2.0, NAN, 1.0]), 2, range=(0.0, 4.0))
    y = torch.ones(2)
    errors = [
        {"call": "bins0", "message": error(lambda: torch.histogram(y, 0))},
        {"call": "range_order", "message": error(lambda: torch.histogram(y, 3, range=(2.0, 1.0)))},
        {"call": "range_inf", "message": error(lambda: torch.histogram(y, 3, range=(0.0, INF)))},
        {"call": "int", "message": error(lambda: torch.histogram(torch.tensor([1, 2]), 3))},
        {"call": "bins2d", "message": error(lambda: torch.histogram(y, torch.tensor([[2.0, 1.0]])))},
        {"call": "weight_shape", "message": error(lambda: torch.histogram(y, 3, weight=torch.ones(3)))},
        {"call": "nan_data", "message": error(lambda: torch.histogram(torch.tensor([1.0, NAN]), 3))},
    ]
    return {"cases": cases, "errors": errors}


def view_cases():
    """Each sequence of in-place view ops on `x * 1` (a non-leaf) of a leaf `x`."""
    g = torch.Generator().manual_seed(5)
    seqs = [
        ("t_", [[]]),
        ("transpose_", [[0, 2]]),
        ("swapaxes_", [[1, -1]]),
        ("swapdims_", [[0, 1]]),
        ("unsqueeze_", [[1], [-1]]),
        ("squeeze_", [[], ]),
        ("squeeze_", [[0]]),
        ("squeeze_", [[[0, 2]]]),
        ("as_strided_", [[[2, 2], [1, 3], 1]]),
    ]
    shapes = {"t_": [2, 3], "squeeze_": [1, 3, 1, 2], "as_strided_": [2, 3]}
    seqs = [(name, [(name, a) for a in calls], None) for name, calls in seqs]
    # A view of a non-leaf re-laid twice: its base's history takes the gradient.
    seqs.append(("t_", [("t_", []), ("unsqueeze_", [0])], [0, 0, 2]))
    out = []
    for first, calls, narrow in seqs:
        shape = [3, 4] if narrow else shapes.get(first, [2, 3, 4])
        x = torch.randn(*shape, generator=g, requires_grad=True)
        y = x * 1
        if narrow:
            y = y.narrow(*narrow)
        v0 = y._version
        steps = []
        for name, a in calls:
            r = getattr(y, name)(*a)
            assert r is y
            steps.append({"name": name, "args": a, "shape": list(y.shape), "stride": list(y.stride()),
                          "offset": y.storage_offset(), "contiguous": y.is_contiguous(),
                          "version": y._version - v0, "grad_fn": type(y.grad_fn).__name__})
        up = torch.randn(*y.shape, generator=g)
        (y * up).sum().backward()
        out.append({"narrow": narrow, "x": x.detach().flatten().tolist(), "shape": shape,
                    "steps": steps, "values": y.detach().flatten().tolist(),
                    "up": up.flatten().tolist(), "grad": x.grad.flatten().tolist()})
    leaf = torch.randn(2, 3, requires_grad=True)
    errors = {
        "leaf": error(lambda: leaf.t_()),
        "view_of_leaf": error(lambda: leaf[0].unsqueeze_(0)),
        "t_3d": error(lambda: torch.randn(2, 3, 4).t_()),
        "unsqueeze_range": error(lambda: torch.randn(2).unsqueeze_(3)),
    }
    return {"cases": out, "errors": errors}


def grid_cases():
    g = torch.Generator().manual_seed(7)
    x0 = torch.randn(2, 2, 4, 5, generator=g)
    grid0 = torch.rand(2, 3, 4, 2, generator=g) * 2.6 - 1.3
    up = torch.randn(2, 2, 3, 4, generator=g)
    out = []
    for padding in ["zeros", "border", "reflection"]:
        for align in [False, True]:
            x = x0.clone().requires_grad_(True)
            grid = grid0.clone().requires_grad_(True)
            y = torch.nn.functional.grid_sample(x, grid, mode="bicubic", padding_mode=padding,
                                                align_corners=align)
            (y * up).sum().backward()
            out.append({"padding": padding, "align": align, "y": y.detach().flatten().tolist(),
                        "gx": x.grad.flatten().tolist(), "ggrid": grid.grad.flatten().tolist()})
    x3 = torch.randn(1, 2, 3, 3, 4, generator=g)
    grid3 = torch.rand(1, 2, 2, 3, 3, generator=g) * 2.6 - 1.3
    up3 = torch.randn(1, 2, 2, 2, 3, generator=g)
    out3 = []
    for padding, align in [("zeros", False), ("reflection", True)]:
        x = x3.clone().requires_grad_(True)
        grid = grid3.clone().requires_grad_(True)
        y = torch.nn.functional.grid_sample(x, grid, mode="bicubic", padding_mode=padding,
                                            align_corners=align)
        (y * up3).sum().backward()
        out3.append({"padding": padding, "align": align, "y": y.detach().flatten().tolist(),
                     "gx": x.grad.flatten().tolist(), "ggrid": grid.grad.flatten().tolist()})
    return {"x": x0.flatten().tolist(), "grid": grid0.flatten().tolist(), "up": up.flatten().tolist(),
            "cases": out, "x3": x3.flatten().tolist(), "grid3": grid3.flatten().tolist(),
            "up3": up3.flatten().tolist(), "cases3": out3}


def main():
    fixture = {"nextafter": nextafter_cases(), "histogram": histogram_cases(),
               "views": view_cases(), "grid_sample": grid_cases()}
    path = Path(__file__).parent / "fixtures" / "surface.json"
    path.write_text(json.dumps(fixture, separators=(",", ":")).replace("NaN", '"nan"')
                    .replace("-Infinity", '"-inf"').replace("Infinity", '"inf"') + "\n")


if __name__ == "__main__":
    main()
