/**
 * Convolution and batch-norm layers: `Conv1d`/`Conv2d`/`Conv3d`,
 * `ConvTranspose1d`/`ConvTranspose2d`/`ConvTranspose3d`, `BatchNorm1d`/`BatchNorm2d`/`BatchNorm3d`
 * (pooling layers: ./pool.ts). Parameters are initialised as PyTorch's `reset_parameters` does:
 * weight from kaiming_uniform(a = √5), bias from U(-1/√fan_in, 1/√fan_in).
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { type Args, args } from "../schema/index.js";
import type { Tensor } from "../tensor/tensor.js";
import { full } from "../ops/creation.js";
import { no_grad } from "../autograd/grad_mode.js";
import * as C from "../ops/conv.js";
import type { IntOrTuple } from "../ops/conv.js";
import * as init from "./init.js";
import { Module, Parameter, ownedParameter } from "./module.js";
import type { FactoryOptions } from "./layers.js";
import type { CheckShape, ConvShape, Dims, Opt, ShapeOf } from "../shapes.js";

function tuple(v: IntOrTuple, k: number): number[] {
  return typeof v === "number" ? new Array<number>(k).fill(v) : [...v];
}

function fmt(v: readonly number[]): string {
  return `(${v.join(", ")}${v.length === 1 ? "," : ""})`;
}

/** What Conv and ConvTranspose layers share: the weight, bias and their initialisation. */
abstract class ConvNd extends Module {
  readonly kernel_size: number[];
  readonly stride: number[];
  readonly padding: number[] | "same" | "valid";
  readonly dilation: number[];
  weight: Parameter;
  bias: Parameter | null = null;

  constructor(
    readonly k: number,
    readonly transposed: boolean,
    readonly in_channels: number,
    readonly out_channels: number,
    kernel_size: IntOrTuple,
    stride: IntOrTuple,
    padding: IntOrTuple | "same" | "valid",
    dilation: IntOrTuple,
    readonly groups: number,
    bias: boolean,
    readonly padding_mode: string,
    options: FactoryOptions,
  ) {
    super();
    if (groups <= 0) throw new TorchError("groups must be a positive integer");
    if (in_channels % groups !== 0)
      throw new TorchError("in_channels must be divisible by groups");
    if (out_channels % groups !== 0)
      throw new TorchError("out_channels must be divisible by groups");
    if (padding_mode !== "zeros")
      throw new TorchError(
        `padding_mode '${padding_mode}' is not supported yet (only 'zeros')`,
      );
    this.kernel_size = tuple(kernel_size, k);
    this.stride = tuple(stride, k);
    this.dilation = tuple(dilation, k);
    if (typeof padding === "string") {
      if (padding !== "same" && padding !== "valid")
        throw new TorchError(
          `Invalid padding string '${String(padding)}', should be one of ['valid', 'same']`,
        );
      if (padding === "same" && this.stride.some((s) => s !== 1))
        throw new TorchError(
          "padding='same' is not supported for strided convolutions",
        );
      this.padding = padding;
    } else this.padding = tuple(padding, k);
    const shape = transposed
      ? [in_channels, out_channels / groups, ...this.kernel_size]
      : [out_channels, in_channels / groups, ...this.kernel_size];
    this.weight = ownedParameter(
      full(shape, 0, { dtype: "float32", device: options.device }),
    );
    if (bias)
      this.bias = ownedParameter(
        full([out_channels], 0, { dtype: "float32", device: options.device }),
      );
    else this.register_parameter("bias", null);
    this.reset_parameters();
  }

  /** PyTorch's initialisation (see the module doc). */
  reset_parameters(): void {
    init.kaiming_uniform_(this.weight, { a: Math.sqrt(5) });
    if (this.bias) {
      const [fanIn] = init._calculate_fan_in_and_fan_out(this.weight);
      const bound = fanIn > 0 ? 1 / Math.sqrt(fanIn) : 0;
      init.uniform_(this.bias, -bound, bound);
    }
  }

  override extra_repr(): string {
    let s = `${this.in_channels}, ${this.out_channels}, kernel_size=${fmt(this.kernel_size)}, stride=${fmt(this.stride)}`;
    if (typeof this.padding === "string") s += `, padding=${this.padding}`;
    else if (this.padding.some((p) => p !== 0))
      s += `, padding=${fmt(this.padding)}`;
    if (this.dilation.some((d) => d !== 1))
      s += `, dilation=${fmt(this.dilation)}`;
    const op = (this as { output_padding?: number[] }).output_padding;
    if (op?.some((v) => v !== 0)) s += `, output_padding=${fmt(op)}`;
    if (this.groups !== 1) s += `, groups=${this.groups}`;
    if (!this.bias) s += ", bias=False";
    return s;
  }
}

/** Options of the Conv layers beyond the sizes. */
export interface ConvOptions extends FactoryOptions {
  /** Stride of the window (a number or one per spatial dim; default 1). */
  stride?: IntOrTuple;
  /** Implicit zero padding on both sides (a number, one per spatial dim; Conv also `"same"`/`"valid"`). */
  padding?: IntOrTuple | "same" | "valid";
  /** Spacing between kernel elements (default 1). */
  dilation?: IntOrTuple;
  /** Blocked connections: in_channels and out_channels are split into this many groups (default 1). */
  groups?: number;
  /** Add a learnable bias (default true). */
  bias?: boolean;
  /** Only `"zeros"` for now. */
  padding_mode?: string;
}

/** ConvNd's arguments from a Conv layer's parsed constructor arguments. */
function makeConv(
  k: number,
  a: Args["nn.Conv1d"] | Args["nn.Conv2d"] | Args["nn.Conv3d"],
): ConstructorParameters<typeof ConvNd> {
  return [
    k,
    false,
    a.in_channels,
    a.out_channels,
    a.kernel_size,
    a.stride,
    a.padding as IntOrTuple | "same" | "valid",
    a.dilation,
    a.groups,
    a.bias,
    a.padding_mode,
    { device: a.device as FactoryOptions["device"] },
  ];
}

/** A Conv layer's output shape for input shape `S` (see {@link ConvShape}). */
type ConvOut<
  S extends Dims,
  k extends number,
  In extends number,
  Out extends number,
  K,
  O,
  Fn extends string,
> = ConvShape<
  S,
  k,
  In,
  Out,
  K,
  Opt<O, "stride", 1>,
  Opt<O, "padding", 0>,
  Opt<O, "dilation", 1>,
  Fn
>;

/**
 * 2-D convolution layer: weight `(out, in/groups, kH, kW)`, bias `(out)`. Typed: with literal
 * sizes and options, `forward` of `[N, In, H, W]` is `[N, Out, H', W']` at compile time (PyTorch's
 * output-size formula), and an input with another channel count does not compile.
 */
export class Conv2d<
  In extends number = number,
  Out extends number = number,
  const K extends IntOrTuple = IntOrTuple,
  const O extends ConvOptions = {},
> extends ConvNd {
  constructor(
    in_channels: In,
    out_channels: Out,
    kernel_size: K,
    options: O = {} as O,
  ) {
    super(...makeConv(2, args("nn.Conv2d", arguments)));
  }

  /** The convolution of `input` (`[N, In, H, W]` or `[In, H, W]`). */
  override forward<S extends Dims>(
    input: Tensor<S> & CheckShape<ConvOut<S, 2, In, Out, K, O, "conv2d">>,
  ): Tensor<ShapeOf<ConvOut<S, 2, In, Out, K, O, "conv2d">>>;
  override forward(input: Tensor): Tensor {
    return C.conv2d(
      input,
      this.weight,
      this.bias,
      this.stride,
      this.padding,
      this.dilation,
      this.groups,
    );
  }
}

/** 1-D convolution layer: weight `(out, in/groups, k)`, bias `(out)`; typed as {@link Conv2d}. */
export class Conv1d<
  In extends number = number,
  Out extends number = number,
  const K extends IntOrTuple = IntOrTuple,
  const O extends ConvOptions = {},
> extends ConvNd {
  constructor(
    in_channels: In,
    out_channels: Out,
    kernel_size: K,
    options: O = {} as O,
  ) {
    super(...makeConv(1, args("nn.Conv1d", arguments)));
  }

  /** The convolution of `input` (`[N, In, L]` or `[In, L]`). */
  override forward<S extends Dims>(
    input: Tensor<S> & CheckShape<ConvOut<S, 1, In, Out, K, O, "conv1d">>,
  ): Tensor<ShapeOf<ConvOut<S, 1, In, Out, K, O, "conv1d">>>;
  override forward(input: Tensor): Tensor {
    return C.conv1d(
      input,
      this.weight,
      this.bias,
      this.stride,
      this.padding,
      this.dilation,
      this.groups,
    );
  }
}

/** 3-D convolution layer: weight `(out, in/groups, kD, kH, kW)`, bias `(out)`. */
export class Conv3d extends ConvNd {
  constructor(
    in_channels: number,
    out_channels: number,
    kernel_size: IntOrTuple,
    options: ConvOptions = {},
  ) {
    super(...makeConv(3, args("nn.Conv3d", arguments)));
  }

  /** The convolution of `input` (`[N, In, D, H, W]` or `[In, D, H, W]`). */
  override forward(input: Tensor): Tensor {
    return C.conv3d(
      input,
      this.weight,
      this.bias,
      this.stride,
      this.padding,
      this.dilation,
      this.groups,
    );
  }
}

/** Options of the ConvTranspose layers beyond the sizes. */
export interface ConvTransposeOptions extends FactoryOptions {
  /** Stride of the window (a number or one per spatial dim; default 1). */
  stride?: IntOrTuple;
  /** `dilation·(kernel − 1) − padding` zeros are added to both sides of each input dim (default 0). */
  padding?: IntOrTuple;
  /** Extra size added to one side of each output dim (default 0). */
  output_padding?: IntOrTuple;
  /** Blocked connections: in_channels and out_channels are split into this many groups (default 1). */
  groups?: number;
  /** Add a learnable bias (default true). */
  bias?: boolean;
  /** Spacing between kernel elements (default 1). */
  dilation?: IntOrTuple;
}

abstract class ConvTransposeNd extends ConvNd {
  readonly output_padding: number[];

  /** `a`: a ConvTranspose layer's parsed constructor arguments. */
  constructor(
    k: number,
    a:
      | Args["nn.ConvTranspose1d"]
      | Args["nn.ConvTranspose2d"]
      | Args["nn.ConvTranspose3d"],
  ) {
    super(
      k,
      true,
      a.in_channels,
      a.out_channels,
      a.kernel_size,
      a.stride,
      a.padding,
      a.dilation,
      a.groups,
      a.bias,
      "zeros",
      { device: a.device as FactoryOptions["device"] },
    );
    this.output_padding = tuple(a.output_padding, k);
  }

  protected run(f: typeof C.conv_transpose2d, input: Tensor): Tensor {
    return f(
      input,
      this.weight,
      this.bias,
      this.stride,
      this.padding as number[],
      this.output_padding,
      this.groups,
      this.dilation,
    );
  }
}

/** Transposed 2-D convolution layer: weight `(in, out/groups, kH, kW)`. */
export class ConvTranspose2d extends ConvTransposeNd {
  constructor(
    in_channels: number,
    out_channels: number,
    kernel_size: IntOrTuple,
    options: ConvTransposeOptions = {},
  ) {
    super(2, args("nn.ConvTranspose2d", arguments));
  }

  override forward(input: Tensor): Tensor {
    return this.run(C.conv_transpose2d, input);
  }
}

/** Transposed 1-D convolution layer: weight `(in, out/groups, k)`. */
export class ConvTranspose1d extends ConvTransposeNd {
  constructor(
    in_channels: number,
    out_channels: number,
    kernel_size: IntOrTuple,
    options: ConvTransposeOptions = {},
  ) {
    super(1, args("nn.ConvTranspose1d", arguments));
  }

  override forward(input: Tensor): Tensor {
    return this.run(C.conv_transpose1d, input);
  }
}

/** Transposed 3-D convolution layer: weight `(in, out/groups, kD, kH, kW)`. */
export class ConvTranspose3d extends ConvTransposeNd {
  constructor(
    in_channels: number,
    out_channels: number,
    kernel_size: IntOrTuple,
    options: ConvTransposeOptions = {},
  ) {
    super(3, args("nn.ConvTranspose3d", arguments));
  }

  override forward(input: Tensor): Tensor {
    return this.run(C.conv_transpose3d, input);
  }
}

/** Options of the BatchNorm layers. */
export interface BatchNormOptions extends FactoryOptions {
  /** Added to the variance (default 1e-5). */
  eps?: number;
  /** `null`: a cumulative average (`1 / num_batches_tracked`). Default 0.1. */
  momentum?: number | null;
  /** Learnable per-channel weight and bias (default true). */
  affine?: boolean;
  /** Keep running mean/variance for evaluation (default true). */
  track_running_stats?: boolean;
}

abstract class BatchNormNd extends Module {
  /** The state-dict format version (PyTorch's `_version`: 2 since `num_batches_tracked`). */
  static _version = 2;
  readonly eps: number;
  readonly momentum: number | null;
  readonly affine: boolean;
  readonly track_running_stats: boolean;
  weight: Parameter | null = null;
  bias: Parameter | null = null;
  declare running_mean: Tensor | null;
  declare running_var: Tensor | null;
  declare num_batches_tracked: Tensor | null;

  readonly num_features: number;

  /** `o`: a BatchNorm layer's parsed constructor arguments. */
  constructor(
    o: Args["nn.BatchNorm1d"] | Args["nn.BatchNorm2d"] | Args["nn.BatchNorm3d"],
  ) {
    super();
    const num_features = (this.num_features = o.num_features);
    this.eps = o.eps;
    this.momentum = o.momentum;
    this.affine = o.affine;
    this.track_running_stats = o.track_running_stats;
    const f = (
      v: number,
      dtype: "float32" | "int64" = "float32",
      shape = [num_features],
    ) =>
      full(shape, v, {
        dtype,
        device: o.device as FactoryOptions["device"],
      });
    if (this.affine) {
      this.weight = ownedParameter(f(1));
      this.bias = ownedParameter(f(0));
    } else {
      this.register_parameter("weight", null);
      this.register_parameter("bias", null);
    }
    if (this.track_running_stats) {
      this.register_buffer("running_mean", f(0));
      this.register_buffer("running_var", f(1));
      this.register_buffer("num_batches_tracked", f(0, "int64", []));
    } else {
      this.register_buffer("running_mean", null);
      this.register_buffer("running_var", null);
      this.register_buffer("num_batches_tracked", null);
    }
  }

  protected abstract checkInput(input: Tensor): void;

  override forward(input: Tensor): Tensor {
    this.checkInput(input);
    let factor = this.momentum ?? 0;
    if (this.training && this.track_running_stats && this.num_batches_tracked) {
      const n = this.num_batches_tracked;
      no_grad(() => n.add_(1));
      // NOTE: momentum=null needs the batch count on the host: tracked here, not read back.
      this.#batches += 1;
      if (this.momentum === null) factor = 1 / this.#batches;
    }
    const useBatch =
      this.training || this.running_mean === null || this.running_var === null;
    return C.batch_norm(
      input,
      !this.training || this.track_running_stats ? this.running_mean : null,
      !this.training || this.track_running_stats ? this.running_var : null,
      this.weight,
      this.bias,
      useBatch,
      factor,
      this.eps,
    );
  }

  #batches = 0;

  override extra_repr(): string {
    return `${this.num_features}, eps=${this.eps}, momentum=${String(this.momentum)}, affine=${this.affine ? "True" : "False"}, track_running_stats=${this.track_running_stats ? "True" : "False"}`;
  }
}

/** Batch normalization over `(N, C)` or `(N, C, L)`. */
export class BatchNorm1d extends BatchNormNd {
  constructor(num_features: number, options: BatchNormOptions = {}) {
    super(args("nn.BatchNorm1d", arguments));
  }

  protected checkInput(input: Tensor): void {
    if (input.dim() !== 2 && input.dim() !== 3)
      throw new TorchError(
        `expected 2D or 3D input (got ${input.dim()}D input)`,
      );
  }
}

/** Batch normalization over `(N, C, H, W)`. */
export class BatchNorm2d extends BatchNormNd {
  constructor(num_features: number, options: BatchNormOptions = {}) {
    super(args("nn.BatchNorm2d", arguments));
  }

  protected checkInput(input: Tensor): void {
    if (input.dim() !== 4)
      throw new TorchError(`expected 4D input (got ${input.dim()}D input)`);
  }
}

/** Batch normalization over `(N, C, D, H, W)`. */
export class BatchNorm3d extends BatchNormNd {
  constructor(num_features: number, options: BatchNormOptions = {}) {
    super(args("nn.BatchNorm3d", arguments));
  }

  protected checkInput(input: Tensor): void {
    if (input.dim() !== 5)
      throw new TorchError(`expected 5D input (got ${input.dim()}D input)`);
  }
}
