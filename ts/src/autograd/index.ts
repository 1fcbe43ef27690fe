/**
 * `torch.autograd`: `grad` and `backward` over the core's tape, the grad-mode scopes
 * (grad_mode.ts), custom differentiable functions (`torch.autograd.Function`, function.ts), and
 * the types of the `Tensor` autograd members (tensor/autograd.ts).
 *
 * @module
 */

import { args, omit } from "../schema/index.js";
import { GradRequest } from "../wasm/webtorch_core.js";
import { TorchError } from "../errors.js";
import { Tensor, checkTensor, wrap } from "../tensor/tensor.js";
import type { BackwardOptions } from "../tensor/autograd.js";

export { Function, FunctionCtx, type FunctionGrads } from "./function.js";
export {
  is_grad_enabled,
  set_grad_enabled,
  no_grad,
  enable_grad,
  inference_mode,
} from "./grad_mode.js";
export type {
  GradFn,
  BackwardOptions,
  RemovableHandle,
  GradHook,
  InPlaceUnaryMethods,
  InPlaceBinaryMethods,
} from "../tensor/autograd.js";

/** Options of {@link grad}. */
export interface GradOptions {
  /** The gradient of each output (required for outputs with more than one element). */
  grad_outputs?: Tensor | readonly (Tensor | null | undefined)[] | null;
  /** Keep the graph for another backward pass. Default: `create_graph`. */
  retain_graph?: boolean;
  /** Record the gradient computation, for higher-order gradients. Default `false`. */
  create_graph?: boolean;
  /** Return `null` for inputs the outputs do not depend on instead of throwing. Default `false`. */
  allow_unused?: boolean;
}

function asList(
  fn: string,
  arg: string,
  value: Tensor | readonly Tensor[],
): Tensor[] {
  const list = value instanceof Tensor ? [value] : Array.from(value);
  list.forEach((t, i) => checkTensor(fn, `${arg}[${i}]`, t));
  return list;
}

/**
 * `torch.autograd.grad(outputs, inputs, …)`: the gradients of `outputs` w.r.t. each of `inputs`
 * (one entry per input; `null` for an unused input with `allow_unused`). Does not touch `.grad`.
 */
export function grad(
  outputs: Tensor | readonly Tensor[],
  inputs: Tensor | readonly Tensor[],
  options?: GradOptions,
): (Tensor | null)[] {
  const a = args("autograd.grad", arguments);
  ({ outputs, inputs } = a);
  options = omit(a, "outputs", "inputs") as GradOptions;
  const outs = asList("grad", "outputs", outputs);
  const ins = asList("grad", "inputs", inputs);
  const gos =
    options.grad_outputs === undefined || options.grad_outputs === null
      ? []
      : options.grad_outputs instanceof Tensor
        ? [options.grad_outputs]
        : Array.from(options.grad_outputs);
  if (gos.length > 0 && gos.length !== outs.length) {
    throw new TorchError(
      `grad requires one grad_output per output: got ${gos.length} grad_outputs and ${outs.length} outputs`,
    );
  }
  const request = new GradRequest();
  try {
    outs.forEach((t, i) => {
      const g = gos[i];
      request.add_output(t._raw, g ? g._raw.handle() : undefined);
    });
    for (const t of ins) request.add_input(t._raw);
    const create = options.create_graph ?? false;
    request.run(
      options.retain_graph ?? create,
      create,
      options.allow_unused ?? false,
    );
    return ins.map((_, i) => {
      const r = request.result(i);
      return r === undefined ? null : wrap(r);
    });
  } finally {
    request.free();
  }
}

/**
 * `torch.autograd.backward(tensors, grad_tensors)`: `backward` of each tensor with its gradient,
 * accumulating into the leaves' `.grad`. The graph is kept between the tensors (they may share
 * it) and released after the last unless `retain_graph`.
 */
export function backward(
  tensors: Tensor | readonly Tensor[],
  grad_tensors?: Tensor | readonly (Tensor | null | undefined)[] | null,
  options?: BackwardOptions,
): void {
  const a = args("autograd.backward", arguments);
  ({ tensors, grad_tensors } = a);
  options = omit(a, "tensors", "grad_tensors") as BackwardOptions;
  const ts = asList("backward", "tensors", tensors);
  const gs =
    grad_tensors === undefined || grad_tensors === null
      ? []
      : grad_tensors instanceof Tensor
        ? [grad_tensors]
        : Array.from(grad_tensors);
  const create = options.create_graph ?? false;
  const retain = options.retain_graph ?? create;
  ts.forEach((t, i) =>
    t.backward(gs[i] ?? null, {
      retain_graph: i < ts.length - 1 ? true : retain,
      create_graph: create,
    }),
  );
}
