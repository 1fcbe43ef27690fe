/**
 * The JS runner's calls for the TS layer's composites (views and splits, joins, linear algebra,
 * einsum, composites, activations with arguments, scatter-based indexing, factories): the twin of
 * fixture_composites.py. Returns `undefined` for other ops; a list result (`split`) is an array.
 * Their fixtures are in fixtures/ts/ (the native runner, core ops only, does not load them).
 */

import { callNN } from "./nn_calls.mjs";

export function callComposite(torch, op, a, inputs, device) {
  const nn = callNN(torch, op, a, inputs);
  if (nn !== undefined) return nn;
  const F = torch.nn.functional;
  const [x, y, z] = inputs;
  const ba = {
    ...(a.beta !== undefined && { beta: a.beta }),
    ...(a.alpha !== undefined && { alpha: a.alpha }),
  };
  const opts = { device, ...(a.dtype !== undefined && { dtype: a.dtype }) };
  const list = (r) => [...r];
  switch (op) {
    case "div_rounding":
      return torch.div(x, y, { rounding_mode: a.rounding_mode });
    case "round_decimals":
      return torch.round(x, { decimals: a.decimals });
    case "narrow":
    case "narrow_copy":
      return torch[op](x, a.dim, a.start, a.length);
    case "select":
      return torch.select(x, a.dim, a.index);
    case "diagonal":
      return torch.diagonal(x, a.offset ?? 0, a.dim1 ?? 0, a.dim2 ?? 1);
    case "movedim":
      return torch.movedim(x, a.source, a.destination);
    case "flatten":
      return torch.flatten(x, a.start_dim ?? 0, a.end_dim ?? -1);
    case "unflatten":
      return torch.unflatten(x, a.dim, a.sizes);
    case "squeeze":
      return torch.squeeze(x, a.dim);
    case "unsqueeze":
      return torch.unsqueeze(x, a.dim);
    case "swapaxes":
      return torch.swapaxes(x, a.axis0, a.axis1);
    case "ravel":
    case "atleast_1d":
    case "atleast_2d":
    case "atleast_3d":
    case "trace":
    case "adjoint":
    case "isneginf":
    case "isposinf":
    case "isreal":
    case "angle":
      return torch[op](x);
    case "broadcast_to":
      return torch.broadcast_to(x, a.shape);
    case "expand_as":
      return x.expand_as(y);
    case "broadcast_tensors":
      return list(torch.broadcast_tensors(...inputs));
    case "split":
      return list(torch.split(x, a.split_size, a.dim ?? 0));
    case "chunk":
      return list(torch.chunk(x, a.chunks, a.dim ?? 0));
    case "tensor_split":
      return list(torch.tensor_split(x, a.sections, a.dim ?? 0));
    case "unbind":
      return list(torch.unbind(x, a.dim ?? 0));
    case "hsplit":
    case "vsplit":
    case "dsplit":
      return list(torch[op](x, a.sections));
    case "hstack":
    case "vstack":
    case "dstack":
    case "column_stack":
      return torch[op](inputs);
    case "repeat":
      return x.repeat(...a.sizes);
    case "tile":
      return torch.tile(x, a.dims);
    case "repeat_interleave":
      return torch.repeat_interleave(x, a.repeats, a.dim);
    case "block_diag":
    case "cartesian_prod":
    case "chain_matmul":
      return torch[op](...inputs);
    case "mm":
    case "bmm":
    case "mv":
    case "dot":
    case "vdot":
    case "inner":
    case "outer":
    case "kron":
    case "fmax":
    case "fmin":
    case "heaviside":
    case "true_divide":
    case "float_power":
    case "ldexp":
    case "take":
      return torch[op](x, y);
    case "addmm":
    case "addmv":
    case "addr":
    case "baddbmm":
    case "addbmm":
      return torch[op](x, y, z, ba);
    case "tensordot":
      return torch.tensordot(x, y, a.dims);
    case "diag":
      return torch.diag(x, a.diagonal ?? 0);
    case "diagflat":
      return torch.diagflat(x, a.offset ?? 0);
    case "diag_embed":
      return torch.diag_embed(x, a.offset ?? 0, a.dim1 ?? -2, a.dim2 ?? -1);
    case "einsum":
      return torch.einsum(a.equation, ...inputs);
    case "cross":
      return torch.cross(x, y, a.dim ?? -1);
    case "cdist":
    case "dist":
      return torch[op](x, y, a.p ?? 2);
    case "isclose":
      return torch.isclose(x, y, {
        rtol: a.rtol,
        atol: a.atol,
        equal_nan: a.equal_nan,
      });
    case "isin":
      return torch.isin(x, y, { invert: a.invert });
    case "nansum":
    case "nanmean":
      return torch[op](x, a.dim, a.keepdim);
    case "aminmax":
      return list(torch.aminmax(x, { dim: a.dim, keepdim: a.keepdim }));
    case "var_mean":
    case "std_mean":
      return list(
        torch[op](x, a.dim ?? null, {
          correction: a.correction,
          keepdim: a.keepdim,
        }),
      );
    case "diff":
      return torch.diff(
        x,
        a.n ?? 1,
        a.dim ?? -1,
        a.prepend ? y : null,
        a.append ? inputs.at(-1) : null,
      );
    case "trapezoid":
      return y
        ? torch.trapezoid(x, y, { dim: a.dim })
        : torch.trapezoid(x, { dx: a.dx, dim: a.dim });
    case "hardshrink":
    case "softshrink":
      return torch[op](x, a.lambd ?? 0.5);
    case "threshold":
      return torch.threshold(x, a.threshold, a.value);
    case "glu":
      return torch.glu(x, a.dim ?? -1);
    case "prelu":
      return torch.prelu(x, y);
    case "leaky_relu":
      return torch.leaky_relu(x, a.negative_slope ?? 0.01);
    case "hardtanh":
      return torch.hardtanh(x, a.min_val ?? -1, a.max_val ?? 1);
    case "rrelu":
      return torch.rrelu(x, a.lower, a.upper, false);
    case "index_add":
      return torch.index_add(x, a.dim, y, z, { alpha: a.alpha });
    case "index_copy":
      return torch.index_copy(x, a.dim, y, z);
    case "index_fill":
      return torch.index_fill(x, a.dim, y, a.value);
    case "select_scatter":
      return torch.select_scatter(x, y, a.dim, a.index);
    case "slice_scatter":
      return torch.slice_scatter(
        x,
        y,
        a.dim ?? 0,
        a.start ?? null,
        a.end ?? null,
        a.step ?? 1,
      );
    case "diagonal_scatter":
      return torch.diagonal_scatter(
        x,
        y,
        a.offset ?? 0,
        a.dim1 ?? 0,
        a.dim2 ?? 1,
      );
    case "bitwise_left_shift":
    case "bitwise_right_shift":
      return torch[op](x, y);
    case "unravel_index":
      return list(torch.unravel_index(x, a.shape));
    case "combinations":
      return torch.combinations(x, a.r ?? 2, a.with_replacement ?? false);
    case "cov":
      return torch.cov(x, { correction: a.correction });
    case "corrcoef":
    case "imag":
      return torch[op](x);
    case "zeros_like":
    case "ones_like":
      return torch[op](x, a.dtype ? { dtype: a.dtype } : {});
    case "full_like":
      return torch.full_like(
        x,
        a.fill_value,
        a.dtype ? { dtype: a.dtype } : {},
      );
    case "linspace":
      return torch.linspace(a.start, a.end, a.steps, opts);
    case "logspace":
      return torch.logspace(a.start, a.end, a.steps, a.base ?? 10, opts);
    case "eye":
      return torch.eye(a.n, a.m ?? a.n, opts);
    case "tril_indices":
    case "triu_indices":
      return torch[op](a.row, a.col, a.offset ?? 0, opts);
    case "hann_window":
    case "hamming_window":
    case "blackman_window":
    case "bartlett_window":
    case "kaiser_window":
      return torch[op](a.n, {
        ...opts,
        ...(a.periodic !== undefined && { periodic: a.periodic }),
        ...(a.beta !== undefined && { beta: a.beta }),
      });
  }
  // sorting.ts
  switch (op) {
    case "topk":
      return list(
        x.topk(a.k, { dim: a.dim ?? -1, largest: a.largest ?? true }),
      );
    case "kthvalue":
      return list(x.kthvalue(a.k, a.dim ?? -1, a.keepdim ?? false));
    case "median":
    case "nanmedian":
      return a.dim === undefined
        ? x[op]()
        : list(x[op](a.dim, a.keepdim ?? false));
    case "quantile":
    case "nanquantile":
      return x[op](y ?? a.q, {
        dim: a.dim,
        keepdim: a.keepdim,
        interpolation: a.interpolation,
      });
    case "msort":
      return x.msort();
    case "bucketize":
      return torch.bucketize(x, y, { right: a.right, out_int32: a.out_int32 });
    case "histc":
      return torch.histc(x, a.bins ?? 100, a.min ?? 0, a.max ?? 0);
    case "histogram":
      return torch.histogram(x, a.bins_tensor ? y : (a.bins ?? 100), {
        ...(a.range !== undefined && { range: a.range }),
        ...(a.weight && { weight: inputs[inputs.length - 1] }),
        ...(a.density !== undefined && { density: a.density }),
      });
    case "unique":
    case "unique_consecutive":
      return torch[op](x, {
        return_inverse: a.return_inverse,
        return_counts: a.return_counts,
        dim: a.dim,
      }).then((r) => (Array.isArray(r) ? list(r) : r));
    case "nonzero":
      return torch.nonzero(x);
    case "masked_select":
      return torch.masked_select(x, y);
    // pointwise.ts
    case "clamp":
      return y !== undefined
        ? torch.clamp(x, y, z)
        : torch.clamp(x, a.min, a.max);
    case "clamp_min":
      return torch.clamp_min(x, a.min);
    case "clamp_max":
      return torch.clamp_max(x, a.max);
    case "lerp":
      return torch.lerp(x, y, z ?? a.weight);
    case "addcmul":
    case "addcdiv":
      return torch[op](x, y, z, { value: a.value });
    case "nan_to_num":
      return torch.nan_to_num(x, {
        nan: a.nan,
        posinf: a.posinf,
        neginf: a.neginf,
      });
    case "flip":
      return torch.flip(x, a.dims);
    case "fliplr":
    case "flipud":
      return torch[op](x);
    case "roll":
      return torch.roll(x, a.shifts, a.dims);
    case "rot90":
      return torch.rot90(x, a.k ?? 1, a.dims ?? [0, 1]);
    case "tril":
    case "triu":
      return torch[op](x, a.diagonal ?? 0);
  }
  // nn/functional/interpolate.ts, ops/scatter.ts, mode (ops/reductions.ts), detach (ops/ops.ts)
  switch (op) {
    case "interpolate":
      return F.interpolate(x, {
        size: a.size,
        scale_factor: a.scale_factor,
        mode: a.mode,
        align_corners: a.align_corners,
        ...(a.recompute_scale_factor !== undefined && {
          recompute_scale_factor: a.recompute_scale_factor,
        }),
        ...(a.antialias !== undefined && { antialias: a.antialias }),
      });
    case "scatter_reduce":
      return torch.scatter_reduce(x, a.dim, y, z, a.reduce, {
        include_self: a.include_self,
      });
    case "mode":
      return list(torch.mode(x, a.dim ?? -1, a.keepdim ?? false));
    case "detach":
      return torch.detach(x);
    // the seeds' remaining ops: NumPy-style aliases (ops/aliases.ts), resize_, …
    case "absolute":
    case "arccos":
    case "arccosh":
    case "arcsin":
    case "arcsinh":
    case "arctan":
    case "arctan2":
    case "divide":
    case "multiply":
    case "subtract":
    case "negative":
    case "fix":
      if (a.inplace) return x.clone()[`${op}_`](...inputs.slice(1));
      return a.alpha !== undefined
        ? torch[op](x, y, { alpha: a.alpha })
        : torch[op](...inputs);
    case "resize_":
      return x.clone().resize_(a.sizes);
    case "as_strided":
      return x.as_strided(a.size, a.stride, a.storage_offset ?? 0);
    case "copy_":
      return x.clone().copy_(y);
    case "clone":
      return torch.clone(x);
    case "slice":
      return x.slice(a.dim, a.start ?? null, a.end ?? null, a.step ?? 1);
    case "scaled_dot_product_attention":
      return F.scaled_dot_product_attention(x, y, z, {
        attn_mask: inputs[3],
        is_causal: a.is_causal,
        scale: a.scale,
      });
    case "group_norm":
      return F.group_norm(x, a.num_groups, y ?? null, z ?? null, a.eps ?? 1e-5);
    case "embedding":
      return F.embedding(x, y);
    case "linear":
    case "bilinear":
      return F[op](...inputs);
    case "softmin":
      return F.softmin(x, a.dim);
    case "mse_loss":
    case "l1_loss":
      return F[op](x, y, a.reduction);
    case "smooth_l1_loss":
      return F.smooth_l1_loss(x, y, a.reduction, a.beta);
    case "huber_loss":
      return F.huber_loss(x, y, a.reduction, a.delta);
    case "nll_loss":
    case "cross_entropy":
      return F[op](x, y, {
        ...(a.reduction !== undefined && { reduction: a.reduction }),
        ...(a.ignore_index !== undefined && { ignore_index: a.ignore_index }),
      });
    case "quantize_per_tensor":
      return torch
        .quantize_per_tensor(x, a.scale, a.zero_point, a.qdtype)
        .int_repr()
        .to("int32");
    case "dequantize":
      return torch
        .quantize_per_tensor(x, a.scale, a.zero_point, a.qdtype)
        .dequantize();
    // index_put.ts
    case "index_put": {
      const rest = inputs.slice(2);
      const idx = a.pattern.map((p) => (p ? rest.shift() : null));
      // A null among the indices is a whole dim (`x[:, i] = v`): PyTorch's ATen op takes it,
      // its public index_put refuses it (as webtorch's does); torch._C has the ATen form.
      const aten = idx.includes(null);
      if (a.inplace)
        return aten
          ? torch._C.aten_index_put_(x.clone(), idx, y, a.accumulate ?? false)
          : x.clone().index_put_(idx, y, a.accumulate ?? false);
      return aten
        ? torch._C.aten_index_put(x, idx, y, a.accumulate ?? false)
        : torch.index_put(x, idx, y, a.accumulate ?? false);
    }
    case "masked_scatter":
      return a.inplace
        ? x.clone().masked_scatter_(y, z)
        : torch.masked_scatter(x, y, z);
  }
  // the sweep's index, select, number and misc families (tests/parity/sweep.py)
  const given = (...keys) =>
    Object.fromEntries(
      keys.filter((k) => a[k] !== undefined).map((k) => [k, a[k]]),
    );
  switch (op) {
    case "argwhere":
    case "real":
    case "conj":
    case "conj_physical":
      return torch[op](x);
    case "embedding_bag":
      return F.embedding_bag(x, y, {
        ...given("mode", "include_last_offset"),
        ...(a.offsets && { offsets: z }),
        ...(a.per_sample_weights && { per_sample_weights: inputs.at(-1) }),
      });
    case "one_hot":
      return F.one_hot(x, a.num_classes ?? -1);
    case "bincount":
      return torch.bincount(x, y ?? null, a.minlength ?? 0);
    case "index_reduce":
      return torch.index_reduce(
        x,
        a.dim,
        y,
        z,
        a.reduce,
        given("include_self"),
      );
    case "gcd":
    case "lcm":
      return torch[op](x, y);
    case "frexp":
      return list(torch.frexp(x));
    case "meshgrid":
      return list(torch.meshgrid(inputs, given("indexing")));
    case "row_stack":
      return torch.row_stack(inputs);
    case "view_as":
    case "reshape_as":
    case "type_as":
      return x[op](y);
    case "swapdims":
      return torch.swapdims(x, a.dim0, a.dim1);
    case "normalize":
      return F.normalize(x, given("p", "dim", "eps"));
    case "new_zeros":
    case "new_ones":
      return x[op](a.size, given("dtype"));
    case "new_full":
      return x.new_full(a.size, a.fill_value, given("dtype"));
    case "cumulative_trapezoid":
      return y
        ? torch.cumulative_trapezoid(x, y, given("dim"))
        : torch.cumulative_trapezoid(x, given("dx", "dim"));
  }
  return undefined;
}
