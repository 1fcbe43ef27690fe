/**
 * Pooling layers: `MaxPool1d`/`MaxPool2d`, `AvgPool1d`/`AvgPool2d`,
 * `AdaptiveAvgPool1d`/`AdaptiveAvgPool2d`, typed at the shape level when their window and
 * options are literals, `MaxPool3d`/`AvgPool3d`/`AdaptiveAvgPool3d`, and
 * `AdaptiveMaxPool1d`/`AdaptiveMaxPool2d`/`AdaptiveMaxPool3d`.
 *
 * @module
 */

import type { Tensor } from "../tensor/tensor.js";
import * as C from "./functional/pooling.js";
import type { IntOrTuple } from "../ops/conv.js";
import * as F from "./functional/index.js";
import { args, omit } from "../schema/index.js";
import { Module } from "./module.js";
import type {
  AdaptiveShape,
  CheckShape,
  Dims,
  Opt,
  PoolShape,
  ShapeOf,
} from "../shapes.js";

/** Options of the pooling layers. */
export interface PoolOptions {
  /** Default: the kernel size. */
  stride?: IntOrTuple | null;
  /** Implicit padding on both sides (-inf for max pooling, zeros for average; default 0). */
  padding?: IntOrTuple;
  /** Spacing between kernel elements (default 1). */
  dilation?: IntOrTuple;
  /** Use ceil instead of floor to compute the output size (default false). */
  ceil_mode?: boolean;
  /** Average pooling counts the zero padding in the divisor (default true). */
  count_include_pad?: boolean;
  /** Average pooling divides by this instead of the window size. */
  divisor_override?: number | null;
  /** Max pooling returns `[values, indices]` (the indices `MaxUnpool` takes; default false). */
  return_indices?: boolean;
}

/** Options of {@link MaxPool1d} and {@link MaxPool2d}. */
export type MaxPoolOptions = Omit<
  PoolOptions,
  "count_include_pad" | "divisor_override"
>;
/** Options of {@link AvgPool2d}. */
export type AvgPoolOptions = Omit<PoolOptions, "dilation" | "return_indices">;
/** Options of {@link AvgPool1d}. */
export type AvgPool1dOptions = Omit<AvgPoolOptions, "divisor_override">;

/** A pooling layer's output shape for input shape `S` (see {@link PoolShape}). */
type PoolOut<
  S extends Dims,
  k extends number,
  K,
  O,
  Max extends boolean,
> = PoolShape<
  S,
  k,
  K,
  Opt<O, "stride", K>,
  Opt<O, "padding", 0>,
  Max extends true ? Opt<O, "dilation", 1> : 1,
  Opt<O, "ceil_mode", false>
>;

/** A max pooling layer's result: `[values, indices]` when its options set `return_indices`. */
type WithIndices<O, T> = O extends { return_indices: true } ? [T, Tensor] : T;

/** What the max pooling layers share: the window and the options. */
abstract class MaxPoolNd extends Module {
  constructor(
    readonly kernel_size: IntOrTuple,
    readonly options: PoolOptions = {},
    private readonly dims: 1 | 2 | 3 = 2,
  ) {
    super();
  }

  /** `F.max_pool1d`/`2d`/`3d` of `input` with this layer's window and options. */
  protected pool(input: Tensor): Tensor | [Tensor, Tensor] {
    const o = this.options;
    const args = [
      this.kernel_size,
      o.stride ?? null,
      o.padding ?? 0,
      o.dilation ?? 1,
      o.ceil_mode ?? false,
      o.return_indices ?? false,
    ] as const;
    return this.dims === 1
      ? C.max_pool1d(input, ...args)
      : this.dims === 3
        ? C.max_pool3d(input, ...args)
        : C.max_pool2d(input, ...args);
  }

  override extra_repr(): string {
    const o = this.options;
    return `kernel_size=${String(this.kernel_size)}, stride=${String(o.stride ?? this.kernel_size)}, padding=${String(o.padding ?? 0)}, dilation=${String(o.dilation ?? 1)}, ceil_mode=${o.ceil_mode ? "True" : "False"}`;
  }
}

/**
 * 2-D max pooling. Typed: with a literal window and options, `forward` of `[N, C, H, W]` (or
 * `[C, H, W]`) gives `[N, C, H', W']` at compile time (`ceil_mode`: `number` sizes).
 */
export class MaxPool2d<
  const K extends IntOrTuple = IntOrTuple,
  const O extends MaxPoolOptions = {},
> extends MaxPoolNd {
  constructor(kernel_size: K, options: O = {} as O) {
    const a = args("nn.MaxPool2d", arguments);
    super(a.kernel_size, omit(a, "kernel_size"));
  }

  /** The pooled `input`. */
  override forward<S extends Dims>(
    input: Tensor<S> & CheckShape<PoolOut<S, 2, K, O, true>>,
  ): WithIndices<O, Tensor<ShapeOf<PoolOut<S, 2, K, O, true>>>>;
  override forward(input: Tensor): Tensor | [Tensor, Tensor] {
    return this.pool(input);
  }
}

/** 1-D max pooling (typed as {@link MaxPool2d}: `[N, C, L]` → `[N, C, L']`). */
export class MaxPool1d<
  const K extends IntOrTuple = IntOrTuple,
  const O extends MaxPoolOptions = {},
> extends MaxPoolNd {
  constructor(kernel_size: K, options: O = {} as O) {
    const a = args("nn.MaxPool1d", arguments);
    super(a.kernel_size, omit(a, "kernel_size"), 1);
  }

  /** The pooled `input`. */
  override forward<S extends Dims>(
    input: Tensor<S> & CheckShape<PoolOut<S, 1, K, O, true>>,
  ): WithIndices<O, Tensor<ShapeOf<PoolOut<S, 1, K, O, true>>>>;
  override forward(input: Tensor): Tensor | [Tensor, Tensor] {
    return this.pool(input);
  }
}

/** What the average pooling layers share: the window and the options. */
abstract class AvgPoolNd extends Module {
  constructor(
    readonly kernel_size: IntOrTuple,
    readonly options: PoolOptions = {},
    private readonly dims: 1 | 2 | 3 = 2,
  ) {
    super();
  }

  /** `F.avg_pool1d`/`avg_pool2d` of `input` with this layer's window and options. */
  protected pool(input: Tensor): Tensor {
    const o = this.options;
    const args = [
      this.kernel_size,
      o.stride ?? null,
      o.padding ?? 0,
      o.ceil_mode ?? false,
      o.count_include_pad ?? true,
    ] as const;
    return this.dims === 1
      ? C.avg_pool1d(input, ...args)
      : this.dims === 3
        ? C.avg_pool3d(input, ...args, o.divisor_override ?? null)
        : C.avg_pool2d(input, ...args, o.divisor_override ?? null);
  }

  override extra_repr(): string {
    const o = this.options;
    return `kernel_size=${String(this.kernel_size)}, stride=${String(o.stride ?? this.kernel_size)}, padding=${String(o.padding ?? 0)}`;
  }
}

/** 2-D average pooling (typed as {@link MaxPool2d}). */
export class AvgPool2d<
  const K extends IntOrTuple = IntOrTuple,
  const O extends AvgPoolOptions = {},
> extends AvgPoolNd {
  constructor(kernel_size: K, options: O = {} as O) {
    const a = args("nn.AvgPool2d", arguments);
    super(a.kernel_size, omit(a, "kernel_size"));
  }

  /** The pooled `input`. */
  override forward<S extends Dims>(
    input: Tensor<S> & CheckShape<PoolOut<S, 2, K, O, false>>,
  ): Tensor<ShapeOf<PoolOut<S, 2, K, O, false>>>;
  override forward(input: Tensor): Tensor {
    return this.pool(input);
  }
}

/** 1-D average pooling (typed as {@link MaxPool1d}). */
export class AvgPool1d<
  const K extends IntOrTuple = IntOrTuple,
  const O extends AvgPool1dOptions = {},
> extends AvgPoolNd {
  constructor(kernel_size: K, options: O = {} as O) {
    const a = args("nn.AvgPool1d", arguments);
    super(a.kernel_size, omit(a, "kernel_size"), 1);
  }

  /** The pooled `input`. */
  override forward<S extends Dims>(
    input: Tensor<S> & CheckShape<PoolOut<S, 1, K, O, false>>,
  ): Tensor<ShapeOf<PoolOut<S, 1, K, O, false>>>;
  override forward(input: Tensor): Tensor {
    return this.pool(input);
  }
}

/** 3-D max pooling of `(N, C, D, H, W)` or `(C, D, H, W)`. */
export class MaxPool3d extends MaxPoolNd {
  constructor(kernel_size: IntOrTuple, options: MaxPoolOptions = {}) {
    const a = args("nn.MaxPool3d", arguments);
    super(a.kernel_size, omit(a, "kernel_size"), 3);
  }

  /** The pooled `input` (with `return_indices`: `[values, indices]`). */
  override forward(input: Tensor): Tensor | [Tensor, Tensor] {
    return this.pool(input);
  }
}

/** 3-D average pooling of `(N, C, D, H, W)` or `(C, D, H, W)`. */
export class AvgPool3d extends AvgPoolNd {
  constructor(kernel_size: IntOrTuple, options: AvgPoolOptions = {}) {
    const a = args("nn.AvgPool3d", arguments);
    super(a.kernel_size, omit(a, "kernel_size"), 3);
  }

  /** The pooled `input`. */
  override forward(input: Tensor): Tensor {
    return this.pool(input);
  }
}

/** What the adaptive average pooling layers share: the output size. */
abstract class AdaptiveAvgPoolNd extends Module {
  constructor(readonly output_size: IntOrTuple) {
    super();
  }

  override extra_repr(): string {
    return `output_size=${String(this.output_size)}`;
  }
}

/** Adaptive 2-D average pooling to `output_size` (typed: the last two dims become it). */
export class AdaptiveAvgPool2d<
  const Os extends IntOrTuple = IntOrTuple,
> extends AdaptiveAvgPoolNd {
  constructor(output_size: Os) {
    super(args("nn.AdaptiveAvgPool2d", arguments).output_size);
  }

  /** The pooled `input` (`[N, C, H, W]` or `[C, H, W]`). */
  override forward<S extends Dims>(
    input: Tensor<S> & CheckShape<AdaptiveShape<S, 2, Os>>,
  ): Tensor<ShapeOf<AdaptiveShape<S, 2, Os>>>;
  override forward(input: Tensor): Tensor {
    return C.adaptive_avg_pool2d(input, this.output_size);
  }
}

/** Adaptive 1-D average pooling to `output_size` (typed: the last dim becomes it). */
export class AdaptiveAvgPool1d<
  const Os extends IntOrTuple = IntOrTuple,
> extends AdaptiveAvgPoolNd {
  constructor(output_size: Os) {
    super(args("nn.AdaptiveAvgPool1d", arguments).output_size);
  }

  /** The pooled `input` (`[N, C, L]` or `[C, L]`). */
  override forward<S extends Dims>(
    input: Tensor<S> & CheckShape<AdaptiveShape<S, 1, Os>>,
  ): Tensor<ShapeOf<AdaptiveShape<S, 1, Os>>>;
  override forward(input: Tensor): Tensor {
    return C.adaptive_avg_pool1d(input, this.output_size);
  }
}

/** Adaptive 3-D average pooling to `output_size` (a null entry keeps that input size). */
export class AdaptiveAvgPool3d extends Module {
  constructor(readonly output_size: IntOrTuple | readonly (number | null)[]) {
    super();
    this.output_size = args("nn.AdaptiveAvgPool3d", arguments)
      .output_size as IntOrTuple;
  }

  override extra_repr(): string {
    return `output_size=${pyValue(this.output_size)}`;
  }

  /** The pooled `input` (`[N, C, D, H, W]` or `[C, D, H, W]`). */
  override forward(input: Tensor): Tensor {
    return C.adaptive_avg_pool3d(input, this.output_size);
  }
}

/** A size as Python prints it: an int, or a list with `None` for null entries. */
function pyValue(v: unknown): string {
  return Array.isArray(v)
    ? `[${v.map((x) => (x === null ? "None" : String(x))).join(", ")}]`
    : String(v);
}

/** Max pooling of `(N, C, L)` / `(C, L)` to `output_size` positions (`F.adaptive_max_pool1d`). */
export class AdaptiveMaxPool1d extends Module {
  constructor(
    readonly output_size: number,
    readonly return_indices: boolean = false,
  ) {
    super();
    Object.assign(this, args("nn.AdaptiveMaxPool1d", arguments));
  }
  /** The pooled `input` (with `return_indices`: `[values, indices]`). */
  override forward(input: Tensor): Tensor | [Tensor, Tensor] {
    return F.adaptive_max_pool1d(input, this.output_size, this.return_indices);
  }
}

/**
 * Max pooling of `(N, C, D, H, W)` / `(C, D, H, W)` to `output_size` (a null entry keeps that
 * input size; `F.adaptive_max_pool3d`).
 */
export class AdaptiveMaxPool3d extends Module {
  constructor(
    readonly output_size: number | readonly (number | null)[],
    readonly return_indices: boolean = false,
  ) {
    super();
    const a = args("nn.AdaptiveMaxPool3d", arguments);
    this.output_size = a.output_size as number | (number | null)[];
    this.return_indices = a.return_indices;
  }

  override extra_repr(): string {
    return `output_size=${pyValue(this.output_size)}`;
  }

  /** The pooled `input` (`[N, C, D, H, W]` or `[C, D, H, W]`; with `return_indices`: `[values, indices]`). */
  override forward(input: Tensor): Tensor | [Tensor, Tensor] {
    return F.adaptive_max_pool3d(input, this.output_size, this.return_indices);
  }
}

/** Max pooling of `(N, C, H, W)` / `(C, H, W)` to `output_size` (`F.adaptive_max_pool2d`). */
export class AdaptiveMaxPool2d extends Module {
  constructor(
    readonly output_size: number | readonly (number | null)[],
    readonly return_indices: boolean = false,
  ) {
    super();
    Object.assign(this, args("nn.AdaptiveMaxPool2d", arguments));
  }
  /** The pooled `input` (with `return_indices`: `[values, indices]`). */
  override forward(input: Tensor): Tensor | [Tensor, Tensor] {
    return F.adaptive_max_pool2d(input, this.output_size, this.return_indices);
  }
}

/** What the max unpooling layers share: the window of the pooling they invert. */
abstract class MaxUnpoolNd extends Module {
  readonly kernel_size!: IntOrTuple;
  readonly stride!: IntOrTuple | null;
  readonly padding!: IntOrTuple;

  constructor(private readonly dims: 1 | 2 | 3) {
    super();
  }

  /** PyTorch prints each as a tuple of one int per spatial dim. */
  override extra_repr(): string {
    const tuple = (v: IntOrTuple) => {
      const a =
        typeof v === "number" ? new Array<number>(this.dims).fill(v) : [...v];
      return `(${a.join(", ")}${a.length === 1 ? "," : ""})`;
    };
    return `kernel_size=${tuple(this.kernel_size)}, stride=${tuple(this.stride ?? this.kernel_size)}, padding=${tuple(this.padding)}`;
  }
}

/** The partial inverse of {@link MaxPool1d}: `forward(input, indices, output_size?)` (`F.max_unpool1d`). */
export class MaxUnpool1d extends MaxUnpoolNd {
  constructor(
    kernel_size: IntOrTuple,
    stride?: IntOrTuple | null,
    padding?: IntOrTuple,
  ) {
    super(1);
    Object.assign(this, args("nn.MaxUnpool1d", arguments));
  }
  override forward(
    input: Tensor,
    indices: Tensor,
    output_size?: readonly number[] | null,
  ): Tensor {
    return F.max_unpool1d(
      input,
      indices,
      this.kernel_size,
      this.stride,
      this.padding,
      output_size,
    );
  }
}

/** The partial inverse of {@link MaxPool2d}: `forward(input, indices, output_size?)` (`F.max_unpool2d`). */
export class MaxUnpool2d extends MaxUnpoolNd {
  constructor(
    kernel_size: IntOrTuple,
    stride?: IntOrTuple | null,
    padding?: IntOrTuple,
  ) {
    super(2);
    Object.assign(this, args("nn.MaxUnpool2d", arguments));
  }
  override forward(
    input: Tensor,
    indices: Tensor,
    output_size?: readonly number[] | null,
  ): Tensor {
    return F.max_unpool2d(
      input,
      indices,
      this.kernel_size,
      this.stride,
      this.padding,
      output_size,
    );
  }
}

/** The partial inverse of {@link MaxPool3d}: `forward(input, indices, output_size?)` (`F.max_unpool3d`). */
export class MaxUnpool3d extends MaxUnpoolNd {
  constructor(
    kernel_size: IntOrTuple,
    stride?: IntOrTuple | null,
    padding?: IntOrTuple,
  ) {
    super(3);
    Object.assign(this, args("nn.MaxUnpool3d", arguments));
  }
  override forward(
    input: Tensor,
    indices: Tensor,
    output_size?: readonly number[] | null,
  ): Tensor {
    return F.max_unpool3d(
      input,
      indices,
      this.kernel_size,
      this.stride,
      this.padding,
      output_size,
    );
  }
}
