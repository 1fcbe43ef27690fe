/**
 * The JS runner's calls for the hand-written kernel families (reductions beyond sum/mean, row-wise
 * NN kernels, where/masked_fill, joining and indexing): the twin of fixture_kernels.py. Returns
 * `undefined` for other ops; a tuple result (`max(dim)`) is an array of tensors.
 */

const DIM_REDUCTIONS = new Set([
  "prod",
  "amax",
  "amin",
  "all",
  "any",
  "logsumexp",
]);

/** The `dim`/`dims` arg as webtorch takes it (a number or an array), or undefined. */
function dimOf(a) {
  return a.dim ?? a.dims;
}

export function callKernel(torch, op, a, inputs) {
  const [x] = inputs; // undefined for an empty `cat`/`stack` list
  if (DIM_REDUCTIONS.has(op)) {
    const dim = dimOf(a);
    if (dim === undefined && a.keepdim === undefined) return x[op]();
    return x[op]({
      ...(dim !== undefined && { dim }),
      ...(a.keepdim !== undefined && { keepdim: a.keepdim }),
    });
  }
  switch (op) {
    case "max":
    case "min":
      return a.dim === undefined
        ? x[op]()
        : [...x[op](a.dim, a.keepdim ?? false)];
    case "argmax":
    case "argmin":
      return x[op]({ dim: a.dim, keepdim: a.keepdim });
    case "var":
    case "std":
      return x[op](dimOf(a) ?? null, {
        correction: a.correction,
        keepdim: a.keepdim,
      });
    case "norm":
      return x.norm(a.p ?? 2, dimOf(a) ?? null, a.keepdim ?? false);
    case "count_nonzero":
      return torch.count_nonzero(x, dimOf(a));
    case "softmax":
    case "log_softmax":
      return x[op](a.dim);
    case "layer_norm":
    case "rms_norm": {
      // Optional weight/bias follow the input, as flagged in the args.
      const rest = inputs.slice(1);
      const w = a.weight ? rest.shift() : null;
      if (op === "rms_norm")
        return torch.rms_norm(x, a.normalized_shape, w, a.eps);
      const b = a.bias ? rest.shift() : null;
      return torch.layer_norm(x, a.normalized_shape, w, b, a.eps);
    }
    case "where":
      return torch.where(inputs[0], inputs[1], inputs[2]);
    case "masked_fill":
      return x.masked_fill(inputs[1], a.value);
    case "index_select":
    case "gather":
      return x[op](a.dim, inputs[1]);
    case "scatter":
    case "scatter_add":
      return x[op](a.dim, inputs[1], inputs.length > 2 ? inputs[2] : a.value);
    case "take_along_dim":
      return torch.take_along_dim(x, inputs[1], a.dim);
    case "cumsum":
    case "cumprod":
      return x[op](a.dim, a.out_dtype ? { dtype: a.out_dtype } : undefined);
    case "logcumsumexp":
      return x.logcumsumexp(a.dim);
    case "cummax":
    case "cummin":
      return [...x[op](a.dim)];
    case "sort":
      return [...x.sort({ dim: a.dim ?? -1, descending: a.descending ?? false })];
    case "argsort":
      return x.argsort(a.dim ?? -1, a.descending ?? false);
    case "searchsorted":
      return torch.searchsorted(x, inputs[1], {
        right: a.right ?? false,
        out_int32: a.out_int32 ?? false,
      });
    case "cat":
    case "stack":
      return a.dim === undefined ? torch[op](inputs) : torch[op](inputs, a.dim);
  }
  return undefined;
}
