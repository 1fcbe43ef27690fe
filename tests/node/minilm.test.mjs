// all-MiniLM-L6-v2 end to end (examples/models/bert.mjs): the pretrained checkpoint converted by
// `make models` loads by PyTorch's state-dict names, the tokenizer gives the Python tokenizer's ids,
// and the sentence embeddings match real sentence-transformers (fixtures from
// scripts/models/minilm_reference.py) within 1e-4. Loading reports progress over HTTP, and
// disposing the model returns memory to its baseline.
//
// Every sentence runs on the CPU backend. On WebGPU (SwiftShader here, a CPU emulation of a GPU)
// the encoder is minutes per batch (all 24 sentences passed at 4e-7 in ~11 min, on this 2-core machine under load),
// so CI runs the two shortest there; WEBTORCH_SLOW_TESTS=1 runs them all.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { PKG_ENTRY } from "./harness.mjs";
import { serve } from "../../scripts/serve.mjs";
import { SentenceEmbedder, bertModules } from "../../examples/models/bert.mjs";

const torch = await import(PKG_ENTRY.href);
const MODEL = new URL("../../models/all-MiniLM-L6-v2/", import.meta.url);
const REF = JSON.parse(
  readFileSync(
    new URL("../parity/fixtures/models/minilm.json", import.meta.url),
  ),
);
const SLOW = Boolean(process.env.WEBTORCH_SLOW_TESTS);
const ALL = REF.sentences.map((_, i) => i);
// The two shortest sentences: "" and "a" (one batch).
const SHORT = [...ALL]
  .sort((a, b) => REF.input_ids[a].length - REF.input_ids[b].length)
  .slice(0, 2);

/** Max |webtorch − PyTorch| over the embeddings of sentences `which`. */
async function maxError(model, which, batch_size) {
  const e = model.encode(
    which.map((i) => REF.sentences[i]),
    { batch_size },
  );
  assert.deepEqual([...e.shape], [which.length, 384]);
  const v = await e.toArray();
  e.dispose();
  let worst = 0;
  which.forEach((i, k) =>
    REF.embeddings[i].forEach((x, j) => {
      worst = Math.max(worst, Math.abs(x - v[k * 384 + j]));
    }),
  );
  return worst;
}

test("the tokenizer gives the Python tokenizer's ids on every reference sentence", async () => {
  await torch.init({ device: "cpu" });
  const model = await SentenceEmbedder.from_pretrained(torch, MODEL);
  try {
    assert.ok(REF.sentences.length >= 20);
    REF.sentences.forEach((s, i) =>
      assert.deepEqual(model.tokenize(s), REF.input_ids[i], JSON.stringify(s)),
    );
    // Past max_seq_length the ids are cut to 255 and [SEP], as sentence-transformers cuts.
    const long = model.tokenize("word ".repeat(400));
    assert.equal(long.length, 256);
    assert.deepEqual([long[0], long[255]], [101, 102]);
  } finally {
    model.dispose();
  }
});

const devices = torch.webgpu.is_available() ? ["cpu", "webgpu"] : ["cpu"];
for (const device of devices) {
  describe(`[${device}] all-MiniLM-L6-v2`, () => {
    const which = device === "cpu" || SLOW ? ALL : SHORT;
    test(`embeddings of ${which.length} sentences match sentence-transformers within 1e-4`, async () => {
      await torch.init({ device });
      const model = await SentenceEmbedder.from_pretrained(torch, MODEL);
      // One sentence a batch on the CPU (no padding to compute); batches of 4 on the GPU.
      const err = await maxError(model, which, device === "cpu" ? 1 : 4);
      model.dispose();
      assert.ok(err <= 1e-4, `max abs error ${err}`);
    });
  });
}

describe("loading and releasing", () => {
  let server;
  after(() => server?.close());

  test("from_pretrained over HTTP reports bytes and total as the weights arrive", async () => {
    await torch.init({ device: devices.at(-1) });
    server = await serve({
      mounts: { "/models/": fileURLToPath(new URL("..", MODEL)) },
    });
    const size = statSync(new URL("model.safetensors", MODEL)).size;
    const events = [];
    const model = await SentenceEmbedder.from_pretrained(
      torch,
      `${server.url}models/all-MiniLM-L6-v2/`,
      { onProgress: (loaded, total) => events.push([loaded, total]) },
    );
    model.dispose();
    assert.ok(events.length > 10, `${events.length} progress events`);
    for (let i = 1; i < events.length; i++)
      assert.ok(events[i][0] > events[i - 1][0], "loaded grows");
    assert.ok(events.every(([, total]) => total === size));
    assert.deepEqual(events.at(-1), [size, size]);
  });

  test("dispose returns active memory to its baseline; strict loading names PyTorch's keys", async () => {
    await torch.init({ device: devices.at(-1) });
    await torch.webgpu.sync_device();
    const base = torch.webgpu.memory_stats();
    const model = await SentenceEmbedder.from_pretrained(torch, MODEL);
    const loaded = torch.webgpu.memory_stats().active_bytes - base.active_bytes;
    assert.ok(loaded >= 90e6, `the weights take memory (${loaded} bytes)`);
    const e = model.encode(["a"]);
    e.dispose();
    model.dispose();
    await torch.webgpu.sync_device();
    assert.equal(torch.webgpu.memory_stats().active_bytes, base.active_bytes);

    // A BertModel without its pooler refuses the checkpoint's pooler weights, by name (on the
    // CPU backend: loading 90 MB again onto SwiftShader shows nothing more).
    await torch.init({ device: "cpu" });
    const cpuBase = torch.webgpu.memory_stats().active_bytes;
    const { BertModel } = bertModules(torch);
    const config = JSON.parse(readFileSync(new URL("config.json", MODEL)));
    const bare = new BertModel(config, { add_pooling_layer: false });
    const state = await torch.load(new URL("model.safetensors", MODEL));
    assert.throws(
      () => bare.load_state_dict(state),
      /Unexpected key\(s\) in state_dict: "pooler.dense.bias", "pooler.dense.weight"/,
    );
    for (const t of Object.values(state)) t.dispose();
    bare.dispose();
    assert.equal(torch.webgpu.memory_stats().active_bytes, cpuBase);
  });
});
