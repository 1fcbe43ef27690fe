/**
 * Resampling, shuffling, sliding-block and padding layers: `Upsample`, `PixelShuffle`,
 * `PixelUnshuffle`, `Fold`, `Unfold`, and the padding modules (`ZeroPad1d/2d/3d`,
 * `ConstantPad1d/2d/3d`, `ReflectionPad1d/2d/3d`, `ReplicationPad1d/2d/3d`,
 * `CircularPad1d/2d/3d`) — each the module form of its `nn.functional` function.
 *
 * @module
 */

import type { Tensor } from "../tensor/tensor.js";
import { args } from "../schema/index.js";
import { pad } from "../ops/conv.js";
import {
  interpolate,
  type InterpolateOptions,
} from "./functional/interpolate.js";
import {
  fold,
  pixel_shuffle,
  pixel_unshuffle,
  unfold,
} from "./functional/sampling.js";
import { Module } from "./module.js";

type Size = number | readonly number[];

/** A size as Python prints the tuple a port passes: `2`, `(2, 3)`. */
function tuple(v: Size): string {
  return typeof v === "number" ? String(v) : `(${v.join(", ")})`;
}

/** A float as Python's `repr` prints it (`2.0`, `0.5`). */
function pyFloat(v: number): string {
  return Number.isInteger(v) ? v.toFixed(1) : String(v);
}

/** Upsamples `(N, C, ...spatial)` input by `scale_factor` or to `size` (`F.interpolate`). */
export class Upsample extends Module {
  readonly size: Size | null;
  readonly scale_factor: number | readonly number[] | null;
  readonly mode: string;
  readonly align_corners: boolean | null;
  readonly recompute_scale_factor: boolean | null;

  constructor(options: Omit<InterpolateOptions, "antialias"> = {}) {
    super();
    const a = args("nn.Upsample", arguments);
    this.size = a.size ?? null;
    this.scale_factor = a.scale_factor ?? null;
    this.mode = a.mode;
    this.align_corners = a.align_corners ?? null;
    this.recompute_scale_factor = a.recompute_scale_factor ?? null;
  }

  override forward(input: Tensor): Tensor {
    return interpolate(input, {
      size: this.size ?? undefined,
      scale_factor: this.scale_factor ?? undefined,
      mode: this.mode as InterpolateOptions["mode"],
      align_corners: this.align_corners,
      recompute_scale_factor: this.recompute_scale_factor,
    });
  }

  override extra_repr(): string {
    const sf = this.scale_factor;
    const what =
      sf !== null
        ? `scale_factor=${typeof sf === "number" ? pyFloat(sf) : `(${sf.map(pyFloat).join(", ")})`}`
        : `size=${tuple(this.size!)}`;
    return `${what}, mode='${this.mode}'`;
  }
}

/** `(*, C·r², H, W)` → `(*, C, H·r, W·r)` (`F.pixel_shuffle`). */
export class PixelShuffle extends Module {
  readonly upscale_factor: number;

  constructor(upscale_factor: number) {
    super();
    this.upscale_factor = args("nn.PixelShuffle", arguments).upscale_factor;
  }

  override forward(input: Tensor): Tensor {
    return pixel_shuffle(input, this.upscale_factor);
  }

  override extra_repr(): string {
    return `upscale_factor=${this.upscale_factor}`;
  }
}

/** `(*, C, H·r, W·r)` → `(*, C·r², H, W)` (`F.pixel_unshuffle`). */
export class PixelUnshuffle extends Module {
  readonly downscale_factor: number;

  constructor(downscale_factor: number) {
    super();
    this.downscale_factor = args(
      "nn.PixelUnshuffle",
      arguments,
    ).downscale_factor;
  }

  override forward(input: Tensor): Tensor {
    return pixel_unshuffle(input, this.downscale_factor);
  }

  override extra_repr(): string {
    return `downscale_factor=${this.downscale_factor}`;
  }
}

/** Options of {@link Fold} and {@link Unfold}. */
export interface BlockOptions {
  /** Spacing between kernel elements (default 1). */
  dilation?: Size;
  /** Implicit zero padding on both sides (default 0). */
  padding?: Size;
  /** Step between blocks (default 1). */
  stride?: Size;
}

/** Combines sliding blocks into an image (`F.fold`). */
export class Fold extends Module {
  readonly output_size: Size;
  readonly kernel_size: Size;
  readonly dilation: Size;
  readonly padding: Size;
  readonly stride: Size;

  constructor(
    output_size: Size,
    kernel_size: Size,
    options: BlockOptions = {},
  ) {
    super();
    const a = args("nn.Fold", arguments);
    this.output_size = a.output_size;
    this.kernel_size = a.kernel_size;
    this.dilation = a.dilation;
    this.padding = a.padding;
    this.stride = a.stride;
  }

  override forward(input: Tensor): Tensor {
    return fold(
      input,
      this.output_size,
      this.kernel_size,
      this.dilation,
      this.padding,
      this.stride,
    );
  }

  override extra_repr(): string {
    return `output_size=${tuple(this.output_size)}, kernel_size=${tuple(this.kernel_size)}, dilation=${tuple(this.dilation)}, padding=${tuple(this.padding)}, stride=${tuple(this.stride)}`;
  }
}

/** Extracts sliding blocks (`F.unfold`). */
export class Unfold extends Module {
  readonly kernel_size: Size;
  readonly dilation: Size;
  readonly padding: Size;
  readonly stride: Size;

  constructor(kernel_size: Size, options: BlockOptions = {}) {
    super();
    const a = args("nn.Unfold", arguments);
    this.kernel_size = a.kernel_size;
    this.dilation = a.dilation;
    this.padding = a.padding;
    this.stride = a.stride;
  }

  override forward(input: Tensor): Tensor {
    return unfold(
      input,
      this.kernel_size,
      this.dilation,
      this.padding,
      this.stride,
    );
  }

  override extra_repr(): string {
    return `kernel_size=${tuple(this.kernel_size)}, dilation=${tuple(this.dilation)}, padding=${tuple(this.padding)}, stride=${tuple(this.stride)}`;
  }
}

// ---- padding ----

type PadMode = "constant" | "reflect" | "replicate" | "circular";

/** What the padding layers share: `padding` as F.pad's list, the mode and the fill value. */
abstract class PadNd extends Module {
  /** `(left, right[, top, bottom[, front, back]])`, an int repeated to all sides. */
  readonly padding: number[];

  constructor(
    k: number,
    padding: Size,
    private readonly mode: PadMode,
    readonly value = 0,
  ) {
    super();
    this.padding =
      typeof padding === "number"
        ? new Array<number>(2 * k).fill(padding)
        : [...padding];
  }

  override forward(input: Tensor): Tensor {
    return this.mode === "constant"
      ? pad(input, this.padding, "constant", this.value)
      : pad(input, this.padding, this.mode);
  }

  override extra_repr(): string {
    return `(${this.padding.join(", ")})`;
  }
}

/** What the constant padding layers print: the padding and the value. */
abstract class ConstantPadNd extends PadNd {
  override extra_repr(): string {
    return `padding=(${this.padding.join(", ")}), value=${pyFloat(this.value)}`;
  }
}

/** Pads the last dim with zeros: `padding` an int or `(left, right)`. */
export class ZeroPad1d extends PadNd {
  constructor(padding: Size) {
    super(1, args("nn.ZeroPad1d", arguments).padding, "constant");
  }
}
/** Pads the last 2 dims with zeros: an int or `(left, right, top, bottom)`. */
export class ZeroPad2d extends PadNd {
  constructor(padding: Size) {
    super(2, args("nn.ZeroPad2d", arguments).padding, "constant");
  }
}
/** Pads the last 3 dims with zeros: an int or `(left, right, top, bottom, front, back)`. */
export class ZeroPad3d extends PadNd {
  constructor(padding: Size) {
    super(3, args("nn.ZeroPad3d", arguments).padding, "constant");
  }
}
/** Pads the last dim with `value`. */
export class ConstantPad1d extends ConstantPadNd {
  constructor(padding: Size, value: number) {
    const a = args("nn.ConstantPad1d", arguments);
    super(1, a.padding, "constant", a.value);
  }
}
/** Pads the last 2 dims with `value`. */
export class ConstantPad2d extends ConstantPadNd {
  constructor(padding: Size, value: number) {
    const a = args("nn.ConstantPad2d", arguments);
    super(2, a.padding, "constant", a.value);
  }
}
/** Pads the last 3 dims with `value`. */
export class ConstantPad3d extends ConstantPadNd {
  constructor(padding: Size, value: number) {
    const a = args("nn.ConstantPad3d", arguments);
    super(3, a.padding, "constant", a.value);
  }
}
/** Pads the last dim with its reflection (the edge not repeated). */
export class ReflectionPad1d extends PadNd {
  constructor(padding: Size) {
    super(1, args("nn.ReflectionPad1d", arguments).padding, "reflect");
  }
}
/** Pads the last 2 dims with their reflection. */
export class ReflectionPad2d extends PadNd {
  constructor(padding: Size) {
    super(2, args("nn.ReflectionPad2d", arguments).padding, "reflect");
  }
}
/** Pads the last 3 dims with their reflection. */
export class ReflectionPad3d extends PadNd {
  constructor(padding: Size) {
    super(3, args("nn.ReflectionPad3d", arguments).padding, "reflect");
  }
}
/** Pads the last dim by repeating its edge values. */
export class ReplicationPad1d extends PadNd {
  constructor(padding: Size) {
    super(1, args("nn.ReplicationPad1d", arguments).padding, "replicate");
  }
}
/** Pads the last 2 dims by repeating their edge values. */
export class ReplicationPad2d extends PadNd {
  constructor(padding: Size) {
    super(2, args("nn.ReplicationPad2d", arguments).padding, "replicate");
  }
}
/** Pads the last 3 dims by repeating their edge values. */
export class ReplicationPad3d extends PadNd {
  constructor(padding: Size) {
    super(3, args("nn.ReplicationPad3d", arguments).padding, "replicate");
  }
}
/** Pads the last dim with the values from its other end (wrapping around). */
export class CircularPad1d extends PadNd {
  constructor(padding: Size) {
    super(1, args("nn.CircularPad1d", arguments).padding, "circular");
  }
}
/** Pads the last 2 dims circularly. */
export class CircularPad2d extends PadNd {
  constructor(padding: Size) {
    super(2, args("nn.CircularPad2d", arguments).padding, "circular");
  }
}
/** Pads the last 3 dims circularly. */
export class CircularPad3d extends PadNd {
  constructor(padding: Size) {
    super(3, args("nn.CircularPad3d", arguments).padding, "circular");
  }
}
