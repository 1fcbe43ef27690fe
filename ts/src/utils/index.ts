/**
 * `torch.utils`: `data` (datasets and the DataLoader) and `progress` (progress bars).
 *
 * @module
 */

export * as data from "./data/index.js";
export {
  progress,
  on_progress,
  ProgressBar,
  type ProgressFile,
  type ProgressOptions,
  type ProgressState,
} from "./progress.js";
