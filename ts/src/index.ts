/**
 * webtorch: PyTorch's API for JavaScript and TypeScript, computed on WebGPU.
 *
 * ```ts
 * import * as torch from "webtorch";
 * const y = torch.randn(2, 3).matmul(torch.ones(3, 4)).relu().sum();
 * console.log(await y.item());
 * ```
 *
 * Importing this module loads the wasm core and picks the device (top-level `await`): WebGPU when
 * an adapter exists, else the CPU backend; `torch.init({ device: "cpu" })` switches. In Node,
 * `require("webtorch")` loads the same API without waiting (require.ts): on the CPU backend until
 * `await torch.init()`.
 *
 * @packageDocumentation
 */

import { init } from "./runtime.js";

export * from "./torch.js";

await init();
