/**
 * Transformer layers: `TransformerEncoderLayer`, `TransformerDecoderLayer`, `TransformerEncoder`,
 * `TransformerDecoder` and `Transformer`, with PyTorch's parameter names (`self_attn.in_proj_weight`,
 * `linear1.weight`, `norm1.bias`, `layers.0.…`), initialisation and mask conventions (bool masks:
 * `true` = may *not* attend; float masks are added to the scores). Their attention is
 * {@link MultiheadAttention} (attention.ts).
 *
 * Keyword arguments go in an options object: `layer.call(src, { src_mask })`.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { args, omit } from "../schema/index.js";
import { pyTypeName } from "../args.js";
import type { Tensor } from "../tensor/tensor.js";
import { scope } from "../lifetime.js";
import * as F from "./functional/index.js";
import { causalMask } from "./functional/attention.js";
import * as init from "./init.js";
import { Module } from "./module.js";
import { ModuleList } from "./containers.js";
import { Dropout, LayerNorm, Linear, type FactoryOptions } from "./layers.js";
import { MultiheadAttention } from "./attention.js";

/** An activation of the transformer layers: `"relu"`, `"gelu"`, or a function. */
export type TransformerActivation = "relu" | "gelu" | ((x: Tensor) => Tensor);

/** Options of {@link TransformerEncoderLayer} and {@link TransformerDecoderLayer}. */
export interface TransformerLayerOptions extends FactoryOptions {
  /** Default 2048. */
  dim_feedforward?: number;
  /** Default 0.1. */
  dropout?: number;
  /** Activation of the feed-forward block: `"relu"` (default), `"gelu"` or a function. */
  activation?: TransformerActivation;
  /** eps of the layer norms (default 1e-5). */
  layer_norm_eps?: number;
  /** Inputs and outputs are `[batch, seq, feature]` instead of `[seq, batch, feature]` (default false). */
  batch_first?: boolean;
  /** Pre-norm (normalize before attention and feed-forward) instead of post-norm. */
  norm_first?: boolean;
  /** Add a learnable bias (default true). */
  bias?: boolean;
}

function activate(a: TransformerActivation, x: Tensor): Tensor {
  if (a === "relu") return x.relu();
  if (a === "gelu") return F.gelu(x);
  if (typeof a === "function") return a(x);
  throw new TorchError(`activation should be relu/gelu, not ${String(a)}`);
}

/** Options of {@link TransformerEncoderLayer.forward}. */
export interface EncoderLayerCallOptions {
  /** Additive float or boolean mask of the self-attention (`[src, src]`). */
  src_mask?: Tensor | null;
  /** `[batch, src]` mask of positions to ignore (true = padding). */
  src_key_padding_mask?: Tensor | null;
  /** A hint that the mask is causal (as in PyTorch; the mask is still what is applied). */
  is_causal?: boolean;
}

/** Self-attention and a feed-forward block, each with a residual connection and a LayerNorm. */
export class TransformerEncoderLayer extends Module {
  self_attn: MultiheadAttention;
  linear1: Linear;
  dropout: Dropout;
  linear2: Linear;
  norm1: LayerNorm;
  norm2: LayerNorm;
  dropout1: Dropout;
  dropout2: Dropout;
  readonly norm_first: boolean;
  readonly activation: TransformerActivation;

  constructor(
    readonly d_model: number,
    readonly nhead: number,
    readonly options: TransformerLayerOptions = {},
  ) {
    super();
    const a = args("nn.TransformerEncoderLayer", arguments);
    ({ d_model, nhead } = Object.assign(this, {
      d_model: a.d_model,
      nhead: a.nhead,
    }));
    const o = (this.options = omit(
      a,
      "d_model",
      "nhead",
    ) as TransformerLayerOptions);
    const ff = o.dim_feedforward ?? 2048;
    const p = o.dropout ?? 0.1;
    const bias = o.bias ?? true;
    const eps = o.layer_norm_eps ?? 1e-5;
    this.self_attn = new MultiheadAttention(d_model, nhead, {
      dropout: p,
      bias,
      batch_first: o.batch_first ?? false,
      device: o.device,
    });
    this.linear1 = new Linear(d_model, ff, bias, { device: o.device });
    this.dropout = new Dropout(p);
    this.linear2 = new Linear(ff, d_model, bias, { device: o.device });
    this.norm_first = o.norm_first ?? false;
    this.norm1 = new LayerNorm(d_model, eps, true, bias, { device: o.device });
    this.norm2 = new LayerNorm(d_model, eps, true, bias, { device: o.device });
    this.dropout1 = new Dropout(p);
    this.dropout2 = new Dropout(p);
    this.activation = o.activation ?? "relu";
  }

  /** A new layer with the same options and a copy of this one's state (PyTorch's deepcopy). */
  _copy(): TransformerEncoderLayer {
    const c = new TransformerEncoderLayer(
      this.d_model,
      this.nhead,
      this.options,
    );
    c.load_state_dict(this.state_dict());
    c.train(this.training);
    return c;
  }

  override forward(src: Tensor, options: EncoderLayerCallOptions = {}): Tensor {
    return scope(() => {
      const sa = (x: Tensor) =>
        this.dropout1.call(
          this.self_attn.call(x, x, x, {
            attn_mask: options.src_mask,
            key_padding_mask: options.src_key_padding_mask,
            need_weights: false,
            is_causal: options.is_causal,
          })[0],
        );
      const ff = (x: Tensor) =>
        this.dropout2.call(
          this.linear2.call(
            this.dropout.call(activate(this.activation, this.linear1.call(x))),
          ),
        );
      let x = src;
      if (this.norm_first) {
        x = x.add(sa(this.norm1.call(x)));
        x = x.add(ff(this.norm2.call(x)));
      } else {
        x = this.norm1.call(x.add(sa(x)));
        x = this.norm2.call(x.add(ff(x)));
      }
      return x;
    });
  }
}

/** Options of {@link TransformerDecoderLayer.forward} and {@link TransformerDecoder.forward}. */
export interface DecoderLayerCallOptions {
  /** Additive float or boolean mask of the self-attention (`[tgt, tgt]`). */
  tgt_mask?: Tensor | null;
  /** Additive float or boolean mask of the cross-attention (`[tgt, src]`). */
  memory_mask?: Tensor | null;
  /** `[batch, tgt]` mask of target positions to ignore (true = padding). */
  tgt_key_padding_mask?: Tensor | null;
  /** `[batch, src]` mask of memory positions to ignore (true = padding). */
  memory_key_padding_mask?: Tensor | null;
  /** A hint that tgt_mask is causal (as in PyTorch; the mask is still what is applied). */
  tgt_is_causal?: boolean;
  /** A hint that memory_mask is causal (as in PyTorch; the mask is still what is applied). */
  memory_is_causal?: boolean;
}

/** Self-attention, attention over the encoder's memory, and a feed-forward block. */
export class TransformerDecoderLayer extends Module {
  self_attn: MultiheadAttention;
  multihead_attn: MultiheadAttention;
  linear1: Linear;
  dropout: Dropout;
  linear2: Linear;
  norm1: LayerNorm;
  norm2: LayerNorm;
  norm3: LayerNorm;
  dropout1: Dropout;
  dropout2: Dropout;
  dropout3: Dropout;
  readonly norm_first: boolean;
  readonly activation: TransformerActivation;

  constructor(
    readonly d_model: number,
    readonly nhead: number,
    readonly options: TransformerLayerOptions = {},
  ) {
    super();
    const a = args("nn.TransformerDecoderLayer", arguments);
    ({ d_model, nhead } = Object.assign(this, {
      d_model: a.d_model,
      nhead: a.nhead,
    }));
    const o = (this.options = omit(
      a,
      "d_model",
      "nhead",
    ) as TransformerLayerOptions);
    const ff = o.dim_feedforward ?? 2048;
    const p = o.dropout ?? 0.1;
    const bias = o.bias ?? true;
    const eps = o.layer_norm_eps ?? 1e-5;
    const mha = () =>
      new MultiheadAttention(d_model, nhead, {
        dropout: p,
        bias,
        batch_first: o.batch_first ?? false,
        device: o.device,
      });
    this.self_attn = mha();
    this.multihead_attn = mha();
    this.linear1 = new Linear(d_model, ff, bias, { device: o.device });
    this.dropout = new Dropout(p);
    this.linear2 = new Linear(ff, d_model, bias, { device: o.device });
    this.norm_first = o.norm_first ?? false;
    this.norm1 = new LayerNorm(d_model, eps, true, bias, { device: o.device });
    this.norm2 = new LayerNorm(d_model, eps, true, bias, { device: o.device });
    this.norm3 = new LayerNorm(d_model, eps, true, bias, { device: o.device });
    this.dropout1 = new Dropout(p);
    this.dropout2 = new Dropout(p);
    this.dropout3 = new Dropout(p);
    this.activation = o.activation ?? "relu";
  }

  /** A new layer with the same options and a copy of this one's state (PyTorch's deepcopy). */
  _copy(): TransformerDecoderLayer {
    const c = new TransformerDecoderLayer(
      this.d_model,
      this.nhead,
      this.options,
    );
    c.load_state_dict(this.state_dict());
    c.train(this.training);
    return c;
  }

  override forward(
    tgt: Tensor,
    memory: Tensor,
    options: DecoderLayerCallOptions = {},
  ): Tensor {
    return scope(() => {
      const sa = (x: Tensor) =>
        this.dropout1.call(
          this.self_attn.call(x, x, x, {
            attn_mask: options.tgt_mask,
            key_padding_mask: options.tgt_key_padding_mask,
            need_weights: false,
            is_causal: options.tgt_is_causal,
          })[0],
        );
      const mha = (x: Tensor) =>
        this.dropout2.call(
          this.multihead_attn.call(x, memory, memory, {
            attn_mask: options.memory_mask,
            key_padding_mask: options.memory_key_padding_mask,
            need_weights: false,
            is_causal: options.memory_is_causal,
          })[0],
        );
      const ff = (x: Tensor) =>
        this.dropout3.call(
          this.linear2.call(
            this.dropout.call(activate(this.activation, this.linear1.call(x))),
          ),
        );
      let x = tgt;
      if (this.norm_first) {
        x = x.add(sa(this.norm1.call(x)));
        x = x.add(mha(this.norm2.call(x)));
        x = x.add(ff(this.norm3.call(x)));
      } else {
        x = this.norm1.call(x.add(sa(x)));
        x = this.norm2.call(x.add(mha(x)));
        x = this.norm3.call(x.add(ff(x)));
      }
      return x;
    });
  }
}

/** `num_layers` copies of an encoder layer (children `layers.0` …), then an optional norm. */
export class TransformerEncoder extends Module {
  layers: ModuleList;
  norm: Module | null = null;

  constructor(
    encoder_layer: TransformerEncoderLayer,
    readonly num_layers: number,
    norm: Module | null = null,
  ) {
    super();
    const a = args("nn.TransformerEncoder", arguments);
    if (!(a.encoder_layer instanceof TransformerEncoderLayer))
      throw new TorchError(
        `TransformerEncoder: encoder_layer must be a TransformerEncoderLayer, got ${pyTypeName(a.encoder_layer)}`,
      );
    if (a.norm !== null && !(a.norm instanceof Module))
      throw new TorchError(
        `TransformerEncoder: norm must be a Module or None, got ${pyTypeName(a.norm)}`,
      );
    encoder_layer = a.encoder_layer;
    norm = a.norm as Module | null;
    ({ num_layers } = Object.assign(this, { num_layers: a.num_layers }));
    this.layers = new ModuleList(
      Array.from({ length: num_layers }, () => encoder_layer._copy()),
    );
    if (norm) this.norm = norm;
    else this.register_module("norm", null);
  }

  override forward(
    src: Tensor,
    options: {
      mask?: Tensor | null;
      src_key_padding_mask?: Tensor | null;
      is_causal?: boolean;
    } = {},
  ): Tensor {
    return scope(() => {
      let x = src;
      for (const layer of this.layers as Iterable<Module>)
        x = (layer as TransformerEncoderLayer).call(x, {
          src_mask: options.mask,
          src_key_padding_mask: options.src_key_padding_mask,
          is_causal: options.is_causal,
        });
      if (this.norm) x = (this.norm as LayerNorm).call(x);
      return x;
    });
  }
}

/** `num_layers` copies of a decoder layer (children `layers.0` …), then an optional norm. */
export class TransformerDecoder extends Module {
  layers: ModuleList;
  norm: Module | null = null;

  constructor(
    decoder_layer: TransformerDecoderLayer,
    readonly num_layers: number,
    norm: Module | null = null,
  ) {
    super();
    const a = args("nn.TransformerDecoder", arguments);
    if (!(a.decoder_layer instanceof TransformerDecoderLayer))
      throw new TorchError(
        `TransformerDecoder: decoder_layer must be a TransformerDecoderLayer, got ${pyTypeName(a.decoder_layer)}`,
      );
    if (a.norm !== null && !(a.norm instanceof Module))
      throw new TorchError(
        `TransformerDecoder: norm must be a Module or None, got ${pyTypeName(a.norm)}`,
      );
    decoder_layer = a.decoder_layer;
    norm = a.norm as Module | null;
    ({ num_layers } = Object.assign(this, { num_layers: a.num_layers }));
    this.layers = new ModuleList(
      Array.from({ length: num_layers }, () => decoder_layer._copy()),
    );
    if (norm) this.norm = norm;
    else this.register_module("norm", null);
  }

  override forward(
    tgt: Tensor,
    memory: Tensor,
    options: DecoderLayerCallOptions = {},
  ): Tensor {
    return scope(() => {
      let x = tgt;
      for (const layer of this.layers as Iterable<Module>)
        x = (layer as TransformerDecoderLayer).call(x, memory, options);
      if (this.norm) x = (this.norm as LayerNorm).call(x);
      return x;
    });
  }
}

/** Options of {@link Transformer}. */
export interface TransformerOptions extends TransformerLayerOptions {
  /** Feature size of the inputs (default 512). */
  d_model?: number;
  /** Number of attention heads (default 8). */
  nhead?: number;
  /** Encoder layers (default 6). */
  num_encoder_layers?: number;
  /** Decoder layers (default 6). */
  num_decoder_layers?: number;
}

/** Options of {@link Transformer.forward}. */
export interface TransformerCallOptions extends DecoderLayerCallOptions {
  /** Additive float or boolean mask of the self-attention (`[src, src]`). */
  src_mask?: Tensor | null;
  /** `[batch, src]` mask of positions to ignore (true = padding). */
  src_key_padding_mask?: Tensor | null;
  /** A hint that src_mask is causal (as in PyTorch; the mask is still what is applied). */
  src_is_causal?: boolean;
}

/**
 * The encoder–decoder transformer of "Attention Is All You Need" (PyTorch's defaults: 512, 8
 * heads, 6 + 6 layers, 2048 feed-forward); every matrix re-initialised with xavier_uniform_.
 */
export class Transformer extends Module {
  encoder: TransformerEncoder;
  decoder: TransformerDecoder;
  readonly d_model: number;
  readonly nhead: number;
  readonly batch_first: boolean;

  constructor(options: TransformerOptions = {}) {
    super();
    const a = args("nn.Transformer", arguments);
    const o = a as TransformerOptions;
    const layer = omit(
      a,
      "d_model",
      "nhead",
      "num_encoder_layers",
      "num_decoder_layers",
    ) as TransformerLayerOptions;
    this.d_model = o.d_model ?? 512;
    this.nhead = o.nhead ?? 8;
    this.batch_first = o.batch_first ?? false;
    const eps = o.layer_norm_eps ?? 1e-5;
    const bias = o.bias ?? true;
    this.encoder = new TransformerEncoder(
      new TransformerEncoderLayer(this.d_model, this.nhead, layer),
      o.num_encoder_layers ?? 6,
      new LayerNorm(this.d_model, eps, true, bias, { device: o.device }),
    );
    this.decoder = new TransformerDecoder(
      new TransformerDecoderLayer(this.d_model, this.nhead, layer),
      o.num_decoder_layers ?? 6,
      new LayerNorm(this.d_model, eps, true, bias, { device: o.device }),
    );
    for (const p of this.parameters()) if (p.ndim > 1) init.xavier_uniform_(p);
  }

  /** Encodes `src`, then decodes `tgt` against it. */
  override forward(
    src: Tensor,
    tgt: Tensor,
    options: TransformerCallOptions = {},
  ): Tensor {
    const batchDim = this.batch_first ? 0 : 1;
    if (
      src.ndim === 3 &&
      tgt.ndim === 3 &&
      src.shape[batchDim] !== tgt.shape[batchDim]
    )
      throw new TorchError("the batch number of src and tgt must be equal");
    if (src.shape.at(-1) !== this.d_model || tgt.shape.at(-1) !== this.d_model)
      throw new TorchError(
        "the feature number of src and tgt must be equal to d_model",
      );
    return scope(() => {
      const memory = this.encoder.call(src, {
        mask: options.src_mask,
        src_key_padding_mask: options.src_key_padding_mask,
        is_causal: options.src_is_causal,
      });
      return this.decoder.call(tgt, memory, options);
    });
  }

  /** A float `(sz, sz)` mask with `-inf` above the diagonal and 0 elsewhere. */
  static generate_square_subsequent_mask(
    sz: number,
    options: FactoryOptions = {},
  ): Tensor {
    return causalMask(sz, sz, options.device);
  }
}
