/**
 * More layers: `GroupNorm`, `InstanceNorm1d/2d/3d`, `Bilinear`, `EmbeddingBag` and
 * `AdaptiveMaxPool1d/2d`, with PyTorch's parameter names, buffers and initialisation.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import type { Tensor } from "../tensor/tensor.js";
import { full } from "../ops/creation.js";
import { no_grad } from "../autograd/grad_mode.js";
import * as F from "./functional/index.js";
import * as init from "./init.js";
import { Module, Parameter, ownedParameter } from "./module.js";
import type { FactoryOptions } from "./layers.js";

const vec = (n: number, v: number, o: FactoryOptions) =>
  full([n], v, { dtype: "float32", device: o.device });

/** Options of {@link GroupNorm}. */
export interface GroupNormOptions extends FactoryOptions {
  /** Added to the variance (default 1e-5). */
  eps?: number;
  /** Learnable per-channel weight and bias (default true). */
  affine?: boolean;
}

/** Group normalization over `(N, C, *)`; weight 1 and bias 0 per channel. */
export class GroupNorm extends Module {
  readonly eps: number;
  readonly affine: boolean;
  weight: Parameter | null = null;
  bias: Parameter | null = null;

  constructor(
    readonly num_groups: number,
    readonly num_channels: number,
    options: GroupNormOptions = {},
  ) {
    super();
    if (num_channels % num_groups !== 0)
      throw new TorchError("num_channels must be divisible by num_groups");
    this.eps = options.eps ?? 1e-5;
    this.affine = options.affine ?? true;
    if (this.affine) {
      this.weight = ownedParameter(vec(num_channels, 1, options));
      this.bias = ownedParameter(vec(num_channels, 0, options));
    } else {
      this.register_parameter("weight", null);
      this.register_parameter("bias", null);
    }
  }

  override forward(input: Tensor): Tensor {
    return F.group_norm(
      input,
      this.num_groups,
      this.weight,
      this.bias,
      this.eps,
    );
  }

  override extra_repr(): string {
    return `${this.num_groups}, ${this.num_channels}, eps=${this.eps}, affine=${this.affine ? "True" : "False"}`;
  }
}

/** Options of the InstanceNorm layers (PyTorch's defaults: no affine, no running stats). */
export interface InstanceNormOptions extends FactoryOptions {
  /** Added to the variance (default 1e-5). */
  eps?: number;
  /** Momentum of the running statistics (default 0.1). */
  momentum?: number;
  /** Learnable per-channel weight and bias (default false). */
  affine?: boolean;
  /** Keep running mean/variance for evaluation (default false). */
  track_running_stats?: boolean;
}

abstract class InstanceNormNd extends Module {
  readonly eps: number;
  readonly momentum: number;
  readonly affine: boolean;
  readonly track_running_stats: boolean;
  weight: Parameter | null = null;
  bias: Parameter | null = null;
  declare running_mean: Tensor | null;
  declare running_var: Tensor | null;
  declare num_batches_tracked: Tensor | null;
  protected abstract readonly spatial: number;

  constructor(
    readonly num_features: number,
    o: InstanceNormOptions,
  ) {
    super();
    this.eps = o.eps ?? 1e-5;
    this.momentum = o.momentum ?? 0.1;
    this.affine = o.affine ?? false;
    this.track_running_stats = o.track_running_stats ?? false;
    if (this.affine) {
      this.weight = ownedParameter(vec(num_features, 1, o));
      this.bias = ownedParameter(vec(num_features, 0, o));
    } else {
      this.register_parameter("weight", null);
      this.register_parameter("bias", null);
    }
    if (this.track_running_stats) {
      this.register_buffer("running_mean", vec(num_features, 0, o));
      this.register_buffer("running_var", vec(num_features, 1, o));
      this.register_buffer(
        "num_batches_tracked",
        full([], 0, { dtype: "int64", device: o.device }),
      );
    } else {
      this.register_buffer("running_mean", null);
      this.register_buffer("running_var", null);
      this.register_buffer("num_batches_tracked", null);
    }
  }

  override forward(input: Tensor): Tensor {
    const d = this.spatial;
    if (input.ndim !== d + 1 && input.ndim !== d + 2)
      throw new TorchError(
        `expected ${d + 1}D or ${d + 2}D input (got ${input.ndim}D input)`,
      );
    const unbatched = input.ndim === d + 1;
    const x = unbatched ? input.unsqueeze(0) : input;
    const c = x.shape[1]!;
    if (c !== this.num_features && this.affine)
      throw new TorchError(
        `expected input's size at dim=${unbatched ? 0 : 1} to match num_features (${this.num_features}), but got: ${c}.`,
      );
    if (this.training && this.track_running_stats && this.num_batches_tracked) {
      const n = this.num_batches_tracked;
      no_grad(() => n.add_(1));
    }
    const y = F.instance_norm(x, {
      running_mean: this.running_mean,
      running_var: this.running_var,
      weight: this.weight,
      bias: this.bias,
      use_input_stats: this.training || !this.track_running_stats,
      momentum: this.momentum,
      eps: this.eps,
    });
    if (!unbatched) return y;
    const r = y.squeeze(0);
    y.dispose();
    x.dispose();
    return r;
  }

  override extra_repr(): string {
    return `${this.num_features}, eps=${this.eps}, momentum=${this.momentum}, affine=${this.affine ? "True" : "False"}, track_running_stats=${this.track_running_stats ? "True" : "False"}`;
  }
}

/** Instance normalization over `(N, C, L)` or unbatched `(C, L)`. */
export class InstanceNorm1d extends InstanceNormNd {
  protected readonly spatial = 1;
  constructor(num_features: number, options: InstanceNormOptions = {}) {
    super(num_features, options);
  }
}

/** Instance normalization over `(N, C, H, W)` or unbatched `(C, H, W)`. */
export class InstanceNorm2d extends InstanceNormNd {
  protected readonly spatial = 2;
  constructor(num_features: number, options: InstanceNormOptions = {}) {
    super(num_features, options);
  }
}

/** Instance normalization over `(N, C, D, H, W)` or unbatched `(C, D, H, W)`. */
export class InstanceNorm3d extends InstanceNormNd {
  protected readonly spatial = 3;
  constructor(num_features: number, options: InstanceNormOptions = {}) {
    super(num_features, options);
  }
}

/**
 * `y = x1ᵀ A x2 + b`: weight `(out_features, in1_features, in2_features)` and bias from
 * U(-1/√in1, 1/√in1), as PyTorch's `reset_parameters`.
 */
export class Bilinear extends Module {
  weight: Parameter;
  bias: Parameter | null = null;

  constructor(
    readonly in1_features: number,
    readonly in2_features: number,
    readonly out_features: number,
    bias = true,
    options: FactoryOptions = {},
  ) {
    super();
    const d = options.device;
    this.weight = ownedParameter(
      full([out_features, in1_features, in2_features], 0, {
        dtype: "float32",
        device: d,
      }),
    );
    if (bias) this.bias = ownedParameter(vec(out_features, 0, options));
    else this.register_parameter("bias", null);
    this.reset_parameters();
  }

  /** PyTorch's initialisation (see the class doc). */
  reset_parameters(): void {
    const bound = 1 / Math.sqrt(this.weight.shape[1]!);
    init.uniform_(this.weight, -bound, bound);
    if (this.bias) init.uniform_(this.bias, -bound, bound);
  }

  override forward(input1: Tensor, input2: Tensor): Tensor {
    return F.bilinear(input1, input2, this.weight, this.bias);
  }

  override extra_repr(): string {
    return `in1_features=${this.in1_features}, in2_features=${this.in2_features}, out_features=${this.out_features}, bias=${this.bias ? "True" : "False"}`;
  }
}

/** Options of {@link EmbeddingBag}. */
export interface EmbeddingBagLayerOptions extends FactoryOptions {
  /** How each bag is reduced: `"sum"`, `"mean"` (default) or `"max"`. */
  mode?: "sum" | "mean" | "max";
  /** `offsets` has one more entry than bags, the last being the size of `input` (default false). */
  include_last_offset?: boolean;
  /** An index whose rows do not contribute to bags and get no gradient. */
  padding_idx?: number | null;
}

/**
 * Sums, means or maxes of bags of embeddings (`F.embedding_bag`); weight from N(0, 1) with the
 * `padding_idx` row zeroed, as PyTorch's `reset_parameters`.
 */
export class EmbeddingBag extends Module {
  readonly mode: "sum" | "mean" | "max";
  readonly include_last_offset: boolean;
  readonly padding_idx: number | null;
  weight: Parameter;

  constructor(
    readonly num_embeddings: number,
    readonly embedding_dim: number,
    options: EmbeddingBagLayerOptions = {},
  ) {
    super();
    this.mode = options.mode ?? "mean";
    this.include_last_offset = options.include_last_offset ?? false;
    let p = options.padding_idx ?? null;
    if (p !== null) {
      if (p >= num_embeddings || p < -num_embeddings)
        throw new TorchError("padding_idx must be within num_embeddings");
      if (p < 0) p += num_embeddings;
    }
    this.padding_idx = p;
    this.weight = ownedParameter(
      full([num_embeddings, embedding_dim], 0, {
        dtype: "float32",
        device: options.device,
      }),
    );
    init.normal_(this.weight);
    if (p !== null) {
      const w = this.weight;
      no_grad(() => w.narrow(0, p, 1).zero_());
    }
  }

  /** Bags of `input` (rows of a 2-D input, or 1-D `input` cut at `offsets`). */
  override forward(
    input: Tensor,
    offsets: Tensor | null = null,
    per_sample_weights: Tensor | null = null,
  ): Tensor {
    return F.embedding_bag(input, this.weight, {
      offsets,
      mode: this.mode,
      per_sample_weights,
      include_last_offset: this.include_last_offset,
      padding_idx: this.padding_idx,
    });
  }

  override extra_repr(): string {
    return `${this.num_embeddings}, ${this.embedding_dim}, mode='${this.mode}'`;
  }
}

/** Max pooling of `(N, C, L)` / `(C, L)` to `output_size` positions (`F.adaptive_max_pool1d`). */
export class AdaptiveMaxPool1d extends Module {
  constructor(readonly output_size: number) {
    super();
  }
  override forward(input: Tensor): Tensor {
    return F.adaptive_max_pool1d(input, this.output_size);
  }
}

/** Max pooling of `(N, C, H, W)` / `(C, H, W)` to `output_size` (`F.adaptive_max_pool2d`). */
export class AdaptiveMaxPool2d extends Module {
  constructor(readonly output_size: number | readonly (number | null)[]) {
    super();
  }
  override forward(input: Tensor): Tensor {
    return F.adaptive_max_pool2d(input, this.output_size);
  }
}
