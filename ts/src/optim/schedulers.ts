/**
 * `torch.optim.lr_scheduler`: every scheduler, from lr_scheduler.ts (the base class and the
 * classic decays) and lr_scheduler_more.ts (cyclic, warm restarts, sequential, plateau …).
 *
 * @module
 */

export * from "./lr_scheduler.js";
export * from "./lr_scheduler_more.js";
export * from "./lr_scheduler_compose.js";
