/**
 * Normalization layers over groups and instances: `GroupNorm` and `InstanceNorm1d/2d/3d`, with
 * PyTorch's parameter names, buffers and initialisation (`LayerNorm` and `RMSNorm` are in
 * layers.ts, `BatchNorm1d/2d` in conv.ts).
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { type Args, args } from "../schema/index.js";
import type { Tensor } from "../tensor/tensor.js";
import { full } from "../ops/creation.js";
import { no_grad } from "../autograd/grad_mode.js";
import * as F from "./functional/index.js";
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
    const a = args("nn.GroupNorm", arguments);
    ({ num_groups, num_channels } = Object.assign(this, {
      num_groups: a.num_groups,
      num_channels: a.num_channels,
    }));
    options = {
      eps: a.eps,
      affine: a.affine,
      device: a.device as GroupNormOptions["device"],
    };
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

  readonly num_features: number;

  /** `a`: an InstanceNorm layer's parsed constructor arguments. */
  constructor(a: Args["nn.InstanceNorm1d"]) {
    super();
    const num_features = (this.num_features = a.num_features);
    const o = { device: a.device as InstanceNormOptions["device"] };
    this.eps = a.eps;
    this.momentum = a.momentum;
    this.affine = a.affine;
    this.track_running_stats = a.track_running_stats;
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
    super(args("nn.InstanceNorm1d", arguments));
  }
}

/** Instance normalization over `(N, C, H, W)` or unbatched `(C, H, W)`. */
export class InstanceNorm2d extends InstanceNormNd {
  protected readonly spatial = 2;
  constructor(num_features: number, options: InstanceNormOptions = {}) {
    super(args("nn.InstanceNorm2d", arguments));
  }
}

/** Instance normalization over `(N, C, D, H, W)` or unbatched `(C, D, H, W)`. */
export class InstanceNorm3d extends InstanceNormNd {
  protected readonly spatial = 3;
  constructor(num_features: number, options: InstanceNormOptions = {}) {
    super(args("nn.InstanceNorm3d", arguments));
  }
}
