/**
 * `MultiheadAttention`, with PyTorch's parameter names (`in_proj_weight`, `out_proj.weight`, …),
 * initialisation and mask conventions (bool masks: `true` = may *not* attend; float masks are
 * added to the scores). Keyword arguments go in an options object:
 * `mha.call(q, k, v, { key_padding_mask })`. The transformer layers built on it are in
 * transformer.ts.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { args, omit } from "../schema/index.js";
import type { Tensor } from "../tensor/tensor.js";
import { full, zeros } from "../ops/creation.js";
import { cat } from "../ops/indexing.js";
import { scope } from "../lifetime.js";
import * as F from "./functional/index.js";
import {
  attentionNode,
  causalMask,
  causalSoftmax,
} from "./functional/attention.js";
import * as init from "./init.js";
import { Module, Parameter, ownedParameter } from "./module.js";
import { Linear, type FactoryOptions } from "./layers.js";

/** A bool mask becomes `-inf` where true; a float mask is used as is. */
function floatMask(m: Tensor | null | undefined): Tensor | null {
  if (!m) return null;
  return m.dtype === "bool"
    ? zeros(m.shape as number[], { device: m.device }).masked_fill(m, -Infinity)
    : m;
}

/** Options of {@link MultiheadAttention}. */
export interface MultiheadAttentionOptions extends FactoryOptions {
  /** Dropout probability (default 0; active in training mode only). */
  dropout?: number;
  /** Add a learnable bias (default true). */
  bias?: boolean;
  /** Add learnable bias rows to the keys and values (default false). */
  add_bias_kv?: boolean;
  /** Add a batch of zeros to the keys and values (default false). */
  add_zero_attn?: boolean;
  /** Feature size of the keys (default: embed_dim). */
  kdim?: number | null;
  /** Feature size of the values (default: embed_dim). */
  vdim?: number | null;
  /** Inputs and outputs are `[batch, seq, feature]` instead of `[seq, batch, feature]` (default false). */
  batch_first?: boolean;
}

/** Options of {@link MultiheadAttention.forward}. */
export interface AttentionCallOptions {
  /** `(N, S)`: keys to ignore (bool true, or float added). */
  key_padding_mask?: Tensor | null;
  /** Return the attention weights (default true). */
  need_weights?: boolean;
  /** `(L, S)` or `(N·num_heads, L, S)`: bool true = may not attend, or float added. */
  attn_mask?: Tensor | null;
  /** Average the returned weights over heads (default true). */
  average_attn_weights?: boolean;
  /** A hint that `attn_mask` is causal; makes one when `attn_mask` is absent. */
  is_causal?: boolean;
}

/**
 * Multi-head attention. Parameters: `in_proj_weight` `(3E, E)` (or `q_proj_weight`,
 * `k_proj_weight`, `v_proj_weight` when `kdim`/`vdim` differ from E), `in_proj_bias`,
 * `bias_k`/`bias_v` (`add_bias_kv`), and `out_proj` (a Linear). Initialised as PyTorch's:
 * xavier_uniform_ projections, zero biases, xavier_normal_ `bias_k`/`bias_v`.
 */
export class MultiheadAttention extends Module {
  readonly kdim: number;
  readonly vdim: number;
  readonly head_dim: number;
  readonly dropout: number;
  readonly batch_first: boolean;
  readonly add_zero_attn: boolean;
  readonly _qkv_same_embed_dim: boolean;
  declare in_proj_weight: Parameter | null;
  declare q_proj_weight: Parameter | null;
  declare k_proj_weight: Parameter | null;
  declare v_proj_weight: Parameter | null;
  declare in_proj_bias: Parameter | null;
  declare bias_k: Parameter | null;
  declare bias_v: Parameter | null;
  out_proj: Linear;

  constructor(
    readonly embed_dim: number,
    readonly num_heads: number,
    options: MultiheadAttentionOptions = {},
  ) {
    super();
    const a = args("nn.MultiheadAttention", arguments);
    ({ embed_dim, num_heads } = Object.assign(this, {
      embed_dim: a.embed_dim,
      num_heads: a.num_heads,
    }));
    const o = omit(a, "embed_dim", "num_heads") as MultiheadAttentionOptions;
    if (embed_dim <= 0 || num_heads <= 0)
      throw new TorchError(
        `embed_dim and num_heads must be greater than 0, got embed_dim=${embed_dim} and num_heads=${num_heads} instead`,
      );
    this.kdim = o.kdim ?? embed_dim;
    this.vdim = o.vdim ?? embed_dim;
    this._qkv_same_embed_dim =
      this.kdim === embed_dim && this.vdim === embed_dim;
    this.dropout = o.dropout ?? 0;
    this.batch_first = o.batch_first ?? false;
    this.add_zero_attn = o.add_zero_attn ?? false;
    this.head_dim = Math.floor(embed_dim / num_heads);
    if (this.head_dim * num_heads !== embed_dim)
      throw new TorchError("embed_dim must be divisible by num_heads");
    const p = (shape: number[]) =>
      ownedParameter(full(shape, 0, { dtype: "float32", device: o.device }));
    const bias = o.bias ?? true;
    if (this._qkv_same_embed_dim) {
      this.register_parameter("in_proj_weight", p([3 * embed_dim, embed_dim]));
      this.register_parameter("q_proj_weight", null);
      this.register_parameter("k_proj_weight", null);
      this.register_parameter("v_proj_weight", null);
    } else {
      this.register_parameter("q_proj_weight", p([embed_dim, embed_dim]));
      this.register_parameter("k_proj_weight", p([embed_dim, this.kdim]));
      this.register_parameter("v_proj_weight", p([embed_dim, this.vdim]));
      this.register_parameter("in_proj_weight", null);
    }
    this.register_parameter("in_proj_bias", bias ? p([3 * embed_dim]) : null);
    this.out_proj = new Linear(embed_dim, embed_dim, bias, {
      device: o.device,
    });
    if (o.add_bias_kv) {
      this.register_parameter("bias_k", p([1, 1, embed_dim]));
      this.register_parameter("bias_v", p([1, 1, embed_dim]));
    } else {
      this.register_parameter("bias_k", null);
      this.register_parameter("bias_v", null);
    }
    this._reset_parameters();
  }

  /** PyTorch's initialisation (see the class doc). */
  _reset_parameters(): void {
    for (const w of [
      this.in_proj_weight,
      this.q_proj_weight,
      this.k_proj_weight,
      this.v_proj_weight,
    ])
      if (w) init.xavier_uniform_(w);
    if (this.in_proj_bias) {
      init.constant_(this.in_proj_bias, 0);
      if (this.out_proj.bias) init.constant_(this.out_proj.bias, 0);
    }
    if (this.bias_k) init.xavier_normal_(this.bias_k);
    if (this.bias_v) init.xavier_normal_(this.bias_v);
  }

  /**
   * Attends `query` `(L, N, E)` to `key` `(S, N, kdim)` / `value` `(S, N, vdim)` (`(N, L, E)` …
   * with `batch_first`; unbatched `(L, E)` too). Returns `[output, weights]`: weights
   * `(N, L, S)` averaged over heads, `(N, num_heads, L, S)` otherwise, `null` without
   * `need_weights`.
   */
  override forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    options: AttentionCallOptions = {},
  ): [Tensor, Tensor | null] {
    const E = this.embed_dim;
    const H = this.num_heads;
    const hd = this.head_dim;
    const batched = query.ndim === 3;
    if (query.ndim !== 2 && query.ndim !== 3)
      throw new TorchError(
        `query should be unbatched 2D or batched 3D tensor but received ${query.ndim}-D query tensor`,
      );
    if (query.shape.at(-1) !== E)
      throw new TorchError(
        `was expecting embedding dimension of ${E}, but got ${query.shape.at(-1)}`,
      );
    const needWeights = options.need_weights ?? true;
    return scope(() => {
      let q = query;
      let k = key;
      let v = value;
      if (!batched) {
        q = q.unsqueeze(1);
        k = k.unsqueeze(1);
        v = v.unsqueeze(1);
      } else if (this.batch_first) {
        q = q.transpose(0, 1);
        k = k.transpose(0, 1);
        v = v.transpose(0, 1);
      }
      const [L, N] = q.shape as [number, number];
      const b = this.in_proj_bias;
      const part = (t: Tensor | null, i: number) =>
        t ? t.narrow(0, i * E, E) : null;
      const w = this.in_proj_weight;
      q = F.linear(q, w ? part(w, 0)! : this.q_proj_weight!, part(b, 0));
      k = F.linear(k, w ? part(w, 1)! : this.k_proj_weight!, part(b, 1));
      v = F.linear(v, w ? part(w, 2)! : this.v_proj_weight!, part(b, 2));
      let kpm = floatMask(options.key_padding_mask);
      // As PyTorch: with the is_causal hint, no padding mask and no weights asked for, the mask
      // is replaced by causal attention (one softmax kernel that skips the masked keys).
      const causal = !!options.is_causal && !kpm && !needWeights;
      let mask = causal ? null : floatMask(options.attn_mask);
      if (!mask && !causal && options.is_causal)
        mask = causalMask(L, k.shape[0]!, query.device);
      if (mask && mask.ndim === 2) mask = mask.unsqueeze(0);
      const padLast = (m: Tensor | null) => (m ? F.pad(m, [0, 1]) : null);
      if (this.bias_k && this.bias_v) {
        k = cat([k, this.bias_k.expand(1, N, E)]);
        v = cat([v, this.bias_v.expand(1, N, E)]);
        mask = padLast(mask);
        kpm = padLast(kpm);
      }
      // (L, N, E) → (N·H, L, hd)
      const heads = (t: Tensor) =>
        t.reshape([t.shape[0]!, N * H, hd]).transpose(0, 1);
      q = heads(q);
      k = heads(k);
      v = heads(v);
      if (this.add_zero_attn) {
        k = cat([k, zeros([N * H, 1, hd], { device: k.device })], 1);
        v = cat([v, zeros([N * H, 1, hd], { device: v.device })], 1);
        mask = padLast(mask);
        kpm = padLast(kpm);
      }
      const S = k.shape[1]!;
      if (kpm) {
        const m = kpm
          .reshape([N, 1, 1, S])
          .expand(N, H, 1, S)
          .reshape([N * H, 1, S]);
        mask = mask ? mask.add(m) : m;
      }
      const drop = this.dropout > 0 && this.training;
      let attn: Tensor | null = null;
      let headsOut: Tensor;
      if (!drop && !needWeights && !mask?.requires_grad) {
        headsOut = attentionNode(q, k, v, Math.sqrt(1 / hd), causal, mask);
      } else {
        let scores = q.mul(Math.sqrt(1 / hd)).matmul(k.transpose(1, 2));
        if (mask) scores = scores.add(mask);
        attn = causal ? causalSoftmax(scores) : F.softmax(scores, -1);
        if (drop) attn = F.dropout(attn, this.dropout, true);
        headsOut = attn.matmul(v);
      }
      const ctx = headsOut.transpose(0, 1).reshape([L * N, E]);
      let out = F.linear(ctx, this.out_proj.weight, this.out_proj.bias).reshape(
        [L, N, E],
      );
      if (!batched) out = out.squeeze(1);
      else if (this.batch_first) out = out.transpose(0, 1);
      if (!needWeights || !attn) return [out, null] as [Tensor, Tensor | null];
      let weights = attn.reshape([N, H, L, S]);
      if (options.average_attn_weights ?? true) weights = weights.mean(1);
      if (!batched) weights = weights.squeeze(0);
      return [out, weights] as [Tensor, Tensor | null];
    });
  }
}
