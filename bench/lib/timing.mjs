// Timing and checking helpers shared by every library's workloads.
//
// A measurement runs `inner` calls of the workload back to back, then waits for the GPU to finish
// (the library's own completion wait), and divides; `inner` grows until one batch takes at least
// `minBatchMs`, so that the wait's fixed cost is amortised for small ops. After warm-up it
// repeats the batch `reps` times and reports the median (and min/max).

/** Seeded xorshift PRNG filling a Float32Array with N(0, 1) samples (Box–Muller). */
export function randn(n, seed = 1) {
  let s = (seed * 2654435761) >>> 0 || 1;
  const u = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return (s + 0.5) / 4294967296;
  };
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const r = Math.sqrt(-2 * Math.log(u()));
    const t = 2 * Math.PI * u();
    out[i] = r * Math.cos(t);
    if (i + 1 < n) out[i + 1] = r * Math.sin(t);
  }
  return out;
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Median µs of `await f()` over `n` calls, after 20 untimed ones (latency of one call). */
export async function medianUs(f, n = 200) {
  for (let i = 0; i < 20; i++) await f();
  const ts = [];
  for (let r = 0; r < n; r++) {
    const t0 = performance.now();
    await f();
    ts.push((performance.now() - t0) * 1e3);
  }
  return median(ts);
}

/**
 * Ms per call of `n` calls of `step`, their results held until `wait(results)` resolves (as
 * PyTorch's timed loops keep theirs to the synchronize); `free(results)` runs after the clock
 * stops (a `wait` that frees them counts the freeing).
 */
export async function heldBatch(n, step, wait, free = () => {}) {
  const held = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) held.push(step());
  await wait(held);
  const ms = (performance.now() - t0) / n;
  free(held);
  return ms;
}

/**
 * Times `step` (one call; returns a handle to keep until the wait) with `wait(handles)` (resolves
 * when the GPU has finished them, then frees them). Returns ms per call.
 */
export async function timeit(step, wait, { warmup = 2, reps = 7, minBatchMs = 20, maxInner = 512 } = {}) {
  const batch = async (inner) => inner * (await heldBatch(inner, step, wait));
  // Warm up for at least 300 ms too: a GPU that idled while the previous row was checked runs
  // its first batches at low clocks, and a slow step's few warm-up batches did not cover that.
  const w0 = performance.now();
  for (let i = 0; i < warmup || (performance.now() - w0 < 300 && i < 64); i++) await batch(1);
  let inner = 1;
  // The size decision uses a warm batch: a step whose first runs still allocate (a model step)
  // took over minBatchMs there and stayed at one step per wait, paying the GPU's fill and drain
  // every step (the transformer block: ~16 ms per step at one per wait, ~12.7 at ten).
  // The fastest of four warm batches decides: one batch of a 12–15 ms model step that a noisy
  // host stretched past minBatchMs kept the transformer block at one step per wait (runs 11 and
  // 12; in run 14 two such batches in a row did), while PyTorch's CUDA-event timing of the same
  // step grows to three. The figure reported is still the median of `reps` batches at the
  // chosen size.
  await batch(inner);
  let ms = Infinity;
  for (let i = 0; i < 4; i++) ms = Math.min(ms, await batch(inner));
  // A batch at a new size may first allocate its held results (slow: fresh GPU buffers), which
  // would stop the growth early; so after growing, time the same size again, warm, and grow on.
  for (let round = 0; round < 4; round++) {
    let grown = false;
    while (ms < minBatchMs && inner < maxInner) {
      inner = Math.min(maxInner, inner * Math.max(2, Math.ceil(minBatchMs / Math.max(ms, 0.01))));
      ms = await batch(inner);
      grown = true;
    }
    if (!grown) break;
    ms = Math.min(await batch(inner), await batch(inner));
  }
  const per = [];
  for (let r = 0; r < reps; r++) per.push((await batch(inner)) / inner);
  return { ms: median(per), min: Math.min(...per), max: Math.max(...per), inner, reps };
}

/** Max relative error of `got` against `want` at the given indices (scale: max |want| seen). */
export function maxRelErr(got, want, idx) {
  let scale = 1e-30;
  for (const i of idx) scale = Math.max(scale, Math.abs(want[i]));
  let err = 0;
  for (const i of idx) {
    const g = got[i];
    if (!Number.isFinite(g) && g !== want[i]) return Infinity;
    err = Math.max(err, Math.abs(g - want[i]) / scale);
  }
  return err;
}

/** `count` spread indices into [0, n). */
export function sampleIdx(n, count = 64) {
  const idx = [];
  for (let i = 0; i < count; i++) idx.push(Math.floor(((i + 0.5) / count) * n) % n);
  idx.push(0, n - 1);
  return idx;
}

/**
 * Keeps the GPU busy with webtorch matmuls for `ms` before anything is timed: a GPU idle at the
 * start of a process runs its first second or so at lower clocks (H100: the first variant timed
 * in a fresh process ran conv2d's product at 5.6 TFLOP/s, 28 once warm).
 */
export async function warmGpu(torch, ms = 1500, quick = false) {
  const n = quick ? 128 : 2048;
  const a = torch.randn([n, n]);
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    const held = [];
    for (let i = 0; i < 8; i++) held.push(a.matmul(a));
    await torch.webgpu.sync_device();
    for (const h of held) h.dispose();
  }
  a.dispose();
}

/**
 * Host cost of `n` chained calls `x = f(x)` from `x0`, each intermediate freed as the chain moves
 * on (bench/hostprobe.mjs, historyprobe.mjs): medians over `reps` rounds after one untimed round,
 * in µs per op, of the recording alone (`record_us`) and with the wait for the GPU (`wait_us`).
 */
export async function chainCost(torch, x0, f, { n = 1000, reps = 15 } = {}) {
  const once = () => {
    let x = x0;
    for (let i = 0; i < n; i++) {
      const y = f(x);
      if (x !== x0) x.dispose();
      x = y;
    }
    return x;
  };
  once().dispose();
  await torch.webgpu.sync_device();
  const rec = [];
  const tot = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    const x = once();
    const t1 = performance.now();
    await torch.webgpu.sync_device();
    const t2 = performance.now();
    x.dispose();
    rec.push(((t1 - t0) * 1e3) / n);
    tot.push(((t2 - t0) * 1e3) / n);
  }
  return { record_us: median(rec), wait_us: median(tot) };
}

