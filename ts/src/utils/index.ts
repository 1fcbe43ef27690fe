/**
 * `torch.utils`: `data` (datasets and the DataLoader).
 *
 * @module
 */

export * as data from "./data/index.js";
