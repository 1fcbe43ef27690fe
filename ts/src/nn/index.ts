/**
 * `torch.nn`: modules, layers, losses, `functional`, `init` and `utils`.
 *
 * @module
 */

export {
  Module,
  Parameter,
  type StateDict,
  type IncompatibleKeys,
  type ForwardHook,
  type ForwardPreHook,
  type BackwardHook,
  type BackwardPreHook,
  type StateDictPreHook,
  type StateDictPostHook,
  type LoadStateDictPreHook,
  type LoadStateDictPostHook,
} from "./module.js";
export {
  Sequential,
  ModuleList,
  ModuleDict,
  ParameterList,
  ParameterDict,
} from "./containers.js";
export * from "./layers.js";
export * from "./loss.js";
export * from "./loss_composites.js";
export * from "./distance.js";
export * from "./activations.js";
export * from "./conv.js";
export * from "./pool.js";
export * from "./sampling.js";
export * from "./normalization.js";
export * from "./rnn.js";
export { RNNCell, LSTMCell, GRUCell } from "./rnn_cells.js";
export * from "./attention.js";
export * from "./transformer.js";
export * as functional from "./functional/index.js";
export * as init from "./init.js";
export * as utils from "./utils.js";
