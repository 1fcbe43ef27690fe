// A tiny character-level GPT (2 pre-norm blocks, d=32, 2 heads, context 32) written with nn.Linear,
// nn.LayerNorm, nn.Embedding, matmul, masked_fill and softmax — the same model, op for op, as
// tests/parity/chargpt_gen.py builds in PyTorch. Used by tests/node/chargpt.test.mjs.
//   node examples/chargpt.mjs [--steps N] [--device cpu]   trains it on data/alice.txt
export const D = 32;
export const HEADS = 2;
export const LAYERS = 2;
export const CTX = 32;

export function charGPT(torch, vocabSize) {
  const { nn } = torch;
  const hd = D / HEADS;
  const part = [0, 1, 2].map((i) => torch.tensor([i]));

  class Block extends nn.Module {
    constructor() {
      super();
      this.ln1 = new nn.LayerNorm(D);
      this.qkv = new nn.Linear(D, 3 * D);
      this.proj = new nn.Linear(D, D);
      this.ln2 = new nn.LayerNorm(D);
      this.fc = new nn.Linear(D, 4 * D);
      this.fc2 = new nn.Linear(4 * D, D);
    }
    forward(x, mask) {
      const [b, t] = x.shape;
      // qkv.split(D, 2) as an index_select over a [b, t, 3, D] view
      const qkv = this.qkv.call(this.ln1.call(x)).reshape(b, t, 3, D);
      const head = (i) =>
        qkv.index_select(2, part[i]).reshape(b, t, HEADS, hd).transpose(1, 2);
      const [q, k, v] = [head(0), head(1), head(2)];
      const att = q
        .matmul(k.transpose(2, 3))
        .mul(1 / Math.sqrt(hd))
        .masked_fill(mask, -Infinity)
        .softmax(-1);
      const y = att.matmul(v).transpose(1, 2).reshape(b, t, D);
      const h = x.add(this.proj.call(y));
      return h.add(this.fc2.call(this.fc.call(this.ln2.call(h)).gelu()));
    }
  }

  class CharGPT extends nn.Module {
    constructor() {
      super();
      this.tok = new nn.Embedding(vocabSize, D);
      this.pos = new nn.Embedding(CTX, D);
      this.blocks = new nn.ModuleList(
        Array.from({ length: LAYERS }, () => new Block()),
      );
      this.ln_f = new nn.LayerNorm(D);
      this.head = new nn.Linear(D, vocabSize);
    }
    forward(idx) {
      const t = idx.shape[1];
      const mask = torch.tensor(
        Array.from({ length: t }, (_, i) =>
          Array.from({ length: t }, (_, j) => j > i),
        ),
      );
      let x = this.tok.call(idx).add(this.pos.call(torch.arange(t)));
      for (const blk of this.blocks) x = blk.call(x, mask);
      return this.head.call(this.ln_f.call(x));
    }
  }
  return new CharGPT();
}

/** `[x, y]` int64 tensors `[B, CTX]` of `ids` at `offsets` (y shifted by one). */
export function charBatch(torch, ids, offsets) {
  const rows = (shift) =>
    offsets.map((o) => Array.from(ids.subarray(o + shift, o + shift + CTX)));
  return [torch.tensor(rows(0)), torch.tensor(rows(1))];
}

if (
  typeof process !== "undefined" &&
  import.meta.url ===
    (await import("node:url")).pathToFileURL(process.argv[1]).href
) {
  const torch = await import("../pkg/dist/index.js");
  const { readFileSync } = await import("node:fs");
  const arg = (n, f) => {
    const i = process.argv.indexOf(`--${n}`);
    return i >= 0 ? process.argv[i + 1] : f;
  };
  if (arg("device")) await torch.init({ device: arg("device") });
  const text = readFileSync(
    new URL("../data/alice.txt", import.meta.url),
    "utf8",
  );
  const vocab = [...new Set(text)].sort();
  const ids = Uint8Array.from(text, (c) => vocab.indexOf(c));
  torch.manual_seed(0);
  const model = charGPT(torch, vocab.length);
  const opt = new torch.optim.AdamW(model.parameters(), {
    lr: 3e-3,
    weight_decay: 0.01,
  });
  const steps = Number(arg("steps", 300));
  let seed = 1;
  const rand = (n) => ((seed = (seed * 16807) % 2147483647), seed % n);
  for (let s = 1; s <= steps; s++) {
    const offsets = Array.from({ length: 16 }, () =>
      rand(ids.length - CTX - 1),
    );
    const loss = torch.scope(() => {
      const [x, y] = charBatch(torch, ids, offsets);
      opt.zero_grad();
      const l = torch.nn.functional.cross_entropy(
        model.call(x).reshape(-1, vocab.length),
        y.reshape(-1),
      );
      l.backward();
      return l.detach();
    });
    opt.step();
    if (s % 50 === 0 || s === 1)
      console.log(`step ${s}: loss ${(await loss.item()).toFixed(4)}`);
    loss.dispose();
  }
}
