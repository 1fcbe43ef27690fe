"""PyTorch's values for the seed-semantics tests (tests/node/seed_semantics.test.mjs): torch.vmap
programs — in_dims ints, None, tuples, dicts and negative dims, out_dims ints and tuples, tuple and
nested outputs, nested vmap, outputs that do not depend on the mapped inputs — with their outputs
and the gradients of a weighted sum of the outputs; vmap's error messages for bad calls; and the key
names of torch.cuda.memory_stats() (from its docstring: CUDA is not needed).

Writes tests/parity/fixtures/seed.json: {"vmap": {case: {"inputs": [{data, shape}], "outs":
[{data, shape}], "grads": [flat gradient or null, one per input]}}, "vmap_errors": {case: message},
"memory_stats_keys": [names]}. The JS test runs the same programs by name; the upstream weight of
output element i is 0.5 + (i % 7) / 7.

Run: .venv-torch/bin/python tests/parity/seed_gen.py
"""

import itertools
import json
import re
from pathlib import Path

import torch

OUT = Path(__file__).parent / "fixtures" / "seed.json"


def t(*shape, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g)


def f_dot(a, b):
    return torch.dot(a, b)


def f_matmul(x, w):
    return x @ w


def f_sum0(x):
    return x.sum(0)


def f_double(x):
    return x * 2


def f_tuple(x):
    return x.sin(), x.sum()


def f_pow_sum(x):
    return x.pow(2).sum()


def f_ignore(x, y):
    return y.exp()


def f_outer(x):
    return torch.outer(x, x)


def f_dict(d):
    return d["a"] * d["b"]


def f_nested_out(x):
    return [x.cos(), (x.sum(), x * 3)]


def f_softmax(x):
    return torch.softmax(x, 0)


V = torch.vmap
# name: (inputs, mapped program)
CASES = {
    "dot": ([t(4, 3, seed=1), t(4, 3, seed=2)], V(f_dot)),
    "in_dims_tuple_none": ([t(5, 3, seed=3), t(3, 2, seed=4)], V(f_matmul, in_dims=(0, None))),
    "in_dims_1": ([t(3, 4, seed=5)], V(f_sum0, in_dims=1)),
    "in_dims_negative": ([t(2, 3, 4, seed=6)], V(f_sum0, in_dims=-1)),
    "out_dims_1": ([t(2, 3, seed=7)], V(f_double, out_dims=1)),
    "out_dims_negative": ([t(2, 3, seed=8)], V(f_outer, out_dims=-1)),
    "tuple_outputs_out_dims": ([t(4, 3, seed=9)], V(f_tuple, out_dims=(1, 0))),
    "nested_outer_product": (
        [t(3, seed=10), t(4, seed=11)],
        V(V(torch.mul, in_dims=(None, 0)), in_dims=(0, None)),
    ),
    "nested_in_dims": ([t(2, 3, 4, seed=12)], V(V(f_pow_sum, in_dims=-1), in_dims=0)),
    "unbatched_output": ([t(3, 2, seed=13), t(2, seed=14)], V(f_ignore, in_dims=(0, None))),
    "dict_input": (
        [t(3, 2, seed=15), t(2, seed=16)],
        lambda a, b: V(f_dict, in_dims=({"a": 0, "b": None},))({"a": a, "b": b}),
    ),
    "nested_outputs": ([t(3, 2, seed=17)], V(f_nested_out)),
    "softmax_in_dims_1": ([t(4, 5, seed=18)], V(f_softmax, in_dims=1, out_dims=1)),
}


def leaves(x):
    if isinstance(x, (list, tuple)):
        return [y for e in x for y in leaves(e)]
    return [x]


def upstream(n):
    return torch.tensor([0.5 + (i % 7) / 7 for i in range(n)])


def run(inputs, program):
    xs = [x.clone().requires_grad_() for x in inputs]
    outs = leaves(program(*xs))
    total = sum((o.reshape(-1) * upstream(o.numel())).sum() for o in outs)
    total.backward()
    return {
        "inputs": [{"data": x.reshape(-1).tolist(), "shape": list(x.shape)} for x in inputs],
        "outs": [{"data": o.detach().reshape(-1).tolist(), "shape": list(o.shape)} for o in outs],
        "grads": [None if x.grad is None else x.grad.reshape(-1).tolist() for x in xs],
    }


def f(x, y=None):
    return x


def f_float(x):
    return 1.5


def f_random(x):
    return x + torch.rand(3)


def error(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the message is the fixture
        return str(e)
    raise AssertionError("no error")


ERRORS = {
    "sizes_differ": lambda: V(f, in_dims=(0, 0))(torch.zeros(2, 3), torch.zeros(3, 3)),
    "in_dim_out_of_range": lambda: V(f, in_dims=(2,))(torch.zeros(2, 3)),
    "in_dim_non_tensor": lambda: V(f, in_dims=(0, 0))(torch.zeros(2), 1.5),
    "no_mapped_input": lambda: V(f, in_dims=(None,))(torch.zeros(2)),
    "no_inputs": lambda: V(f)(),
    "in_dims_none": lambda: V(f, in_dims=None)(torch.zeros(2)),
    "out_dims_bad": lambda: V(f, out_dims=(1.5,))(torch.zeros(2)),
    "non_tensor_output": lambda: V(f_float)(torch.zeros(2)),
    "randomness_bad": lambda: V(f, randomness="sometimes"),
    "chunk_size_zero": lambda: V(f, chunk_size=0),
    "random_in_error_mode": lambda: V(f_random)(torch.zeros(2, 3)),
    "out_dim_none_batched": lambda: V(f_double, out_dims=None)(torch.zeros(2)),
}


def memory_stats_keys():
    """The key names torch.cuda.memory_stats' docstring lists, braces expanded."""
    keys = set()
    for pattern in re.findall(r'``"([a-z_.{},]+)"``', torch.cuda.memory_stats.__doc__):
        parts = re.split(r"(\{[^}]*\})", pattern)
        options = [p[1:-1].split(",") if p.startswith("{") else [p] for p in parts]
        keys.update("".join(c) for c in itertools.product(*options))
    return sorted(keys)


def main():
    fixtures = {
        "vmap": {name: run(inputs, program) for name, (inputs, program) in CASES.items()},
        "vmap_errors": {name: error(call) for name, call in ERRORS.items()},
        "memory_stats_keys": memory_stats_keys(),
    }
    OUT.write_text(json.dumps(fixtures, indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
