/**
 * `torch.optim`: the optimizers and `lr_scheduler`.
 *
 * @module
 */

export {
  Optimizer,
  type ParamGroup,
  type ParamGroupInput,
  type ParamState,
  type OptimizerStateDict,
} from "./optimizer.js";
export * from "./algorithms.js";
export * from "./algorithms_more.js";
export { LBFGS, type LBFGSOptions } from "./lbfgs.js";
export * as lr_scheduler from "./schedulers.js";
