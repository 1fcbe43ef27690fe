"""Training and optimizer parity fixtures from real PyTorch (tests/node/optim.test.mjs reads them).

Writes tests/parity/fixtures/train/:
  mlp_init.safetensors   initial weights of a fixed-seed 8-16-4 ReLU MLP (safetensors.torch)
  mlp_train.json         the batch, and per optimizer: options, 20 per-step losses, final weights
  optim_steps.json       N steps of each optimizer config on fixed params and gradients
  optim_state.json       the same configs with some gradients missing (PyTorch skips those
                         parameters), with the state_dict each optimizer ends with
  lbfgs.json             LBFGS steps (with and without the strong-Wolfe line search) on the
                         Rosenbrock function and a small linear regression
  lr_schedulers.json     learning rates of each scheduler over 12 steps
  lr_schedulers_more.json  the newer schedulers: learning rates (and cyclic momenta), 12 steps
  dtypes.safetensors     one tensor per dtype (F32 F16 BF16 I32 I64 U8 BOOL) for torch.load
  dtypes.json            the values torch.load must return for it (F16/BF16 as float32)
  nn_functional.json     outputs and input gradients of nn.functional activations, norms, losses, attention
With --verify: reads webtorch_saved.safetensors (written by tests/parity/train_save.mjs with
torch.save) with safetensors.torch and records what it read in pytorch_read_webtorch.json.

Run: .venv-torch/bin/python tests/parity/train_gen.py [--verify]
Not listed in fixtures/index.json (that index is for op cases).
"""

import json
import sys
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

OUT = Path(__file__).parent / "fixtures" / "train"
STEPS = 20


def flat(t):
    return [float(f"{v:.9g}") for v in t.detach().reshape(-1).tolist()]


def mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)
    )


TRAIN_RUNS = {
    "sgd_momentum": ("SGD", {"lr": 0.1, "momentum": 0.9}),
    "adamw": ("AdamW", {"lr": 0.01, "weight_decay": 0.01}),
    "adam": ("Adam", {"lr": 0.01}),
}


def train():
    model = mlp()
    init = {k: v.clone().contiguous() for k, v in model.state_dict().items()}
    save_file(init, OUT / "mlp_init.safetensors")
    g = torch.Generator().manual_seed(1)
    x = torch.randn(32, 8, generator=g)
    y = torch.randint(0, 4, (32,), generator=g)
    runs = {}
    for name, (opt_name, opts) in TRAIN_RUNS.items():
        model = mlp()
        model.load_state_dict(init)
        opt = getattr(torch.optim, opt_name)(model.parameters(), **opts)
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
        "model": "Sequential(Linear(8, 16), ReLU(), Linear(16, 4)), cross_entropy",
        "steps": STEPS,
        "x": {"shape": list(x.shape), "data": flat(x)},
        "y": y.tolist(),
        "runs": runs,
    }
    (OUT / "mlp_train.json").write_text(json.dumps(fixture, separators=(",", ":")))


OPTIM_CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "maximize": True}),
    ("Adam", {}),
    ("Adam", {"lr": 0.01, "betas": [0.8, 0.9], "weight_decay": 0.1, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "maximize": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.02, "weight_decay": 0.1, "amsgrad": True}),
    ("RMSprop", {}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True, "weight_decay": 0.01}),
    ("Adagrad", {}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.05, "initial_accumulator_value": 0.1}),
    ("Adamax", {}),
    ("Adamax", {"lr": 0.01, "betas": [0.8, 0.95], "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.05, "momentum_decay": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.05, "decoupled_weight_decay": True}),
    ("RAdam", {}),
    ("RAdam", {"lr": 0.01, "betas": [0.9, 0.99], "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("ASGD", {}),
    ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 2, "weight_decay": 0.01}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1, "maximize": True}),
    ("Rprop", {}),
    ("Rprop", {"lr": 0.05, "etas": [0.3, 1.5], "step_sizes": [0.01, 0.08]}),
]
# 8 steps: RAdam's rectified branch starts at step 6 with betas (0.9, 0.99).
OPTIM_STEPS = 8


def optim_steps():
    g = torch.Generator().manual_seed(2)
    shapes = [(3, 4), (5,)]
    p0 = [torch.randn(*s, generator=g) for s in shapes]
    grads = [[torch.randn(*s, generator=g) for s in shapes] for _ in range(OPTIM_STEPS)]
    cases = []
    for name, opts in OPTIM_CASES:
        ps = [p.clone().requires_grad_() for p in p0]
        kw = {k: tuple(v) if isinstance(v, list) else v for k, v in opts.items()}
        opt = getattr(torch.optim, name)(ps, foreach=False, **kw)
        for step in range(OPTIM_STEPS):
            for p, gr in zip(ps, grads[step]):
                p.grad = gr.clone()
            opt.step()
        cases.append({"optimizer": name, "options": opts, "final": [flat(p) for p in ps]})
    fixture = {
        "steps": OPTIM_STEPS,
        "params": [{"shape": list(p.shape), "data": flat(p)} for p in p0],
        "grads": [[flat(gr) for gr in step] for step in grads],
        "cases": cases,
    }
    (OUT / "optim_steps.json").write_text(json.dumps(fixture, separators=(",", ":")))


# Step -> parameters whose gradient is None at that step: their step counts fall behind.
SKIPS = {0: [2], 2: [1], 3: [1], 5: [0]}


def state_value(v):
    if torch.is_tensor(v):
        return flat(v) if v.dim() > 0 else float(v)
    return v


def optim_state():
    g = torch.Generator().manual_seed(3)
    shapes = [(2, 3), (4,), (3,)]
    p0 = [torch.randn(*s, generator=g) for s in shapes]
    grads = [[torch.randn(*s, generator=g) for s in shapes] for _ in range(OPTIM_STEPS)]
    cases = []
    for name, opts in OPTIM_CASES:
        ps = [p.clone().requires_grad_() for p in p0]
        kw = {k: tuple(v) if isinstance(v, list) else v for k, v in opts.items()}
        opt = getattr(torch.optim, name)(ps, foreach=False, **kw)
        for step in range(OPTIM_STEPS):
            for i, (p, gr) in enumerate(zip(ps, grads[step])):
                p.grad = None if i in SKIPS.get(step, []) else gr.clone()
            opt.step()
        sd = opt.state_dict()
        state = [[[k, state_value(v)] for k, v in sd["state"][i].items()] if i in sd["state"] else None
                 for i in range(len(ps))]
        cases.append({"optimizer": name, "options": opts, "final": [flat(p) for p in ps], "state": state})
    fixture = {
        "steps": OPTIM_STEPS,
        "skips": {str(k): v for k, v in SKIPS.items()},
        "params": [{"shape": list(p.shape), "data": flat(p)} for p in p0],
        "grads": [[flat(gr) for gr in step] for step in grads],
        "cases": cases,
    }
    (OUT / "optim_state.json").write_text(json.dumps(fixture, separators=(",", ":")))


LBFGS_CASES = [
    ("rosenbrock", {"lr": 1, "max_iter": 5, "history_size": 10}),
    ("rosenbrock", {"lr": 1, "max_iter": 5, "history_size": 10, "line_search_fn": "strong_wolfe"}),
    ("rosenbrock", {"lr": 0.5, "max_iter": 4, "history_size": 2, "line_search_fn": "strong_wolfe"}),
    ("regression", {"lr": 0.8, "max_iter": 3, "history_size": 2, "line_search_fn": "strong_wolfe"}),
    ("regression", {"lr": 1, "max_iter": 4, "history_size": 3}),
    ("regression", {"lr": 1, "max_iter": 10, "line_search_fn": "strong_wolfe", "tolerance_change": 1e-6}),
]
LBFGS_STEPS = 3


def lbfgs():
    g = torch.Generator().manual_seed(4)
    X = torch.randn(8, 3, generator=g)
    y = X @ torch.tensor([[1.5], [-2.0], [0.5]]) + 0.3 + 0.1 * torch.randn(8, 1, generator=g)
    cases = []
    for problem, opts in LBFGS_CASES:
        if problem == "rosenbrock":
            params = [torch.tensor([-1.5, 2.0], requires_grad=True)]

            def f():
                x = params[0]
                return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        else:
            params = [torch.zeros(1, 3, requires_grad=True), torch.zeros(1, requires_grad=True)]

            def f():
                return torch.nn.functional.mse_loss(X @ params[0].T + params[1], y)
        opt = torch.optim.LBFGS(params, **opts)

        def closure():
            opt.zero_grad()
            loss = f()
            loss.backward()
            return loss
        steps = []
        for _ in range(LBFGS_STEPS):
            loss = opt.step(closure)
            st = opt.state[params[0]]
            steps.append({"loss": float(loss.detach()), "params": [flat(p) for p in params],
                          "func_evals": st["func_evals"], "n_iter": st["n_iter"]})
        cases.append({"problem": problem, "options": opts, "steps": steps})
    fixture = {"X": flat(X), "y": flat(y), "cases": cases}
    (OUT / "lbfgs.json").write_text(json.dumps(fixture, separators=(",", ":")))


SCHEDULERS = [
    ("StepLR", {"step_size": 3, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [2, 5, 5, 9], "gamma": 0.3}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("CosineAnnealingLR", {"T_max": 5, "eta_min": 0.001}),
    ("LinearLR", {"start_factor": 0.25, "end_factor": 1.0, "total_iters": 4}),
    ("LambdaLR", {"lr_lambda": "0.95 ** epoch"}),
]


def schedulers():
    out = []
    for name, opts in SCHEDULERS:
        p = torch.zeros(1, requires_grad=True)
        opt = torch.optim.SGD([p], lr=0.1)
        kw = dict(opts)
        if name == "LambdaLR":
            kw["lr_lambda"] = lambda epoch: 0.95**epoch
        sched = getattr(torch.optim.lr_scheduler, name)(opt, **kw)
        lrs = [opt.param_groups[0]["lr"]]
        for _ in range(12):
            opt.step()
            sched.step()
            lrs.append(opt.param_groups[0]["lr"])
        out.append({"scheduler": name, "options": opts, "lrs": lrs})
    (OUT / "lr_schedulers.json").write_text(json.dumps(out, separators=(",", ":")))


def schedulers_more():
    """Learning rates (and momenta of the cyclic ones) of the newer schedulers over 12 steps."""
    S = torch.optim.lr_scheduler

    def sgd():
        p = torch.zeros(1, requires_grad=True)
        return torch.optim.SGD([p], lr=0.1, momentum=0.9)

    def adam():
        p = torch.zeros(1, requires_grad=True)
        return torch.optim.Adam([p], lr=0.1)

    cases = {
        "MultiplicativeLR": (sgd, lambda o: S.MultiplicativeLR(o, lambda e: 0.9)),
        "ConstantLR": (sgd, lambda o: S.ConstantLR(o, factor=0.5, total_iters=4)),
        "PolynomialLR": (sgd, lambda o: S.PolynomialLR(o, total_iters=6, power=2.0)),
        "CosineAnnealingWarmRestarts": (sgd, lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01)),
        "CyclicLR_triangular": (sgd, lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3)),
        "CyclicLR_triangular2": (sgd, lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2, step_size_down=3,
                                                         mode="triangular2")),
        "CyclicLR_exp_range_adam": (adam, lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2, mode="exp_range",
                                                             gamma=0.9)),
        "OneCycleLR": (sgd, lambda o: S.OneCycleLR(o, max_lr=0.5, total_steps=12)),
        "OneCycleLR_linear_three_phase_adam": (adam, lambda o: S.OneCycleLR(
            o, max_lr=0.5, epochs=3, steps_per_epoch=4, pct_start=0.25, anneal_strategy="linear", three_phase=True)),
        "SequentialLR_warmup_exp": (sgd, lambda o: S.SequentialLR(
            o, [S.LinearLR(o, start_factor=0.1, total_iters=3), S.ExponentialLR(o, gamma=0.8)], milestones=[3])),
        "SequentialLR_three": (sgd, lambda o: S.SequentialLR(
            o, [S.ConstantLR(o, factor=0.5, total_iters=2), S.CosineAnnealingLR(o, T_max=5),
                S.LambdaLR(o, lambda e: 0.9**e)], milestones=[2, 6])),
        "ChainedScheduler": (sgd, lambda o: S.ChainedScheduler(
            [S.ConstantLR(o, factor=0.5, total_iters=3), S.ExponentialLR(o, gamma=0.9)])),
    }
    out = {}
    for name, (make_opt, make) in cases.items():
        opt = make_opt()
        sched = make(opt)
        g = opt.param_groups[0]
        mom = lambda: g["betas"][0] if "betas" in g else g["momentum"]
        lrs, moms = [g["lr"]], [mom()]
        for _ in range(12):
            opt.step()
            sched.step()
            lrs.append(g["lr"])
            moms.append(mom())
        out[name] = {"lrs": lrs, "momenta": moms}
    metrics = [1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.7, 0.8, 0.9, 0.91, 0.49]
    for name, kw in {
        "ReduceLROnPlateau_min": {"patience": 2, "cooldown": 1, "factor": 0.5, "min_lr": 0.02},
        "ReduceLROnPlateau_max_abs": {"mode": "max", "threshold_mode": "abs", "threshold": 0.05, "patience": 1},
    }.items():
        opt = sgd()
        sched = S.ReduceLROnPlateau(opt, **kw)
        lrs = [opt.param_groups[0]["lr"]]
        for m in metrics:
            opt.step()
            sched.step(m)
            lrs.append(opt.param_groups[0]["lr"])
        out[name] = {"lrs": lrs, "metrics": metrics}
    (OUT / "lr_schedulers_more.json").write_text(json.dumps(out, separators=(",", ":")))


def dtypes():
    tensors = {
        "f32": torch.tensor([[1.5, -2.25, 3.0], [0.1, 1e-8, -1e8]], dtype=torch.float32),
        "f16": torch.tensor([0.5, -1.0, 65504.0, 6.1035e-05, 0.333], dtype=torch.float16),
        "bf16": torch.tensor([1.0, -3.140625, 1e30, 0.0078125], dtype=torch.bfloat16),
        "i32": torch.tensor([[-7, 0], [2147483647, -2147483648]], dtype=torch.int32),
        "i64": torch.tensor([-3, 5, 1 << 20], dtype=torch.int64),
        "u8": torch.tensor([0, 7, 255], dtype=torch.uint8),
        "flags": torch.tensor([True, False, True], dtype=torch.bool),
        "scalar": torch.tensor(2.5),
    }
    save_file(tensors, OUT / "dtypes.safetensors", metadata={"format": "pt", "by": "train_gen.py"})
    expected = {
        k: {
            "dtype": str(v.dtype).removeprefix("torch."),
            "shape": list(v.shape),
            "data": [
                float(f"{x:.9g}") if isinstance(x, float) else x
                for x in v.reshape(-1).float().tolist()
            ]
            if v.is_floating_point()
            else [int(x) for x in v.reshape(-1).tolist()],
        }
        for k, v in tensors.items()
    }
    (OUT / "dtypes.json").write_text(json.dumps(expected, separators=(",", ":")))


def nn_functional():
    """Forward values and input gradients (of (out * w).sum(), w fixed) of nn.functional pieces."""
    F = torch.nn.functional
    g = torch.Generator().manual_seed(3)
    x = torch.randn(4, 5, generator=g)
    t = torch.randn(4, 5, generator=g)
    p = torch.rand(4, 5, generator=g) * 0.98 + 0.01
    bt = (torch.rand(4, 5, generator=g) > 0.5).float()
    cls = torch.tensor([1, 0, 4, 2])
    cw = torch.tensor([0.5, 1.0, 2.0, 1.5, 0.25])
    ln_w = torch.randn(5, generator=g)
    ln_b = torch.randn(5, generator=g)
    emb_idx = torch.tensor([[0, 2], [3, 2]])
    # Attention: x as 4 queries over 6 keys/values; a float mask, and a bool one (True: may
    # attend) that keeps key 0 for every query.
    sk = torch.randn(1, 6, 5, generator=g)
    sv = torch.randn(1, 6, 5, generator=g)
    am = torch.randn(4, 6, generator=g)
    bm = (am > -0.5) | (torch.arange(6) == 0)
    cases = {
        "log_softmax": (lambda a: F.log_softmax(a, 1), x),
        "softmax": (lambda a: F.softmax(a, 0), x),
        "gelu_tanh": (lambda a: F.gelu(a, approximate="tanh"), x),
        "elu_2": (lambda a: F.elu(a, 2.0), x),
        "celu_half": (lambda a: F.celu(a, 0.5), x),
        "leaky_relu": (lambda a: F.leaky_relu(a, 0.2), x),
        "hardtanh": (lambda a: F.hardtanh(a, -0.5, 0.7), x),
        "softplus_beta": (lambda a: F.softplus(a, 2.0, 1.0), x),
        "layer_norm": (lambda a: F.layer_norm(a, (5,), ln_w, ln_b), x),
        "rms_norm": (lambda a: F.rms_norm(a, (5,), ln_w), x),
        "mse_mean": (lambda a: F.mse_loss(a, t), x),
        "mse_sum": (lambda a: F.mse_loss(a, t, reduction="sum"), x),
        "l1_none": (lambda a: F.l1_loss(a, t, reduction="none"), x),
        "smooth_l1": (lambda a: F.smooth_l1_loss(a, t, beta=0.5), x),
        "cross_entropy": (lambda a: F.cross_entropy(a, cls), x),
        "sdpa": (lambda a: F.scaled_dot_product_attention(a.unsqueeze(0), sk, sv), x),
        "sdpa_causal": (lambda a: F.scaled_dot_product_attention(a.unsqueeze(0), sk, sv, is_causal=True), x),
        # More queries than keys (query 0 keeps key 0 only) and a batch of heads.
        "sdpa_causal_fewer_keys": (lambda a: F.scaled_dot_product_attention(
            a.unsqueeze(0), sk[:, :3], sv[:, :3], is_causal=True), x),
        "sdpa_causal_heads": (lambda a: F.scaled_dot_product_attention(
            a.reshape(2, 2, 5), a.reshape(2, 2, 5).flip(1), a.reshape(2, 2, 5) * 2, is_causal=True), x),
        "sdpa_float_mask_scale": (lambda a: F.scaled_dot_product_attention(a.unsqueeze(0), sk, sv, attn_mask=am, scale=0.3), x),
        "sdpa_bool_mask": (lambda a: F.scaled_dot_product_attention(a.unsqueeze(0), sk, sv, attn_mask=bm), x),
        "cross_entropy_weight_ignore": (lambda a: F.cross_entropy(a, torch.tensor([1, -100, 4, 2]), weight=cw), x),
        "cross_entropy_smooth": (lambda a: F.cross_entropy(a, cls, label_smoothing=0.1), x),
        "cross_entropy_smooth_weight": (lambda a: F.cross_entropy(a, cls, weight=cw, label_smoothing=0.2), x),
        "cross_entropy_probs": (lambda a: F.cross_entropy(a, F.softmax(t, 1)), x),
        "cross_entropy_none": (lambda a: F.cross_entropy(a, cls, reduction="none"), x),
        "nll_sum": (lambda a: F.nll_loss(a, cls, reduction="sum"), x),
        "bce": (lambda a: F.binary_cross_entropy(a, bt), p),
        "bce_logits": (lambda a: F.binary_cross_entropy_with_logits(a, bt), x),
        "bce_logits_pos_weight": (lambda a: F.binary_cross_entropy_with_logits(a, bt, pos_weight=cw), x),
        "embedding": (lambda a: F.embedding(emb_idx, a), x),
    }
    out = {
        "inputs": {k: {"shape": list(v.shape), "data": flat(v)} for k, v in
                   {"x": x, "t": t, "p": p, "bt": bt, "cw": cw, "ln_w": ln_w, "ln_b": ln_b,
                    "sk": sk, "sv": sv, "am": am}.items()},
        "cls": cls.tolist(),
        "emb_idx": emb_idx.tolist(),
        "cases": {},
    }
    for name, (fn, inp) in cases.items():
        a = inp.clone().requires_grad_()
        y = fn(a)
        w = torch.linspace(-1, 1, y.numel()).reshape(y.shape)
        (y * w).sum().backward()
        out["cases"][name] = {"input": "p" if inp is p else "x", "shape": list(y.shape),
                              "out": flat(y), "grad": flat(a.grad)}
    (OUT / "nn_functional.json").write_text(json.dumps(out, separators=(",", ":")))


def verify():
    path = OUT / "webtorch_saved.safetensors"
    loaded = load_file(path)
    result = {
        k: {
            "dtype": str(v.dtype).removeprefix("torch."),
            "shape": list(v.shape),
            "data": v.reshape(-1).tolist(),
        }
        for k, v in loaded.items()
    }
    (OUT / "pytorch_read_webtorch.json").write_text(json.dumps(result, separators=(",", ":")))
    print(f"PyTorch read {len(result)} tensors from {path.name}")


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    if "--verify" in sys.argv:
        verify()
    elif "--optim-state" in sys.argv:
        optim_state()
    elif "--lbfgs" in sys.argv:
        lbfgs()
    else:
        train()
        optim_steps()
        optim_state()
        lbfgs()
        schedulers()
        schedulers_more()
        dtypes()
        nn_functional()
        print("wrote", sorted(p.name for p in OUT.iterdir()))
