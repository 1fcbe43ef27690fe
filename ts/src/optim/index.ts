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
export * from "./sgd.js";
export * from "./adam.js";
export * from "./adaptive.js";
export { LBFGS, type LBFGSOptions } from "./lbfgs.js";
export * as lr_scheduler from "./lr_scheduler/index.js";
