/**
 * `torch.nn.functional.scaled_dot_product_attention` (causal and grouped-query attention
 * included), and the causal mask and softmax the attention modules share. A composition of
 * differentiable core ops inside a {@link scope}, or one core node when no gradient needs the
 * composition.
 *
 * @module
 */

import { args, omit } from "../../schema/index.js";
import { cTypeName } from "../../dtype.js";
import { DTypeError, TorchError } from "../../errors.js";
import { Tensor, checkTensor, wrap } from "../../tensor/tensor.js";
import { arange } from "../../ops/creation.js";
import { where } from "../../ops/conditional.js";
import { scope } from "../../lifetime.js";
import { dropout } from "./dropout.js";
import { softmax } from "./activations.js";

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
  options?: AttentionOptions,
): Tensor {
  const a = args("nn.functional.scaled_dot_product_attention", arguments);
  ({ query, key, value } = a);
  options = omit(a, "query", "key", "value") as AttentionOptions;
  if (query.dtype !== key.dtype || query.dtype !== value.dtype) {
    const [q, k, v] = [query, key, value].map((t) => cTypeName(t.dtype));
    throw new DTypeError(
      `Expected query, key, and value to have the same dtype, but got query.dtype: ${q} key.dtype: ${k} and value.dtype: ${v} instead.`,
    );
  }
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
