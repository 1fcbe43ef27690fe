/**
 * `torch.nn.functional`'s activations that take arguments or run a row kernel (gelu, softplus,
 * elu, celu, leaky_relu, hardtanh, softmax, softmin, log_softmax); the argument-free ones are the
 * op-table rows (ops/ops.ts). Re-exported by index.ts.
 *
 * @module
 */

import { args, omit } from "../../schema/index.js";
import type { Tensor } from "../../tensor/tensor.js";
import { no_grad } from "../../autograd/grad_mode.js";
import * as kernels from "../../ops/nn_kernels.js";
import { kernelOr, temps } from "./composition.js";
import { where } from "../../ops/conditional.js";
import { hardtanh as hardtanhImpl } from "../../ops/activations.js";
import type { DType } from "../../dtype.js";
import type { Dims } from "../../shapes.js";
import type { FloatOf } from "../../tensor/tensor.js";

/** GELU: exact (`approximate: "none"`, the default) or the tanh approximation. */
export function gelu<S extends Dims, D extends DType>(
  input: Tensor<S, D>,
  options?: { approximate?: "none" | "tanh" },
): Tensor<S, FloatOf<D>>;
export function gelu(
  input: Tensor,
  options?: { approximate?: "none" | "tanh" },
): Tensor {
  const a = args("nn.functional.gelu", arguments);
  ({ input } = a);
  options = omit(a, "input");
  if ((options.approximate ?? "none") === "none") return input.gelu();
  // 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))
  return temps((k) => {
    const inner = k(k(k(input.pow(3)).mul(0.044715)).add(input)).mul(
      Math.sqrt(2 / Math.PI),
    );
    return k(k(k(inner).tanh()).add(1)).mul(k(input.mul(0.5)));
  });
}

/** `log(1 + exp(beta x)) / beta`, linear above `threshold` (as PyTorch). */
export function softplus<S extends Dims, D extends DType>(
  input: Tensor<S, D>,
  beta?: number,
  threshold?: number,
): Tensor<S, FloatOf<D>>;
export function softplus(
  input: Tensor,
  beta?: number,
  threshold?: number,
): Tensor {
  ({ input, beta, threshold } = args("nn.functional.softplus", arguments));
  if (beta === 1 && threshold === 20) return input.softplus();
  return temps((k) => {
    const bx = k(input.mul(beta));
    const soft = k(k(bx.softplus()).div(beta));
    // where(bx > threshold, x, soft) as a blend (where has no gradient rule yet).
    const over = k(k(bx.gt(threshold)).to("float32"));
    return k(k(input.mul(over)).sub(k(soft.mul(over)))).add(soft);
  });
}

/**
 * `x` above 0, `alpha (e^(x/div) - 1)` at and below: the negative branch's derivative at 0, as in
 * PyTorch. The exponential sees `min(x, 0)` (through `where`, whose unused side gets no
 * gradient), so a large `x` cannot overflow it into a NaN gradient.
 */
function expLinear(input: Tensor, alpha: number, div: number): Tensor {
  return temps((k) => {
    const pos = k(input.gt(0));
    const neg = k(where(pos, 0, input));
    const e = k(
      k(div === 1 ? neg.expm1() : k(neg.div(div)).expm1()).mul(alpha),
    );
    return where(pos, input, e);
  });
}

/** ELU with `alpha`: `x` above 0, `alpha (eˣ - 1)` at and below. */
export function elu<S extends Dims, D extends DType>(
  input: Tensor<S, D>,
  alpha?: number,
): Tensor<S, FloatOf<D>>;
export function elu(input: Tensor, alpha?: number): Tensor {
  ({ input, alpha } = args("nn.functional.elu", arguments));
  if (alpha === 1) return input.elu();
  return expLinear(input, alpha, 1);
}

/** CELU with `alpha`: `x` above 0, `alpha (e^(x/alpha) - 1)` at and below. */
export function celu<S extends Dims, D extends DType>(
  input: Tensor<S, D>,
  alpha?: number,
): Tensor<S, FloatOf<D>>;
export function celu(input: Tensor, alpha?: number): Tensor {
  ({ input, alpha } = args("nn.functional.celu", arguments));
  if (alpha === 1) return input.celu();
  return expLinear(input, alpha, alpha);
}

/** `x` above 0, `negative_slope * x` at and below (the slope is the gradient at 0). */
export function leaky_relu<S extends Dims, D extends DType>(
  input: Tensor<S, D>,
  negative_slope?: number,
): Tensor<S, D>;
export function leaky_relu(input: Tensor, negative_slope?: number): Tensor {
  ({ input, negative_slope } = args("nn.functional.leaky_relu", arguments));
  return temps((k) =>
    where(k(input.gt(0)), input, k(input.mul(negative_slope))),
  );
}

/** `clamp(x, min_val, max_val)`, with `hardtanh`'s gradient at the bounds. */
export function hardtanh<S extends Dims, D extends DType>(
  input: Tensor<S, D>,
  min_val?: number,
  max_val?: number,
): Tensor<S, D>;
export function hardtanh(
  input: Tensor,
  min_val?: number,
  max_val?: number,
): Tensor {
  ({ input, min_val, max_val } = args("nn.functional.hardtanh", arguments));
  return hardtanhImpl(input, min_val, max_val);
}

/** Softmax along `dim`. */
export function softmax<S extends Dims, D extends DType>(
  input: Tensor<S, D>,
  dim: number,
): Tensor<S, FloatOf<D>>;
export function softmax(input: Tensor, dim: number): Tensor {
  ({ input, dim } = args("nn.functional.softmax", arguments));
  return kernelOr(
    [input],
    () => kernels.softmax(input, dim),
    () => temps((k) => k(log_softmax(input, dim)).exp()),
  );
}

/** `softmax(-x)`. */
export function softmin<S extends Dims, D extends DType>(
  input: Tensor<S, D>,
  dim: number,
): Tensor<S, FloatOf<D>>;
export function softmin(input: Tensor, dim: number): Tensor {
  ({ input, dim } = args("nn.functional.softmin", arguments));
  return temps((k) => softmax(k(input.neg()), dim));
}

/** `x - logsumexp(x)` along `dim`, with the max subtracted first. */
export function log_softmax<S extends Dims, D extends DType>(
  input: Tensor<S, D>,
  dim: number,
): Tensor<S, FloatOf<D>>;
export function log_softmax(input: Tensor, dim: number): Tensor {
  ({ input, dim } = args("nn.functional.log_softmax", arguments));
  return kernelOr(
    [input],
    () => kernels.log_softmax(input, dim),
    () =>
      temps((k) => {
        const m = k(no_grad(() => input.detach().amax(dim, true)));
        const shifted = k(input.sub(m));
        return shifted.sub(k(k(k(shifted.exp()).sum(dim, true)).log()));
      }),
  );
}
