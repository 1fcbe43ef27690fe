// GPT-2's architecture (examples/models/gpt2.mjs) against transformers' GPT2LMHeadModel: a small
// config from a fixed-seed PyTorch init (fixtures from scripts/models/gpt2_reference.py) loads by
// PyTorch's names, gives PyTorch's logits within 1e-3 relative, and greedy generation with the
// key/value cache gives PyTorch's tokens; the cache gives the logits of a full recompute; memory
// returns to its baseline after generation and dispose.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";
import { GPT2 } from "../../examples/models/gpt2.mjs";

const torch = await import(PKG_ENTRY.href);
const DIR = new URL("../parity/fixtures/models/gpt2-small/", import.meta.url);
const REF = JSON.parse(readFileSync(new URL("reference.json", DIR)));

/** max |a − e| / max |e| over two flat lists. */
function relError(a, e) {
  let num = 0;
  let den = 0;
  e.forEach((x, i) => {
    num = Math.max(num, Math.abs(a[i] - x));
    den = Math.max(den, Math.abs(x));
  });
  return num / den;
}

const devices = torch.webgpu.is_available() ? ["cpu", "webgpu"] : ["cpu"];
for (const device of devices) {
  describe(`[${device}] GPT-2 (small config, seeded PyTorch init)`, () => {
    // NOTE: no `before` hook: node:test may start the next suite's hook while this suite's last
    // test awaits, switching the default device under it. Each test selects its device.
    let model;

    test("logits of the prompt match PyTorch within 1e-3 relative", async () => {
      await torch.init({ device });
      model = await GPT2.from_pretrained(torch, DIR);
      const logits = model.logits(REF.prompt);
      assert.deepEqual(
        [...logits.shape],
        [1, REF.prompt.length, model.model.config.vocab_size],
      );
      const got = await logits.toArray();
      logits.dispose();
      const err = relError(got, REF.logits.flat());
      assert.ok(err <= 1e-3, `relative error ${err}`);
    });

    test("greedy generation with the KV cache gives PyTorch's tokens", async () => {
      await torch.init({ device });
      await torch.webgpu.sync_device();
      const base = torch.webgpu.memory_stats().active_bytes;
      const seen = [];
      const tokens = await model.generate(REF.prompt, {
        max_new_tokens: REF.generated.length,
        onToken: (id) => seen.push(id),
      });
      assert.deepEqual(tokens, REF.generated);
      assert.deepEqual(seen, tokens);
      await torch.webgpu.sync_device();
      assert.equal(
        torch.webgpu.memory_stats().active_bytes,
        base,
        "the cache is freed",
      );
    });

    test("the last logits through the cache equal a full recompute", async () => {
      await torch.init({ device });
      const ids = [...REF.prompt, ...REF.generated.slice(0, 5)];
      const full = model.logits(ids);
      const fullLast = await full.select(1, -1).toArray();
      full.dispose();
      const cached = torch.scope(() =>
        torch.no_grad(() => {
          const m = model.model;
          const [, past] = m.call(
            torch.tensor([ids.slice(0, -1)], { dtype: "int64" }),
          );
          const [logits] = m.call(
            torch.tensor([ids.slice(-1)], { dtype: "int64" }),
            past,
          );
          return logits.select(1, -1);
        }),
      );
      const got = await cached.toArray();
      cached.dispose();
      assert.ok(relError(got, Array.from(fullLast)) <= 1e-5);
    });

    test("dispose frees every parameter", async () => {
      await torch.init({ device });
      await torch.webgpu.sync_device();
      const before = torch.webgpu.memory_stats().active_bytes;
      const params = model.model.parameters();
      const bytes = params.reduce((s, p) => s + p.numel() * 4, 0);
      model.dispose();
      await torch.webgpu.sync_device();
      assert.equal(
        torch.webgpu.memory_stats().active_bytes,
        before - bytes,
        "the parameters' bytes are released",
      );
      assert.ok(params.every((p) => p.isDisposed));
    });
  });
}
