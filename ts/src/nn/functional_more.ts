/**
 * More of `torch.nn.functional`, re-exported by functional.ts: `group_norm`, `instance_norm`,
 * `bilinear`, `embedding_bag` and `scaled_dot_product_attention`. Each is a composition of
 * differentiable core ops inside a {@link scope}, which frees the intermediates.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { checkHostAlloc, checkInts, pyTypeName } from "../args.js";
import { Tensor, checkTensor, wrap } from "../tensor/tensor.js";
import { no_grad } from "../autograd/grad_mode.js";
import { arange, full, tensor, zeros } from "../ops/creation.js";
import { cat } from "../ops/indexing.js";
import { where } from "../ops/conditional.js";
import { scope } from "../lifetime.js";
import { batch_norm } from "../ops/conv.js";
import { dropout, embedding, softmax } from "./functional.js";

const shapeStr = (t: Tensor) => `[${t.shape.join(", ")}]`;

/** `(1, C, 1, …)`: a per-channel vector shaped to broadcast over `(N, C, *)`. */
function perChannel(v: Tensor, ndim: number): Tensor {
  return v.reshape([1, v.shape[0]!, ...Array<number>(ndim - 2).fill(1)]);
}

/**
 * Group normalization: the channels of `(N, C, *)` split into `num_groups` groups, each normalized
 * over its channels and spatial positions (biased variance), then scaled and shifted per channel.
 */
export function group_norm(
  input: Tensor,
  num_groups: number,
  weight: Tensor | null = null,
  bias: Tensor | null = null,
  eps = 1e-5,
): Tensor {
  const [n, c] = input.shape as number[];
  if (input.ndim < 2 || c! % num_groups !== 0)
    throw new TorchError(
      `Expected number of channels in input to be divisible by num_groups, but got input of shape ${shapeStr(input)} and num_groups=${num_groups}`,
    );
  return scope(() => {
    const g = input.reshape([n!, num_groups, -1]);
    const mu = g.mean(2, true);
    const centered = g.sub(mu);
    const variance = centered.square().mean(2, true);
    let y = centered.mul(variance.add(eps).rsqrt()).reshape([...input.shape]);
    if (weight) y = y.mul(perChannel(weight, input.ndim));
    if (bias) y = y.add(perChannel(bias, input.ndim));
    return y;
  });
}

/** Options of {@link instance_norm}. */
export interface InstanceNormOptions {
  /** Running mean per channel, updated in training when given. */
  running_mean?: Tensor | null;
  /** Running variance per channel, updated in training when given. */
  running_var?: Tensor | null;
  /** Per-channel scale. */
  weight?: Tensor | null;
  /** Per-channel shift. */
  bias?: Tensor | null;
  /** Normalize with this input's statistics (default); `false`: with the running ones. */
  use_input_stats?: boolean;
  /** Momentum of the running statistics (default 0.1). */
  momentum?: number;
  /** Added to the variance (default 1e-5). */
  eps?: number;
}

/**
 * Instance normalization: each `(n, c)` plane of `(N, C, *)` normalized over its spatial
 * positions. As in PyTorch, this is batch_norm over `(1, N·C, *)`; running statistics (when
 * given) are updated with the mean over the batch of the per-instance statistics.
 */
export function instance_norm(
  input: Tensor,
  options: InstanceNormOptions = {},
): Tensor {
  const { running_mean = null, running_var = null } = options;
  const { weight = null, bias = null } = options;
  const use = options.use_input_stats ?? true;
  const [n, c] = input.shape as number[];
  if (use && input.shape.slice(2).reduce((a, b) => a * b, 1) <= 1)
    throw new TorchError(
      `Expected more than 1 spatial element when training, got input size ${shapeStr(input)}`,
    );
  return scope(() => {
    const rep = (t: Tensor | null) => (t ? t.repeat([n!]) : null);
    const rm = rep(running_mean);
    const rv = rep(running_var);
    const x = input.reshape([1, n! * c!, ...input.shape.slice(2)]);
    const y = batch_norm(
      x,
      rm,
      rv,
      rep(weight),
      rep(bias),
      use,
      options.momentum ?? 0.1,
      options.eps ?? 1e-5,
    );
    if (use && rm && rv && running_mean && running_var)
      no_grad(() => {
        running_mean.copy_(rm.reshape([n!, c!]).mean(0));
        running_var.copy_(rv.reshape([n!, c!]).mean(0));
      });
    return y.reshape([...input.shape]);
  });
}

/**
 * `y = x1ᵀ A x2 + b` with `weight` `(out, in1, in2)`: `input1` `(*, in1)`, `input2` `(*, in2)`
 * → `(*, out)`.
 */
export function bilinear(
  input1: Tensor,
  input2: Tensor,
  weight: Tensor,
  bias: Tensor | null = null,
): Tensor {
  const [out, in1, in2] = weight.shape as number[];
  if (input1.shape.at(-1) !== in1 || input2.shape.at(-1) !== in2)
    throw new TorchError(
      `bilinear(): input sizes ${shapeStr(input1)} and ${shapeStr(input2)} do not match weight ${shapeStr(weight)}`,
    );
  const lead = input1.shape.slice(0, -1);
  return scope(() => {
    const a = input1.reshape([-1, in1!]);
    const b = input2.reshape([-1, in2!]);
    // (B, in1) @ (in1, out·in2) → (B, out, in2), then contract in2 with input2.
    const w = weight.permute(1, 0, 2).reshape([in1!, out! * in2!]);
    const t = a.matmul(w).reshape([-1, out!, in2!]);
    let y = t.mul(b.unsqueeze(1)).sum(2);
    if (bias) y = y.add(bias);
    return y.reshape([...lead, out!]);
  });
}

/** Options of {@link embedding_bag}. */
export interface EmbeddingBagOptions {
  /** Start of each bag in a 1-D `input` (not allowed with 2-D input, whose rows are bags). */
  offsets?: Tensor | null;
  /** `"mean"` (default), `"sum"` or `"max"`. */
  mode?: "sum" | "mean" | "max";
  /** One weight per index (`"sum"` mode only), multiplying its row. */
  per_sample_weights?: Tensor | null;
  /** `offsets` has one more entry: the end of the last bag. */
  include_last_offset?: boolean;
  /** Indices equal to this are left out of their bag. */
  padding_idx?: number | null;
}

/**
 * Sums, means or maxes of bags of embedding rows, without materializing each bag: positions are
 * assigned to bags by comparing them with the offsets on the device (no read back), and empty
 * bags give zeros, as in PyTorch.
 */
export function embedding_bag(
  input: Tensor,
  weight: Tensor,
  options: EmbeddingBagOptions = {},
): Tensor {
  const mode = options.mode ?? "mean";
  if (!["sum", "mean", "max"].includes(mode))
    throw new TorchError(`mode has to be one of sum, mean or max`);
  const psw = options.per_sample_weights ?? null;
  if (psw && mode !== "sum")
    throw new TorchError(
      `embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' (got mode='${mode}'). Please open a feature request on GitHub.`,
    );
  let offsets = options.offsets ?? null;
  if (input.ndim === 2) {
    if (offsets)
      throw new TorchError(
        "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences.",
      );
  } else if (input.ndim === 1) {
    if (!offsets)
      throw new TorchError("offsets has to be a 1D Tensor but got None");
    if (offsets.ndim !== 1)
      throw new TorchError("offsets has to be a 1D Tensor");
  } else
    throw new TorchError(
      `input has to be 1D or 2D Tensor, but got Tensor of dimension ${input.ndim}`,
    );
  if (psw && psw.shape.join() !== input.shape.join())
    throw new TorchError(
      `embedding_bag: If per_sample_weights (${shapeStr(psw)}) is not None, then it must have the same shape as the input (${shapeStr(input)})`,
    );
  return scope(() => {
    const device = input.device;
    let idx = input;
    let w = psw;
    if (input.ndim === 2) {
      const [b, l] = input.shape as number[];
      offsets = arange(0, b! * l!, l!, { dtype: "int64", device });
      idx = input.reshape([-1]);
      w = psw ? psw.reshape([-1]) : null;
    }
    const total = idx.shape[0]!;
    const starts = options.include_last_offset
      ? offsets!.narrow(0, 0, offsets!.shape[0]! - 1)
      : offsets!;
    const ends = options.include_last_offset
      ? offsets!.narrow(0, 1, offsets!.shape[0]! - 1)
      : cat([
          offsets!.narrow(0, 1, offsets!.shape[0]! - 1),
          full([1], total, { dtype: offsets!.dtype, device }),
        ]);
    const pos = arange(total, { dtype: offsets!.dtype, device }).unsqueeze(0);
    // member[b, t]: position t belongs to bag b.
    let member = pos
      .ge(starts.unsqueeze(1))
      .logical_and(pos.lt(ends.unsqueeze(1)));
    if (options.padding_idx !== null && options.padding_idx !== undefined)
      member = member.logical_and(idx.ne(options.padding_idx).unsqueeze(0));
    const rows = embedding(idx, weight); // (T, D)
    if (mode === "max") {
      const masked = where(member.unsqueeze(2), rows.unsqueeze(0), -Infinity);
      const m = masked.amax(1);
      const empty = member.any(1).logical_not().unsqueeze(1);
      return where(empty, zeros([], { device }), m);
    }
    let mf = member.to("float32");
    if (w) mf = mf.mul(w.unsqueeze(0));
    const sums = mf.matmul(rows);
    if (mode === "sum") return sums;
    const counts = member.to("float32").sum(1, true).maximum(1);
    return sums.div(counts);
  });
}

/** Options of {@link scaled_dot_product_attention}. */
export interface AttentionOptions {
  /** Bool (true = may attend) or float (added to the scores), broadcast to `(…, L, S)`. */
  attn_mask?: Tensor | null;
  /** Dropout probability on the attention weights (default 0). */
  dropout_p?: number;
  /** Each query attends only to keys at or before its position. */
  is_causal?: boolean;
  /** Multiplies the scores; default `1/√E`. */
  scale?: number | null;
  /**
   * Grouped-query attention: key and value may have fewer heads (dim -3) than the query, each
   * shared by `Hq / Hkv` consecutive query heads (PyTorch's `repeat_interleave` of key and
   * value). On WebGPU the shared heads are read in place, not repeated.
   */
  enable_gqa?: boolean;
}

/** A float mask with `-inf` above the diagonal of an `L × S` grid. */
export function causalMask(
  l: number,
  s: number,
  device?: "webgpu" | "cpu",
): Tensor {
  return scope(() => {
    const i = arange(l, { device }).unsqueeze(1);
    const j = arange(s, { device }).unsqueeze(0);
    return where(j.gt(i), -Infinity, 0);
  });
}

/**
 * Softmax over the last dim of `(…, L, S)` scores where query `i` attends to keys `j ≤ i` only
 * (the others get 0): one core kernel with no mask tensor, read or added, and a one-kernel
 * backward — attention's `is_causal` path.
 */
export function causalSoftmax(scores: Tensor): Tensor {
  return wrap(
    checkTensor("causalSoftmax", "scores", scores)._raw.causal_softmax(),
  );
}

/**
 * Attention `softmax(Q Kᵀ · scale + mask) V` without dropout as one core node, optionally causal
 * (query `i` attending to keys `j ≤ i`) or with a float `mask` (added to the scores, `-inf` where
 * not attended; not differentiated) broadcasting to `(…, L, S)`. On WebGPU the forward is one
 * kernel that never writes the `L × S` scores and the backward recomputes them; otherwise the
 * products skip the causal zeros and the softmax is {@link causalSoftmax}.
 */
export function attentionNode(
  query: Tensor,
  key: Tensor,
  value: Tensor,
  scale: number,
  causal: boolean,
  mask: Tensor | null = null,
): Tensor {
  const raw = (name: string, t: Tensor) =>
    checkTensor("scaled_dot_product_attention", name, t)._raw;
  const [q, k, v] = [raw("query", query), raw("key", key), raw("value", value)];
  return wrap(
    mask
      ? q.attention_masked(k, v, raw("attn_mask", mask), scale)
      : q.attention(k, v, scale, causal),
  );
}

/**
 * `softmax(Q Kᵀ · scale + mask) V` over `(…, L, E)` queries and `(…, S, E)` keys/values. Note the
 * bool mask convention here is PyTorch's for this function: `true` means *may attend*.
 */
export function scaled_dot_product_attention(
  query: Tensor,
  key: Tensor,
  value: Tensor,
  options: AttentionOptions = {},
): Tensor {
  if (options.enable_gqa) {
    // In a scope: the grouped views and the inner result go when the call returns.
    const grouped = scope(() => groupedQuery(query, key, value, options));
    if (grouped) return grouped;
  }
  const l = query.shape.at(-2)!;
  const s = key.shape.at(-2)!;
  const scale = options.scale ?? 1 / Math.sqrt(query.shape.at(-1)!);
  if (options.is_causal && options.attn_mask)
    throw new TorchError(
      "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True",
    );
  return scope(() => {
    // Scaling the (…, L, E) queries rather than the (…, L, S) scores: one pass over L·E values
    // instead of L·S, forward and backward (as MultiheadAttention does).
    // Without dropout, and with no mask or one that needs no gradient: one core node (on
    // WebGPU one kernel that never writes the L × S scores). A bool mask (true: may attend)
    // becomes 0 / -inf.
    const am = options.attn_mask;
    if (!((options.dropout_p ?? 0) > 0) && !am?.requires_grad) {
      const fm = am && am.dtype === "bool" ? where(am, 0, -Infinity) : am;
      return attentionNode(
        query,
        key,
        value,
        scale,
        !!options.is_causal,
        fm ?? null,
      );
    }
    let scores = query.mul(scale).matmul(key.transpose(-2, -1));
    if (options.is_causal) scores = scores.add(causalMask(l, s, query.device));
    const m = options.attn_mask;
    if (m)
      scores =
        m.dtype === "bool"
          ? scores.masked_fill(m.logical_not(), -Infinity)
          : scores.add(m);
    let attn = softmax(scores, -1);
    if ((options.dropout_p ?? 0) > 0)
      attn = dropout(attn, options.dropout_p, true);
    return attn.matmul(value);
  });
}

/**
 * SDPA with `enable_gqa` where key or value has fewer heads than the query (else `null`). With
 * one head count for both, the query's heads split as `(Hkv, g)` and key and value gain a
 * broadcast `g` dim: every query head reads its group's key and value where they are (the
 * kernel through a stride of 0), no `repeat_interleave` copy; a mask with `Hq` heads splits
 * the same way. Different key and value head counts are repeated, as PyTorch does.
 */
function groupedQuery(
  query: Tensor,
  key: Tensor,
  value: Tensor,
  options: AttentionOptions,
): Tensor | null {
  if (query.ndim < 3 || key.ndim < 3 || value.ndim < 3) return null;
  const [hq, hk, hv] = [query, key, value].map((t) => t.shape.at(-3)!) as [
    number,
    number,
    number,
  ];
  if (hq === hk && hq === hv) return null;
  if (hq % hk || hq % hv)
    throw new TorchError(
      "Number of heads in key and value must divide the number of heads in query",
    );
  const rest = { ...options, enable_gqa: false };
  if (hk !== hv)
    return scaled_dot_product_attention(
      query,
      key.repeat_interleave(hq / hk, -3),
      value.repeat_interleave(hq / hv, -3),
      rest,
    );
  const g = hq / hk;
  const share = (t: Tensor) => {
    const u = t.unsqueeze(-3);
    const shape = [...u.shape];
    shape[shape.length - 3] = g;
    return u.expand(...shape);
  };
  const am = options.attn_mask;
  // A mask's heads dim (dim -3, Hq or broadcast) splits or gains a broadcast dim likewise.
  const mask =
    am && am.ndim >= 3
      ? am.shape.at(-3) === hq
        ? am.unflatten(-3, [hk, g])
        : am.unsqueeze(-3)
      : am;
  const y = scaled_dot_product_attention(
    query.unflatten(-3, [hk, g]),
    share(key),
    share(value),
    { ...rest, attn_mask: mask },
  );
  return y.flatten(-4, -3);
}

/** `mask[i][j]`: input position `j` lies in adaptive window `i` of `n` → `out` outputs. */
function adaptiveWindows(
  n: number,
  out: number,
  device: "webgpu" | "cpu",
): Tensor {
  // An out × n table, both sizes the caller's: checked against the budget (a byte each, plus
  // tensor's float64 copy) before it exists.
  checkHostAlloc("adaptive_max_pool", out * n, 1 + 8);
  const m = new Uint8Array(out * n);
  for (let i = 0; i < out; i++) {
    const start = Math.floor((i * n) / out);
    const end = Math.ceil(((i + 1) * n) / out);
    for (let j = start; j < end; j++) m[i * n + j] = 1;
  }
  return tensor(m, { dtype: "bool", device }).reshape([out, n]);
}

/** Max over adaptive windows of the last dim: `(…, n)` → `(…, out)`. */
function adaptiveMaxLast(x: Tensor, out: number): Tensor {
  const n = x.shape.at(-1)!;
  checkInts("adaptive_max_pool", "output_size", [out]);
  if (out < 0)
    throw new TorchError(
      `adaptive_max_pool: elements of output_size must be greater than or equal to 0 but received {${out}}`,
    );
  const mask = adaptiveWindows(n, out, x.device); // (out, n)
  return where(mask, x.unsqueeze(-2), -Infinity).amax(-1);
}

/**
 * Max pooling to a fixed output length: window `i` of `L` inputs covers
 * `[⌊i·L/out⌋, ⌈(i+1)·L/out⌉)`, as in PyTorch. `(N, C, L)` or `(C, L)`.
 */
export function adaptive_max_pool1d(
  input: Tensor,
  output_size: number,
): Tensor {
  if (input.ndim !== 2 && input.ndim !== 3)
    throw new TorchError(
      `adaptive_max_pool1d(): Expected 2D or 3D tensor, but got ${shapeStr(input)}`,
    );
  return scope(() => adaptiveMaxLast(input, output_size));
}

/**
 * Max pooling to a fixed `(out_h, out_w)` (a number for both; `null` keeps that input size),
 * over `(N, C, H, W)` or `(C, H, W)`. Max is separable: columns first, then rows.
 */
export function adaptive_max_pool2d(
  input: Tensor,
  output_size: number | readonly (number | null)[],
): Tensor {
  if (input.ndim !== 3 && input.ndim !== 4)
    throw new TorchError(
      `adaptive_max_pool2d(): Expected 3D or 4D tensor, but got ${shapeStr(input)}`,
    );
  if (typeof output_size !== "number" && !Array.isArray(output_size))
    throw new TorchError(
      `adaptive_max_pool2d(): argument 'output_size' must be tuple of ints, not ${pyTypeName(output_size)}`,
    );
  const [h, w] = input.shape.slice(-2) as [number, number];
  const [oh, ow] =
    typeof output_size === "number"
      ? [output_size, output_size]
      : [output_size[0] ?? h, output_size[1] ?? w];
  return scope(() => {
    const cols = adaptiveMaxLast(input, ow); // (…, H, ow)
    return adaptiveMaxLast(cols.transpose(-1, -2), oh).transpose(-1, -2);
  });
}
