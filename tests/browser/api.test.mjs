// The public API in headless Chromium (Playwright + Debian's Chromium, WebGPU on SwiftShader):
// the page imports the built package through an import map; every check of tests/node/checks/
// runs in the page on WebGPU and again forced to the CPU, then the parity fixtures on both, then
// 20 training steps of an MLP against PyTorch's losses and weights on both, and torch.hub
// loading a PyTorch-made safetensors file through the Cache API, and resuming a cut download.
import test from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { serve } from "../../scripts/serve.mjs";
import { launchChromium, newPage } from "./chromium.mjs";
import { checks } from "../node/checks/index.mjs";
import { rangedFile } from "../node/hub_server.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const hubFile = await readFile(
  `${root}/tests/parity/fixtures/hub/tiny.safetensors`,
);
const hubServer = rangedFile(hubFile);
const server = await serve({
  mounts: { "/pkg/": `${root}/pkg`, "/tests/": `${root}/tests` },
  routes: { "/ranged/": hubServer.handle },
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

test("[browser] torch.hub resumes a cut download from the bytes kept in IndexedDB", async () => {
  const want = JSON.parse(
    await readFile(`${root}/tests/parity/fixtures/hub/tiny.json`, "utf8"),
  );
  const sha = createHash("sha256").update(hubFile).digest("hex");
  const name = `tiny-${sha.slice(0, 12)}.safetensors`;
  hubServer.behave.etag = '"v1"';
  hubServer.behave.cutAt = 5000;
  const r = await page.evaluate(
    (u) => window.webtorchTests.hubResume(u),
    `${server.url}ranged/${name}`,
  );
  assert.ok(r.ok, r.error);
  assert.equal(r.first.torchError, true, JSON.stringify(r.first));
  assert.match(r.first.message, /interrupted after 5000 of \d+ bytes/);
  const asks = hubServer.seen.filter((s) => s.url.endsWith(name));
  assert.deepEqual(
    asks.map((s) => [s.range, s.ifRange]),
    [
      [null, null],
      ["bytes=5000-", '"v1"'],
    ],
    "one whole request, then one range after the kept bytes",
  );
  assert.deepEqual(r.firstReport, [5000, hubFile.length]);
  for (const [k, w] of Object.entries(want))
    assert.deepEqual(r.values[k], w.values, k);
  // The cut answer is a failed load Chromium logs (one line, without the URL); nothing else.
  const cut = page.problems.filter((p) =>
    p.includes("ERR_CONTENT_LENGTH_MISMATCH"),
  );
  assert.equal(cut.length, 1, page.problems.join("\n"));
  page.problems = page.problems.filter((p) => !cut.includes(p));
});

test("no uncaught errors or console errors in the page", () => {
  assert.deepEqual(page.problems, []);
});
