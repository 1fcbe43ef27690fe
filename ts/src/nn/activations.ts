/**
 * The activation modules with arguments that layers.ts lacks (`Hardshrink`, `Softshrink`,
 * `Threshold`, `GLU`, `PReLU`, `RReLU`, `Softmax2d`) and the channel-wise dropouts
 * (`Dropout1d/2d/3d`) and `AlphaDropout`.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { args } from "../schema/index.js";
import type { Tensor } from "../tensor/tensor.js";
import { full, rand } from "../ops/creation.js";
import { scope } from "../lifetime.js";
import * as A from "../ops/activations.js";
import * as F from "./functional/index.js";
import { Module, Parameter, ownedParameter } from "./module.js";
import type { FactoryOptions } from "./layers.js";

/** `x` where `|x| > lambd`, else 0. */
export class Hardshrink extends Module {
  constructor(readonly lambd = 0.5) {
    super();
    Object.assign(this, args("nn.Hardshrink", arguments));
  }
  override forward(input: Tensor): Tensor {
    return A.hardshrink(input, this.lambd);
  }
}

/** Shrinks towards 0 by `lambd`. */
export class Softshrink extends Module {
  constructor(readonly lambd = 0.5) {
    super();
    Object.assign(this, args("nn.Softshrink", arguments));
  }
  override forward(input: Tensor): Tensor {
    return A.softshrink(input, this.lambd);
  }
}

/** `x` above `threshold`, `value` elsewhere. */
export class Threshold extends Module {
  constructor(
    readonly threshold: number,
    readonly value: number,
  ) {
    super();
    Object.assign(this, args("nn.Threshold", arguments));
  }
  override forward(input: Tensor): Tensor {
    return A.threshold(input, this.threshold, this.value);
  }
}

/** Gated linear unit over `dim`. */
export class GLU extends Module {
  constructor(readonly dim = -1) {
    super();
    Object.assign(this, args("nn.GLU", arguments));
  }
  override forward(input: Tensor): Tensor {
    return A.glu(input, this.dim);
  }
}

/** Leaky ReLU with a learned slope (one, or one per channel), initialised to `init`. */
export class PReLU extends Module {
  weight: Parameter;
  constructor(
    readonly num_parameters = 1,
    init = 0.25,
    options: FactoryOptions = {},
  ) {
    super();
    const a = args("nn.PReLU", arguments);
    ({ num_parameters, init } = a);
    this.num_parameters = num_parameters;
    options = { device: a.device as FactoryOptions["device"] };
    this.weight = ownedParameter(
      full([num_parameters], init, {
        dtype: "float32",
        device: options.device,
      }),
    );
  }
  override forward(input: Tensor): Tensor {
    return A.prelu(input, this.weight);
  }
}

/** Randomized leaky ReLU (random slopes in training, their mean in evaluation). */
export class RReLU extends Module {
  constructor(
    readonly lower = 1 / 8,
    readonly upper = 1 / 3,
  ) {
    super();
    Object.assign(this, args("nn.RReLU", arguments));
  }
  override forward(input: Tensor): Tensor {
    return A.rrelu(input, this.lower, this.upper, this.training);
  }
}

/** Softmax over the channels of `(N, C, H, W)` or `(C, H, W)`. */
export class Softmax2d extends Module {
  constructor() {
    super();
    args("nn.Softmax2d", arguments);
  }
  override forward(input: Tensor): Tensor {
    if (input.ndim !== 3 && input.ndim !== 4)
      throw new TorchError(
        `Softmax2d: expected input to be 3D or 4D, got ${input.ndim}D instead`,
      );
    return F.softmax(input, -3);
  }
}

/**
 * Zeroes whole channels with probability `p` (scaling the rest by `1/(1-p)`); `d` spatial dims.
 * The mask comes from `torch.rand` (seeded by `torch.manual_seed`; not PyTorch's stream).
 */
function channelDropout(
  name: string,
  input: Tensor,
  p: number,
  training: boolean,
  d: number,
): Tensor {
  if (p < 0 || p > 1)
    throw new TorchError(
      `dropout probability has to be between 0 and 1, but got ${p}`,
    );
  if (input.ndim !== d + 1 && input.ndim !== d + 2)
    throw new TorchError(
      `${name}: Expected ${d + 1}D or ${d + 2}D input, but received a ${input.ndim}D input.`,
    );
  if (!training || p === 0) return input;
  return scope(() => {
    if (p === 1) return input.mul(0);
    const keepShape = input.shape.map((s, i) => (i < input.ndim - d ? s : 1));
    const keep = rand(keepShape, { device: input.device }).ge(p).to("float32");
    return input.mul(keep.mul(1 / (1 - p)));
  });
}

abstract class ChannelDropout extends Module {
  protected abstract readonly spatial: number;
  constructor(readonly p = 0.5) {
    super();
    // The subclass's entry: nn.Dropout1d, nn.Dropout2d, nn.Dropout3d.
    ({ p } = Object.assign(
      this,
      args(`nn.${new.target.name}` as "nn.Dropout1d", arguments),
    ));
    if (p < 0 || p > 1)
      throw new TorchError(
        `dropout probability has to be between 0 and 1, but got ${p}`,
      );
  }
  override forward(input: Tensor): Tensor {
    return channelDropout(
      this.constructor.name,
      input,
      this.p,
      this.training,
      this.spatial,
    );
  }
}

/** Zeroes whole channels of `(N, C, L)` / `(C, L)` in training. */
export class Dropout1d extends ChannelDropout {
  protected readonly spatial = 1;
}

/** Zeroes whole channels of `(N, C, H, W)` / `(C, H, W)` in training. */
export class Dropout2d extends ChannelDropout {
  protected readonly spatial = 2;
}

/** Zeroes whole channels of `(N, C, D, H, W)` / `(C, D, H, W)` in training. */
export class Dropout3d extends ChannelDropout {
  protected readonly spatial = 3;
}

/**
 * Dropout that keeps SELU's self-normalizing mean and variance: dropped elements are set to
 * SELU's negative saturation value and the result is affinely rescaled (PyTorch's constants).
 */
export class AlphaDropout extends Module {
  constructor(readonly p = 0.5) {
    super();
    Object.assign(this, args("nn.AlphaDropout", arguments));
  }
  override forward(input: Tensor): Tensor {
    const p = this.p;
    if (!this.training || p === 0) return input;
    return scope(() => {
      if (p === 1) return input.mul(0);
      const alpha = -1.7580993408473766; // -SELU scale · alpha
      const a = 1 / Math.sqrt((alpha * alpha * p + 1) * (1 - p));
      const b = -a * alpha * p;
      const keep = rand([...input.shape], { device: input.device })
        .ge(p)
        .to("float32");
      // kept: x; dropped: alpha; then a·(…) + b
      const mixed = input.mul(keep).add(keep.neg().add(1).mul(alpha));
      return mixed.mul(a).add(b);
    });
  }
}
