// The public API in headless Chromium (Playwright + Debian's Chromium, WebGPU on SwiftShader):
// the page imports the built package through an import map; every check of tests/node/checks/
// runs in the page on WebGPU and again forced to the CPU, then the parity fixtures on both, then
// 20 training steps of an MLP against PyTorch's losses and weights on both, and torch.hub
// loading a PyTorch-made safetensors file through the Cache API.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { serve } from "../../scripts/serve.mjs";
import { launchChromium, newPage } from "./chromium.mjs";
import { checks } from "../node/checks/index.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const server = await serve({
  mounts: { "/pkg/": `${root}/pkg`, "/tests/": `${root}/tests` },
});
const browser = await launchChromium();
const page = await newPage(browser);
const reports = [];

test.after(async () => {
  await browser.close();
  await server.close();
  await mkdir(`${root}/test-artifacts`, { recursive: true });
  await writeFile(
    `${root}/test-artifacts/parity-browser.md`,
    reports.join("\n"),
  );
});

test("the page loads webtorch on a real WebGPU adapter", async () => {
  await page.goto(`${server.url}tests/browser/index.html`);
  await page
    .waitForFunction(() => window.webtorchReady === true, null, {
      timeout: 60_000,
    })
    .catch((e) => {
      throw new Error(
        `webtorch did not load: ${page.problems.join("\n") || e.message}`,
      );
    });
  const a = await page.evaluate(() => window.webtorchTests.adapter());
  assert.ok(a.hasNavigatorGpu, "navigator.gpu exists");
  assert.ok(a.adapter, "navigator.gpu.requestAdapter() gives an adapter");
  assert.equal(a.defaultDevice, "webgpu");
  assert.equal(a.isAvailable, true);
  assert.ok(
    a.coreAdapter && Array.isArray(a.coreAdapter.features),
    "the core describes its adapter",
  );
  assert.deepEqual(page.problems, []);
});

for (const device of ["webgpu", "cpu"]) {
  test(`[browser ${device}] switch the default device`, async () => {
    assert.equal(
      await page.evaluate((d) => window.webtorchTests.init(d), device),
      device,
    );
  });
  for (const { name } of checks) {
    test(`[browser ${device}] ${name}`, async () => {
      const r = await page.evaluate(
        ([n, d]) => window.webtorchTests.run(n, d),
        [name, device],
      );
      assert.ok(r.ok, r.error);
    });
  }
  test(`[browser ${device}] parity fixtures`, async () => {
    const r = await page.evaluate(
      (d) => window.webtorchTests.parity(d),
      device,
    );
    reports.push(r.report);
    assert.ok(r.count > 100, `fixtures loaded (${r.count})`);
    assert.equal(
      r.failed,
      0,
      `${r.failed}/${r.count} cases failed on ${device}:\n${r.failures.slice(0, 40).join("\n")}`,
    );
  });
}

for (const device of ["webgpu", "cpu"]) {
  test(`[browser ${device}] an MLP trains 20 steps like PyTorch (SGD-momentum, AdamW)`, async () => {
    const r = await page.evaluate((d) => window.webtorchTests.train(d), device);
    assert.ok(r.ok, r.error);
    for (const [name, run] of Object.entries(r.runs)) {
      assert.equal(run.error, null, `${name} on ${device}: ${run.error}`);
      assert.ok(run.losses.at(-1) < run.losses[0], `${name}: the loss falls`);
    }
  });
}

for (const device of ["webgpu", "cpu"]) {
  test(`[browser ${device}] torch.hub: a PyTorch-made state dict through the Cache API`, async () => {
    const want = JSON.parse(
      await readFile(`${root}/tests/parity/fixtures/hub/tiny.json`, "utf8"),
    );
    const size = (
      await stat(`${root}/tests/parity/fixtures/hub/tiny.safetensors`)
    ).size;
    const url = `${server.url}tests/parity/fixtures/hub/tiny.safetensors`;
    const r = await page.evaluate(
      ([u, d]) => window.webtorchTests.hub(u, d),
      [url, device],
    );
    assert.ok(r.ok, r.error);
    const expected = Object.fromEntries(
      Object.entries(want).map(([k, v]) => [k, { ...v, device }]),
    );
    assert.deepEqual(r.first, expected);
    assert.deepEqual(r.second, expected);
    assert.deepEqual(r.fetches, [1, 1], "the second load reads the cache");
    assert.deepEqual(r.lastReport, [size, size]);
  });
}

test("no uncaught errors or console errors in the page", () => {
  assert.deepEqual(page.problems, []);
});
