/**
 * `torch.utils`: `data` (datasets and the DataLoader) and `checkpoint` (activation checkpointing).
 *
 * @module
 */

export * as data from "./data/index.js";
export * as checkpoint from "./checkpoint.js";
