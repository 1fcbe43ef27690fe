// The playground's text-generation model (www/src/examples/textgen/model.ts, the code its editor
// shows) computes PyTorch's logits with the weights scripts/textgen/train.py trained: the last
// position's logits and every position's argmax against www/assets/textgen/reference.json, which
// that script wrote with PyTorch. CPU backend.
import test from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";

const root = new URL("../../", import.meta.url);
const torch = await import(new URL("pkg/dist/index.js", root));
await torch.init({ device: "cpu" });

/** model.ts as the playground runs it: transpiled, "webtorch" this package. */
async function importModel() {
  const src = fs.readFileSync(
    new URL("www/src/examples/textgen/model.ts", root),
    "utf8",
  );
  const js = ts
    .transpileModule(src, {
      compilerOptions: {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
      },
    })
    .outputText.replace(
      /from "webtorch"/,
      `from ${JSON.stringify(new URL("pkg/dist/index.js", root).href)}`,
    );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "textgen-"));
  const file = path.join(dir, "model.mjs");
  fs.writeFileSync(file, js);
  return import(file);
}

test("textgen model.ts: PyTorch's logits and argmax for the reference prompt", async () => {
  const { CharGPT, codec } = await importModel();
  const assets = new URL("www/assets/textgen/", root);
  const config = JSON.parse(fs.readFileSync(new URL("config.json", assets)));
  const ref = JSON.parse(fs.readFileSync(new URL("reference.json", assets)));
  const model = new CharGPT(config);
  const state = await torch.load(new URL("model.safetensors", assets));
  model.load_state_dict(state);
  model.eval();
  const ids = codec(config.vocab).encode(ref.prompt);
  const logits = torch.no_grad(() =>
    model.call(torch.tensor([ids], { dtype: "int64" })).squeeze(0),
  );
  const last = await logits.select(0, -1).toArray();
  assert.equal(last.length, ref.last_logits.length);
  last.forEach((v, i) =>
    assert.ok(
      Math.abs(v - ref.last_logits[i]) < 1e-3,
      `logit ${i}: ${v} vs PyTorch ${ref.last_logits[i]}`,
    ),
  );
  assert.deepEqual(
    Array.from(await logits.argmax(-1).toArray(), Number),
    ref.argmax,
  );
  const sum = Number(await logits.sum().item());
  assert.ok(
    Math.abs(sum - ref.sum_logits) < 0.05,
    `${sum} vs ${ref.sum_logits}`,
  );
});
