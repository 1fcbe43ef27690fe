// The bad-input cases of the reliability suite (badinput.mjs runs them): wrong shapes, dtypes and
// devices, out-of-range dims and indices, negative/fractional/NaN/huge sizes, non-tensors,
// undefined, strings, ragged nested arrays, disposed tensors, in-place ops that break autograd.
//
// A case is { id, run, py?, cls?, frag? }:
//   run(T)  calls webtorch (T is the module) and must throw a TorchError subclass;
//   py      the same mistake in Python; scripts/badinput-fixtures.py runs it in PyTorch and records
//           the message in badinput_torch.mjs (regenerate after editing cases:
//           `node scripts/badinput-cases.mjs | .venv-torch/bin/python scripts/badinput-fixtures.py`);
//   cls     the TorchError subclass expected (default: PyTorch's IndexError → IndexError, else any);
//   frag    the part of PyTorch's message that ours must carry (default: its whole first line).
//           With no `py` (JS-only mistakes: disposed tensors, devices), `frag` is our own wording;
//   gap     a known gap ({ on: devices, why }): there the case may return instead of throwing.
//
// The op lists are fixed here (not read from the package) so that new ops do not need new
// fixtures before they are added here.

const UNARY = [
  ["neg", "torch.neg"],
  ["relu", "torch.relu"],
  ["abs", "torch.abs"],
  ["square", "torch.square"],
  ["ceil", "torch.ceil"],
  ["floor", "torch.floor"],
  ["round", "torch.round"],
  ["trunc", "torch.trunc"],
  ["sign", "torch.sign"],
  ["positive", "torch.positive"],
  ["frac", "torch.frac"],
  ["bitwise_not", "torch.bitwise_not"],
  ["exp", "torch.exp"],
  ["sqrt", "torch.sqrt"],
  ["log", "torch.log"],
  ["sigmoid", "torch.sigmoid"],
  ["tanh", "torch.tanh"],
  ["sin", "torch.sin"],
  ["cos", "torch.cos"],
  ["tan", "torch.tan"],
  ["asin", "torch.asin"],
  ["acos", "torch.acos"],
  ["atan", "torch.atan"],
  ["sinh", "torch.sinh"],
  ["cosh", "torch.cosh"],
  ["asinh", "torch.asinh"],
  ["acosh", "torch.acosh"],
  ["atanh", "torch.atanh"],
  ["expm1", "torch.expm1"],
  ["exp2", "torch.exp2"],
  ["log1p", "torch.log1p"],
  ["log2", "torch.log2"],
  ["log10", "torch.log10"],
  ["rsqrt", "torch.rsqrt"],
  ["reciprocal", "torch.reciprocal"],
  ["erf", "torch.erf"],
  ["erfc", "torch.erfc"],
  ["erfinv", "torch.erfinv"],
  ["lgamma", "torch.lgamma"],
  ["digamma", "torch.digamma"],
  ["sinc", "torch.sinc"],
  ["logit", "torch.logit"],
  ["deg2rad", "torch.deg2rad"],
  ["rad2deg", "torch.rad2deg"],
  ["selu", "torch.selu"],
  ["celu", "torch.celu"],
  ["isnan", "torch.isnan"],
  ["isinf", "torch.isinf"],
  ["isfinite", "torch.isfinite"],
  ["signbit", "torch.signbit"],
  ["logical_not", "torch.logical_not"],
];

const BINARY = [
  "add",
  "sub",
  "mul",
  "div",
  "maximum",
  "minimum",
  "pow",
  "fmod",
  "remainder",
  "floor_divide",
  "bitwise_and",
  "bitwise_or",
  "bitwise_xor",
  "atan2",
  "hypot",
  "xlogy",
  "logaddexp",
  "logaddexp2",
  "copysign",
  "eq",
  "ne",
  "lt",
  "le",
  "gt",
  "ge",
  "logical_and",
  "logical_or",
  "logical_xor",
];
const INTEGER_ONLY = new Set(["bitwise_and", "bitwise_or", "bitwise_xor"]);
const NO_INPLACE = new Set([
  "maximum",
  "minimum",
  "logaddexp",
  "logaddexp2",
  "eq_",
]);

const REDUCTIONS = [
  "sum",
  "mean",
  "amax",
  "amin",
  "prod",
  "std",
  "var",
  "logsumexp",
  "nansum",
  "nanmean",
  "argmax",
  "argmin",
  "softmax",
  "log_softmax",
  "count_nonzero",
];

// Known gaps: none now. Out-of-range indices and bad values of tensors on WebGPU are checked on
// the device and raised by the next sync (the harness syncs after each case there), as CUDA's
// device-side asserts are; a case may still name devices where it returns (`gap`).

const disposed = (T) => {
  const t = T.ones(2, 3);
  t.dispose();
  return t;
};

/** Every case, in a stable order; ids are unique. */
export function makeCases() {
  const cases = [];
  const add = (id, run, py, extra = {}) =>
    cases.push({ id, run, py, ...extra });

  // ---- elementwise, one tensor ----
  for (const [op, py] of UNARY) {
    add(`${op}/string`, (T) => T[op]("a"), `${py}("a")`);
    add(`${op}/undefined`, (T) => T[op](undefined), `${py}(None)`);
    add(`${op}/array`, (T) => T[op]([1, 2]), `${py}([1, 2])`);
    add(`${op}/disposed`, (T) => disposed(T)[op](), null, {
      frag: "Tensor has been disposed",
    });
  }
  // in place on a leaf that requires grad
  for (const [op] of UNARY) {
    if (
      // no in-place form in PyTorch (or not differentiable)
      [
        "positive",
        "isnan",
        "isinf",
        "isfinite",
        "signbit",
        "logical_not",
        "selu",
        "celu",
      ].includes(op)
    )
      continue;
    add(
      `${op}_/leaf`,
      (T) => T.rand(3, { requires_grad: true })[`${op}_`](),
      `torch.rand(3, requires_grad=True).${op}_()`,
    );
  }

  // ---- elementwise, two operands ----
  for (const op of BINARY) {
    const dt = INTEGER_ONLY.has(op) ? "int32" : "float32";
    const pdt = INTEGER_ONLY.has(op) ? "torch.int32" : "torch.float32";
    add(
      `${op}/broadcast`,
      (T) => T[op](T.ones([2, 3], { dtype: dt }), T.ones([4], { dtype: dt })),
      `torch.${op}(torch.ones(2, 3, dtype=${pdt}), torch.ones(4, dtype=${pdt}))`,
    );
    add(
      `${op}/broadcast-3d`,
      (T) =>
        T[op](T.ones([2, 5, 3], { dtype: dt }), T.ones([4, 1], { dtype: dt })),
      `torch.${op}(torch.ones(2, 5, 3, dtype=${pdt}), torch.ones(4, 1, dtype=${pdt}))`,
    );
    add(
      `${op}/string`,
      (T) => T[op](T.ones([2], { dtype: dt }), "a"),
      `torch.${op}(torch.ones(2, dtype=${pdt}), "a")`,
    );
    add(
      `${op}/undefined`,
      (T) => T[op](T.ones([2], { dtype: dt }), undefined),
      `torch.${op}(torch.ones(2, dtype=${pdt}), None)`,
    );
    add(
      `${op}/disposed`,
      (T) => T[op](T.ones([2, 3], { dtype: dt }), disposed(T)),
      null,
      { frag: "Tensor has been disposed" },
    );
    if (!NO_INPLACE.has(op)) {
      add(
        `${op}_/broadcast`,
        (T) =>
          T.ones([3], { dtype: dt })[`${op}_`](T.ones([2, 3], { dtype: dt })),
        `torch.ones(3, dtype=${pdt}).${op}_(torch.ones(2, 3, dtype=${pdt}))`,
      );
    }
  }
  // integer ops refuse floats
  for (const op of ["bitwise_and", "bitwise_or", "bitwise_xor"]) {
    add(
      `${op}/float`,
      (T) => T[op](T.ones(2), T.ones(2)),
      `torch.${op}(torch.ones(2), torch.ones(2))`,
      { frag: "not implemented for 'Float'", cls: "DTypeError" },
    );
  }
  add(
    "bitwise_not/float",
    (T) => T.bitwise_not(T.ones(2)),
    "torch.bitwise_not(torch.ones(2))",
    {
      frag: "not implemented for 'Float'",
      cls: "DTypeError",
    },
  );
  add(
    "neg/bool",
    (T) => T.neg(T.tensor([true])),
    "torch.neg(torch.tensor([True]))",
    {
      cls: "DTypeError",
    },
  );
  add(
    "sub/bool",
    (T) => T.sub(T.tensor([true]), T.tensor([false])),
    "torch.sub(torch.tensor([True]), torch.tensor([False]))",
    {
      cls: "DTypeError",
    },
  );
  add(
    "add_/float-into-int",
    (T) => T.ones([2], { dtype: "int32" }).add_(T.ones(2).mul(0.5)),
    "torch.ones(2, dtype=torch.int32).add_(torch.ones(2) * 0.5)",
    {
      cls: "DTypeError",
    },
  );
  add(
    "mul_/float-into-bool",
    (T) => T.tensor([true]).mul_(T.ones(1)),
    "torch.tensor([True]).mul_(torch.ones(1))",
    {
      cls: "DTypeError",
    },
  );

  // A float result written into an integer tensor names the result's own float dtype.
  add(
    "div_/half-into-int",
    (T) =>
      T.ones([2], { dtype: "int32" }).div_(T.ones([2], { dtype: "float16" }), {
        rounding_mode: "floor",
      }),
    "torch.ones(2, dtype=torch.int32).div_(torch.ones(2, dtype=torch.float16), rounding_mode='floor')",
    { cls: "DTypeError" },
  );
  add(
    "soft_margin_loss/int-input-half-target",
    (T) =>
      T.nn.functional.soft_margin_loss(
        T.ones([3], { dtype: "int64" }),
        T.ones([3], { dtype: "float16" }),
      ),
    "F.soft_margin_loss(torch.ones(3, dtype=torch.int64), torch.ones(3, dtype=torch.float16))",
    { cls: "DTypeError" },
  );
  add(
    "soft_margin_loss/int-input-int-target",
    (T) =>
      T.nn.functional.soft_margin_loss(
        T.ones([3], { dtype: "uint8" }),
        T.ones([3], { dtype: "int32" }),
      ),
    "F.soft_margin_loss(torch.ones(3, dtype=torch.uint8), torch.ones(3, dtype=torch.int32))",
    { cls: "DTypeError" },
  );
  add(
    "binary_cross_entropy_with_logits/half-input-int-target",
    (T) =>
      T.nn.functional.binary_cross_entropy_with_logits(
        T.ones([3], { dtype: "float16" }),
        T.ones([3], { dtype: "int64" }),
      ),
    "F.binary_cross_entropy_with_logits(torch.ones(3, dtype=torch.float16), torch.ones(3, dtype=torch.int64))",
    { cls: "DTypeError" },
  );

  // ---- reductions ----
  for (const op of REDUCTIONS) {
    const softmax = op === "softmax" || op === "log_softmax";
    const call = (T, d) =>
      softmax ? T.ones(2, 3)[op](d) : T.ones(2, 3)[op](d);
    add(`${op}/dim-high`, (T) => call(T, 2), `torch.ones(2, 3).${op}(2)`, {
      cls: "IndexError",
    });
    add(`${op}/dim-low`, (T) => call(T, -3), `torch.ones(2, 3).${op}(-3)`, {
      cls: "IndexError",
    });
    add(
      `${op}/dim-huge`,
      (T) => call(T, 1e9),
      `torch.ones(2, 3).${op}(1000000000)`,
      {
        cls: "IndexError",
      },
    );
    add(`${op}/dim-float`, (T) => call(T, 1.5), `torch.ones(2, 3).${op}(1.5)`);
    add(`${op}/dim-string`, (T) => call(T, "x"), `torch.ones(2, 3).${op}("x")`);
    add(
      `${op}/disposed`,
      (T) => disposed(T)[op](softmax ? 0 : undefined),
      null,
      {
        frag: "Tensor has been disposed",
      },
    );
  }
  for (const op of ["sum", "mean", "amax", "std", "var", "logsumexp"]) {
    add(
      `${op}/dim-repeated`,
      (T) => T.ones(2, 3)[op]([1, 1]),
      `torch.ones(2, 3).${op}([1, 1])`,
    );
  }
  add(
    "mean/int",
    (T) => T.ones([2], { dtype: "int32" }).mean(),
    "torch.ones(2, dtype=torch.int32).mean()",
    {
      frag: "mean(): could not infer output dtype",
      cls: "DTypeError",
    },
  );
  add(
    "max/dim-high",
    (T) => T.max(T.ones(2, 3), 2),
    "torch.max(torch.ones(2, 3), 2)",
    { cls: "IndexError" },
  );
  add(
    "min/dim-high",
    (T) => T.min(T.ones(2, 3), -3),
    "torch.min(torch.ones(2, 3), -3)",
    { cls: "IndexError" },
  );
  add("amax/empty", (T) => T.ones(0).amax(), "torch.ones(0).amax()");
  add("argmax/empty", (T) => T.ones(0).argmax(), "torch.ones(0).argmax()");
  add("max/empty", (T) => T.max(T.ones(0)), "torch.max(torch.ones(0))");

  // ---- creation ----
  const CREATE = [
    ["zeros", "torch.zeros"],
    ["ones", "torch.ones"],
    ["empty", "torch.empty"],
    ["rand", "torch.rand"],
    ["randn", "torch.randn"],
  ];
  for (const [fn, py] of CREATE) {
    // PyTorch's zeros words this differently from the other factories; "negative" is in both.
    const neg = fn === "zeros" ? { frag: "negative" } : {};
    add(`${fn}/negative`, (T) => T[fn](2, -1), `${py}(2, -1)`, neg);
    add(`${fn}/negative-list`, (T) => T[fn]([-5]), `${py}([-5])`, neg);
    add(`${fn}/negative-huge`, (T) => T[fn]([-(2 ** 40)]), null, {
      frag: "out of range",
    });
    const ints = { frag: "must be tuple of ints" };
    add(`${fn}/fractional`, (T) => T[fn](2.5), `${py}(2.5)`, ints);
    add(`${fn}/fractional-2`, (T) => T[fn](3, 1.5), `${py}(3, 1.5)`, ints);
    add(`${fn}/nan`, (T) => T[fn](NaN), `${py}(float("nan"))`, ints);
    add(`${fn}/infinity`, (T) => T[fn](Infinity), `${py}(float("inf"))`, ints);
    add(`${fn}/string`, (T) => T[fn]("3"), `${py}("3")`, ints);
    const oom = {
      cls: "OutOfMemoryError",
      frag: "whose element count exceeds 2^32",
    };
    add(`${fn}/huge`, (T) => T[fn](2 ** 40), null, oom);
    add(
      `${fn}/huge-product`,
      (T) => T[fn](1 << 20, 1 << 20, 1 << 20),
      null,
      oom,
    );
    add(`${fn}/too-big-int`, (T) => T[fn](2 ** 53 + 2), null, oom);
    add(`${fn}/bad-dtype`, (T) => T[fn](2, { dtype: "float99" }), null, {
      cls: "DTypeError",
      frag: "float99",
    });
    add(`${fn}/bad-device`, (T) => T[fn](2, { device: "tpu" }), null, {
      cls: "DeviceError",
      frag: "tpu",
    });
    add(`${fn}/undefined`, (T) => T[fn](undefined), `${py}(None)`, {
      frag: "must be tuple of ints",
    });
    add(`${fn}/nested`, (T) => T[fn]([[2, 3]]), `${py}([[2, 3]])`, {
      frag: "must be tuple of ints",
    });
  }
  add("full/negative", (T) => T.full([-1], 2), "torch.full([-1], 2.0)");
  add("full/fractional", (T) => T.full([1.5], 2), "torch.full([1.5], 2.0)", {
    frag: "must be tuple of ints",
  });
  add("full/string-value", (T) => T.full([2], "x"), 'torch.full([2], "x")');
  add("full/huge", (T) => T.full([2 ** 40], 1), null, {
    cls: "OutOfMemoryError",
    frag: "whose element count exceeds 2^32",
  });
  add("eye/negative", (T) => T.eye(-2), "torch.eye(-2)");
  add("eye/fractional", (T) => T.eye(2.5), "torch.eye(2.5)", {
    frag: "eye(): argument 'n'",
  });
  add("arange/zero-step", (T) => T.arange(0, 5, 0), "torch.arange(0, 5, 0)");
  add("arange/wrong-sign", (T) => T.arange(0, 5, -1), "torch.arange(0, 5, -1)");
  add("arange/nan", (T) => T.arange(0, NaN), 'torch.arange(0, float("nan"))', {
    frag: "unsupported range: 0 -> ",
  });
  add(
    "arange/infinite",
    (T) => T.arange(0, Infinity),
    'torch.arange(0, float("inf"))',
  );
  add("arange/huge", (T) => T.arange(0, 2 ** 40), null, {
    cls: "OutOfMemoryError",
    frag: "too large",
  });
  add("arange/string", (T) => T.arange("5"), 'torch.arange("5")');
  add(
    "arange/string-step",
    (T) => T.arange(0, 5, "1"),
    'torch.arange(0, 5, "1")',
  );
  add(
    "linspace/negative",
    (T) => T.linspace(0, 1, -1),
    "torch.linspace(0, 1, -1)",
  );
  add(
    "linspace/fractional",
    (T) => T.linspace(0, 1, 2.5),
    "torch.linspace(0, 1, 2.5)",
    { frag: "linspace()" },
  );
  add(
    "randint/empty-range",
    (T) => T.randint(5, 5, [3]),
    "torch.randint(5, 5, (3,))",
  );
  add(
    "randint/negative-size",
    (T) => T.randint(0, 5, [-3]),
    "torch.randint(0, 5, (-3,))",
  );
  add(
    "tensor/ragged",
    (T) => T.tensor([[1, 2], [3]]),
    "torch.tensor([[1, 2], [3]])",
  );
  add(
    "tensor/ragged-deep",
    (T) =>
      T.tensor([
        [[1], [2]],
        [[3], [4, 5]],
      ]),
    "torch.tensor([[[1], [2]], [[3], [4, 5]]])",
  );
  add(
    "tensor/ragged-mixed",
    (T) => T.tensor([[1, 2], 3]),
    "torch.tensor([[1, 2], 3])",
  );
  // PyTorch's message here ("'list' object cannot be interpreted as an integer") is incidental.
  add("tensor/ragged-mixed-2", (T) => T.tensor([1, [2, 3]]), null, {
    frag: "expected a number at dim 1 but got a sequence of length 2",
  });
  add("tensor/string", (T) => T.tensor("abc"), 'torch.tensor("abc")');
  add(
    "tensor/strings",
    (T) => T.tensor(["a", "b"]),
    'torch.tensor(["a", "b"])',
  );
  add("tensor/undefined", (T) => T.tensor(undefined), "torch.tensor(None)");
  add(
    "tensor/undefined-element",
    (T) => T.tensor([1, undefined]),
    "torch.tensor([1, None])",
  );
  add(
    "tensor/string-element",
    (T) => T.tensor([1, "a"]),
    'torch.tensor([1, "a"])',
  );
  add("tensor/object", (T) => T.tensor([{}]), "torch.tensor([{}])");
  add("tensor/bad-dtype", (T) => T.tensor([1], { dtype: "complex128" }), null, {
    cls: "DTypeError",
    frag: "complex128",
  });
  add("zeros_like/string", (T) => T.zeros_like("a"), 'torch.zeros_like("a")');
  add(
    "ones_like/undefined",
    (T) => T.ones_like(undefined),
    "torch.ones_like(None)",
  );
  add("full_like/disposed", (T) => T.full_like(disposed(T), 1), null, {
    frag: "Tensor has been disposed",
  });

  // ---- views and shapes ----
  const t23 = (T) => T.arange(6).float().reshape(2, 3);
  const P23 = "torch.arange(6).float().reshape(2, 3)";
  const VIEWS = [
    ["view/numel", (T) => t23(T).view(4, 4), `${P23}.view(4, 4)`],
    ["view/two-minus-one", (T) => t23(T).view(-1, -1), `${P23}.view(-1, -1)`],
    [
      "view/negative",
      (T) => t23(T).view(-2, 3),
      `${P23}.view(-2, 3)`,
      { frag: "invalid shape dimension -2" },
    ],
    ["view/non-contiguous", (T) => t23(T).t().view(6), `${P23}.t().view(6)`],
    [
      "view/fractional",
      (T) => t23(T).view(1.5, 4),
      `${P23}.view(1.5, 4)`,
      { frag: "view()" },
    ],
    [
      "view/string",
      (T) => t23(T).view("6"),
      `${P23}.view("6")`,
      { frag: "view()" },
    ],
    ["reshape/numel", (T) => t23(T).reshape(5), `${P23}.reshape(5)`],
    [
      "reshape/minus-one-zero",
      (T) => t23(T).reshape(0, -1),
      `${P23}.reshape(0, -1)`,
      { frag: "[0, -1]" },
    ],
    [
      "reshape/nan",
      (T) => t23(T).reshape(NaN),
      `${P23}.reshape(float("nan"))`,
      { frag: "must be tuple of ints" },
    ],
    [
      "reshape/huge",
      (T) => t23(T).reshape(2 ** 40, 0),
      null,
      { frag: "out of range" },
    ],
    ["permute/length", (T) => t23(T).permute(0), `${P23}.permute(0)`],
    ["permute/repeat", (T) => t23(T).permute(1, 1), `${P23}.permute(1, 1)`],
    [
      "permute/range",
      (T) => t23(T).permute(0, 2),
      `${P23}.permute(0, 2)`,
      { cls: "IndexError" },
    ],
    [
      "transpose/range",
      (T) => t23(T).transpose(0, 2),
      `${P23}.transpose(0, 2)`,
      { cls: "IndexError" },
    ],
    [
      "transpose/range-low",
      (T) => t23(T).transpose(-3, 0),
      `${P23}.transpose(-3, 0)`,
      { cls: "IndexError" },
    ],
    [
      "transpose/fractional",
      (T) => t23(T).transpose(0.5, 1),
      `${P23}.transpose(0.5, 1)`,
      { frag: "must be" },
    ],
    ["t/3d", (T) => T.ones(2, 2, 2).t(), "torch.ones(2, 2, 2).t()"],
    ["expand/smaller", (T) => t23(T).expand(3), `${P23}.expand(3)`],
    ["expand/mismatch", (T) => t23(T).expand(2, 4), `${P23}.expand(2, 4)`],
    [
      "expand/negative-new-dim",
      (T) => t23(T).expand(-1, 2, 3),
      `${P23}.expand(-1, 2, 3)`,
    ],
    [
      "expand/negative",
      (T) => T.ones(1).expand(-2),
      null,
      { frag: "The expanded size of the tensor (-2)" },
    ],
    [
      "squeeze/range",
      (T) => t23(T).squeeze(2),
      `${P23}.squeeze(2)`,
      { cls: "IndexError" },
    ],
    [
      "unsqueeze/range",
      (T) => t23(T).unsqueeze(4),
      `${P23}.unsqueeze(4)`,
      { cls: "IndexError" },
    ],
    [
      "unsqueeze/range-low",
      (T) => t23(T).unsqueeze(-4),
      `${P23}.unsqueeze(-4)`,
      { cls: "IndexError" },
    ],
    [
      "flatten/range",
      (T) => t23(T).flatten(0, 5),
      `${P23}.flatten(0, 5)`,
      { cls: "IndexError" },
    ],
    ["flatten/order", (T) => t23(T).flatten(1, 0), `${P23}.flatten(1, 0)`],
    [
      "unflatten/numel",
      (T) => t23(T).unflatten(1, [2, 2]),
      `${P23}.unflatten(1, (2, 2))`,
    ],
    [
      "unflatten/range",
      (T) => t23(T).unflatten(3, [1, 3]),
      `${P23}.unflatten(3, (1, 3))`,
      { cls: "IndexError" },
    ],
    ["narrow/length", (T) => t23(T).narrow(1, 1, 5), `${P23}.narrow(1, 1, 5)`],
    [
      "narrow/start",
      (T) => t23(T).narrow(1, 7, 1),
      `${P23}.narrow(1, 7, 1)`,
      { cls: "IndexError" },
    ],
    [
      "narrow/negative-length",
      (T) => t23(T).narrow(1, 0, -1),
      `${P23}.narrow(1, 0, -1)`,
    ],
    [
      "narrow/dim",
      (T) => t23(T).narrow(2, 0, 1),
      `${P23}.narrow(2, 0, 1)`,
      { cls: "IndexError" },
    ],
    [
      "select/index",
      (T) => t23(T).select(1, 3),
      `${P23}.select(1, 3)`,
      { cls: "IndexError" },
    ],
    [
      "select/index-low",
      (T) => t23(T).select(0, -3),
      `${P23}.select(0, -3)`,
      { cls: "IndexError" },
    ],
    [
      "select/dim",
      (T) => t23(T).select(2, 0),
      `${P23}.select(2, 0)`,
      { cls: "IndexError" },
    ],
    [
      "select/0d",
      (T) => T.tensor(1).select(0, 0),
      "torch.tensor(1).select(0, 0)",
      { cls: "IndexError" },
    ],
    [
      "select/fractional",
      (T) => t23(T).select(0, 0.5),
      `${P23}.select(0, 0.5)`,
      { frag: "must be" },
    ],
    [
      "diagonal/same-dims",
      (T) => t23(T).diagonal(0, 0, 0),
      `${P23}.diagonal(0, 0, 0)`,
    ],
    [
      "diagonal/range",
      (T) => t23(T).diagonal(0, 0, 2),
      `${P23}.diagonal(0, 0, 2)`,
      { cls: "IndexError" },
    ],
    [
      "movedim/range",
      (T) => t23(T).movedim(0, 2),
      `${P23}.movedim(0, 2)`,
      { cls: "IndexError" },
    ],
    [
      "movedim/repeat",
      (T) => t23(T).movedim([0, 0], [0, 1]),
      null,
      { frag: "duplicate dims" },
    ],
    [
      "movedim/length",
      (T) => t23(T).movedim([0, 1], [0]),
      `${P23}.movedim((0, 1), (0,))`,
    ],
    ["split/zero", (T) => t23(T).split(0, 1), `${P23}.split(0, 1)`],
    ["split/sizes", (T) => t23(T).split([1, 1], 1), `${P23}.split([1, 1], 1)`],
    [
      "split/dim",
      (T) => t23(T).split(1, 2),
      `${P23}.split(1, 2)`,
      { cls: "IndexError" },
    ],
    ["chunk/zero", (T) => t23(T).chunk(0), `${P23}.chunk(0)`],
    [
      "chunk/dim",
      (T) => t23(T).chunk(2, 3),
      `${P23}.chunk(2, 3)`,
      { cls: "IndexError" },
    ],
    [
      "unbind/dim",
      (T) => t23(T).unbind(2),
      `${P23}.unbind(2)`,
      { cls: "IndexError" },
    ],
    ["repeat/fewer", (T) => t23(T).repeat(2), `${P23}.repeat(2)`],
    [
      "repeat/negative",
      (T) => t23(T).repeat(2, -1),
      `${P23}.repeat(2, -1)`,
      { frag: "Trying to create tensor with negative dimension" },
    ],
    [
      "tile/negative",
      (T) => t23(T).tile([-1]),
      `${P23}.tile((-1,))`,
      { frag: "Trying to create tensor with negative dimension" },
    ],
    ["unfold/size", (T) => t23(T).unfold(1, 4, 1), `${P23}.unfold(1, 4, 1)`],
    ["unfold/step", (T) => t23(T).unfold(1, 2, 0), `${P23}.unfold(1, 2, 0)`],
    [
      "as_strided/out-of-bounds",
      (T) => t23(T).as_strided([3, 3], [3, 1]),
      `${P23}.as_strided((3, 3), (3, 1))`,
    ],
    [
      "as_strided/negative-stride",
      (T) => t23(T).as_strided([2], [-1]),
      `${P23}.as_strided((2,), (-1,))`,
    ],
    [
      "slice/step",
      (T) => t23(T).slice(1, 0, 3, 0),
      null,
      { frag: "slice step must be positive" },
    ],
    [
      "broadcast_to/mismatch",
      (T) => T.broadcast_to(t23(T), [3, 3]),
      `torch.broadcast_to(${P23}, (3, 3))`,
    ],
    [
      "broadcast_shapes/mismatch",
      (T) => T.broadcast_shapes([2, 3], [4]),
      "torch.broadcast_shapes((2, 3), (4,))",
      {
        frag: "Attempting to broadcast a dimension of length 4 at -1! Mismatching argument at index 1 had (4,)",
      },
    ],
    [
      "atleast_2d/string",
      (T) => T.atleast_2d("a"),
      'torch.atleast_2d("a")',
      { frag: "" },
    ],
    [
      "view_as/numel",
      (T) => t23(T).view_as(T.ones(4)),
      `${P23}.view_as(torch.ones(4))`,
    ],
    [
      "reshape_as/numel",
      (T) => t23(T).reshape_as(T.ones(4)),
      `${P23}.reshape_as(torch.ones(4))`,
    ],
    [
      "expand_as/mismatch",
      (T) => t23(T).expand_as(T.ones(4)),
      `${P23}.expand_as(torch.ones(4))`,
    ],
    [
      "view/disposed",
      (T) => disposed(T).view(6),
      null,
      { frag: "Tensor has been disposed" },
    ],
    [
      "permute/disposed",
      (T) => disposed(T).permute(1, 0),
      null,
      { frag: "Tensor has been disposed" },
    ],
  ];
  for (const [id, run, py, extra] of VIEWS) add(id, run, py, extra);

  // ---- indexing ----
  const INDEX = [
    [
      "index_select/range",
      (T) => t23(T).index_select(1, T.tensor([0, 3])),
      `${P23}.index_select(1, torch.tensor([0, 3]))`,
      { cls: "TorchError" },
    ],
    [
      "index_select/negative",
      (T) => t23(T).index_select(1, T.tensor([-1])),
      `${P23}.index_select(1, torch.tensor([-1]))`,
      { cls: "TorchError" },
    ],
    [
      "index_select/float-index",
      (T) => t23(T).index_select(1, T.tensor([0.5])),
      `${P23}.index_select(1, torch.tensor([0.5]))`,
      { cls: "DTypeError" },
    ],
    [
      "index_select/2d-index",
      (T) => t23(T).index_select(1, T.tensor([[0]])),
      `${P23}.index_select(1, torch.tensor([[0]]))`,
    ],
    [
      "index_select/dim",
      (T) => t23(T).index_select(2, T.tensor([0])),
      `${P23}.index_select(2, torch.tensor([0]))`,
      { cls: "IndexError" },
    ],
    [
      "index_select/list",
      (T) => t23(T).index_select(1, [0]),
      `${P23}.index_select(1, [0])`,
      { frag: "argument 'index'" },
    ],
    [
      "gather/range",
      (T) =>
        t23(T).gather(
          1,
          T.tensor([
            [0, 5],
            [0, 0],
          ]),
        ),
      `${P23}.gather(1, torch.tensor([[0, 5], [0, 0]]))`,
      { cls: "IndexError" },
    ],
    [
      "gather/rank",
      (T) => t23(T).gather(1, T.tensor([0])),
      `${P23}.gather(1, torch.tensor([0]))`,
    ],
    [
      "gather/float-index",
      (T) => t23(T).gather(1, T.ones(2, 2)),
      `${P23}.gather(1, torch.ones(2, 2))`,
      { cls: "DTypeError" },
    ],
    [
      "gather/size",
      (T) => t23(T).gather(1, T.zeros([3, 1], { dtype: "int64" })),
      `${P23}.gather(1, torch.zeros(3, 1, dtype=torch.int64))`,
    ],
    [
      "scatter/range",
      (T) => t23(T).scatter(1, T.tensor([[4]]), T.ones(1, 1)),
      `${P23}.scatter(1, torch.tensor([[4]]), torch.ones(1, 1))`,
      { cls: "IndexError" },
    ],
    [
      "scatter/dtype",
      (T) =>
        t23(T).scatter(1, T.tensor([[0]]), T.ones([1, 1], { dtype: "int32" })),
      `${P23}.scatter(1, torch.tensor([[0]]), torch.ones(1, 1, dtype=torch.int32))`,
      { cls: "DTypeError" },
    ],
    [
      "scatter_add/range",
      (T) => t23(T).scatter_add(1, T.tensor([[-1]]), T.ones(1, 1)),
      `${P23}.scatter_add(1, torch.tensor([[-1]]), torch.ones(1, 1))`,
      { cls: "IndexError" },
    ],
    [
      "take/range",
      (T) => t23(T).take(T.tensor([6])),
      `${P23}.take(torch.tensor([6]))`,
      { cls: "IndexError", frag: "out of range" },
    ],
    [
      "take/range-low",
      (T) => t23(T).take(T.tensor([-7])),
      `${P23}.take(torch.tensor([-7]))`,
      { cls: "IndexError", frag: "out of range" },
    ],
    [
      "index_add/range",
      (T) => t23(T).index_add(0, T.tensor([2]), T.ones(1, 3)),
      `${P23}.index_add(0, torch.tensor([2]), torch.ones(1, 3))`,
      { cls: "IndexError" },
    ],
    [
      "index_add/shape",
      (T) => t23(T).index_add(0, T.tensor([0]), T.ones(1, 2)),
      `${P23}.index_add(0, torch.tensor([0]), torch.ones(1, 2))`,
    ],
    [
      "index_fill/range",
      (T) => t23(T).index_fill(1, T.tensor([3]), 0),
      `${P23}.index_fill(1, torch.tensor([3]), 0)`,
      { cls: "IndexError" },
    ],
    [
      "index_copy/range",
      (T) => t23(T).index_copy(0, T.tensor([5]), T.ones(1, 3)),
      `${P23}.index_copy(0, torch.tensor([5]), torch.ones(1, 3))`,
      {
        cls: "IndexError",
        frag: "index 5 is out of bounds for dimension 0 with size 2",
      },
    ],
    [
      "masked_fill/float-mask",
      (T) => t23(T).masked_fill(T.ones(2, 3), 0),
      `${P23}.masked_fill(torch.ones(2, 3), 0)`,
      { cls: "DTypeError" },
    ],
    [
      "masked_fill/shape",
      (T) => t23(T).masked_fill(T.ones([4], { dtype: "bool" }), 0),
      `${P23}.masked_fill(torch.ones(4, dtype=torch.bool), 0)`,
    ],
    [
      "masked_scatter/short-source",
      (T) => T.zeros(3).masked_scatter(T.tensor([true, true, true]), T.ones(2)),
      null,
      { frag: "Number of elements of source < number of ones in mask" },
    ],
    [
      "where/float-cond",
      (T) => T.where(T.ones(2, 3), t23(T), t23(T)),
      `torch.where(torch.ones(2, 3), ${P23}, ${P23})`,
      { cls: "DTypeError" },
    ],
    [
      "where/shape",
      (T) => T.where(T.ones([2, 3], { dtype: "bool" }), t23(T), T.ones(4)),
      `torch.where(torch.ones(2, 3, dtype=torch.bool), ${P23}, torch.ones(4))`,
    ],
    [
      "embedding/range",
      (T) => T.nn.functional.embedding(T.tensor([3]), T.ones(3, 2)),
      "F.embedding(torch.tensor([3]), torch.ones(3, 2))",
      { cls: "IndexError" },
    ],
    [
      "embedding/float",
      (T) => T.nn.functional.embedding(T.tensor([0.5]), T.ones(3, 2)),
      null,
      {
        cls: "DTypeError",
        frag: "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.FloatTensor instead",
      },
    ],
    [
      "one_hot/range",
      (T) => T.nn.functional.one_hot(T.tensor([3]), 3),
      "F.one_hot(torch.tensor([3]), 3)",
      undefined,
    ],
    [
      "one_hot/negative",
      (T) => T.nn.functional.one_hot(T.tensor([-1]), 3),
      "F.one_hot(torch.tensor([-1]), 3)",
      undefined,
    ],
  ];
  for (const [id, run, py, extra] of INDEX) add(id, run, py, extra);

  // ---- linear algebra ----
  const LINALG = [
    [
      "matmul/inner",
      (T) => T.ones(2, 3).matmul(T.ones(4, 5)),
      "torch.ones(2, 3).matmul(torch.ones(4, 5))",
    ],
    [
      "matmul/0d",
      (T) => T.tensor(1).matmul(T.ones(2)),
      "torch.tensor(1.).matmul(torch.ones(2))",
    ],
    [
      "matmul/vector",
      (T) => T.ones(3).matmul(T.ones(4)),
      "torch.ones(3).matmul(torch.ones(4))",
    ],
    [
      "matmul/batch",
      (T) => T.ones(2, 2, 3).matmul(T.ones(3, 3, 4)),
      "torch.ones(2, 2, 3).matmul(torch.ones(3, 3, 4))",
    ],
    [
      "matmul/dtype",
      (T) => T.ones(2, 2).matmul(T.ones([2, 2], { dtype: "int32" })),
      "torch.ones(2, 2).matmul(torch.ones(2, 2, dtype=torch.int32))",
      { cls: "DTypeError" },
    ],
    [
      "matmul/string",
      (T) => T.ones(2, 2).matmul("a"),
      'torch.ones(2, 2).matmul("a")',
    ],
    [
      "matmul/undefined",
      (T) => T.matmul(T.ones(2, 2), undefined),
      "torch.matmul(torch.ones(2, 2), None)",
      { frag: "must be Tensor, not NoneType" },
    ],
    [
      "mm/3d",
      (T) => T.mm(T.ones(2, 2, 2), T.ones(2, 2)),
      "torch.mm(torch.ones(2, 2, 2), torch.ones(2, 2))",
    ],
    [
      "mm/inner",
      (T) => T.mm(T.ones(2, 3), T.ones(2, 3)),
      "torch.mm(torch.ones(2, 3), torch.ones(2, 3))",
    ],
    [
      "bmm/2d",
      (T) => T.bmm(T.ones(2, 2), T.ones(2, 2)),
      "torch.bmm(torch.ones(2, 2), torch.ones(2, 2))",
    ],
    [
      "bmm/batch",
      (T) => T.bmm(T.ones(2, 2, 3), T.ones(3, 3, 2)),
      "torch.bmm(torch.ones(2, 2, 3), torch.ones(3, 3, 2))",
    ],
    [
      "bmm/inner",
      (T) => T.bmm(T.ones(2, 2, 3), T.ones(2, 2, 2)),
      "torch.bmm(torch.ones(2, 2, 3), torch.ones(2, 2, 2))",
    ],
    [
      "mv/shape",
      (T) => T.mv(T.ones(2, 3), T.ones(2)),
      "torch.mv(torch.ones(2, 3), torch.ones(2))",
    ],
    [
      "mv/rank",
      (T) => T.mv(T.ones(3), T.ones(3)),
      "torch.mv(torch.ones(3), torch.ones(3))",
    ],
    [
      "dot/shape",
      (T) => T.dot(T.ones(3), T.ones(4)),
      "torch.dot(torch.ones(3), torch.ones(4))",
    ],
    [
      "dot/rank",
      (T) => T.dot(T.ones(2, 2), T.ones(2, 2)),
      "torch.dot(torch.ones(2, 2), torch.ones(2, 2))",
    ],
    [
      "addmm/shape",
      (T) => T.addmm(T.ones(2, 2), T.ones(2, 3), T.ones(4, 2)),
      "torch.addmm(torch.ones(2, 2), torch.ones(2, 3), torch.ones(4, 2))",
      { frag: "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)" },
    ],
    [
      "outer/rank",
      (T) => T.outer(T.ones(2, 2), T.ones(2)),
      "torch.outer(torch.ones(2, 2), torch.ones(2))",
    ],
    [
      "trace/rank",
      (T) => T.trace(T.ones(2, 2, 2)),
      "torch.trace(torch.ones(2, 2, 2))",
    ],
    [
      "cross/size",
      (T) => T.cross(T.ones(2), T.ones(2)),
      "torch.cross(torch.ones(2), torch.ones(2))",
    ],
    [
      "tensordot/dims",
      (T) => T.tensordot(T.ones(2, 3), T.ones(4, 5), 1),
      "torch.tensordot(torch.ones(2, 3), torch.ones(4, 5), 1)",
      {
        frag: "contracted dimensions need to match, but first has size 3 in dim",
      },
    ],
    [
      "kron/string",
      (T) => T.kron(T.ones(2), "a"),
      'torch.kron(torch.ones(2), "a")',
    ],
    [
      "diag/rank",
      (T) => T.diag(T.ones(2, 2, 2)),
      "torch.diag(torch.ones(2, 2, 2))",
    ],
    [
      "linear/shape",
      (T) => T.nn.functional.linear(T.ones(2, 3), T.ones(4, 5)),
      "F.linear(torch.ones(2, 3), torch.ones(4, 5))",
    ],
  ];
  for (const [id, run, py, extra] of LINALG) add(id, run, py, extra);

  // ---- joins ----
  const JOINS = [
    [
      "cat/shape",
      (T) => T.cat([T.ones(2, 3), T.ones(2, 4)]),
      "torch.cat([torch.ones(2, 3), torch.ones(2, 4)])",
    ],
    [
      "cat/rank",
      (T) => T.cat([T.ones(2, 3), T.ones(3)]),
      "torch.cat([torch.ones(2, 3), torch.ones(3)])",
    ],
    [
      "cat/dim",
      (T) => T.cat([T.ones(2), T.ones(2)], 1),
      "torch.cat([torch.ones(2), torch.ones(2)], 1)",
      { cls: "IndexError" },
    ],
    ["cat/empty", (T) => T.cat([]), "torch.cat([])"],
    [
      "cat/non-tensor",
      (T) => T.cat([T.ones(2), 3]),
      "torch.cat([torch.ones(2), 3])",
    ],
    [
      "cat/not-a-list",
      (T) => T.cat(T.ones(2)),
      "torch.cat(torch.ones(2))",
      { frag: "cat()" },
    ],
    [
      "stack/shape",
      (T) => T.stack([T.ones(2), T.ones(3)]),
      "torch.stack([torch.ones(2), torch.ones(3)])",
    ],
    ["stack/empty", (T) => T.stack([]), "torch.stack([])"],
    [
      "stack/dim",
      (T) => T.stack([T.ones(2), T.ones(2)], 3),
      "torch.stack([torch.ones(2), torch.ones(2)], 3)",
      { cls: "IndexError" },
    ],
    ["hstack/empty", (T) => T.hstack([]), "torch.hstack([])"],
    [
      "vstack/shape",
      (T) => T.vstack([T.ones(2), T.ones(3)]),
      "torch.vstack([torch.ones(2), torch.ones(3)])",
    ],
    [
      "cat/disposed",
      (T) => T.cat([T.ones(2, 3), disposed(T)]),
      null,
      { frag: "Tensor has been disposed" },
    ],
  ];
  for (const [id, run, py, extra] of JOINS) add(id, run, py, extra);

  // ---- nn ----
  const nn = (T) => T.nn;
  const NN = [
    [
      "Linear/in-features",
      (T) => new (nn(T).Linear)(3, 2).forward(T.ones(4, 5)),
      "torch.nn.Linear(3, 2)(torch.ones(4, 5))",
      { frag: "mm: mat1 and mat2 shapes cannot be multiplied (4x5 and 3x2)" },
    ],
    [
      "Linear/negative",
      (T) => new (nn(T).Linear)(-1, 2),
      "torch.nn.Linear(-1, 2)",
    ],
    [
      "Conv2d/rank",
      (T) => new (nn(T).Conv2d)(1, 1, 3).forward(T.ones(5, 5)),
      "torch.nn.Conv2d(1, 1, 3)(torch.ones(5, 5))",
    ],
    [
      "Conv2d/channels",
      (T) => new (nn(T).Conv2d)(2, 1, 3).forward(T.ones(1, 1, 5, 5)),
      "torch.nn.Conv2d(2, 1, 3)(torch.ones(1, 1, 5, 5))",
    ],
    [
      "Conv2d/kernel-too-big",
      (T) => new (nn(T).Conv2d)(1, 1, 7).forward(T.ones(1, 1, 5, 5)),
      "torch.nn.Conv2d(1, 1, 7)(torch.ones(1, 1, 5, 5))",
    ],
    [
      "Conv2d/zero-stride",
      (T) => T.conv2d(T.ones(1, 1, 5, 5), T.ones(1, 1, 3, 3), undefined, 0),
      "torch.conv2d(torch.ones(1, 1, 5, 5), torch.ones(1, 1, 3, 3), None, 0)",
    ],
    [
      "conv1d/rank",
      (T) => T.conv1d(T.ones(5), T.ones(1, 1, 3)),
      "torch.conv1d(torch.ones(5), torch.ones(1, 1, 3))",
    ],
    [
      "max_pool2d/kernel",
      (T) => T.max_pool2d(T.ones(1, 1, 2, 2), 3),
      "torch.max_pool2d(torch.ones(1, 1, 2, 2), 3)",
    ],
    [
      "max_pool2d/zero",
      (T) => T.max_pool2d(T.ones(1, 1, 4, 4), 0),
      "torch.max_pool2d(torch.ones(1, 1, 4, 4), 0)",
    ],
    [
      "index_put/none-in-indices",
      (T) => T.zeros(3, 4).index_put([null, T.tensor([1])], T.tensor(1.5)),
      "torch.zeros(3, 4).index_put((None, torch.tensor([1])), torch.tensor(1.5))",
    ],
    [
      "index_put_/none-in-indices",
      (T) => T.zeros(3, 4).index_put_([T.tensor([1]), null], T.tensor(1.5)),
      "torch.zeros(3, 4).index_put_((torch.tensor([1]), None), torch.tensor(1.5))",
    ],
    [
      "torch.index_put/none-in-indices",
      (T) => T.index_put(T.zeros(3, 4), [T.tensor([1]), null], T.tensor(1.5)),
      "torch.index_put(torch.zeros(3, 4), (torch.tensor([1]), None), torch.tensor(1.5))",
    ],
    [
      "index_put/too-many-positional",
      (T) => T.zeros(3, 4).index_put([T.tensor([1])], T.tensor(1.5), true, 1),
      "torch.zeros(3, 4).index_put((torch.tensor([1]),), torch.tensor(1.5), True, 1)",
    ],
    [
      "max_pool2d/return_indices",
      (T) => T.max_pool2d(T.ones(1, 1, 4, 4), 2, { return_indices: true }),
      "torch.max_pool2d(torch.ones(1, 1, 4, 4), 2, return_indices=True)",
    ],
    [
      "max_pool1d/return_indices",
      (T) => T.max_pool1d(T.ones(1, 4), 2, { return_indices: true }),
      "torch.max_pool1d(torch.ones(1, 4), 2, return_indices=True)",
    ],
    [
      "max_pool3d/seven-positional",
      (T) => T.max_pool3d(T.ones(1, 2, 2, 2), 2, 2, 0, 1, false, true),
      "torch.max_pool3d(torch.ones(1, 2, 2, 2), 2, 2, 0, 1, False, True)",
    ],
    [
      "avg_pool1d/rank",
      (T) => T.avg_pool1d(T.ones(4), 2),
      "torch.avg_pool1d(torch.ones(4), 2)",
      { frag: "avg_pool1d" },
    ],
    [
      "layer_norm/shape",
      (T) => T.layer_norm(T.ones(2, 3), [4]),
      "torch.layer_norm(torch.ones(2, 3), [4])",
    ],
    [
      "LayerNorm/shape",
      (T) => new (nn(T).LayerNorm)(4).forward(T.ones(2, 3)),
      "torch.nn.LayerNorm(4)(torch.ones(2, 3))",
    ],
    [
      "BatchNorm1d/channels",
      (T) => new (nn(T).BatchNorm1d)(4).forward(T.ones(2, 3)),
      "torch.nn.BatchNorm1d(4)(torch.ones(2, 3))",
    ],
    [
      "Embedding/range",
      (T) => new (nn(T).Embedding)(4, 2).forward(T.tensor([4])),
      "torch.nn.Embedding(4, 2)(torch.tensor([4]))",
      { cls: "IndexError" },
    ],
    [
      "cross_entropy/batch",
      (T) => T.nn.functional.cross_entropy(T.ones(3, 4), T.tensor([0, 1])),
      "F.cross_entropy(torch.ones(3, 4), torch.tensor([0, 1]))",
    ],
    [
      "cross_entropy/class-range",
      (T) => T.nn.functional.cross_entropy(T.ones(2, 4), T.tensor([0, 4])),
      "F.cross_entropy(torch.ones(2, 4), torch.tensor([0, 4]))",
      { cls: "IndexError" },
    ],
    [
      "nll_loss/batch",
      (T) => T.nn.functional.nll_loss(T.ones(3, 4), T.tensor([0, 1])),
      "F.nll_loss(torch.ones(3, 4), torch.tensor([0, 1]))",
    ],
    [
      "nll_loss/float-target",
      (T) => T.nn.functional.nll_loss(T.ones(2, 4), T.ones(2)),
      "F.nll_loss(torch.ones(2, 4), torch.ones(2))",
      { cls: "DTypeError" },
    ],
    [
      "mse_loss/shape",
      (T) => T.nn.functional.mse_loss(T.ones(2, 3), T.ones(3, 2)),
      "F.mse_loss(torch.ones(2, 3), torch.ones(3, 2))",
      { frag: "must match the size of tensor b" },
    ],
    [
      "l1_loss/shape",
      (T) => T.nn.functional.l1_loss(T.ones(2, 3), T.ones(4)),
      "F.l1_loss(torch.ones(2, 3), torch.ones(4))",
    ],
    [
      "binary_cross_entropy/shape",
      (T) =>
        T.nn.functional.binary_cross_entropy(T.ones(3).mul(0.5), T.ones(2)),
      "F.binary_cross_entropy(torch.ones(3) * 0.5, torch.ones(2))",
      {
        frag: "Using a target size (torch.Size([2])) that is different to the input size (torch.Size([3]))",
      },
    ],
    [
      "binary_cross_entropy/range",
      (T) => T.nn.functional.binary_cross_entropy(T.ones(2).mul(2), T.ones(2)),
      "F.binary_cross_entropy(torch.ones(2) * 2, torch.ones(2))",
      undefined,
    ],
    [
      "softmax/dim",
      (T) => T.nn.functional.softmax(T.ones(2, 3), 2),
      "F.softmax(torch.ones(2, 3), 2)",
      { cls: "IndexError" },
    ],
    [
      "dropout/p",
      (T) => T.nn.functional.dropout(T.ones(3), 1.5),
      "F.dropout(torch.ones(3), 1.5)",
    ],
    ["Dropout/p", (T) => new (nn(T).Dropout)(-0.1), "torch.nn.Dropout(-0.1)"],
    [
      "pad/odd",
      (T) => T.nn.functional.pad(T.ones(2, 2), [1]),
      "F.pad(torch.ones(2, 2), [1])",
    ],
    [
      "Sequential/non-module",
      (T) => new (nn(T).Sequential)(3),
      null,
      { frag: "is not a Module subclass" },
    ],
    [
      "load_state_dict/missing",
      (T) => new (nn(T).Linear)(2, 2).load_state_dict({ weight: T.ones(2, 2) }),
      'torch.nn.Linear(2, 2).load_state_dict({"weight": torch.ones(2, 2)})',
      { frag: 'Missing key(s) in state_dict: "bias"' },
    ],
    [
      "load_state_dict/shape",
      (T) =>
        new (nn(T).Linear)(2, 2).load_state_dict({
          weight: T.ones(3, 2),
          bias: T.ones(2),
        }),
      'torch.nn.Linear(2, 2).load_state_dict({"weight": torch.ones(3, 2), "bias": torch.ones(2)})',
      { frag: "size mismatch for weight" },
    ],
    [
      "SGD/negative-lr",
      (T) => new T.optim.SGD([T.ones(2).requires_grad_()], { lr: -1 }),
      "torch.optim.SGD([torch.ones(2, requires_grad=True)], lr=-1)",
    ],
    [
      "Adam/beta",
      (T) =>
        new T.optim.Adam([T.ones(2).requires_grad_()], { betas: [1.5, 0.9] }),
      "torch.optim.Adam([torch.ones(2, requires_grad=True)], betas=(1.5, 0.9))",
    ],
    [
      "SGD/empty",
      (T) => new T.optim.SGD([], { lr: 0.1 }),
      "torch.optim.SGD([], lr=0.1)",
    ],
  ];
  for (const [id, run, py, extra] of NN) add(id, run, py, extra);

  // ---- autograd ----
  const AUTOGRAD = [
    [
      "backward/non-scalar",
      (T) => T.ones(3).requires_grad_().mul(2).backward(),
      "torch.ones(3).requires_grad_().mul(2).backward()",
    ],
    [
      "backward/no-grad",
      (T) => T.ones(3).sum().backward(),
      "torch.ones(3).sum().backward()",
    ],
    [
      "backward/twice",
      (T) => {
        const y = T.ones(3).requires_grad_().exp().sum();
        y.backward();
        y.backward();
      },
      "y = torch.ones(3).requires_grad_().exp().sum(); y.backward(); y.backward()",
      { frag: "Trying to backward through the graph a second time" },
    ],
    [
      "requires_grad/int",
      (T) => T.ones([2], { dtype: "int32" }).requires_grad_(),
      "torch.ones(2, dtype=torch.int32).requires_grad_()",
      { frag: "dtype can require gradients" },
    ],
    [
      "requires_grad/non-leaf",
      (T) => T.ones(2).requires_grad_().mul(2).requires_grad_(false),
      "torch.ones(2).requires_grad_().mul(2).requires_grad_(False)",
      { frag: "you can only change requires_grad flags of leaf variables." },
    ],
    [
      "inplace/leaf",
      (T) => T.ones(2).requires_grad_().add_(1),
      "torch.ones(2).requires_grad_().add_(1)",
    ],
    [
      "inplace/leaf-view",
      (T) => T.ones(2, 2).requires_grad_().select(0, 0).mul_(2),
      "torch.ones(2, 2).requires_grad_().select(0, 0).mul_(2)",
      {
        frag: "a view of a leaf Variable that requires grad is being used in an in-place operation.",
      },
    ],
    [
      "inplace/saved",
      (T) => {
        const x = T.ones(3).requires_grad_();
        const y = x.mul(1);
        const z = y.sin();
        y.mul_(2);
        z.sum().backward();
      },
      "x = torch.ones(3).requires_grad_(); y = x.mul(1); z = y.sin(); y.mul_(2); z.sum().backward()",
      {
        frag: "one of the variables needed for gradient computation has been modified by an inplace operation",
      },
    ],
    [
      "inplace/saved-log",
      (T) => {
        const x = T.ones(3).requires_grad_();
        const y = x.mul(2);
        const z = y.log();
        y.add_(1);
        z.sum().backward();
      },
      "x = torch.ones(3).requires_grad_(); y = x.mul(2); z = y.log(); y.add_(1); z.sum().backward()",
      {
        frag: "one of the variables needed for gradient computation has been modified by an inplace operation",
      },
    ],
    [
      "inplace/saved-matmul",
      (T) => {
        const x = T.ones(2, 2).requires_grad_();
        const y = x.mul(2);
        const z = y.matmul(x);
        y.zero_();
        z.sum().backward();
      },
      "x = torch.ones(2, 2).requires_grad_(); y = x.mul(2); z = y.matmul(x); y.zero_(); z.sum().backward()",
      {
        frag: "one of the variables needed for gradient computation has been modified by an inplace operation",
      },
    ],
    [
      "grad/unused",
      (T) => {
        const x = T.ones(2).requires_grad_();
        const y = T.ones(2).requires_grad_();
        T.autograd.grad(x.sum(), [y]);
      },
      "x = torch.ones(2).requires_grad_(); y = torch.ones(2).requires_grad_(); torch.autograd.grad(x.sum(), [y])",
      { frag: "appears to not have been used in the graph" },
    ],
    [
      "backward/grad-shape",
      (T) => T.ones(3).requires_grad_().mul(2).backward(T.ones(4)),
      "torch.ones(3).requires_grad_().mul(2).backward(torch.ones(4))",
      { frag: "Mismatch in shape" },
    ],
    [
      "grad/set-shape",
      (T) => {
        const x = T.ones(3).requires_grad_();
        x.grad = T.ones(4);
      },
      "x = torch.ones(3).requires_grad_(); x.grad = torch.ones(4)",
      {},
    ],
  ];
  for (const [id, run, py, extra] of AUTOGRAD) add(id, run, py, extra);

  // ---- einsum ----
  const EINSUM = [
    [
      "einsum/operands",
      (T) => T.einsum("ij,jk->ik", T.ones(2, 2)),
      'torch.einsum("ij,jk->ik", torch.ones(2, 2))',
    ],
    [
      "einsum/rank",
      (T) => T.einsum("ijk->i", T.ones(2, 2)),
      'torch.einsum("ijk->i", torch.ones(2, 2))',
    ],
    [
      "einsum/size",
      (T) => T.einsum("ij,jk->ik", T.ones(2, 3), T.ones(4, 2)),
      'torch.einsum("ij,jk->ik", torch.ones(2, 3), torch.ones(4, 2))',
    ],
    [
      "einsum/output-repeat",
      (T) => T.einsum("ij->ii", T.ones(2, 2)),
      'torch.einsum("ij->ii", torch.ones(2, 2))',
    ],
    [
      "einsum/output-unknown",
      (T) => T.einsum("ij->k", T.ones(2, 2)),
      'torch.einsum("ij->k", torch.ones(2, 2))',
    ],
    [
      "einsum/bad-char",
      (T) => T.einsum("i$->i", T.ones(2, 2)),
      'torch.einsum("i$->i", torch.ones(2, 2))',
    ],
    [
      "einsum/two-arrows",
      (T) => T.einsum("i->i->i", T.ones(2)),
      'torch.einsum("i->i->i", torch.ones(2))',
    ],
    [
      "einsum/ellipsis-twice",
      (T) => T.einsum("......->", T.ones(2)),
      'torch.einsum("......->", torch.ones(2))',
    ],
    [
      "einsum/broken-ellipsis",
      (T) => T.einsum("i..->i", T.ones(2)),
      'torch.einsum("i..->i", torch.ones(2))',
    ],
    [
      "einsum/empty",
      (T) => T.einsum("", T.ones(2)),
      'torch.einsum("", torch.ones(2))',
    ],
    [
      "einsum/non-string",
      (T) => T.einsum(3, T.ones(2)),
      "torch.einsum(3, torch.ones(2))",
      { frag: "einsum()" },
    ],
    [
      "einsum/non-tensor",
      (T) => T.einsum("i->i", [1, 2]),
      'torch.einsum("i->i", [1, 2])',
      { frag: "expected Tensor as element 0 in argument" },
    ],
    [
      "einsum/too-few-operands",
      (T) => T.einsum("i,i->i", T.ones(2)),
      'torch.einsum("i,i->i", torch.ones(2))',
    ],
    [
      "einsum/too-many-operands",
      (T) => T.einsum("i->i", T.ones(2), T.ones(2)),
      'torch.einsum("i->i", torch.ones(2), torch.ones(2))',
    ],
    [
      "einsum/disposed",
      (T) => T.einsum("ij->ji", disposed(T)),
      null,
      { frag: "Tensor has been disposed" },
    ],
  ];
  for (const [id, run, py, extra] of EINSUM) add(id, run, py, extra);

  // ---- devices (PyTorch's wording, with cuda in the place of webgpu) ----
  const both = (T, f) =>
    f(T.ones([2, 2], { device: "cpu" }), T.ones([2, 2], { device: "webgpu" }));
  const DEVICES = [
    ["device/add", (T) => both(T, (a, b) => a.add(b))],
    ["device/mul", (T) => both(T, (a, b) => T.mul(b, a))],
    ["device/matmul", (T) => both(T, (a, b) => a.matmul(b))],
    ["device/cat", (T) => both(T, (a, b) => T.cat([a, b]))],
    ["device/where", (T) => both(T, (a, b) => T.where(a.gt(0), a, b))],
    [
      "device/index_select",
      (T) =>
        both(T, (a) =>
          T.ones(3, { device: "webgpu" }).index_select(0, a.long().flatten()),
        ),
    ],
    ["device/copy_", (T) => both(T, (a, b) => a.add_(b))],
  ];
  for (const [id, run] of DEVICES)
    add(id, run, null, {
      cls: "DeviceError",
      frag: "Expected all tensors to be on the same device",
    });

  // ---- dtype conversion, reads, misc ----
  const MISC = [
    [
      "to/bad-dtype",
      (T) => T.ones(2).to("float99"),
      null,
      { cls: "DTypeError", frag: "float99" },
    ],
    // PyTorch's `to(None)` is the tensor itself; a number names no device or dtype.
    ["to/number", (T) => T.ones(2).to(3), null, { frag: "" }],
    ["item/many", (T) => T.ones(2).item(), "torch.ones(2).item()"],
    ["item/empty", (T) => T.ones(0).item(), "torch.ones(0).item()"],
    [
      "size/dim",
      (T) => T.ones(2, 3).size(2),
      "torch.ones(2, 3).size(2)",
      { cls: "IndexError" },
    ],
    [
      "stride/dim",
      (T) => T.ones(2, 3).stride(-3),
      "torch.ones(2, 3).stride(-3)",
      { cls: "IndexError" },
    ],
    [
      "clamp/no-bounds",
      (T) => T.ones(2).clamp_(),
      "torch.ones(2).clamp_()",
      { frag: "At least one of 'min' or 'max' must not be None" },
    ],
    [
      "copy_/shape",
      (T) => T.ones(2, 3).copy_(T.ones(4)),
      "torch.ones(2, 3).copy_(torch.ones(4))",
      { frag: "at non-singleton dimension 1" },
    ],
    [
      "fill_/tensor-dims",
      (T) => T.ones(2).fill_(T.ones(2)),
      "torch.ones(2).fill_(torch.ones(2))",
      { frag: "fill_" },
    ],
    [
      "manual_seed/string",
      (T) => T.manual_seed("x"),
      'torch.manual_seed("x")',
      { frag: "" },
    ],
    [
      "set_default_dtype/int",
      (T) => T.set_default_dtype("int32"),
      "torch.set_default_dtype(torch.int32)",
      { frag: "only floating-point types are supported as the default type" },
    ],
    [
      "multinomial-like/bernoulli-prob",
      (T) => T.bernoulli(T.ones(2).mul(2)),
      "torch.bernoulli(torch.ones(2) * 2)",
      {
        frag: "Expected p_in >= 0 && p_in <= 1 to be true, but got false.",
      },
    ],
    [
      "is_nonzero/many",
      (T) => T.is_nonzero(T.ones(2)),
      "torch.is_nonzero(torch.ones(2))",
    ],
    [
      "diff/dim",
      (T) => T.diff(T.ones(2), 1, 1),
      "torch.diff(torch.ones(2), 1, 1)",
      { cls: "IndexError" },
    ],
    [
      "cumsum-like/tril_indices",
      (T) => T.tril_indices(-1, 2),
      "torch.tril_indices(-1, 2)",
    ],
    [
      "meshgrid/rank",
      (T) => T.meshgrid([T.ones(2, 2)]),
      "torch.meshgrid(torch.ones(2, 2), indexing='ij')",
      {
        frag: "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: ",
      },
    ],
    [
      "repeat_interleave/negative",
      (T) => T.repeat_interleave(T.ones(2), -1),
      "torch.repeat_interleave(torch.ones(2), -1)",
    ],
    [
      "scope/non-function",
      (T) => T.scope(3),
      null,
      { frag: "scope(): argument 'fn' (position 1) must be Callable, not int" },
    ],
  ];
  for (const [id, run, py, extra] of MISC) add(id, run, py, extra);

  // Argument errors of the functions that parse through the op schema (schema/linalg.yaml, …):
  // PyTorch's argument parser's wording.
  const SCHEMA = [
    [
      "mm/non-tensor",
      (T) => T.mm(T.ones(2, 2), 1),
      "torch.mm(torch.ones(2, 2), 1)",
    ],
    [
      "bmm/keyword",
      (T) => T.bmm(T.ones(1, 2, 2), { mat2: "x" }),
      "torch.bmm(torch.ones(1, 2, 2), mat2='x')",
    ],
    [
      "mv/arity",
      (T) => T.mv(T.ones(2, 2), T.ones(2), T.ones(2)),
      "torch.mv(torch.ones(2, 2), torch.ones(2), torch.ones(2))",
    ],
    [
      "dot/keyword",
      (T) => T.dot(T.ones(2), { tensor: "x" }),
      "torch.dot(torch.ones(2), tensor='x')",
    ],
    ["outer/missing", (T) => T.outer(T.ones(2)), "torch.outer(torch.ones(2))"],
    [
      "kron/string-first",
      (T) => T.kron("a", T.ones(2)),
      "torch.kron('a', torch.ones(2))",
    ],
    [
      "diag/float",
      (T) => T.diag(T.ones(2), 1.5),
      "torch.diag(torch.ones(2), 1.5)",
    ],
    [
      "diag_embed/string",
      (T) => T.diag_embed(T.ones(2), 0, "a"),
      "torch.diag_embed(torch.ones(2), 0, 'a')",
    ],
    [
      "tril/string",
      (T) => T.tril(T.ones(2, 2), "x"),
      "torch.tril(torch.ones(2, 2), 'x')",
    ],
    [
      "triu/keyword",
      (T) => T.triu(T.ones(2, 2), { k: 1 }),
      "torch.triu(torch.ones(2, 2), k=1)",
    ],
    [
      "cross/float-dim",
      (T) => T.cross(T.ones(3), T.ones(3), 0.5),
      "torch.cross(torch.ones(3), torch.ones(3), 0.5)",
    ],
    [
      "dist/string-p",
      (T) => T.dist(T.ones(2), T.ones(2), "x"),
      "torch.dist(torch.ones(2), torch.ones(2), 'x')",
    ],
    [
      "trace/arity",
      (T) => T.trace(T.ones(2, 2), 1),
      "torch.trace(torch.ones(2, 2), 1)",
    ],
    [
      "tensordot/float-dims",
      (T) => T.tensordot(T.ones(2, 2), T.ones(2, 2), 1.5),
      "torch.tensordot(torch.ones(2, 2), torch.ones(2, 2), 1.5)",
    ],
    [
      "cdist/string-p",
      (T) => T.cdist(T.ones(2, 2), T.ones(2, 2), "x"),
      "torch.cdist(torch.ones(2, 2), torch.ones(2, 2), 'x')",
      { frag: "must be float, not str" },
    ],
    [
      "index_select/float-dim",
      (T) => T.index_select(T.ones(2), 0.5, T.zeros(1, { dtype: "int64" })),
      "torch.index_select(torch.ones(2), 0.5, torch.zeros(1, dtype=torch.int64))",
    ],
    [
      "gather/keyword",
      (T) => T.gather(T.ones(2), 0, T.zeros(1, { dtype: "int64" }), { foo: 2 }),
      "torch.gather(torch.ones(2), 0, torch.zeros(1, dtype=torch.int64), foo=2)",
    ],
    [
      "take_along_dim/string-dim",
      (T) => T.take_along_dim(T.ones(2), T.zeros(1, { dtype: "int64" }), "x"),
      "torch.take_along_dim(torch.ones(2), torch.zeros(1, dtype=torch.int64), 'x')",
    ],
    [
      "take/non-tensor",
      (T) => T.take(T.ones(2), [0]),
      "torch.take(torch.ones(2), [0])",
    ],
    [
      "scatter_add/scalar-src",
      (T) => T.scatter_add(T.ones(2), 0, T.zeros(1, { dtype: "int64" }), 1),
      "torch.scatter_add(torch.ones(2), 0, torch.zeros(1, dtype=torch.int64), 1)",
    ],
    [
      "scatter_reduce/include_self",
      (T) =>
        T.scatter_reduce(
          T.ones(2),
          0,
          T.zeros(1, { dtype: "int64" }),
          T.ones(1),
          "sum",
          { include_self: 1 },
        ),
      "torch.scatter_reduce(torch.ones(2), 0, torch.zeros(1, dtype=torch.int64), torch.ones(1), 'sum', include_self=1)",
    ],
    [
      "index_copy/arity",
      (T) => T.index_copy(T.ones(2), 0, T.zeros(1, { dtype: "int64" })),
      "torch.index_copy(torch.ones(2), 0, torch.zeros(1, dtype=torch.int64))",
    ],
    [
      "select_scatter/float-index",
      (T) => T.select_scatter(T.ones(2, 2), T.ones(2), 0, 0.5),
      "torch.select_scatter(torch.ones(2, 2), torch.ones(2), 0, 0.5)",
    ],
    [
      "slice_scatter/string-step",
      (T) => T.slice_scatter(T.ones(2), T.ones(2), 0, null, null, "a"),
      "torch.slice_scatter(torch.ones(2), torch.ones(2), 0, None, None, 'a')",
    ],
    [
      "diagonal_scatter/float-offset",
      (T) => T.diagonal_scatter(T.ones(2, 2), T.ones(2), 0.5),
      "torch.diagonal_scatter(torch.ones(2, 2), torch.ones(2), 0.5)",
    ],
    [
      "masked_scatter/non-tensor",
      (T) => T.masked_scatter(T.ones(2), [true, false], T.ones(2)),
      "torch.masked_scatter(torch.ones(2), [True, False], torch.ones(2))",
    ],
    [
      "nonzero/as_tuple",
      (T) => T.nonzero(T.ones(2), { as_tuple: "yes" }),
      "torch.nonzero(torch.ones(2), as_tuple='yes')",
    ],
    [
      "argwhere/arity",
      (T) => T.argwhere(T.ones(2), 1),
      "torch.argwhere(torch.ones(2), 1)",
    ],
    [
      "masked_select/non-tensor",
      (T) => T.masked_select(T.ones(2), true),
      "torch.masked_select(torch.ones(2), True)",
    ],
    [
      "flip/int-dims",
      (T) => T.flip(T.ones(2), "a"),
      "torch.flip(torch.ones(2), 'a')",
    ],
    [
      "fliplr/arity",
      (T) => T.fliplr(T.ones(2, 2), 1),
      "torch.fliplr(torch.ones(2, 2), 1)",
    ],
    [
      "rot90/float-k",
      (T) => T.rot90(T.ones(2, 2), 1.5),
      "torch.rot90(torch.ones(2, 2), 1.5)",
    ],
    [
      "addcmul/value",
      (T) => T.addcmul(T.ones(2), T.ones(2), T.ones(2), { value: "x" }),
      "torch.addcmul(torch.ones(2), torch.ones(2), torch.ones(2), value='x')",
    ],
    [
      "addcdiv/arity",
      (T) => T.addcdiv(T.ones(2), T.ones(2), T.ones(2), 2),
      "torch.addcdiv(torch.ones(2), torch.ones(2), torch.ones(2), 2)",
    ],
    [
      "nan_to_num/string",
      (T) => T.nan_to_num(T.ones(2), "x"),
      "torch.nan_to_num(torch.ones(2), 'x')",
    ],
    [
      "isclose/rtol",
      (T) => T.isclose(T.ones(2), T.ones(2), { rtol: "x" }),
      "torch.isclose(torch.ones(2), torch.ones(2), rtol='x')",
    ],
    [
      "allclose/equal_nan",
      (T) => T.allclose(T.ones(2), T.ones(2), 1e-5, 1e-8, 1),
      "torch.allclose(torch.ones(2), torch.ones(2), 1e-5, 1e-8, 1)",
    ],
    [
      "equal/non-tensor",
      (T) => T.equal(T.ones(2), 1),
      "torch.equal(torch.ones(2), 1)",
    ],

    [
      "fmax/non-tensor",
      (T) => T.fmax(T.ones(2), 1),
      "torch.fmax(torch.ones(2), 1)",
    ],
    [
      "heaviside/keyword",
      (T) => T.heaviside(T.ones(2), { other: T.ones(2) }),
      "torch.heaviside(torch.ones(2), other=torch.ones(2))",
      { frag: "heaviside()" },
    ],
    [
      "ldexp/string",
      (T) => T.ldexp("a", T.ones(2)),
      "torch.ldexp('a', torch.ones(2))",
    ],
    [
      "diff/float-n",
      (T) => T.diff(T.ones(2), 1.5),
      "torch.diff(torch.ones(2), 1.5)",
    ],
    ["isneginf/string", (T) => T.isneginf("a"), "torch.isneginf('a')"],
    ["clone/string", (T) => T.clone("a"), "torch.clone('a')"],
    [
      "detach/arity",
      (T) => T.detach(T.ones(2), 1),
      "torch.detach(torch.ones(2), 1)",
    ],
    [
      "softmax/float-dim",
      (T) => T.softmax(T.ones(2), 0.5),
      "torch.softmax(torch.ones(2), 0.5)",
      {},
    ],
    [
      "layer_norm/eps",
      (T) => T.layer_norm(T.ones(2), [2], null, null, "x"),
      "torch.layer_norm(torch.ones(2), [2], None, None, 'x')",
    ],
    [
      "rms_norm/weight",
      (T) => T.rms_norm(T.ones(2), [2], 1),
      "torch.rms_norm(torch.ones(2), [2], 1)",
    ],
    [
      "cat/float-dim",
      (T) => T.cat([T.ones(2)], 0.5),
      "torch.cat([torch.ones(2)], 0.5)",
    ],
    [
      "stack/string-dim",
      (T) => T.stack([T.ones(2)], "a"),
      "torch.stack([torch.ones(2)], 'a')",
    ],
    [
      "combinations/bool",
      (T) => T.combinations(T.ones(3), 2, 1),
      "torch.combinations(torch.ones(3), 2, 1)",
    ],
    [
      "leaky_relu/string",
      (T) => T.leaky_relu(T.ones(2), "x"),
      "torch._C._nn.leaky_relu(torch.ones(2), 'x')",
    ],
    [
      "hardtanh/keyword",
      (T) => T.hardtanh(T.ones(2), { min: 0 }),
      "torch._C._nn.hardtanh(torch.ones(2), min=0)",
    ],
    [
      "threshold_/missing",
      (T) => T.threshold_(T.ones(2), 0.5),
      "torch.threshold_(torch.ones(2), 0.5)",
    ],
    ["randperm/float", (T) => T.randperm(2.5), "torch.randperm(2.5)"],
    [
      "multinomial/replacement",
      (T) => T.multinomial(T.ones(2), 1, "x"),
      "torch.multinomial(torch.ones(2), 1, 'x')",
    ],
    ["numel/string", (T) => T.numel("a"), "torch.numel('a')"],
    [
      "use_deterministic_algorithms/arity",
      (T) => T.use_deterministic_algorithms(false, false),
      "torch.use_deterministic_algorithms(False, False)",
    ],
    [
      "is_floating_point/string",
      (T) => T.is_floating_point("a"),
      "torch.is_floating_point('a')",
    ],
    [
      "meshgrid/indexing",
      (T) => T.meshgrid([T.ones(2)], { indexing: "bad" }),
      "torch.meshgrid(torch.ones(2), indexing='bad')",
    ],
    [
      "result_type/string",
      (T) => T.result_type(T.ones(2), "a"),
      "torch.result_type(torch.ones(2), 'a')",
    ],
  ];
  for (const [id, run, py, extra] of SCHEMA) add(id, run, py, extra);

  // The last torch.* functions given schema entries (issue #30): overload resolution (arange,
  // randint), the factories from data, index_put, print options, the C-bound queries of no
  // arguments, torch.compile.
  const INVALID = { frag: "received an invalid combination of arguments" };
  const SCHEMA_REST = [
    ["arange/string", (T) => T.arange("a"), "torch.arange('a')"],
    [
      "arange/keyword",
      (T) => T.arange(5, { foo: 1 }),
      "torch.arange(5, foo=1)",
    ],
    ["arange/none", (T) => T.arange(), "torch.arange()"],
    ["arange/four", (T) => T.arange(1, 2, 3, 4), "torch.arange(1, 2, 3, 4)"],
    ["randint/high-only", (T) => T.randint(5), "torch.randint(5)"],
    ["randint/string", (T) => T.randint("a", [2]), "torch.randint('a', (2,))"],
    [
      "randint/keyword",
      (T) => T.randint(5, [2], { foo: 1 }),
      "torch.randint(5, (2,), foo=1)",
      INVALID,
    ],
    [
      "einsum/keyword",
      (T) => T.einsum("ij", T.ones(2, 2), { foo: 1 }),
      "torch.einsum('ij', torch.ones(2, 2), foo=1)",
    ],
    ["tensor/missing", (T) => T.tensor(), "torch.tensor()"],
    [
      "tensor/keyword",
      (T) => T.tensor([1], { foo: 1 }),
      "torch.tensor([1], foo=1)",
    ],
    ["tensor/two", (T) => T.tensor([1], "a"), "torch.tensor([1], 'a')"],
    ["as_tensor/missing", (T) => T.as_tensor(), "torch.as_tensor()"],
    [
      "as_tensor/requires_grad",
      (T) => T.as_tensor([1], { requires_grad: true }),
      "torch.as_tensor([1], requires_grad=True)",
    ],
    [
      "index_put/missing",
      (T) => T.index_put(T.zeros(3)),
      "torch.index_put(torch.zeros(3))",
    ],
    [
      "index_put_/indices",
      (T) => T.index_put_(T.zeros(3), 1, 2),
      "torch.index_put_(torch.zeros(3), 1, 2)",
    ],
    [
      "index_put/keyword",
      (T) => T.index_put(T.zeros(3), [T.tensor([0])], T.tensor(1), { foo: 1 }),
      "torch.index_put(torch.zeros(3), (torch.tensor([0]),), torch.tensor(1.), foo=1)",
    ],
    [
      "masked_select_async/missing",
      (T) => T.masked_select_async(),
      "torch.masked_select()",
      { frag: "missing 2 required positional argument: " },
    ],
    [
      "quantize_per_tensor/scale",
      (T) => T.quantize_per_tensor(T.zeros(3), "a", 0, "quint8"),
      "torch.quantize_per_tensor(torch.zeros(3), 'a', 0, torch.quint8)",
      INVALID,
    ],
    ["dequantize/int", (T) => T.dequantize(1), "torch.dequantize(1)", INVALID],
    [
      "set_printoptions/keyword",
      (T) => T.set_printoptions({ foo: 1 }),
      "torch.set_printoptions(foo=1)",
    ],
    [
      "set_printoptions/arity",
      (T) => T.set_printoptions(1, 2, 3, 4, 5, 6, 7, 8),
      "torch.set_printoptions(1, 2, 3, 4, 5, 6, 7, 8)",
    ],
    [
      "is_autocast_cpu_enabled/arity",
      (T) => T.is_autocast_cpu_enabled(1),
      "torch.is_autocast_cpu_enabled(1)",
    ],
    [
      "is_autocast_cache_enabled/keyword",
      (T) => T.is_autocast_cache_enabled({ foo: 1 }),
      "torch.is_autocast_cache_enabled(foo=1)",
    ],
    [
      "get_autocast_gpu_dtype/arity",
      (T) => T.get_autocast_gpu_dtype(1),
      "torch.get_autocast_gpu_dtype(1)",
    ],
    [
      "clear_autocast_cache/arity",
      (T) => T.clear_autocast_cache(1),
      "torch.clear_autocast_cache(1)",
    ],
    [
      "compiled_with_cxx11_abi/arity",
      (T) => T.compiled_with_cxx11_abi(1),
      "torch.compiled_with_cxx11_abi(1)",
    ],
    [
      "set_default_tensor_type/missing",
      (T) => T.set_default_tensor_type(),
      "torch.set_default_tensor_type()",
    ],
    ["is_tensor/missing", (T) => T.is_tensor(), "torch.is_tensor()"],
    ["is_tensor/arity", (T) => T.is_tensor(1, 2), "torch.is_tensor(1, 2)"],
    ["compile/keyword", (T) => T.compile({ foo: 1 }), "torch.compile(foo=1)"],
    ["compile/arity", (T) => T.compile(1, 2), "torch.compile(1, 2)"],
    [
      "compile/backend",
      (T) => T.compile((x) => x, { backend: "foo" }),
      "torch.compile(lambda x: x, backend='foo')",
    ],
    [
      "compile/mode",
      (T) => T.compile((x) => x, { mode: "foo" }),
      "torch.compile(lambda x: x, mode='foo')",
    ],
  ];
  add(
    "index_put/none-index",
    (T) => T.index_put(T.zeros(2, 3), [null, T.tensor([0, 2])], T.tensor(1)),
    "torch.index_put(torch.zeros(2, 3), [None, torch.tensor([0, 2])], torch.tensor(1.))",
    { frag: "expected Tensor as element 0 in argument" },
  );
  for (const [id, run, py, extra] of SCHEMA_REST) add(id, run, py, extra);
  // safetensors stores tensors only (PyTorch's torch.save pickles anything: no counterpart).
  add("save/non-tensor", (T) => T.save({ a: 1 }), null, {
    frag: "'a' is int, not a Tensor",
  });

  return cases;
}
