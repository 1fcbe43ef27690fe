// The PyTorch parity fixtures (tests/parity/, written by gen.py from real PyTorch) replayed on the
// built package in Node, on the CPU backend and on WebGPU (Dawn). The op × backend report goes to
// test-artifacts/parity-node.md.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { PKG_ENTRY } from "./harness.mjs";
import { formatReport, loadFixtures, runParity } from "../parity/run.mjs";

const torch = await import(PKG_ENTRY.href);
const cases = await loadFixtures(
  new URL("../parity/fixtures/", import.meta.url),
);
const results = {};

test("every core op-table row has PyTorch parity fixtures", () => {
  const covered = new Set(cases.map((c) => c.op));
  const missing = torch._C.op_names().filter((name) => !covered.has(name));
  assert.deepEqual(missing, [], `op-table rows without a fixture: ${missing}`);
});

for (const device of ["cpu", "webgpu"]) {
  test(`parity fixtures on ${device} (Node)`, async () => {
    if (device === "webgpu")
      assert.ok(
        torch.webgpu.is_available(),
        "WebGPU (Dawn) must be available in Node",
      );
    assert.ok(cases.length > 100, `fixtures loaded (${cases.length})`);
    const r = await runParity(torch, cases, { device });
    results[device] = r;
    const failures = r.results
      .filter((x) => !x.ok)
      .map((x) => `${x.name}: ${x.detail}`);
    assert.equal(
      r.failed,
      0,
      `${r.failed}/${r.results.length} cases failed on ${device}:\n${failures.slice(0, 40).join("\n")}`,
    );
  });
}

test.after(async () => {
  await mkdir(new URL("../../test-artifacts/", import.meta.url), {
    recursive: true,
  });
  await writeFile(
    new URL("../../test-artifacts/parity-node.md", import.meta.url),
    formatReport(results),
  );
});
