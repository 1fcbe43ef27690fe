// The digits dataset (data/digits.bin, format in data/README.md) and small training helpers shared
// by the examples and tests/node/train.test.mjs. Works in Node and in the browser: nothing here
// imports a Node module except `loadDigits`, which does so lazily.

/** Parses data/digits.bin → `{ train, test }`, each `{ pixels: Uint8Array (n·64), labels, n }`. */
export function parseDigits(bytes) {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const magic = new TextDecoder().decode(u8.subarray(0, 7));
  if (magic !== "DIGITS8" || u8[7] !== 0)
    throw new Error("digits.bin: bad magic (expected DIGITS8\\0)");
  const dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  const nTrain = dv.getUint32(8, true);
  const nTest = dv.getUint32(12, true);
  const hw = dv.getUint32(16, true) * dv.getUint32(20, true);
  const expected = 24 + (nTrain + nTest) * (hw + 1);
  if (u8.byteLength !== expected)
    throw new Error(`digits.bin: ${u8.byteLength} bytes, expected ${expected}`);
  let off = 24;
  const take = (n) => u8.subarray(off, (off += n));
  const split = (n) => ({ pixels: take(n * hw), labels: take(n), n });
  const train = split(nTrain);
  const test = split(nTest);
  return { train, test };
}

/** Reads data/digits.bin in Node. */
export async function loadDigits(
  url = new URL("../data/digits.bin", import.meta.url),
) {
  const { readFile } = await import("node:fs/promises");
  return parseDigits(await readFile(url));
}

/**
 * The batch of images `idx` (indices into `split`) as tensors: `x` float32 `[b, 64]` (pixels / 16)
 * or `[b, 1, 8, 8]` with `image: true`, and `y` the int64 labels `[b]`.
 */
export function batch(torch, split, idx, { image = false } = {}) {
  const x = new Float32Array(idx.length * 64);
  const y = new Array(idx.length);
  idx.forEach((j, i) => {
    for (let k = 0; k < 64; k++) x[i * 64 + k] = split.pixels[j * 64 + k] / 16;
    y[i] = split.labels[j];
  });
  const shape = image ? [idx.length, 1, 8, 8] : [idx.length, 64];
  return { x: torch.tensor(x).reshape(shape), y: torch.tensor(y) };
}

/**
 * The load runs' trainer (scripts/reliability-load.mjs and tests/node/reliability.test.mjs): the
 * digits MLP 64-128-10 seeded with `torch.manual_seed(0)`, Adam (lr 5e-3), and `step(i)`, which
 * trains on the i-th batch of 32 inside a `torch.scope` and returns the detached loss.
 */
export function mlpTrainer(torch, data) {
  torch.manual_seed(0);
  const model = new torch.nn.Sequential(
    new torch.nn.Linear(64, 128),
    new torch.nn.ReLU(),
    new torch.nn.Linear(128, 10),
  );
  const opt = new torch.optim.Adam(model.parameters(), { lr: 5e-3 });
  const step = (i) =>
    torch.scope(() => {
      const idx = Array.from(
        { length: 32 },
        (_, k) => (i * 32 + k) % data.train.n,
      );
      const { x, y } = batch(torch, data.train, idx);
      opt.zero_grad();
      const loss = torch.nn.functional.cross_entropy(model.forward(x), y);
      loss.backward();
      opt.step();
      return loss.detach();
    });
  return { model, opt, step };
}

/** A seeded shuffle (mulberry32 + Fisher–Yates) of 0..n-1, so runs are reproducible. */
export function shuffled(n, seed) {
  let s = seed >>> 0;
  const rand = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const a = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/** Splits `order` into batches of `size` (the last may be smaller). */
export function chunks(order, size) {
  const out = [];
  for (let i = 0; i < order.length; i += size)
    out.push(order.slice(i, i + size));
  return out;
}

/**
 * One epoch: for each batch, in its own `torch.scope` (so memory stays flat), zero_grad → forward
 * → loss → backward, then step. Returns the mean loss (read back once, at the end of the epoch).
 * `onBatch(i, total)` is called after each step (a progress bar).
 */
export async function trainEpoch(torch, model, opt, split, seed, options = {}) {
  const { batchSize = 32, image = false, onBatch } = options;
  const batches = chunks(shuffled(split.n, seed), batchSize);
  model.train();
  let total = torch.zeros([]);
  for (let i = 0; i < batches.length; i++) {
    total = torch.scope(() => {
      const { x, y } = batch(torch, split, batches[i], { image });
      opt.zero_grad();
      const loss = torch.nn.functional.cross_entropy(model.call(x), y);
      loss.backward();
      const next = total.add(loss.detach().mul(batches[i].length));
      total.dispose();
      return next;
    });
    // Outside the scope: the optimizer state it creates on its first step (Adam's moments, SGD's
    // momentum buffer) must outlive the step, and a scope would dispose it. step() frees its own
    // temporaries; the gradients live in the core, not in the scope.
    opt.step();
    // Reading a value now and then keeps the GPU queue short and the progress bar honest.
    if (onBatch) {
      if (i % 8 === 7 || i === batches.length - 1) await total.item();
      onBatch(i + 1, batches.length);
    }
  }
  const mean = (await total.item()) / split.n;
  total.dispose();
  return mean;
}

/** Accuracy of `model` on `split` (eval mode, no grad), as a fraction. */
export async function accuracy(torch, model, split, { image = false } = {}) {
  model.eval();
  const all = Array.from({ length: split.n }, (_, i) => i);
  let correct = 0;
  for (const idx of chunks(all, 512)) {
    const hits = torch.no_grad(() =>
      torch.scope(() => {
        const { x, y } = batch(torch, split, idx, { image });
        return model.call(x).argmax(1).eq(y).sum();
      }),
    );
    correct += Number(await hits.item());
    hits.dispose();
  }
  return correct / split.n;
}

/**
 * A one-line progress bar: `update(done, total)` redraws it (on a TTY), `finish(text)` ends the line
 * with `text` (on a pipe, only the finished line is printed).
 */
export function progressBar(label, width = 24) {
  const tty = typeof process !== "undefined" && Boolean(process.stdout?.isTTY);
  const start = Date.now();
  let last = [0, 1];
  const line = ([done, total]) => {
    const filled = Math.round((done / total) * width);
    const bar = "█".repeat(filled) + "░".repeat(width - filled);
    const secs = ((Date.now() - start) / 1000).toFixed(1);
    return `${label} ${bar} ${done}/${total} ${secs}s`;
  };
  return {
    update(done, total) {
      last = [done, total];
      if (tty) process.stdout.write(`\r${line(last)}`);
    },
    finish(text = "") {
      const out = `${line(last)} ${text}`;
      if (tty) process.stdout.write(`\r${out}\n`);
      else console.log(out);
    },
  };
}
