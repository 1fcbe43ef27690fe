// Smoke test of `make playground`: serve www/ + pkg/ exactly as scripts/serve.mjs does for the
// playground, load the page in headless Chromium, and check it ran the example on WebGPU.
import test from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { launchChromium, newPage } from "./chromium.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** Starts `node scripts/serve.mjs` (the playground's own server) on a free port; resolves to its URL. */
function startPlayground() {
  const child = spawn(process.execPath, ["scripts/serve.mjs", "--port", "0"], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const m = out.match(/playground: (http:\/\/\S+)/);
      if (m) resolve({ url: m[1], child });
    });
    child.once("exit", (code) =>
      reject(new Error(`serve.mjs exited (${code}): ${out}`)),
    );
  });
}

test("make playground's page runs the example on WebGPU", async () => {
  const { url, child } = await startPlayground();
  const browser = await launchChromium();
  try {
    const page = await newPage(browser);
    await page.goto(url);
    await page.waitForFunction(
      () => document.getElementById("output")?.dataset.done,
      null,
      { timeout: 60_000 },
    );
    const device = await page.textContent("#device");
    const output = await page.textContent("#output");
    assert.equal(
      await page.getAttribute("#output", "data-done"),
      "true",
      `the example failed:\n${output}`,
    );
    assert.match(device, /Running on webgpu/);
    // relu([[1, 2], [3, 4]] @ [[0.5, -1], [1, 0.25]]) = [[2.5, 0], [5.5, 0]]
    assert.match(
      output,
      /y = relu\(x @ w\) = tensor\(\[\[2\.5000, 0\.0000\],\s+\[5\.5000, 0\.0000\]\], device='webgpu'\)/,
    );
    assert.match(output, /y\.sum\(\) = tensor\(8\.0000, device='webgpu'\)/);
    const m = output.match(/square\(\)\.mean\(\) ≈ 1: (\S+)/);
    assert.ok(
      m && Math.abs(Number(m[1]) - 1) < 0.05,
      `randn moment: ${m?.[1]}`,
    );
    // The Run button works again with edited code.
    await page.fill("#code", "print(torch.arange(4).mul(2))");
    await page.click("#run");
    await page.waitForFunction(() =>
      document
        .getElementById("output")
        .textContent.includes("tensor([0, 2, 4, 6]"),
    );
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
    child.kill();
  }
});

test("without a WebGPU adapter the page falls back to the CPU, says so, and computes", async () => {
  const { url, child } = await startPlayground();
  const browser = await launchChromium({ webgpu: false });
  try {
    const page = await newPage(browser);
    await page.goto(url);
    await page.waitForFunction(
      () => document.getElementById("output")?.dataset.done,
      null,
      {
        timeout: 60_000,
      },
    );
    assert.equal(
      await page.evaluate(
        async () => !!(await navigator.gpu?.requestAdapter()),
      ),
      false,
    );
    assert.match(
      await page.textContent("#device"),
      /No WebGPU adapter: fell back to the cpu backend/,
    );
    const output = await page.textContent("#output");
    assert.equal(
      await page.getAttribute("#output", "data-done"),
      "true",
      `the example failed:\n${output}`,
    );
    assert.match(output, /y\.sum\(\) = tensor\(8\.0000, device='cpu'\)/);
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
    child.kill();
  }
});
