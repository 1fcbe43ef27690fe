// `make playground`'s page in headless Chromium, served exactly as `make playground` serves it
// (scripts/serve.mjs): every example runs (in the page's worker, on WebGPU) and prints what it
// should; the editor's TypeScript underlines a type error, completes and shows TSDoc; a runtime
// error names its line; code round-trips through the URL; the tests page replays PyTorch
// fixtures; without WebGPU a banner shows and the code runs on the CPU backend. Screenshots go to
// test-artifacts/playground/. Examples run with ?quick (fewer training steps).
import test from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { launchChromium, newPage } from "./chromium.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const shots = `${root}test-artifacts/playground/`;
await mkdir(shots, { recursive: true });

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

const { url, child } = await startPlayground();
const browser = await launchChromium();
const page = await newPage(browser);
await page.setViewportSize({ width: 1280, height: 900 });

test.after(async () => {
  await browser.close();
  child.kill();
});

/** Waits until the page is ready (editor, TypeScript worker and webtorch worker loaded). */
async function ready(p) {
  await p
    .waitForFunction(() => document.body.dataset.ready === "true", null, {
      timeout: 120_000,
    })
    .catch((e) => {
      throw new Error(`the page did not load: ${p.problems.join("\n") || e}`);
    });
}

/** Runs the editor's code; resolves to { done, output }. */
async function run(p) {
  await p.evaluate(() => window.playground.run());
  return {
    done: await p.getAttribute("#output", "data-done"),
    output: await p.textContent("#output"),
  };
}

/** Waits until the editor's diagnostics satisfy `pred` (TypeScript lints after a short delay). */
async function diagnosticsWhen(p, pred, what) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const d = await p.evaluate(() => window.playground.diagnostics());
    if (pred(d)) return d;
    if (Date.now() > deadline)
      throw new Error(`${what}: diagnostics ${JSON.stringify(d)}`);
    await p.waitForTimeout(250);
  }
}

const num = (output, re) => {
  const m = output.match(re);
  assert.ok(m, `${re} in:\n${output}`);
  return Number(m[1]);
};

// What each example must print (and draw). Values are PyTorch's or math's, not webtorch's own.
const EXPECT = {
  basics(out) {
    assert.match(
      out,
      /sqrt\(2x \+ 1\) = tensor\(\[\[1\.7321, 2\.2361, 2\.6458\],\s+\[3\.0000, 3\.3166, 3\.6056\]\]\)/,
    );
    assert.match(out, /sum over dim 1: tensor\(\[ 6\., 15\.\]\)/);
    assert.match(out, /mean: tensor\(3\.5000\)/);
    assert.match(
      out,
      /x @ xᵀ = tensor\(\[\[14\., 32\.\],\n {8}\[32\., 77\.\]\]/,
    );
    assert.match(
      out,
      /arange\(6\): tensor\(\[0, 1, 2, 3, 4, 5\]\) dtype int64/,
    );
    assert.ok(Math.abs(num(out, /randn mean ≈ 0: (\S+)/)) < 0.1);
    return { hist: 1 };
  },
  views(out) {
    assert.match(out, /\[3, 1\] \+ \[4\] → \[3,4\]/);
    assert.match(out, /\[ 2\., 12\., 22\., 32\.\]\]\)/);
    assert.match(out, /stride \[4,1\] → \[1,4\] contiguous\? false/);
    assert.match(
      out,
      /narrow\(1, 1, 2\): tensor\(\[\[ 1,  2\],\s+\[ 5,  6\],\s+\[ 9, 10\]\]/,
    );
    assert.match(out, /expand\(2, 3, 4\) shares storage, stride: \[0,4,1\]/);
    assert.match(out, /\[7\., 7\., 7\.\]\]\)/);
    return { image: 1 };
  },
  autograd(out) {
    assert.match(out, /dy\/dx = tensor\(\[ 0\.7500,  3\.0000, 12\.0000\]/);
    assert.ok(Math.abs(num(out, /w ≈ 3: (\S+)/) - 3) < 0.05, out);
    assert.ok(Math.abs(num(out, /b ≈ 0\.5: (\S+)/) - 0.5) < 0.05, out);
    return { line: "mse loss" };
  },
  einsum(out) {
    assert.match(out, /scores\.shape: \[2,4,6\]/);
    assert.match(out, /einsum equals matmul: true/);
    assert.match(out, /trace 'ii->' : tensor\(12\.\)/);
    assert.match(out, /diagonal 'ii->i': tensor\(\[0\., 4\., 8\.\]\)/);
    assert.match(
      out,
      /outer 'i,j->ij': tensor\(\[\[  1,  10, 100\],\s+\[  2,  20, 200\]\]/,
    );
    return { image: 1 };
  },
  "mlp-digits"(out) {
    assert.match(out, /digits: 1437 training \/ 360 test images on webgpu/);
    // A few quick steps: better than chance (10 %), not a trained model.
    assert.ok(num(out, /epoch 1: test accuracy (\S+) %/) > 20, out);
    return { line: "training loss", image: 1 };
  },
  safetensors(out) {
    assert.match(out, /0\.weight\s+\[32,64\] float32/);
    assert.match(out, /"missing_keys":\[\],"unexpected_keys":\[\]/);
    // PyTorch's own accuracy on the same weights and images (www/assets/digits-mlp.json).
    assert.match(out, /in webtorch: 97\.22 % \(350\/360\)/);
    assert.match(out, /in PyTorch:  97\.22 % \(350\/360\)/);
    const ours = out.match(/logits, webtorch: tensor\(\[([^\]]+)\]/)[1];
    const theirs = out.match(/logits, PyTorch: +(.+)/)[1];
    const a = ours.split(",").map(Number);
    const b = theirs.split(",").map(Number);
    assert.equal(a.length, 10);
    a.forEach((v, i) =>
      assert.ok(Math.abs(v - b[i]) < 2e-4, `${v} vs ${b[i]}`),
    );
    return { image: 1, hist: 1 };
  },
  dataloader(out) {
    assert.match(out, /1437 samples → 23 batches of 64 per epoch/);
    // One epoch of 23 Adam steps: far better than chance (10 %).
    assert.ok(num(out, /epoch 1: test accuracy (\S+) %/) > 50, out);
    return { line: "training loss" };
  },
  profiler(out) {
    // PyTorch's table: the ops of a Linear–GELU–Linear step and the user ranges.
    assert.match(out, /Name\s+.*CPU total/);
    assert.match(out, /\bforward\b/);
    assert.match(out, /\blinear\b|\baddmm\b|\bmatmul\b/);
    assert.ok(num(out, /trace: (\d+) events/) > 10, out);
    assert.match(out, /ranges: \["forward","backward"\]/);
    assert.match(out, /download: blob:http/);
  },
  cuda(out) {
    // PyTorch code written for "cuda" runs on WebGPU; the alias is said once, in the output.
    assert.match(out, /device = "cuda": 1 GPU/);
    const notice = /webtorch: "cuda" names the WebGPU device/g;
    assert.equal(out.match(notice)?.length, 1, out);
    assert.ok(out.search(notice) < out.indexOf("device = "), out);
    assert.match(
      out,
      /x\.is_cuda: true, x\.device: webgpu; the model's weights on webgpu/,
    );
    // The sign-agreement task after 10 Adam steps: better than chance (50 %).
    assert.ok(
      num(out, /accuracy after 10 steps: (\S+) % \(on cpu\)/) > 70,
      out,
    );
    return { line: "loss", warning: /"cuda" names the WebGPU device/ };
  },
  benchmark(out) {
    assert.match(out, /matmul 128×128\s+\d+\.\d+ ms/);
    const k = [...out.matchAll(/kernels per chain: (\d+)/g)].map((m) => +m[1]);
    assert.deepEqual(k, [1, 4], "fused: one kernel; unfused: one per op");
  },
};

/** The memory panel's "active" row as a fresh worker shows it (set by the first test). */
let baselineActive = null;
const activeMemory = (p) =>
  p.evaluate(
    () =>
      [...document.querySelectorAll("#panel-memory tr")].find(
        (r) => r.cells[0]?.textContent === "active",
      )?.cells[1].textContent ?? null,
  );

test("the page loads: editor, TypeScript, webtorch on WebGPU, side panels", async () => {
  await page.goto(`${url}?quick&norun`);
  await ready(page);
  assert.match(await page.textContent("#device"), /^webgpu/);
  assert.equal(await page.isVisible("#banner"), false);
  assert.match(await page.textContent("#panel-adapter"), /BrowserWebGpu/);
  const ids = await page.evaluate(() =>
    window.playground.examples.map((e) => e.id),
  );
  assert.deepEqual(ids.sort(), [...RUN, ...CPU_ONLY, ...INTERACTIVE].sort());
  await page.waitForFunction(() => document.querySelector("#panel-memory tr"));
  baselineActive = await activeMemory(page);
  assert.ok(baselineActive, "the memory panel shows active bytes");
});

const RUN = Object.keys(EXPECT);
// Too slow on SwiftShader for this test (minutes): type-checked on the WebGPU page, run in the
// no-WebGPU test below on the CPU backend.
const CPU_ONLY = ["text-generation", "semantic-search"];
// Runs until stopped (it waits for drawings): its own test below.
const INTERACTIVE = ["draw-digit"];

test("example: text-generation shows its model code in editor tabs and type-checks", async () => {
  await page.evaluate(() => window.playground.load("text-generation"));
  const files = await page.evaluate(() => window.playground.getFiles());
  assert.deepEqual(
    files.map((f) => f.name),
    ["main.ts", "model.ts"],
  );
  // The model is in the editor, not imported from a bundle.
  assert.match(files[0].code, /from "\.\/model\.ts"/);
  assert.doesNotMatch(files[0].code, /\/dist\//);
  assert.match(files[1].code, /class CharGPT extends nn\.Module/);
  assert.deepEqual(await page.locator("#tabs .tab").allTextContents(), [
    "main.ts",
    "model.ts",
  ]);
  await page.click("#tabs .tab >> text=model.ts");
  assert.match(
    await page.textContent(".cm-content"),
    /class Block extends nn\.Module/,
  );
  assert.equal(await page.textContent("#tabs .tab.active"), "model.ts");
  assert.deepEqual(
    await page.evaluate(() => window.playground.typeErrors()),
    [],
  );
  await page.screenshot({ path: `${shots}text-generation-tabs.png` });
});

// MiniLM's 91 MB on SwiftShader takes minutes: on the WebGPU page its tabs are type-checked, and
// it runs on the CPU backend (about 10 s) in the no-WebGPU test below; the same checkpoint's
// embeddings are checked against PyTorch by tests/browser/models.test.mjs.
test("example: semantic-search shows its BERT model code in editor tabs and type-checks", async () => {
  await page.evaluate(() => window.playground.load("semantic-search"));
  const files = await page.evaluate(() => window.playground.getFiles());
  assert.deepEqual(
    files.map((f) => f.name),
    ["main.ts", "embedder.ts", "bert.ts"],
  );
  // The model is in the editor, built from webtorch's public API, not imported from a bundle.
  for (const { name, code } of files) {
    assert.doesNotMatch(code, /\/dist\//, name);
    const imports = [...code.matchAll(/from "([^"]+)"/g)].map((m) => m[1]);
    for (const spec of imports)
      assert.match(
        spec,
        /^(webtorch|@huggingface\/tokenizers|\.\/\w+\.ts)$/,
        `${name} imports ${spec}`,
      );
  }
  assert.match(files[0].code, /from "\.\/embedder\.ts"/);
  assert.match(files[1].code, /from "@huggingface\/tokenizers"/);
  assert.match(files[1].code, /export function meanPooling\(/);
  assert.match(files[2].code, /class BertSelfAttention extends nn\.Module/);
  assert.match(files[2].code, /export class BertModel extends nn\.Module/);
  assert.deepEqual(
    await page.evaluate(() => window.playground.typeErrors()),
    [],
  );
  await page.click("#tabs .tab >> text=bert.ts");
  assert.equal(await page.textContent("#tabs .tab.active"), "bert.ts");
  await page.screenshot({ path: `${shots}semantic-search-tabs.png` });
});

for (const id of RUN) {
  test(`example: ${id}`, async () => {
    await page.evaluate((x) => window.playground.load(x), id);
    // Every example type-checks against pkg/'s .d.ts.
    const code = await page.evaluate(() => window.playground.getCode());
    assert.match(code, /^\/\/ .+\nimport \* as torch from "webtorch";/);
    const { done, output } = await run(page);
    assert.equal(done, "true", `${id} failed:\n${output}`);
    const plots = EXPECT[id](output) ?? {};
    if (plots.line) {
      const points = await page.getAttribute(
        `figure[data-chart="${plots.line}"]`,
        "data-points",
      );
      assert.ok(Number(points) >= 2, `${plots.line}: ${points} points`);
    }
    assert.equal(
      await page.locator("figure.plot-image canvas").count(),
      plots.image ?? 0,
    );
    assert.equal(
      await page.locator("figure.plot-hist").count(),
      plots.hist ?? 0,
    );
    if (plots.warning)
      assert.match(await page.textContent("#output .warning"), plots.warning);
    assert.deepEqual(
      await page.evaluate(() => window.playground.typeErrors()),
      [],
      `${id} type-checks`,
    );
    if (id === "mlp-digits") {
      // The progress bar reached the end; the panels updated during the run, not only after it.
      assert.match(await page.textContent("#progress"), /epoch 1\/1 6\/6/);
      const [start, end] = await page.evaluate(() => [
        Number(document.getElementById("panels").dataset.updatesAtStart),
        Number(document.getElementById("panels").dataset.updates),
      ]);
      assert.ok(
        end - start >= 3,
        `panel updates during the run: ${end - start}`,
      );
    }
    // The side panels show this run's statistics and profile.
    assert.match(await page.textContent("#panel-memory"), /live tensors\d/);
    assert.match(await page.textContent("#panel-batching"), /submits\d/);
    // (The profiler example records its own profile: one records at a time.)
    if (id !== "profiler")
      assert.ok((await page.locator("#panel-profiler tbody tr").count()) > 0);
    await page.screenshot({ path: `${shots}${id}.png`, fullPage: true });
  });
}

// (Its train.ts, "train in this page", runs in tests/node/playground_examples.test.mjs on the CPU
// backend: a few training steps on SwiftShader take a minute.)
test("example: draw-digit's CNN in editor tabs classifies drawn digits; Clear empties the pad", async () => {
  await page.evaluate(() => window.playground.load("draw-digit"));
  const files = await page.evaluate(() => window.playground.getFiles());
  assert.deepEqual(
    files.map((f) => f.name),
    ["main.ts", "model.ts", "train.ts"],
  );
  // The CNN, its training loop and the loading of PyTorch's weights are all in the editor.
  assert.match(files[1].code, /class DigitCNN extends nn\.Module/);
  assert.match(files[1].code, /new nn\.Conv2d\(/);
  assert.match(files[2].code, /export async function train\(/);
  assert.match(files[0].code, /\/assets\/digits-cnn\.safetensors/);
  assert.deepEqual(
    await page.evaluate(() => window.playground.typeErrors()),
    [],
  );
  const outputHas = (re) =>
    page.waitForFunction(
      (src) =>
        new RegExp(src).test(document.getElementById("output").textContent),
      re.source,
      { timeout: 60_000 },
    );
  const running = page.evaluate(() => window.playground.run());
  const canvas = page.locator("figure.plot-pad canvas.pad");
  await canvas.waitFor({ timeout: 60_000 });
  await outputHas(/Draw a digit in the pad/);
  // The shipped weights in webtorch classify the test images as they do in PyTorch.
  const acc = (await page.textContent("#output")).match(
    /test accuracy in webtorch: (\S+) %, in PyTorch: (\S+) %/,
  );
  assert.ok(acc, await page.textContent("#output"));
  assert.equal(acc[1], acc[2]);
  assert.ok(Number(acc[1]) > 95, acc[0]);
  const box = await canvas.boundingBox();
  const at = (fx, fy) => [box.x + fx * box.width, box.y + fy * box.height];
  let verdicts = 0;
  /** Draws strokes through the points (fractions of the pad), waiting for each verdict. */
  const draw = async (strokes) => {
    for (const points of strokes) {
      await page.mouse.move(...at(...points[0]));
      await page.mouse.down();
      for (const p of points.slice(1))
        await page.mouse.move(...at(...p), { steps: 3 });
      await page.mouse.up();
      verdicts++;
      await page.waitForFunction(
        (k) =>
          document.getElementById("output").textContent.split("it looks like")
            .length -
            1 >=
          k,
        verdicts,
        { timeout: 60_000 },
      );
    }
  };
  const blank = () =>
    page.evaluate(() => {
      const c = document.querySelector("figure.plot-pad canvas.pad");
      const { data } = c.getContext("2d").getImageData(0, 0, c.width, c.height);
      return data.every((v) => v === 255);
    });
  const bars = page.locator('figure[data-chart="probabilities"]');
  const ring = Array.from({ length: 25 }, (_, i) => {
    const a = (2 * Math.PI * i) / 24;
    return [0.5 + 0.25 * Math.sin(a), 0.5 - 0.38 * Math.cos(a)];
  });
  const DIGITS = {
    0: [ring],
    3: [
      [
        [0.25, 0.15],
        [0.7, 0.15],
        [0.45, 0.45],
        [0.72, 0.62],
        [0.6, 0.85],
        [0.25, 0.85],
      ],
    ],
    4: [
      [
        [0.55, 0.1],
        [0.2, 0.6],
        [0.8, 0.6],
      ],
      [
        [0.6, 0.35],
        [0.6, 0.9],
      ],
    ],
  };
  assert.equal(await blank(), true, "the pad starts blank");
  for (const [digit, strokes] of Object.entries(DIGITS)) {
    await draw(strokes);
    assert.equal(await bars.getAttribute("data-top"), digit);
    const out = await page.textContent("#output");
    assert.match(
      out.slice(out.lastIndexOf("it looks like")),
      new RegExp(`^it looks like a ${digit} \\(\\d+ %\\)`),
    );
    if (digit === "0")
      await page.screenshot({ path: `${shots}draw-digit.png`, fullPage: true });
    // Clear empties the pad for the next digit.
    await page.click("figure.plot-pad button");
    assert.equal(await blank(), true, "Clear empties the pad");
  }
  const probs = JSON.parse(await bars.getAttribute("data-values"));
  assert.equal(probs.length, 10);
  assert.ok(Math.abs(probs.reduce((a, b) => a + b, 0) - 1) < 1e-4);
  await page.click("#stop");
  await running;
  assert.equal(await page.locator("figure.plot-pad").count(), 0);
});

test("switching examples clears the last run's output, plots and progress", async () => {
  await page.evaluate(() => window.playground.load("mlp-digits"));
  const { done } = await run(page);
  assert.equal(done, "true");
  assert.ok((await page.locator("#plots figure").count()) > 0);
  assert.equal(await page.isVisible("#progress"), true);
  await page.evaluate(() => window.playground.load("views"));
  assert.equal(await page.textContent("#output"), "");
  assert.equal(await page.locator("#plots figure").count(), 0);
  assert.equal(await page.isVisible("#progress"), false);
  assert.equal(await page.textContent("#timing"), "");
  // A run of edited code starts from a clean page too.
  await page.evaluate(() => window.playground.load("autograd"));
  await run(page);
  await page.evaluate(() =>
    window.playground.setCode('print("edited");\nexport {};\n'),
  );
  const edited = await run(page);
  assert.equal(edited.output, "edited\n");
  assert.equal(await page.locator("#plots figure").count(), 0);
});

test("Stop frees the worker's GPU memory: the memory panel returns to its baseline", async () => {
  assert.ok(baselineActive);
  await page.evaluate(() =>
    window.playground.setCode(
      [
        'import * as torch from "webtorch";',
        "const kept = Array.from({ length: 8 }, () => torch.ones(1024, 1024));",
        "await torch.webgpu.sync_device();",
        "print(`holding ${kept.length} × 4 MiB`);",
        "for (;;) await new Promise((r) => setTimeout(r, 50));",
      ].join("\n"),
    ),
  );
  const running = page.evaluate(() => window.playground.run());
  await page.waitForFunction(
    () => /holding 8/.test(document.getElementById("output").textContent),
    null,
    { timeout: 60_000 },
  );
  // The panel updates while the code runs: 32 MiB active at least.
  await page.waitForFunction(() => {
    const row = [...document.querySelectorAll("#panel-memory tr")].find(
      (r) => r.cells[0]?.textContent === "active",
    );
    return (
      /MiB/.test(row?.cells[1].textContent ?? "") &&
      parseFloat(row.cells[1].textContent) >= 32
    );
  });
  await page.click("#stop");
  await running;
  assert.equal(await page.getAttribute("#output", "data-done"), "stopped");
  await page.waitForFunction(
    (base) =>
      [...document.querySelectorAll("#panel-memory tr")].find(
        (r) => r.cells[0]?.textContent === "active",
      )?.cells[1].textContent === base,
    baselineActive,
    { timeout: 60_000 },
  );
  assert.equal(await activeMemory(page), baselineActive);
});

test("a type error is underlined as you type, with TypeScript's message", async () => {
  // `.item()` is async: using it as a number without `await` is a type error.
  await page.evaluate(() =>
    window.playground.setCode(
      [
        'import * as torch from "webtorch";',
        "const x = torch.ones(2, 3);",
        "const total: number = x.sum().item();",
        "print(total);",
      ].join("\n"),
    ),
  );
  const d = await diagnosticsWhen(
    page,
    (d) => d.some((x) => x.severity === "error"),
    "type error",
  );
  assert.equal(d.length, 1, JSON.stringify(d));
  assert.equal(d[0].line, 3);
  // The language service agrees (the examples' "no type errors" checks ask it the same way).
  const direct = await page.evaluate(() => window.playground.typeErrors());
  assert.deepEqual(direct, [{ line: 3, message: d[0].message }]);
  assert.match(d[0].message, /Promise<.*>' is not assignable to type 'number'/);
  const underlined = page.locator(".cm-lintRange-error");
  await underlined.first().waitFor();
  assert.equal(await underlined.first().textContent(), "total");
  await page.screenshot({ path: `${shots}type-error.png` });
});

// With shape-level types in pkg/ (Tensor<S, D>, pkg/dist/shapes.d.ts), a shape mismatch is a
// type error too, underlined before the code runs, naming both shapes.
if (existsSync(`${root}pkg/dist/shapes.d.ts`))
  test("a shape error is underlined as you type, naming both shapes", async () => {
    await page.evaluate(() =>
      window.playground.setCode(
        [
          'import * as torch from "webtorch";',
          "const a = torch.zeros(2, 3);",
          "const y = a.matmul(torch.randn(4, 5));",
          "print(y);",
        ].join("\n"),
      ),
    );
    const d = await diagnosticsWhen(
      page,
      (d) => d.some((x) => x.severity === "error"),
      "shape error",
    );
    assert.equal(d[0].line, 3, JSON.stringify(d));
    assert.match(d[0].message, /\[2, 3\].*\[4, 5\]/s);
    await page.locator(".cm-lintRange-error").first().waitFor();
    await page.screenshot({ path: `${shots}shape-error.png` });
  });

test("completion lists webtorch's API; hover shows its TSDoc", async () => {
  await page.evaluate(() =>
    window.playground.setCode(
      'import * as torch from "webtorch";\nconst y = torch.ones(2, 2).matmul(torch.eye(2));\n',
    ),
  );
  // Hovering over `matmul` shows its signature and TSDoc.
  const code = await page.evaluate(() => window.playground.getCode());
  const at = await page.evaluate(
    (i) => window.playground.coordsAt(i),
    code.indexOf("matmul") + 2,
  );
  await page.mouse.move(at.x, at.y);
  await page.mouse.move(at.x + 1, at.y);
  const tip = page.locator(".cm-tooltip-hover");
  await tip.waitFor({ timeout: 30_000 });
  assert.match(await tip.textContent(), /\.matmul\b.*\bother: .*Tensor/s);
  assert.match(await tip.textContent(), /Matrix product with PyTorch's rules/);
  await page.screenshot({ path: `${shots}hover.png` });
  // Completion after `torch.ma` lists webtorch's functions.
  await page.click(".cm-content");
  await page.keyboard.press("Control+End");
  await page.keyboard.type("torch.ma");
  const list = page.locator(".cm-tooltip-autocomplete");
  await list.waitFor({ timeout: 30_000 });
  await page.waitForFunction(() =>
    document
      .querySelector(".cm-tooltip-autocomplete")
      ?.textContent.includes("manual_seed"),
  );
  assert.match(await list.textContent(), /matmul/);
  await page.keyboard.press("Escape");
});

test("a runtime error shows its class, PyTorch's message and the line", async () => {
  await page.evaluate(() =>
    window.playground.setCode(
      [
        'import * as torch from "webtorch";',
        "interface Shapes { a: number[] } // type-only lines vanish from the JS",
        "const a = torch.ones(2, 3);",
        "",
        "const b = a.matmul(torch.ones(4, 5));",
        "print(b);",
      ].join("\n"),
    ),
  );
  const { done, output } = await run(page);
  assert.equal(done, "error");
  assert.match(
    output,
    /ShapeError: .*mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\) \(line 5\)/,
  );
});

test("Stop ends a runaway loop; the next run works", async () => {
  await page.evaluate(() =>
    window.playground.setCode("while (true) {}\nexport {};\n"),
  );
  const running = page.evaluate(() => window.playground.run());
  await page.waitForFunction(() => !document.getElementById("stop").disabled);
  await page.click("#stop");
  await running;
  assert.equal(await page.getAttribute("#output", "data-done"), "stopped");
  await page.evaluate(() =>
    window.playground.setCode(
      'import * as torch from "webtorch";\nprint(torch.arange(4).mul(2));\n',
    ),
  );
  const { done, output } = await run(page);
  assert.equal(done, "true", output);
  assert.match(output, /tensor\(\[0, 2, 4, 6\]\)/);
});

test("Share puts the code in the URL; opening that URL restores it", async () => {
  const code =
    'import * as torch from "webtorch";\n// shared ✓\nprint(torch.full([2], 7));\n';
  await page.evaluate((c) => window.playground.setCode(c), code);
  await page.click("#share");
  await page.waitForFunction(() => location.hash.startsWith("#code="));
  const shared = page.url();
  const other = await newPage(browser);
  await other.goto(shared.replace("norun", "x"));
  await ready(other);
  assert.equal(await other.evaluate(() => window.playground.getCode()), code);
  await other.waitForFunction(
    () => document.getElementById("output").dataset.done,
  );
  assert.match(await other.textContent("#output"), /tensor\(\[7, 7\]\)/);
  assert.deepEqual(other.problems, []);
  await other.close();
});

test("the tests page replays PyTorch's fixtures in the browser", async () => {
  const p = await newPage(browser);
  await p.setViewportSize({ width: 1280, height: 900 });
  await p.goto(`${url}tests.html?filter=^(add|matmul|softmax)/`);
  await p.waitForFunction(() => window.parity?.done, null, {
    timeout: 120_000,
  });
  const r = await p.evaluate(() => window.parity);
  assert.equal(r.device, "webgpu");
  assert.ok(r.count > 40, `cases run: ${r.count}`);
  assert.equal(r.failed, 0, await p.textContent("#summary"));
  assert.equal(r.ops, 3);
  assert.ok(r.grads > 0);
  // Each case shows PyTorch's output next to webtorch's verdict.
  const first = await p.locator("#cases tbody tr").first().textContent();
  assert.match(first, /add\/.*float32.*\[.*\].*✓ matches/);
  assert.equal(await p.locator("#ops tbody tr").count(), 3);
  await p.screenshot({ path: `${shots}tests-page.png` });
  assert.deepEqual(p.problems, []);
  await p.close();
});

test("no uncaught errors or console errors in the playground page", () => {
  assert.deepEqual(page.problems, []);
});

test("without WebGPU: a banner, and the code runs on the CPU backend", async () => {
  const cpuBrowser = await launchChromium({ webgpu: false });
  try {
    const p = await newPage(cpuBrowser);
    await p.setViewportSize({ width: 1280, height: 900 });
    await p.goto(`${url}?quick#example=basics`);
    await ready(p);
    await p.waitForFunction(
      () => document.getElementById("output").dataset.done,
      null,
      { timeout: 60_000 },
    );
    assert.equal(await p.isVisible("#banner"), true);
    assert.match(await p.textContent("#banner"), /WebGPU.*CPU backend/);
    assert.match(await p.textContent("#device"), /cpu/);
    const output = await p.textContent("#output");
    assert.equal(await p.getAttribute("#output", "data-done"), "true", output);
    assert.match(
      output,
      /x @ xᵀ = tensor\(\[\[14\., 32\.\],\n {8}\[32\., 77\.\]\]\)/,
    );
    await p.screenshot({ path: `${shots}no-webgpu.png` });
    assert.deepEqual(p.problems, []);
    // The text-generation example: text that reads as text, and its speed.
    const g = await newPage(cpuBrowser);
    await g.setViewportSize({ width: 1280, height: 900 });
    await g.goto(`${url}?quick#example=text-generation`);
    await ready(g);
    await g.waitForFunction(
      () => document.getElementById("output").dataset.done,
      null,
      { timeout: 300_000 },
    );
    const text = await g.textContent("#output");
    assert.equal(await g.getAttribute("#output", "data-done"), "true", text);
    assert.match(text, /^\d+ parameters on cpu$/m);
    assert.match(text, /^40 tokens in \d+\.\d+ s \(\d+\.\d tokens\/s\)$/m);
    const lines = text.split("\n");
    const from = lines.findIndex((l) => l.endsWith("…")) + 1;
    const to = lines.findIndex((l) => /^\d+ tokens in/.test(l));
    const prompt = lines[from - 1].slice(0, -1);
    const generated = lines.slice(from, to).join("\n").slice(prompt.length);
    assert.ok(generated.length >= 40, JSON.stringify(generated));
    // Mostly printable ASCII, and mostly words of the training text (random weights give neither).
    const printable = [...generated].filter((c) => /[ -~\n]/.test(c)).length;
    assert.ok(printable / generated.length >= 0.95, JSON.stringify(generated));
    const corpus = new Set(
      readFileSync(`${root}data/kjv.txt`, "utf8")
        .toLowerCase()
        .match(/[a-z]+/g),
    );
    const words = generated.toLowerCase().match(/[a-z]+/g) ?? [];
    const known = words.filter((w) => corpus.has(w)).length;
    assert.ok(
      words.length >= 5 && known / words.length >= 0.7,
      `${known}/${words.length} words known: ${JSON.stringify(generated)}`,
    );
    await g.screenshot({ path: `${shots}text-generation.png` });
    assert.deepEqual(g.problems, []);
    {
      // The MiniLM example (its model code in the editor's tabs) runs here, on the CPU backend:
      // it loads the weights with progress and ranks the sentences about eating first.
      assert.ok(
        existsSync(`${root}models/all-MiniLM-L6-v2/model.safetensors`),
        "models/all-MiniLM-L6-v2/ is missing: run `make models`",
      );
      const q = await newPage(cpuBrowser);
      await q.setViewportSize({ width: 1280, height: 900 });
      await q.goto(`${url}?quick#example=semantic-search`);
      await ready(q);
      await q.waitForFunction(
        () => document.getElementById("output").dataset.done,
        null,
        { timeout: 240_000 },
      );
      const out = await q.textContent("#output");
      assert.equal(await q.getAttribute("#output", "data-done"), "true", out);
      assert.match(out, /weights: \d+ bytes \(100 %\)/);
      assert.match(
        out,
        /query: Someone is having a meal\.\s+0\.\d+ +A man is eating food\.\s+0\.\d+ +A man is eating a piece of bread\./,
      );
      await q.screenshot({ path: `${shots}semantic-search-cpu.png` });
    }
  } finally {
    await cpuBrowser.close();
  }
});
