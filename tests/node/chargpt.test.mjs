// A tiny character-level transformer (examples/chargpt.mjs) trained 30 AdamW steps on fixed
// batches of data/alice.txt from PyTorch's initial weights gives PyTorch's per-step losses and
// final weights (fixtures from tests/parity/chargpt_gen.py). On the CPU backend only: on
// SwiftShader the softmax/layer_norm row reductions make it minutes (see .notes/train-helper.md);
// WEBTORCH_SLOW_TESTS=1 adds WebGPU.
import { before, describe, test } from "node:test";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";
import { assertClose } from "./close.mjs";
import { charBatch, charGPT } from "../../examples/chargpt.mjs";

const torch = await import(PKG_ENTRY.href);
const dir = new URL("../parity/fixtures/train/", import.meta.url);
const FIX = JSON.parse(readFileSync(new URL("chargpt_train.json", dir)));
const text = readFileSync(
  new URL("../../data/alice.txt", import.meta.url),
  "utf8",
);
const vocab = [...FIX.vocab];
const ids = Uint8Array.from(text, (c) => vocab.indexOf(c));

const devices = ["cpu"];
if (process.env.WEBTORCH_SLOW_TESTS && torch.webgpu.is_available())
  devices.unshift("webgpu");

for (const device of devices) {
  describe(`[${device}] char-level transformer parity with PyTorch`, () => {
    before(async () => {
      await torch.init({ device });
    });

    test("30 AdamW steps: per-step losses and final weights", async () => {
      const model = charGPT(torch, vocab.length);
      model.load_state_dict(
        await torch.load(new URL("chargpt_init.safetensors", dir)),
      );
      const opt = new torch.optim.AdamW(model.parameters(), {
        lr: 3e-3,
        weight_decay: 0.01,
      });
      const losses = [];
      for (const offsets of FIX.offsets) {
        losses.push(
          torch.scope(() => {
            const [x, y] = charBatch(torch, ids, offsets);
            opt.zero_grad();
            const l = torch.nn.functional.cross_entropy(
              model.call(x).reshape(-1, vocab.length),
              y.reshape(-1),
            );
            l.backward();
            return l.detach();
          }),
        );
        opt.step();
      }
      const got = [];
      for (const l of losses) got.push(await l.item());
      assertClose(got, FIX.losses, 1e-4, "losses");
      const sd = model.state_dict();
      for (const [k, v] of Object.entries(FIX.final))
        assertClose(await sd[k].toArray(), v, 1e-4, k);
    });
  });
}
