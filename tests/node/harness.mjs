// Registers the shared API checks (checks/) as node:test tests against the built package.
import test from "node:test";
import { checks } from "./checks/index.mjs";

/** The built package, imported by path (tests/vite-app imports it by name from a tarball). */
export const PKG_ENTRY = new URL("../../pkg/dist/index.js", import.meta.url);

/** One node:test test per check, run on `device`. */
export function registerChecks(torch, device) {
  for (const check of checks) {
    test(`[${device}] ${check.name}`, () =>
      check.run(torch, { device, where: "node" }));
  }
}
