/**
 * `torch.optim.lr_scheduler`: the base class (lr_scheduler.ts), the decaying schedules
 * (decay.ts), the cyclic ones (cyclic.ts), and the schedulers of schedulers and
 * ReduceLROnPlateau (compose.ts).
 *
 * @module
 */

export * from "./lr_scheduler.js";
export * from "./decay.js";
export * from "./cyclic.js";
export * from "./compose.js";
