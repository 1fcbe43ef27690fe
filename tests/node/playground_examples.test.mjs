// The model code of the playground's draw-digit and semantic-search examples (the TypeScript its
// editor shows, www/src/examples/) against PyTorch, on the CPU backend:
// - draw-digit's DigitCNN (model.ts) loads the weights scripts/make_playground_cnn.py trained and
//   gives PyTorch's logits and test accuracy (www/assets/digits-cnn.json); its train.ts, the
//   example's "train in this page", brings the loss down;
// - semantic-search's BertModel + mean pooling + tokenizer (bert.ts, embedder.ts) give
//   sentence-transformers' embeddings of the reference sentences
//   (tests/parity/fixtures/models/minilm.json, scripts/models/minilm_reference.py).
import { after, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { parseDigits } from "../../examples/digits.mjs";
import { serve } from "../../scripts/serve.mjs";

const root = new URL("../../", import.meta.url);
const PKG = new URL("pkg/dist/index.js", root).href;
const torch = await import(PKG);
await torch.init({ device: "cpu" });

/**
 * The files `names` of example folder `dir` as the playground runs them: transpiled, "webtorch"
 * this package, "@huggingface/tokenizers" its module, "./x.ts" the sibling. Returns the first's
 * module.
 */
async function importExample(dir, names) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "example-"));
  const tokenizers = new URL(
    "node_modules/@huggingface/tokenizers/dist/tokenizers.mjs",
    root,
  ).href;
  for (const name of names) {
    const src = fs.readFileSync(
      new URL(`www/src/examples/${dir}/${name}`, root),
      "utf8",
    );
    const js = ts
      .transpileModule(src, {
        compilerOptions: {
          target: ts.ScriptTarget.ES2022,
          module: ts.ModuleKind.ESNext,
        },
      })
      .outputText.replace(/from "webtorch"/g, `from ${JSON.stringify(PKG)}`)
      .replace(
        /from "@huggingface\/tokenizers"/g,
        `from ${JSON.stringify(tokenizers)}`,
      )
      .replace(/from "\.\/(\w+)\.ts"/g, 'from "./$1.mjs"');
    fs.writeFileSync(path.join(out, name.replace(/\.ts$/, ".mjs")), js);
  }
  return import(path.join(out, names[0].replace(/\.ts$/, ".mjs")));
}

// The playground's globals the draw-digit files use (www/src/run-worker.js defines them).
const digits = parseDigits(fs.readFileSync(new URL("data/digits.bin", root)));
const split = ({ pixels, labels, n }) => ({
  x: torch.tensor(Float32Array.from(pixels, (p) => p / 16)).reshape([n, 64]),
  y: torch.tensor(Array.from(labels), { dtype: "int64" }),
  n,
});
const printed = [];
Object.assign(globalThis, {
  loadDigits: async () => ({
    train: split(digits.train),
    test: split(digits.test),
  }),
  print: async (...v) => printed.push(v.join(" ")),
  plot: { line() {} },
  progress() {},
});

test("draw-digit model.ts: PyTorch's logits and test accuracy with the shipped weights", async () => {
  const { DigitCNN, accuracy } = await importExample("draw-digit", [
    "model.ts",
  ]);
  const ref = JSON.parse(
    fs.readFileSync(new URL("www/assets/digits-cnn.json", root)),
  );
  const model = new DigitCNN();
  const state = await torch.load(
    new URL("www/assets/digits-cnn.safetensors", root),
  );
  const { missing_keys, unexpected_keys } = model.load_state_dict(state);
  assert.deepEqual([missing_keys, unexpected_keys], [[], []]);
  model.eval();
  const { test: data } = await globalThis.loadDigits();
  const logits = await torch
    .no_grad(() => model.call(data.x.narrow(0, 0, 1).view(1, 1, 8, 8)))
    .flatten()
    .toArray();
  assert.equal(logits.length, 10);
  logits.forEach((v, i) =>
    assert.ok(
      Math.abs(v - ref.first_logits[i]) < 1e-4,
      `logit ${i}: ${v} vs PyTorch ${ref.first_logits[i]}`,
    ),
  );
  assert.equal(Math.round((await accuracy(model, data)) * data.n), ref.correct);
});

test("draw-digit train.ts: 20 steps of the in-page training bring the loss down", async () => {
  const { train } = await importExample("draw-digit", ["train.ts", "model.ts"]);
  const { DigitCNN } = await importExample("draw-digit", ["model.ts"]);
  torch.manual_seed(0);
  const model = new DigitCNN();
  const losses = await train(model, { epochs: 1, steps: 20 });
  assert.equal(losses.length, 20);
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const first = mean(losses.slice(0, 5));
  const last = mean(losses.slice(-5));
  // Cross-entropy starts near ln 10 ≈ 2.30 (chance); 20 Adam steps take it down.
  assert.ok(first > 2, `first steps ${first}`);
  assert.ok(last < first - 0.15, `loss ${first} → ${last}`);
  assert.match(printed.at(-1), /^epoch 1: test accuracy \d+\.\d %$/);
});

let server;
after(() => server?.close());

test("semantic-search embedder.ts + bert.ts: sentence-transformers' embeddings", async () => {
  const REF = JSON.parse(
    fs.readFileSync(new URL("tests/parity/fixtures/models/minilm.json", root)),
  );
  const model = new URL("models/all-MiniLM-L6-v2/", root);
  assert.ok(
    fs.existsSync(new URL("model.safetensors", model)),
    "models/all-MiniLM-L6-v2/ is missing: run `make models`",
  );
  server = await serve({
    mounts: { "/models/": fileURLToPath(new URL("..", model)) },
  });
  const { SentenceEmbedder } = await importExample("semantic-search", [
    "embedder.ts",
    "bert.ts",
  ]);
  const embedder = await SentenceEmbedder.from_pretrained(
    `${server.url}models/all-MiniLM-L6-v2/`,
  );
  // Sentences of 2 to 15 tokens, one padded batch.
  const which = [16, 23, 0, 8];
  const e = embedder.encode(which.map((i) => REF.sentences[i]));
  assert.deepEqual([...e.shape], [which.length, 384]);
  const v = await e.toArray();
  let worst = 0;
  which.forEach((s, r) =>
    REF.embeddings[s].forEach(
      (x, c) => (worst = Math.max(worst, Math.abs(v[r * 384 + c] - x))),
    ),
  );
  assert.ok(worst < 1e-4, `max |webtorch − PyTorch| = ${worst}`);
  embedder.model.dispose();
});
