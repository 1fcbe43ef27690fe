"""Parity fixtures for the nn additions of issue #32 (tests/node/nn_extra.test.mjs reads them).

Writes tests/parity/fixtures/train/nn_extra.json:
  functional  one case per call of a torch.nn.functional function (sampling, shuffling, sliding
              blocks, 3-D convolution and pooling): its float inputs, keyword arguments, output,
              and the gradient of each input for the loss (out * gout).sum(), gout a fixed
              random tensor of the output's shape
  modules     one case per module: constructor arguments, state_dict (PyTorch's keys, in order),
              input, output, and the gradients of the input and every parameter for the same loss;
              training-mode modules also record their buffers after the forward
  hooks       a Linear layer's full backward hook: the grad_input and grad_output PyTorch passes
  state_dict_hooks  the order, prefixes and keys PyTorch's state-dict and load hooks see
  errors      PyTorch's message for each bad call of ERROR_CALLS

Run: .venv-torch/bin/python tests/parity/nn_extra_gen.py
"""

import json
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

OUT = Path(__file__).parent / "fixtures" / "train" / "nn_extra.json"
GEN = torch.Generator().manual_seed(32)


def flat(t):
    return [float(f"{v:.7g}") for v in t.detach().reshape(-1).float().tolist()]


def spec(t):
    d = {"shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch.")}
    d["data"] = flat(t) if t.is_floating_point() else [int(v) for v in t.reshape(-1).tolist()]
    return d


def rn(*shape, scale=1.0):
    return torch.randn(*shape, generator=GEN) * scale


def uniform(*shape, lo=-1.0, hi=1.0):
    return torch.rand(*shape, generator=GEN) * (hi - lo) + lo


def functional(name, fn, inputs, kwargs, grad=None):
    """`fn(*inputs, **kwargs)` and the gradients of the inputs listed in `grad` (default all)."""
    grad = list(range(len(inputs))) if grad is None else grad
    xs = [t.clone().requires_grad_(i in grad) for i, t in enumerate(inputs)]
    out = getattr(F, fn)(*xs, **kwargs)
    gout = rn(*out.shape)
    (out * gout).sum().backward()
    return {
        "name": name,
        "fn": fn,
        "inputs": [spec(t) for t in inputs],
        "kwargs": kwargs,
        "out": spec(out),
        "gout": flat(gout),
        "grads": [flat(x.grad) if x.grad is not None else None for x in xs],
    }


def functional_cases():
    c = []
    x = rn(3, 4, 5)
    c.append(functional("normalize p2 dim1", "normalize", [x], {}))
    c.append(functional("normalize p1 dim-1", "normalize", [x], {"p": 1.0, "dim": -1}))
    c.append(functional("normalize p3 eps", "normalize", [rn(2, 6, scale=0.1)], {"p": 3.0, "eps": 0.5}))
    c.append(functional("pixel_shuffle 4d", "pixel_shuffle", [rn(2, 8, 3, 2)], {"upscale_factor": 2}))
    c.append(functional("pixel_shuffle 5d", "pixel_shuffle", [rn(2, 1, 9, 2, 2)], {"upscale_factor": 3}))
    c.append(functional("pixel_unshuffle", "pixel_unshuffle", [rn(2, 2, 4, 6)], {"downscale_factor": 2}))
    c.append(
        functional(
            "unfold dilation padding stride",
            "unfold",
            [rn(2, 3, 5, 6)],
            {"kernel_size": [2, 3], "dilation": [1, 2], "padding": 1, "stride": [2, 1]},
        )
    )
    c.append(functional("unfold unbatched", "unfold", [rn(3, 4, 4)], {"kernel_size": 2}))
    c.append(
        functional(
            "fold strided padded",
            "fold",
            [rn(2, 12, 12)],
            {"output_size": [5, 6], "kernel_size": 2, "padding": 1, "stride": 2},
        )
    )
    c.append(
        functional(
            "fold overlapping dilated",
            "fold",
            [rn(1, 18, 12)],
            {"output_size": [4, 5], "kernel_size": [3, 2], "dilation": [1, 2], "padding": [1, 0]},
        )
    )
    c.append(functional("fold unbatched", "fold", [rn(8, 9)], {"output_size": 4, "kernel_size": 2}))
    img = rn(2, 3, 4, 5)
    grid = uniform(2, 3, 4, 2, lo=-1.3, hi=1.3)
    for mode in ["bilinear", "nearest"]:
        for pm in ["zeros", "border", "reflection"]:
            for ac in [False, True]:
                c.append(
                    functional(
                        f"grid_sample {mode} {pm} align={ac}",
                        "grid_sample",
                        [img, grid],
                        {"mode": mode, "padding_mode": pm, "align_corners": ac},
                    )
                )
    vol = rn(2, 2, 3, 4, 5)
    vgrid = uniform(2, 2, 3, 2, 3, lo=-1.3, hi=1.3)
    for mode, pm, ac in [
        ("bilinear", "zeros", False),
        ("bilinear", "border", True),
        ("bilinear", "reflection", False),
        ("nearest", "zeros", True),
        ("nearest", "reflection", False),
    ]:
        c.append(
            functional(
                f"grid_sample 5d {mode} {pm} align={ac}",
                "grid_sample",
                [vol, vgrid],
                {"mode": mode, "padding_mode": pm, "align_corners": ac},
            )
        )
    theta = rn(2, 2, 3)
    for ac in [False, True]:
        c.append(functional(f"affine_grid 2d align={ac}", "affine_grid", [theta], {"size": [2, 3, 4, 5], "align_corners": ac}))
    c.append(functional("affine_grid 3d", "affine_grid", [rn(2, 3, 4)], {"size": [2, 1, 3, 4, 2], "align_corners": False}))
    c.append(
        functional(
            "conv3d stride padding dilation",
            "conv3d",
            [rn(2, 3, 4, 5, 6), rn(4, 3, 2, 3, 2, scale=0.3), rn(4)],
            {"stride": [1, 2, 1], "padding": 1, "dilation": [1, 1, 2]},
        )
    )
    c.append(
        functional(
            "conv_transpose3d groups output_padding",
            "conv_transpose3d",
            [rn(2, 4, 3, 4, 3), rn(4, 1, 2, 3, 2, scale=0.3), rn(2)],
            {"stride": 2, "padding": [0, 1, 0], "output_padding": [1, 0, 0], "groups": 2},
        )
    )
    c.append(functional("max_pool3d padding", "max_pool3d", [rn(2, 3, 5, 6, 7)], {"kernel_size": 2, "stride": [2, 1, 2], "padding": 1}))
    c.append(functional("max_pool3d ceil dilation", "max_pool3d", [rn(1, 2, 5, 5, 6)], {"kernel_size": [2, 2, 3], "dilation": [1, 2, 1], "ceil_mode": True}))
    c.append(
        functional(
            "avg_pool3d exclude pad",
            "avg_pool3d",
            [rn(2, 3, 5, 6, 7)],
            {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False},
        )
    )
    c.append(functional("avg_pool3d divisor", "avg_pool3d", [rn(1, 2, 4, 4, 4)], {"kernel_size": 2, "divisor_override": 3}))
    c.append(functional("adaptive_avg_pool3d", "adaptive_avg_pool3d", [rn(2, 3, 5, 6, 7)], {"output_size": [2, 3, 4]}))
    c.append(functional("adaptive_max_pool3d", "adaptive_max_pool3d", [rn(2, 3, 5, 6, 7)], {"output_size": [2, 4, 3]}))
    c.append(functional("interpolate area 5d", "interpolate", [rn(1, 2, 5, 4, 6)], {"size": [2, 3, 4], "mode": "area"}))
    return c


def module_case(name, cls, args, kwargs, x, train=False):
    torch.manual_seed(len(name))
    m = getattr(nn, cls)(*args, **kwargs)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(rn(*p.shape, scale=0.5))
    m.train(train)
    state = {k: spec(v) for k, v in m.state_dict().items()}
    xi = x.clone().requires_grad_(True)
    out = m(xi)
    gout = rn(*out.shape)
    (out * gout).sum().backward()
    case = {
        "name": name,
        "cls": cls,
        "args": args,
        "kwargs": kwargs,
        "repr": repr(m),
        "train": train,
        "state": state,
        "input": spec(x),
        "out": spec(out),
        "gout": flat(gout),
        "grad_input": flat(xi.grad),
        "grads": {k: flat(p.grad) for k, p in m.named_parameters()},
    }
    if train:
        case["buffers_after"] = {k: spec(v) for k, v in m.named_buffers()}
    return case


def module_cases():
    c = []
    c.append(module_case("Conv3d", "Conv3d", [3, 4, [2, 3, 2]], {"stride": [1, 2, 1], "padding": 1}, rn(2, 3, 4, 5, 6)))
    c.append(module_case("Conv3d no bias groups", "Conv3d", [4, 2, 2], {"groups": 2, "bias": False}, rn(1, 4, 3, 3, 3)))
    c.append(
        module_case(
            "ConvTranspose3d",
            "ConvTranspose3d",
            [3, 2, 2],
            {"stride": 2, "padding": [1, 0, 0], "output_padding": [1, 1, 0]},
            rn(2, 3, 3, 2, 3),
        )
    )
    c.append(module_case("BatchNorm3d train", "BatchNorm3d", [3], {}, rn(2, 3, 2, 3, 4), train=True))
    c.append(module_case("BatchNorm3d eval", "BatchNorm3d", [3], {"momentum": None}, rn(2, 3, 2, 3, 4)))
    c.append(module_case("MaxPool3d", "MaxPool3d", [2], {"stride": 1, "padding": 1}, rn(1, 2, 3, 4, 3)))
    c.append(module_case("AvgPool3d", "AvgPool3d", [[2, 2, 3]], {"stride": [1, 2, 1]}, rn(1, 2, 3, 4, 5)))
    c.append(module_case("AdaptiveAvgPool3d", "AdaptiveAvgPool3d", [[2, None, 3]], {}, rn(1, 2, 5, 4, 5)))
    c.append(module_case("AdaptiveMaxPool3d", "AdaptiveMaxPool3d", [[2, None, 3]], {}, rn(2, 5, 4, 5)))
    c.append(module_case("Upsample nearest", "Upsample", [], {"scale_factor": 2.0, "mode": "nearest"}, rn(1, 2, 3, 4)))
    c.append(
        module_case("Upsample bilinear", "Upsample", [], {"size": [5, 7], "mode": "bilinear", "align_corners": True}, rn(1, 2, 3, 4))
    )
    c.append(module_case("PixelShuffle", "PixelShuffle", [2], {}, rn(1, 8, 2, 3)))
    c.append(module_case("PixelUnshuffle", "PixelUnshuffle", [3], {}, rn(1, 1, 6, 3)))
    c.append(module_case("Unfold", "Unfold", [[2, 3]], {"padding": 1, "stride": 2}, rn(2, 2, 4, 5)))
    c.append(module_case("Fold", "Fold", [[4, 5], 2], {"dilation": 1, "stride": 1}, rn(2, 8, 12)))
    pads = [
        ("ZeroPad1d", [[1, 2]], rn(2, 3, 4)),
        ("ZeroPad2d", [[1, 2, 0, 3]], rn(1, 2, 3, 4)),
        ("ZeroPad3d", [1], rn(1, 2, 2, 3, 2)),
        ("ConstantPad1d", [2, 1.5], rn(2, 3, 4)),
        ("ConstantPad2d", [[1, 0, 2, 1], -2.0], rn(1, 2, 3, 4)),
        ("ConstantPad3d", [[1, 0, 0, 1, 2, 0], 0.5], rn(1, 2, 2, 3, 2)),
        ("ReflectionPad1d", [[2, 1]], rn(2, 3, 4)),
        ("ReflectionPad2d", [[1, 2, 2, 0]], rn(1, 2, 3, 4)),
        ("ReflectionPad3d", [1], rn(1, 2, 2, 3, 3)),
        ("ReplicationPad1d", [[3, 1]], rn(2, 3, 4)),
        ("ReplicationPad2d", [2], rn(1, 2, 3, 4)),
        ("ReplicationPad3d", [[1, 2, 0, 1, 1, 0]], rn(1, 2, 2, 3, 2)),
        ("CircularPad1d", [[2, 1]], rn(2, 3, 4)),
        ("CircularPad2d", [1], rn(1, 2, 3, 4)),
        ("CircularPad3d", [[1, 0, 1, 1, 0, 1]], rn(1, 2, 2, 3, 2)),
    ]
    for cls, args, x in pads:
        c.append(module_case(cls, cls, args, {}, x))
    return c


def hooks():
    """A Linear layer's full backward hook: PyTorch passes (grad_input,), (grad_output,)."""
    torch.manual_seed(3)
    m = nn.Linear(4, 3)
    x = rn(2, 4).requires_grad_(True)
    seen = {}

    def hook(mod, gin, gout):
        seen["grad_input"] = [flat(g) if g is not None else None for g in gin]
        seen["grad_output"] = [flat(g) for g in gout]

    m.register_full_backward_hook(hook)
    out = m(x)
    gout = rn(*out.shape)
    (out * gout).sum().backward()
    # A hook returning a replacement: grad_input doubled.
    m2 = nn.Linear(4, 3)
    with torch.no_grad():
        m2.load_state_dict(m.state_dict())
    m2.register_full_backward_hook(lambda mod, gin, gout: tuple(g * 2 for g in gin))
    x2 = x.detach().clone().requires_grad_(True)
    (m2(x2) * gout).sum().backward()
    return {
        "state": {k: spec(v) for k, v in m.state_dict().items()},
        "input": spec(x.detach()),
        "gout": flat(gout),
        **seen,
        "doubled_input_grad": flat(x2.grad),
        "weight_grad": flat(m2.weight.grad),
    }


def state_dict_hooks():
    """What PyTorch's state-dict hooks see on Sequential(Linear(2, 3), BatchNorm1d(3)): the order
    and prefixes of the calls, the keys present when each post-hook runs, and a load whose
    post-hook forgives the missing keys while a pre-hook renames an old key."""
    net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    calls = []
    for name, m in [("root", net), ("0", net[0]), ("1", net[1])]:
        m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars, n=name: calls.append(["pre", n, prefix, keep_vars]))
        m.register_state_dict_post_hook(
            lambda mod, sd, prefix, meta, n=name: calls.append(["post", n, prefix, list(sd.keys()), meta["version"]])
        )
    keys = list(net.state_dict().keys())

    def rename(mod, sd, prefix, meta, strict, missing, unexpected, errors):
        calls.append(["load_pre", prefix])
        if prefix + "old_weight" in sd:
            sd[prefix + "weight"] = sd.pop(prefix + "old_weight")

    def forgive(mod, keys):
        calls.append(["load_post", type(mod).__name__, list(keys.missing_keys), list(keys.unexpected_keys)])
        keys.missing_keys.clear()

    load_calls_start = len(calls)
    net[0].register_load_state_dict_pre_hook(rename)
    net[0].register_load_state_dict_post_hook(forgive)
    net.register_load_state_dict_post_hook(forgive)
    sd = {k: v.clone() for k, v in net.state_dict().items()}
    sd["0.old_weight"] = sd.pop("0.weight") + 1
    del sd["1.running_var"]
    result = net.load_state_dict(sd)
    return {
        "state_dict_calls": calls[:load_calls_start],
        "keys": keys,
        "load_calls": [c for c in calls[load_calls_start:] if c[0].startswith("load")],
        "result": {"missing_keys": result.missing_keys, "unexpected_keys": result.unexpected_keys},
    }


ERROR_CALLS = {
    "pixel_shuffle 2d": lambda: F.pixel_shuffle(torch.randn(4, 4), 2),
    "pixel_shuffle channels": lambda: F.pixel_shuffle(torch.randn(1, 5, 2, 2), 2),
    "pixel_shuffle factor 0": lambda: F.pixel_shuffle(torch.randn(1, 4, 2, 2), 0),
    "pixel_unshuffle height": lambda: F.pixel_unshuffle(torch.randn(1, 1, 3, 4), 2),
    "pixel_unshuffle width": lambda: F.pixel_unshuffle(torch.randn(1, 1, 4, 3), 2),
    "unfold 5d": lambda: F.unfold(torch.randn(1, 1, 2, 2, 2), 2),
    "unfold kernel too big": lambda: F.unfold(torch.randn(1, 1, 2, 2), 3),
    "unfold kernel 0": lambda: F.unfold(torch.randn(1, 1, 2, 2), 0),
    "unfold stride 0": lambda: F.unfold(torch.randn(1, 1, 2, 2), 1, stride=0),
    "unfold dilation 0": lambda: F.unfold(torch.randn(1, 1, 2, 2), 1, dilation=0),
    "unfold padding -1": lambda: F.unfold(torch.randn(1, 1, 2, 2), 1, padding=-1),
    "fold 4d": lambda: F.fold(torch.randn(1, 4, 2, 2), (3, 3), 2),
    "fold channels": lambda: F.fold(torch.randn(1, 5, 4), (3, 3), 2),
    "fold blocks": lambda: F.fold(torch.randn(1, 4, 5), (3, 3), 2),
    "grid_sample grid last dim": lambda: F.grid_sample(torch.randn(1, 1, 3, 3), torch.randn(1, 2, 2, 3), align_corners=False),
    "grid_sample batch": lambda: F.grid_sample(torch.randn(1, 1, 3, 3), torch.randn(2, 2, 2, 2), align_corners=False),
    "grid_sample ndim": lambda: F.grid_sample(torch.randn(1, 1, 3, 3), torch.randn(1, 2, 2), align_corners=False),
    "grid_sample mode": lambda: F.grid_sample(torch.randn(1, 1, 3, 3), torch.randn(1, 2, 2, 2), mode="foo", align_corners=False),
    "grid_sample padding_mode": lambda: F.grid_sample(
        torch.randn(1, 1, 3, 3), torch.randn(1, 2, 2, 2), padding_mode="foo", align_corners=False
    ),
    "grid_sample 3d input": lambda: F.grid_sample(torch.randn(1, 1, 3), torch.randn(1, 2, 1), align_corners=False),
    "affine_grid 2d theta": lambda: F.affine_grid(torch.randn(1, 3, 3), [1, 1, 4, 4], align_corners=False),
    "affine_grid 3d theta": lambda: F.affine_grid(torch.randn(1, 2, 3), [1, 1, 4, 4, 4], align_corners=False),
    "affine_grid size": lambda: F.affine_grid(torch.randn(1, 2, 3), [1, 1, 4], align_corners=False),
    "affine_grid int theta": lambda: F.affine_grid(torch.randn(1, 2, 3).long(), [1, 1, 4, 4], align_corners=False),
    "affine_grid batch": lambda: F.affine_grid(torch.randn(2, 2, 3), [1, 1, 4, 4], align_corners=False),
    "affine_grid zero size": lambda: F.affine_grid(torch.randn(1, 2, 3), [1, 1, 0, 4], align_corners=False),
    "adaptive_max_pool3d 2d": lambda: F.adaptive_max_pool3d(torch.randn(2, 3), 2),
    "BatchNorm3d 3d input": lambda: nn.BatchNorm3d(2)(torch.randn(2, 2, 3)),
    "ReflectionPad1d too big": lambda: nn.ReflectionPad1d(3)(torch.randn(1, 2, 3)),
}


def errors():
    """PyTorch's message for each call of ERROR_CALLS (the JS test makes the same calls)."""
    out = {}
    for name, call in ERROR_CALLS.items():
        try:
            call()
        except Exception as e:  # noqa: BLE001 - any error's message is the fixture
            out[name] = str(e).split("\n")[0]
        else:
            raise AssertionError(f"{name} did not raise")
    return out


def main():
    data = {
        "functional": functional_cases(),
        "modules": module_cases(),
        "hooks": hooks(),
        "state_dict_hooks": state_dict_hooks(),
        "errors": errors(),
    }
    OUT.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
