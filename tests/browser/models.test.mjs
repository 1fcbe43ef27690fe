// The pretrained-model examples in headless Chromium (Playwright, WebGPU on SwiftShader), loaded
// over HTTP as an app loads them: all-MiniLM-L6-v2 embeddings of every reference sentence match
// sentence-transformers within 1e-4 on webtorch's CPU backend (wasm in the page), and the two
// shortest ones on WebGPU (SwiftShader makes the whole set minutes; WEBTORCH_SLOW_TESTS=1 runs
// it); the GPT-2 small config gives PyTorch's logits and greedy tokens on both.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { serve } from "../../scripts/serve.mjs";
import { launchChromium, newPage } from "./chromium.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const REF = JSON.parse(
  readFileSync(`${root}/tests/parity/fixtures/models/minilm.json`),
);
const SIZE = statSync(`${root}/models/all-MiniLM-L6-v2/model.safetensors`).size;
const SHORT = REF.sentences
  .map((_, i) => i)
  .sort((a, b) => REF.input_ids[a].length - REF.input_ids[b].length)
  .slice(0, 2);
const server = await serve({
  mounts: {
    "/pkg/": `${root}/pkg`,
    "/tests/": `${root}/tests`,
    "/examples/": `${root}/examples`,
    "/models/": `${root}/models`,
    "/node_modules/@huggingface/": `${root}/node_modules/@huggingface`,
  },
});
const browser = await launchChromium();
const page = await newPage(browser);

test.after(async () => {
  await browser.close();
  await server.close();
});

test("the page loads the model examples", async () => {
  await page.goto(`${server.url}tests/browser/models/index.html`);
  await page
    .waitForFunction(() => window.modelsReady === true, null, {
      timeout: 60_000,
    })
    .catch((e) => {
      throw new Error(
        `the page did not load: ${page.problems.join("\n") || e.message}`,
      );
    });
});

for (const device of ["cpu", "webgpu"]) {
  const which =
    device === "cpu" || process.env.WEBTORCH_SLOW_TESTS ? null : SHORT;
  test(`[browser ${device}] all-MiniLM-L6-v2: ${which ? which.length : REF.sentences.length} sentences within 1e-4, progress to 100 %`, async () => {
    const r = await page.evaluate(
      ([d, w]) => window.modelTests.minilm(d, w),
      [device, which],
    );
    assert.ok(r.count >= (which ? which.length : 20));
    assert.ok(r.ids, "the tokenizer's ids are Python's");
    assert.ok(r.maxAbs <= 1e-4, `max abs error ${r.maxAbs}`);
    assert.ok(r.progress.length > 1, "progress events");
    assert.deepEqual(r.progress.at(-1), [SIZE, SIZE]);
  });
  test(`[browser ${device}] GPT-2 small: logits within 1e-3, greedy tokens as PyTorch`, async () => {
    const r = await page.evaluate((d) => window.modelTests.gpt2(d), device);
    assert.ok(r.rel <= 1e-3, `relative error ${r.rel}`);
    assert.deepEqual(r.tokens, r.expected);
  });
}

test("no uncaught errors or console errors in the page", () => {
  assert.deepEqual(page.problems, []);
});
