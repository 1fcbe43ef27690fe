/**
 * Layers: `Linear`, `Bilinear`, `Identity`, `Flatten`/`Unflatten`, the activation modules,
 * `Dropout`, `Embedding`, `EmbeddingBag`, `LayerNorm`, `RMSNorm`, `Softmax`/`LogSoftmax`/`Softmin`
 * (more normalizations in normalization.ts). Each initialises its
 * parameters as PyTorch does (same distributions and fan computations).
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { args, omit } from "../schema/index.js";
import type { FloatOf, Tensor } from "../tensor/tensor.js";
import type { CheckLast, Dims, ReplaceLast, ShapeOf } from "../shapes.js";
import type { DType } from "../dtype.js";
import { arange, full } from "../ops/creation.js";
import { defaultFloat } from "../defaults.js";
import { where } from "../ops/conditional.js";
import { scope } from "../lifetime.js";
import { no_grad } from "../autograd/grad_mode.js";
import * as F from "./functional/index.js";
import * as init from "./init.js";
import { Module, Parameter, ownedParameter } from "./module.js";

/** Options of layers that create parameters. */
export interface FactoryOptions {
  /** Device of the parameters (the default device when absent). */
  device?: "webgpu" | "cpu";
}

/**
 * A new tensor of the default float dtype (`torch.set_default_dtype`, as PyTorch's layers make
 * their parameters; int64 with `dtype`) filled with `fill` (default 0).
 */
function empty(
  shape: number[],
  options: FactoryOptions & { fill?: number; dtype?: "float32" | "int64" },
): Tensor {
  return full(shape, options.fill ?? 0, {
    dtype: options.dtype ?? defaultFloat(),
    device: options.device,
  });
}

/** Returns its input. */
export class Identity extends Module {
  constructor() {
    super();
    args("nn.Identity", arguments);
  }
  override forward<S extends Dims, D extends DType>(
    input: Tensor<S, D>,
  ): Tensor<S, D>;
  override forward(input: Tensor): Tensor {
    return input;
  }
}

/**
 * `y = x Aᵀ + b`. Weight `(out_features, in_features)` from kaiming_uniform(a = √5), i.e.
 * U(-1/√in, 1/√in); bias from U(-1/√in, 1/√in) — PyTorch's `reset_parameters`.
 */
export class Linear<
  In extends number = number,
  Out extends number = number,
> extends Module {
  readonly in_features: In;
  readonly out_features: Out;
  weight: Parameter;
  bias: Parameter | null = null;

  constructor(
    in_features: In,
    out_features: Out,
    bias = true,
    options: FactoryOptions = {},
  ) {
    super();
    const a = args("nn.Linear", arguments);
    ({ in_features, out_features, bias } = a as typeof a & {
      in_features: In;
      out_features: Out;
    });
    options = { device: a.device as FactoryOptions["device"] };
    this.in_features = in_features;
    this.out_features = out_features;
    this.weight = ownedParameter(empty([out_features, in_features], options));
    if (bias) this.bias = ownedParameter(empty([out_features], options));
    else this.register_parameter("bias", null);
    this.reset_parameters();
  }

  /** PyTorch's initialisation (see the class doc). */
  reset_parameters(): void {
    init.kaiming_uniform_(this.weight, { a: Math.sqrt(5) });
    if (this.bias) {
      const [fanIn] = init._calculate_fan_in_and_fan_out(this.weight);
      const bound = fanIn > 0 ? 1 / Math.sqrt(fanIn) : 0;
      init.uniform_(this.bias, -bound, bound);
    }
  }

  /**
   * `input @ weightᵀ + bias` over the last dim: `[..., In]` → `[..., Out]` (typed: a last dim
   * other than `In` is a compile error when both are known).
   */
  override forward<S extends Dims, D extends DType>(
    input: Tensor<S, D> & CheckLast<S, In, "linear">,
  ): Tensor<ShapeOf<ReplaceLast<S, Out>>, D>;
  override forward(input: Tensor): Tensor {
    return F.linear(input, this.weight, this.bias);
  }

  override extra_repr(): string {
    return `in_features=${this.in_features}, out_features=${this.out_features}, bias=${this.bias ? "True" : "False"}`;
  }
}

/** Flattens dims `start_dim..end_dim` into one (default: all but the batch dim). */
export class Flatten extends Module {
  constructor(
    readonly start_dim = 1,
    readonly end_dim = -1,
  ) {
    super();
    Object.assign(this, args("nn.Flatten", arguments));
  }

  override forward(input: Tensor): Tensor {
    const n = input.ndim;
    const s = this.start_dim < 0 ? this.start_dim + n : this.start_dim;
    const e = this.end_dim < 0 ? this.end_dim + n : this.end_dim;
    if (n === 0) return input.reshape([1]);
    if (s > e)
      throw new TorchError(
        "flatten() has invalid args: start_dim cannot come after end_dim",
      );
    const shape = [
      ...input.shape.slice(0, s),
      input.shape.slice(s, e + 1).reduce((a, b) => a * b, 1),
      ...input.shape.slice(e + 1),
    ];
    return input.reshape(shape);
  }

  override extra_repr(): string {
    return `start_dim=${this.start_dim}, end_dim=${this.end_dim}`;
  }
}

/** Splits dim `dim` into `unflattened_size`. */
export class Unflatten extends Module {
  constructor(
    readonly dim: number,
    readonly unflattened_size: readonly number[],
  ) {
    super();
    Object.assign(this, args("nn.Unflatten", arguments));
  }

  override forward(input: Tensor): Tensor {
    const d = this.dim < 0 ? this.dim + input.ndim : this.dim;
    return input.reshape([
      ...input.shape.slice(0, d),
      ...this.unflattened_size,
      ...input.shape.slice(d + 1),
    ]);
  }

  override extra_repr(): string {
    return `dim=${this.dim}, unflattened_size=(${this.unflattened_size.join(", ")})`;
  }
}

/**
 * The `forward` of an activation module: the input's shape, and its dtype (`"same"`) or the
 * floating-point dtype (`"float"`).
 */
export type KeepShape<R extends "same" | "float"> = <
  S extends Dims,
  D extends DType,
>(
  input: Tensor<S, D>,
) => Tensor<S, R extends "same" ? D : FloatOf<D>>;

/** An activation module applying `fn` (no parameters). */
function activation<R extends "same" | "float">(
  name: string,
  fn: (x: Tensor) => Tensor,
): new () => Module & { forward: KeepShape<R> } {
  const cls = class extends Module {
    constructor() {
      super();
      args(`nn.${name}` as "nn.ReLU", arguments);
    }
    override forward(input: Tensor): Tensor {
      return fn(input);
    }
  };
  Object.defineProperty(cls, "name", { value: name });
  return cls as new () => Module & { forward: KeepShape<R> };
}

/** `max(0, x)`. */
export const ReLU = activation<"same">("ReLU", (x) => x.relu());
/** `min(max(0, x), 6)`. */
export const ReLU6 = activation<"same">("ReLU6", (x) => x.relu6());
/** `x · sigmoid(x)`. */
export const SiLU = activation<"float">("SiLU", (x) => x.silu());
/** `x · tanh(softplus(x))`. */
export const Mish = activation<"float">("Mish", (x) => x.mish());
/** Hyperbolic tangent. */
export const Tanh = activation<"float">("Tanh", (x) => x.tanh());
/** `1 / (1 + e⁻ˣ)`. */
export const Sigmoid = activation<"float">("Sigmoid", (x) => x.sigmoid());
/** `log(sigmoid(x))`. */
export const LogSigmoid = activation<"float">("LogSigmoid", (x) =>
  x.logsigmoid(),
);
/** `x / (1 + |x|)`. */
export const Softsign = activation<"float">("Softsign", (x) => x.softsign());
/** `x - tanh(x)`. */
export const Tanhshrink = activation<"float">("Tanhshrink", (x) =>
  x.tanhshrink(),
);
/** `relu6(x + 3) / 6`. */
export const Hardsigmoid = activation<"float">("Hardsigmoid", (x) =>
  x.hardsigmoid(),
);
/** `x · hardsigmoid(x)`. */
export const Hardswish = activation<"float">("Hardswish", (x) => x.hardswish());
/** SELU with PyTorch's constants. */
export const SELU = activation<"float">("SELU", (x) => x.selu());

/** GELU, exact (`"none"`, default) or the tanh approximation. */
export class GELU extends Module {
  constructor(readonly approximate: "none" | "tanh" = "none") {
    super();
    Object.assign(this, args("nn.GELU", arguments));
  }
  override forward<S extends Dims, D extends DType>(
    input: Tensor<S, D>,
  ): Tensor<S, FloatOf<D>>;
  override forward(input: Tensor): Tensor {
    return F.gelu(input, { approximate: this.approximate });
  }
}

/** ELU with `alpha` (default 1). */
export class ELU extends Module {
  constructor(readonly alpha = 1) {
    super();
    Object.assign(this, args("nn.ELU", arguments));
  }
  override forward<S extends Dims, D extends DType>(
    input: Tensor<S, D>,
  ): Tensor<S, FloatOf<D>>;
  override forward(input: Tensor): Tensor {
    return F.elu(input, this.alpha);
  }
}

/** CELU with `alpha` (default 1). */
export class CELU extends Module {
  constructor(readonly alpha = 1) {
    super();
    Object.assign(this, args("nn.CELU", arguments));
  }
  override forward<S extends Dims, D extends DType>(
    input: Tensor<S, D>,
  ): Tensor<S, FloatOf<D>>;
  override forward(input: Tensor): Tensor {
    return F.celu(input, this.alpha);
  }
}

/** `max(0, x) + negative_slope · min(0, x)`. */
export class LeakyReLU extends Module {
  constructor(readonly negative_slope = 0.01) {
    super();
    Object.assign(this, args("nn.LeakyReLU", arguments));
  }
  override forward<S extends Dims, D extends DType>(
    input: Tensor<S, D>,
  ): Tensor<S, D>;
  override forward(input: Tensor): Tensor {
    return F.leaky_relu(input, this.negative_slope);
  }
}

/** `clamp(x, min_val, max_val)`. */
export class Hardtanh extends Module {
  constructor(
    readonly min_val = -1,
    readonly max_val = 1,
  ) {
    super();
    Object.assign(this, args("nn.Hardtanh", arguments));
  }
  override forward<S extends Dims, D extends DType>(
    input: Tensor<S, D>,
  ): Tensor<S, D>;
  override forward(input: Tensor): Tensor {
    return F.hardtanh(input, this.min_val, this.max_val);
  }
}

/** `log(1 + e^(βx)) / β`, linear above `threshold`. */
export class Softplus extends Module {
  constructor(
    readonly beta = 1,
    readonly threshold = 20,
  ) {
    super();
    Object.assign(this, args("nn.Softplus", arguments));
  }
  override forward<S extends Dims, D extends DType>(
    input: Tensor<S, D>,
  ): Tensor<S, FloatOf<D>>;
  override forward(input: Tensor): Tensor {
    return F.softplus(input, this.beta, this.threshold);
  }
}

/** Softmax along `dim`. */
export class Softmax extends Module {
  constructor(readonly dim: number) {
    super();
    Object.assign(this, args("nn.Softmax", arguments));
  }
  override forward<S extends Dims, D extends DType>(
    input: Tensor<S, D>,
  ): Tensor<S, FloatOf<D>>;
  override forward(input: Tensor): Tensor {
    return F.softmax(input, this.dim);
  }
}

/** Log-softmax along `dim`. */
export class LogSoftmax extends Module {
  constructor(readonly dim: number) {
    super();
    Object.assign(this, args("nn.LogSoftmax", arguments));
  }
  override forward<S extends Dims, D extends DType>(
    input: Tensor<S, D>,
  ): Tensor<S, FloatOf<D>>;
  override forward(input: Tensor): Tensor {
    return F.log_softmax(input, this.dim);
  }
}

/** Softmin along `dim`. */
export class Softmin extends Module {
  constructor(readonly dim: number) {
    super();
    Object.assign(this, args("nn.Softmin", arguments));
  }
  override forward<S extends Dims, D extends DType>(
    input: Tensor<S, D>,
  ): Tensor<S, FloatOf<D>>;
  override forward(input: Tensor): Tensor {
    return F.softmin(input, this.dim);
  }
}

/** Zeroes elements with probability `p` in training mode (scaling the rest); identity in eval. */
export class Dropout extends Module {
  constructor(readonly p = 0.5) {
    super();
    ({ p } = Object.assign(this, args("nn.Dropout", arguments)));
    if (p < 0 || p > 1)
      throw new TorchError(
        `dropout probability has to be between 0 and 1, but got ${p}`,
      );
  }
  override forward<S extends Dims, D extends DType>(
    input: Tensor<S, D>,
  ): Tensor<S, D>;
  override forward(input: Tensor): Tensor {
    return F.dropout(input, this.p, this.training);
  }
  override extra_repr(): string {
    return `p=${this.p}, inplace=False`;
  }
}

/**
 * A lookup table: `weight[input]` with weight `(num_embeddings, embedding_dim)` from N(0, 1);
 * the `padding_idx` row starts at zero and gets no gradient.
 */
export class Embedding extends Module {
  weight: Parameter;

  constructor(
    readonly num_embeddings: number,
    readonly embedding_dim: number,
    readonly padding_idx: number | null = null,
    options: FactoryOptions = {},
  ) {
    super();
    const a = args("nn.Embedding", arguments);
    ({ num_embeddings, embedding_dim, padding_idx } = Object.assign(this, {
      num_embeddings: a.num_embeddings,
      embedding_dim: a.embedding_dim,
      padding_idx: a.padding_idx,
    }));
    options = { device: a.device as FactoryOptions["device"] };
    this.weight = ownedParameter(
      empty([num_embeddings, embedding_dim], options),
    );
    init.normal_(this.weight);
    if (padding_idx !== null) {
      const row = F.one_hot(
        empty([], { ...options, fill: padding_idx, dtype: "int64" }),
        num_embeddings,
        "float32",
      );
      const keep = row.neg().add(1).reshape([num_embeddings, 1]);
      no_grad(() => this.weight.mul_(keep));
      row.dispose();
      keep.dispose();
    }
  }

  override forward(input: Tensor): Tensor {
    if (this.padding_idx === null || !this.weight.requires_grad)
      return F.embedding(input, this.weight);
    // The padding row gets no gradient, as in PyTorch: same values, with that row detached.
    const p = this.padding_idx;
    const w = this.weight;
    return scope(() => {
      const rows = arange(this.num_embeddings, { device: w.device });
      const pad = rows.eq(p < 0 ? p + this.num_embeddings : p).unsqueeze(1);
      return F.embedding(input, where(pad, w.detach(), w));
    });
  }

  override extra_repr(): string {
    return `${this.num_embeddings}, ${this.embedding_dim}`;
  }
}

/** Layer normalization over the trailing `normalized_shape` dims; weight 1 and bias 0. */
export class LayerNorm extends Module {
  readonly normalized_shape: number[];
  weight: Parameter | null = null;
  bias: Parameter | null = null;

  constructor(
    normalized_shape: number | readonly number[],
    readonly eps = 1e-5,
    readonly elementwise_affine = true,
    bias = true,
    options: FactoryOptions = {},
  ) {
    super();
    const a = args("nn.LayerNorm", arguments);
    ({ normalized_shape, eps, elementwise_affine, bias } = a);
    Object.assign(this, { eps, elementwise_affine });
    options = { device: a.device as FactoryOptions["device"] };
    this.normalized_shape =
      typeof normalized_shape === "number"
        ? [normalized_shape]
        : [...normalized_shape];
    if (elementwise_affine) {
      this.weight = ownedParameter(
        empty(this.normalized_shape, { ...options, fill: 1 }),
      );
      if (bias)
        this.bias = ownedParameter(
          empty(this.normalized_shape, { ...options, fill: 0 }),
        );
      else this.register_parameter("bias", null);
    } else {
      this.register_parameter("weight", null);
      this.register_parameter("bias", null);
    }
  }

  override forward(input: Tensor): Tensor {
    return F.layer_norm(
      input,
      this.normalized_shape,
      this.weight,
      this.bias,
      this.eps,
    );
  }

  override extra_repr(): string {
    return `(${this.normalized_shape.join(", ")},), eps=${this.eps}, elementwise_affine=${this.elementwise_affine ? "True" : "False"}`;
  }
}

/** RMS normalization over the trailing dims; weight 1. */
export class RMSNorm extends Module {
  readonly normalized_shape: number[];
  weight: Parameter | null = null;

  constructor(
    normalized_shape: number | readonly number[],
    readonly eps: number | null = null,
    readonly elementwise_affine = true,
    options: FactoryOptions = {},
  ) {
    super();
    const a = args("nn.RMSNorm", arguments);
    ({ normalized_shape, eps, elementwise_affine } = a);
    Object.assign(this, { eps, elementwise_affine });
    options = { device: a.device as FactoryOptions["device"] };
    this.normalized_shape =
      typeof normalized_shape === "number"
        ? [normalized_shape]
        : [...normalized_shape];
    if (elementwise_affine)
      this.weight = ownedParameter(
        empty(this.normalized_shape, { ...options, fill: 1 }),
      );
    else this.register_parameter("weight", null);
  }

  override forward(input: Tensor): Tensor {
    return F.rms_norm(input, this.normalized_shape, this.weight, this.eps);
  }
}

const vec = (n: number, v: number, o: FactoryOptions) =>
  full([n], v, { dtype: "float32", device: o.device });

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
    const a = args("nn.Bilinear", arguments);
    ({ in1_features, in2_features, out_features, bias } = a);
    Object.assign(this, { in1_features, in2_features, out_features });
    options = { device: a.device as FactoryOptions["device"] };
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
    const a = args("nn.EmbeddingBag", arguments);
    ({ num_embeddings, embedding_dim } = Object.assign(this, {
      num_embeddings: a.num_embeddings,
      embedding_dim: a.embedding_dim,
    }));
    options = omit(
      a,
      "num_embeddings",
      "embedding_dim",
    ) as EmbeddingBagLayerOptions;
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
