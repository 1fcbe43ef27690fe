"""Tensor expressions (`torch.$`) against the same expression evaluated by Python on PyTorch
(fixture_syntax.py): operators with Python's precedence, broadcasting, numbers on either side,
matmul, calls with positional and keyword arguments, `.T`/`.mT`, comparisons, integer inputs,
and PyTorch's shape errors. Syntax errors (Python's wording differs) are in tests/node."""

from cases import F, I
from fixture import S


def build(fam, rng):
    c = fam.case

    def x(shape, lo=-3.0, hi=3.0):
        return F(rng, shape, lo, hi)

    def e(name, expr, **values):
        error = values.pop("error", None)
        c(name, "expr", list(values.values()), args={"expr": expr, "names": list(values)},
          error=error)

    e("linear", "x @ w + b", x=x([2, 3]), w=x([3, 4]), b=x([4]))
    e("mlp_layer", "relu(x @ w + b)", x=x([3, 2]), w=x([2, 2]), b=x([2]))
    e("broadcast", "sigmoid(x) * y - 0.5", x=x([2, 3]), y=x([3]))
    e("precedence", "-x**2 + 2**x * 3", x=x([5]))
    e("power_right_assoc", "x ** 2 ** 0.5", x=x([4], 0.5, 2.0))
    e("silu_by_hand", "x / (1 + exp(-x))", x=x([2, 3]))
    e("leaky_relu", "where(x > 0, x, 0.1 * x)", x=x([6]))
    e("attention", "softmax(q @ k.T / 2, -1) @ v", q=x([2, 3]), k=x([4, 3]), v=x([4, 2]))
    e("sum_kw", "sum(x * y, dim=-1)", x=x([2, 3]), y=x([2, 3]))
    e("keepdim", "x - mean(x, dim=1, keepdim=true)", x=x([2, 4]))
    e("mse", "mean((x - y) ** 2)", x=x([3, 2]), y=x([3, 2]))
    e("transpose_matmul", "tanh(x).T @ y", x=x([3, 2]), y=x([3, 2]))
    e("batched_mT", "x @ x.mT", x=x([2, 2, 3]))
    e("scalars", "a * x + b", a=S(2.5), x=x([4]), b=S(-1))
    e("reflected", "2 - x / 4 + 1 / y", x=x([3]), y=x([3], 0.5, 2.0))
    e("compare", "x >= y", x=x([2, 2]), y=x([2]))
    e("log_softmax_kw", "log_softmax(x, dim=0)", x=x([3, 2]))
    e("max_min", "maximum(x, y) - minimum(x, y * 0.5)", x=x([2, 3]), y=x([1, 3]))
    e("activations", "gelu(x) + silu(x) * softplus(x)", x=x([5]))
    e("integer", "(i // 2) % 3 + i * 2", i=I(rng, [2, 3], "int64"))
    e("int_float", "i * x", i=I(rng, [3], "int32"), x=x([3]))
    e("unsqueeze_broadcast", "unsqueeze(x, 1) - y", x=x([3]), y=x([4]))
    e("nested", "((x + 1) * (y - 1)) / ((x * y) + 10)", x=x([2, 2]), y=x([2, 2]))
    e("broadcast_mismatch", "x + y", x=x([2, 3]), y=x([4]), error="ShapeError")
    e("matmul_mismatch", "x @ w", x=x([2, 3]), w=x([4, 2]), error="ShapeError")
