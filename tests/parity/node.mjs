#!/usr/bin/env node
/**
 * Runs the parity fixtures on webtorch in Node and prints the op × backend report.
 *
 *   node tests/parity/node.mjs [--devices cpu,webgpu] [--pkg pkg/dist/index.js] [--filter REGEX]
 *                              [--by-dtype] [--report FILE] [--json FILE] [--verbose]
 *
 * WebGPU in Node comes from the `webgpu` package (Dawn); here it needs
 * VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json. A device that is not available is
 * reported and skipped (and fails the run if it was asked for by name). Exit status 1 when any
 * case fails.
 */

import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

import { formatReport, loadFixtures, runParity } from "./run.mjs";

const { values: opts } = parseArgs({
  options: {
    devices: { type: "string", default: "cpu,webgpu" },
    pkg: { type: "string", default: "pkg/dist/index.js" },
    filter: { type: "string" },
    "by-dtype": { type: "boolean", default: false },
    report: { type: "string" },
    json: { type: "string" },
    verbose: { type: "boolean", short: "v", default: false },
  },
});

const torch = await import(pathToFileURL(resolve(opts.pkg)).href);
const cases = await loadFixtures(new URL("./fixtures/", import.meta.url));
const filter = opts.filter === undefined ? undefined : new RegExp(opts.filter);

const byBackend = {};
let missing = false;
for (const device of opts.devices.split(",")) {
  if (device === "webgpu" && !torch.webgpu.is_available()) {
    console.error(`parity: no WebGPU adapter; skipping the webgpu backend`);
    missing = true;
    continue;
  }
  const t0 = performance.now();
  const onResult = opts.verbose
    ? (r) => console.error(`${device} ${r.ok ? "ok  " : "FAIL"} ${r.name}${r.ok ? "" : `: ${r.detail}`}`)
    : undefined;
  byBackend[device] = await runParity(torch, cases, { device, filter, onResult });
  const { passed, failed } = byBackend[device];
  console.error(`parity: ${device}: ${passed} passed, ${failed} failed (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}

const report = formatReport(byBackend, { byDType: opts["by-dtype"] });
console.log(report);
if (opts.report) await writeFile(opts.report, report);
if (opts.json) await writeFile(opts.json, JSON.stringify(byBackend, null, 1));
const failed = Object.values(byBackend).some((r) => r.failed > 0);
const askedByName = process.argv.some((a) => a.startsWith("--devices"));
process.exit(failed || (missing && askedByName) ? 1 : 0);
