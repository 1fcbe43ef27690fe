/**
 * `torch.nn.functional`'s normalizations: `layer_norm` and `rms_norm` (the core's row kernels, or
 * their composition when a gradient is needed that the kernel does not record), `group_norm` and
 * `instance_norm` (compositions of differentiable core ops inside a {@link scope}, which frees the
 * intermediates). `batch_norm` is a core call (ops/conv.ts).
 *
 * @module
 */

import { args, omit } from "../../schema/index.js";
import { DTypeError, ShapeError } from "../../errors.js";
import { isFloatingPoint, scalarTypeName } from "../../dtype.js";
import type { Tensor } from "../../tensor/tensor.js";
import { no_grad } from "../../autograd/grad_mode.js";
import { scope } from "../../lifetime.js";
import { batch_norm } from "../../ops/conv.js";
import * as kernels from "../../ops/nn_kernels.js";
import { kernelOr, shapeStr, temps } from "./composition.js";

/** Layer normalization over the trailing `normalized_shape` dims (biased variance). */
export function layer_norm(
  input: Tensor,
  normalized_shape: number | readonly number[],
  weight?: Tensor | null,
  bias?: Tensor | null,
  eps?: number,
): Tensor {
  ({ input, normalized_shape, weight, bias, eps } = args(
    "nn.functional.layer_norm",
    arguments,
  ));
  const shape =
    typeof normalized_shape === "number"
      ? [normalized_shape]
      : [...normalized_shape];
  return kernelOr(
    [input, weight, bias],
    () => kernels.layer_norm(input, shape, weight, bias, eps),
    () =>
      temps((k) => {
        const dims = shape.map((_, i) => i - shape.length);
        const mu = k(input.mean(dims, true));
        const centered = k(input.sub(mu));
        const variance = k(k(centered.square()).mean(dims, true));
        let y = centered.mul(k(k(variance.add(eps)).rsqrt()));
        if (weight) y = k(y).mul(weight);
        if (bias) y = k(y).add(bias);
        return y;
      }),
  );
}

/** `x / sqrt(mean(x²) + eps) * weight` over the trailing dims. */
export function rms_norm(
  input: Tensor,
  normalized_shape: number | readonly number[],
  weight?: Tensor | null,
  eps?: number | null,
): Tensor {
  ({ input, normalized_shape, weight, eps } = args(
    "nn.functional.rms_norm",
    arguments,
  ));
  const shape =
    typeof normalized_shape === "number"
      ? [normalized_shape]
      : [...normalized_shape];
  return kernelOr(
    [input, weight],
    () => kernels.rms_norm(input, shape, weight, eps),
    () =>
      temps((k) => {
        const dims = shape.map((_, i) => i - shape.length);
        const ms = k(k(input.square()).mean(dims, true));
        // PyTorch's default: the machine epsilon of the compute type (f64's for float64).
        const e =
          eps ??
          (input.dtype === "float64"
            ? 2.220446049250313e-16
            : 1.1920928955078125e-7);
        const y = input.mul(k(k(ms.add(e)).rsqrt()));
        return weight ? k(y).mul(weight) : y;
      }),
  );
}

/** `(1, C, 1, …)`: a per-channel vector shaped to broadcast over `(N, C, *)`. */
function perChannel(v: Tensor, ndim: number): Tensor {
  return v.reshape([1, v.shape[0]!, ...Array<number>(ndim - 2).fill(1)]);
}

/**
 * Group normalization: the channels of `(N, C, *)` split into `num_groups` groups, each normalized
 * over its channels and spatial positions (biased variance), then scaled and shifted per channel.
 */
export function group_norm(
  input: Tensor,
  num_groups: number,
  weight?: Tensor | null,
  bias?: Tensor | null,
  eps?: number,
): Tensor {
  ({ input, num_groups, weight, bias, eps } = args(
    "nn.functional.group_norm",
    arguments,
  ));
  const [n, c] = input.shape as number[];
  if (input.ndim < 2 || c! % num_groups !== 0)
    throw new ShapeError(
      `Expected number of channels in input to be divisible by num_groups, but got input of shape ${shapeStr(input)} and num_groups=${num_groups}`,
    );
  if (!isFloatingPoint(input.dtype))
    throw new DTypeError(
      `"GroupNormKernelImpl" not implemented for '${scalarTypeName(input.dtype)}'`,
    );
  return scope(() => {
    // The group's size spelled out: -1 is ambiguous for an empty batch.
    const g = input.reshape([
      n!,
      num_groups,
      input.numel() / Math.max(1, n! * num_groups),
    ]);
    const mu = g.mean(2, true);
    const centered = g.sub(mu);
    const variance = centered.square().mean(2, true);
    let y = centered.mul(variance.add(eps).rsqrt()).reshape([...input.shape]);
    if (weight) y = y.mul(perChannel(weight, input.ndim));
    if (bias) y = y.add(perChannel(bias, input.ndim));
    return y;
  });
}

/** Options of {@link instance_norm}. */
export interface InstanceNormOptions {
  /** Running mean per channel, updated in training when given. */
  running_mean?: Tensor | null;
  /** Running variance per channel, updated in training when given. */
  running_var?: Tensor | null;
  /** Per-channel scale. */
  weight?: Tensor | null;
  /** Per-channel shift. */
  bias?: Tensor | null;
  /** Normalize with this input's statistics (default); `false`: with the running ones. */
  use_input_stats?: boolean;
  /** Momentum of the running statistics (default 0.1). */
  momentum?: number;
  /** Added to the variance (default 1e-5). */
  eps?: number;
}

/**
 * Instance normalization: each `(n, c)` plane of `(N, C, *)` normalized over its spatial
 * positions. As in PyTorch, this is batch_norm over `(1, N·C, *)`; running statistics (when
 * given) are updated with the mean over the batch of the per-instance statistics.
 */
export function instance_norm(
  input: Tensor,
  options?: InstanceNormOptions,
): Tensor {
  const a = args("nn.functional.instance_norm", arguments);
  ({ input } = a);
  options = omit(a, "input") as InstanceNormOptions;
  const { running_mean = null, running_var = null } = options;
  const { weight = null, bias = null } = options;
  const use = options.use_input_stats ?? true;
  const [n, c] = input.shape as number[];
  if (use && input.shape.slice(2).reduce((a, b) => a * b, 1) <= 1)
    throw new ShapeError(
      `Expected more than 1 spatial element when training, got input size torch.Size(${shapeStr(input)})`,
    );
  return scope(() => {
    const rep = (t: Tensor | null) => (t ? t.repeat([n!]) : null);
    const rm = rep(running_mean);
    const rv = rep(running_var);
    const x = input.reshape([1, n! * c!, ...input.shape.slice(2)]);
    const y = batch_norm(
      x,
      rm,
      rv,
      rep(weight),
      rep(bias),
      use,
      options.momentum ?? 0.1,
      options.eps ?? 1e-5,
    );
    if (use && rm && rv && running_mean && running_var)
      no_grad(() => {
        running_mean.copy_(rm.reshape([n!, c!]).mean(0));
        running_var.copy_(rv.reshape([n!, c!]).mean(0));
      });
    return y.reshape([...input.shape]);
  });
}
