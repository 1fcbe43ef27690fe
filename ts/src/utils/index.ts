/**
 * `torch.utils`: `data` (datasets and the DataLoader), `checkpoint` (activation checkpointing) and
 * `progress` (progress bars).
 *
 * @module
 */

export * as data from "./data/index.js";
export * as checkpoint from "./checkpoint.js";
export {
  progress,
  on_progress,
  ProgressBar,
  type ProgressFile,
  type ProgressOptions,
  type ProgressState,
} from "./progress.js";
