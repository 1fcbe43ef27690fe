/**
 * The entry `require("webtorch")` gets in Node (≥ 20.19 or 22.12, which `require` ES modules
 * without a top-level `await`): the API of index.ts, with the wasm core loaded synchronously and
 * the CPU backend as the default device; `await torch.init()` then picks WebGPU when there is one.
 *
 * @module
 */

import { initNodeSync } from "./runtime.js";

export * from "./torch.js";

initNodeSync();
