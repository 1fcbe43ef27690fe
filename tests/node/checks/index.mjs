// The public-API checks, shared by the Node tests (tests/node/*.test.mjs) and the Chromium tests
// (tests/browser/, which serves these files to a page). Each check is `run(torch, ctx)` with
// ctx = { device: "webgpu" | "cpu", where: "node" | "browser" } and throws on failure. No Node
// APIs in here: the modules run in the browser as they are.
import { checks as creation } from "./creation.mjs";
import { checks as elementwise } from "./elementwise.mjs";
import { checks as reductions } from "./reductions.mjs";
import { checks as views } from "./views.mjs";
import { checks as runtime } from "./runtime.mjs";
import { checks as webgpu } from "./webgpu.mjs";
import { checks as extend } from "./extend.mjs";
import { checks as badinput } from "./badinput.mjs";
import { checks as fuzzParsers } from "./fuzz_parsers.mjs";
import { checks as limits } from "./limits.mjs";
import { checks as fuzzSizes } from "./fuzz_sizes.mjs";
import { checks as fuzzArgs } from "./fuzz_args.mjs";

/**
 * @typedef {{ name: string, run: (torch: any, ctx: { device: "webgpu" | "cpu", where: "node" | "browser" }) => Promise<void> }} Check
 */

/** @type {Check[]} */
export const checks = [
  ...creation,
  ...elementwise,
  ...reductions,
  ...views,
  ...runtime,
  ...webgpu,
  ...extend,
  ...badinput,
  ...fuzzParsers,
  ...limits,
  ...fuzzSizes,
  ...fuzzArgs,
];
