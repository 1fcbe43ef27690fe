// The workloads: what each computes, its size, how to check a result on the host, and how to turn
// milliseconds into a figure (TFLOP/s, GB/s, µs per op). Library adapters (libs.mjs) implement
// each by name.

import { randn } from "./timing.mjs";

const gelu = (x) => 0.5 * x * (1 + erf(x / Math.SQRT2));
// Abramowitz–Stegun 7.1.26 is too coarse for a 1e-4 check; use a series/continued-fraction erf.
function erf(x) {
  const ax = Math.abs(x);
  if (ax < 2.5) {
    let sum = ax, term = ax;
    for (let n = 1; n < 60; n++) {
      term *= (-ax * ax) / n;
      sum += term / (2 * n + 1);
    }
    return Math.sign(x) * (2 / Math.sqrt(Math.PI)) * sum;
  }
  // erfc continued fraction for large |x|.
  let f = 0;
  for (let n = 60; n >= 1; n--) f = n / 2 / (ax + f);
  const erfc = Math.exp(-ax * ax) / Math.sqrt(Math.PI) / (ax + f);
  return Math.sign(x) * (1 - erfc);
}
/** The 6-op chain: relu(tanh(a * b + a) * 0.5 + -0.25). */
export const chain6 = (a, b) => Math.max(Math.tanh(a * b + a) * 0.5 - 0.25, 0);

function matmulRef(M, N, K, a, b) {
  return (i) => {
    const r = Math.floor(i / N), c = i % N;
    let s = 0;
    for (let k = 0; k < K; k++) s += a[r * K + k] * b[k * N + c];
    return s;
  };
}

/** Every workload; `quick` (SwiftShader) keeps the sizes a CPU renderer finishes in minutes. */
export function workloads({ quick }) {
  const list = [];
  const squares = quick ? [128, 256] : [256, 512, 1024, 2048, 4096];
  const shapes = squares.map((n) => [n, n, n]);
  if (!quick) shapes.push([8192, 3072, 768], [8192, 768, 3072]);
  for (const [M, N, K] of shapes) {
    const a = randn(M * K, 1), b = randn(K * N, 2);
    list.push({
      name: M === N && N === K ? `matmul ${M}³` : `matmul ${M}×${N}×${K}`,
      kind: "matmul",
      dims: { M, N, K },
      inputs: [{ data: a, shape: [M, K] }, { data: b, shape: [K, N] }],
      ref: matmulRef(M, N, K, a, b),
      tol: 2e-5 * Math.sqrt(K),
      unit: quick ? "GFLOP/s" : "TFLOP/s",
      figure: (ms) => (2 * M * N * K) / (ms * 1e-3) / (quick ? 1e9 : 1e12),
    });
  }
  const n = quick ? 1 << 20 : 1 << 24;
  const x = randn(n, 3), y = randn(n, 4);
  const big = quick ? "1M" : "16M";
  const gbs = (bytes) => (ms) => bytes / (ms * 1e-3) / 1e9;
  list.push(
    { name: `add ${big}`, kind: "add", inputs: [{ data: x, shape: [n] }, { data: y, shape: [n] }],
      ref: (i) => x[i] + y[i], tol: 1e-6, unit: "GB/s", figure: gbs(12 * n) },
    { name: `gelu ${big}`, kind: "gelu", inputs: [{ data: x, shape: [n] }],
      ref: (i) => gelu(x[i]), tol: 1e-5, unit: "GB/s", figure: gbs(8 * n) },
    { name: `6-op chain ${big}`, kind: "chain6", inputs: [{ data: x, shape: [n] }, { data: y, shape: [n] }],
      ref: (i) => chain6(x[i], y[i]), tol: 1e-5, unit: "GB/s", figure: gbs(12 * n),
      note: "relu(tanh(a*b+a)*0.5-0.25); bytes of the fused ideal (2 reads, 1 write)" },
    { name: `sum ${big}`, kind: "sum", inputs: [{ data: x, shape: [n] }],
      ref: () => x.reduce((s, v) => s + v, 0), scalar: true, tol: 1e-4 * Math.sqrt(n), absTol: true,
      unit: "GB/s", figure: gbs(4 * n) },
  );
  const R = quick ? 512 : 4096, C = quick ? 512 : 4096;
  const s = randn(R * C, 5);
  list.push({
    name: `softmax ${R}×${C} rows`, kind: "softmax", inputs: [{ data: s, shape: [R, C] }],
    ref: (i) => {
      const r = Math.floor(i / C);
      let mx = -Infinity, sum = 0;
      for (let j = 0; j < C; j++) mx = Math.max(mx, s[r * C + j]);
      for (let j = 0; j < C; j++) sum += Math.exp(s[r * C + j] - mx);
      return Math.exp(s[i] - mx) / sum;
    },
    tol: 1e-5, unit: "GB/s", figure: gbs(8 * R * C),
  });
  list.push(...modelWorkloads({ quick }));
  const tiny = randn(64, 6);
  list.push(
    { name: "1,000 chained tiny adds", kind: "tiny_chain", inputs: [{ data: tiny, shape: [64] }],
      ref: (i) => tiny[i] + 1000 * 0.001, tol: 1e-4, unit: "µs/op", figure: (ms) => (ms * 1e3) / 1000,
      note: "x = x + 0.001, 1,000 times on 64 elements, then wait (fusing libraries may merge them; webtorch launches tiny ops in batches, 24 to a dispatch)" },
    { name: "1,000 chained tiny matmuls", kind: "tiny_matmul_chain", inputs: [{ data: tiny, shape: [8, 8] }],
      unit: "µs/op", figure: (ms) => (ms * 1e3) / 1000,
      note: "x = x @ I, 1,000 times on 8×8 (no fusion; webtorch launches tiny ops in batches, 24 to a dispatch)" },
    { name: "tiny op + read-back", kind: "readback", inputs: [{ data: tiny, shape: [64] }],
      ref: (i) => tiny[i] + 1, tol: 1e-6, unit: "µs", figure: (ms) => ms * 1e3,
      note: "x + 1 on 64 elements, then read the result to the host" },
  );
  return list;
}

const scaled = (n, seed, sc) => randn(n, seed).map((v) => v * sc);

/** Host reference of layer_norm over rows of `C` (biased variance), with affine `g`, `b`. */
function layerNormRows(x, C, g, b, eps = 1e-5) {
  const stats = new Map();
  return (i) => {
    const r = Math.floor(i / C);
    if (!stats.has(r)) {
      let m = 0, v = 0;
      for (let j = 0; j < C; j++) m += x[r * C + j];
      m /= C;
      for (let j = 0; j < C; j++) v += (x[r * C + j] - m) ** 2;
      stats.set(r, [m, 1 / Math.sqrt(v / C + eps)]);
    }
    const [m, rs] = stats.get(r);
    const c = i % C;
    return (x[i] - m) * rs * g[c] + b[c];
  };
}

/** y = x Wᵀ + b for one row `x` (length K) and W `(N, K)`. */
function linRow(x, W, b, N, K) {
  const y = new Float64Array(N);
  for (let n = 0; n < N; n++) {
    let s = b ? b[n] : 0;
    for (let k = 0; k < K; k++) s += x[k] * W[n * K + k];
    y[n] = s;
  }
  return y;
}
function lnRow(x, g, b, eps = 1e-5) {
  const C = x.length;
  let m = 0, v = 0;
  for (let j = 0; j < C; j++) m += x[j];
  m /= C;
  for (let j = 0; j < C; j++) v += (x[j] - m) ** 2;
  const rs = 1 / Math.sqrt(v / C + eps);
  return Float64Array.from(x, (xj, j) => (xj - m) * rs * g[j] + b[j]);
}

/**
 * Attention, layer_norm, conv2d, the MLP Adam step and the transformer block. Model workloads
 * carry their weights (`params`, PyTorch's state_dict names and shapes) so that every library
 * computes the same function; their figure is milliseconds per step.
 */
function modelWorkloads({ quick }) {
  const list = [];
  const gbs = (bytes) => (ms) => bytes / (ms * 1e-3) / 1e9;
  const tflops = (flop) => (ms) => flop / (ms * 1e-3) / (quick ? 1e9 : 1e12);
  // Batched attention: softmax(Q Kᵀ / √E) V over (H, L, E).
  {
    const [H, L, E] = quick ? [2, 128, 64] : [12, 1024, 64];
    const q = randn(H * L * E, 11), k = randn(H * L * E, 12), v = randn(H * L * E, 13);
    const rows = new Map();
    list.push({
      name: `attention ${H}×${L}×${E}`, kind: "attention",
      inputs: [{ data: q, shape: [H, L, E] }, { data: k, shape: [H, L, E] }, { data: v, shape: [H, L, E] }],
      ref: (i) => {
        const row = Math.floor(i / E), h = Math.floor(row / L);
        if (!rows.has(row)) {
          const p = new Float64Array(L);
          let mx = -Infinity;
          for (let j = 0; j < L; j++) {
            let s = 0;
            for (let e = 0; e < E; e++) s += q[row * E + e] * k[(h * L + j) * E + e];
            p[j] = s / Math.sqrt(E);
            mx = Math.max(mx, p[j]);
          }
          let sum = 0;
          for (let j = 0; j < L; j++) sum += p[j] = Math.exp(p[j] - mx);
          const o = new Float64Array(E);
          for (let j = 0; j < L; j++) for (let e = 0; e < E; e++) o[e] += (p[j] / sum) * v[(h * L + j) * E + e];
          rows.set(row, o);
        }
        return rows.get(row)[i % E];
      },
      tol: 1e-4, unit: quick ? "GFLOP/s" : "TFLOP/s", figure: tflops(4 * H * L * L * E),
      note: "scores, softmax and P·V (4·H·L²·E flop); no mask",
    });
  }
  // layer_norm over rows, with weight and bias.
  {
    const [R, C] = quick ? [512, 768] : [8192, 768];
    const x = randn(R * C, 14), g = randn(C, 15).map((t) => 1 + 0.1 * t), b = randn(C, 16).map((t) => 0.1 * t);
    list.push({
      name: `layer_norm ${R}×${C} rows`, kind: "layer_norm",
      inputs: [{ data: x, shape: [R, C] }, { data: g, shape: [C] }, { data: b, shape: [C] }],
      ref: layerNormRows(x, C, g, b), tol: 1e-4, unit: "GB/s", figure: gbs(8 * R * C),
      note: "eps 1e-5, affine; bytes: one read and one write of the input",
    });
  }
  // conv2d, ResNet-style 3×3, stride 1, padding 1.
  {
    const [N, C, H, W, O] = quick ? [2, 16, 28, 28, 16] : [32, 64, 56, 56, 64];
    const x = randn(N * C * H * W, 17), wt = scaled(O * C * 9, 18, 1 / Math.sqrt(C * 9));
    list.push({
      name: `conv2d ${N}×${C}×${H}×${W} 3×3→${O}`, kind: "conv2d", dims: { N, C, H, W, O },
      inputs: [{ data: x, shape: [N, C, H, W] }, { data: wt, shape: [O, C, 3, 3] }],
      ref: (i) => {
        const ow = i % W, oh = Math.floor(i / W) % H, o = Math.floor(i / (W * H)) % O, n = Math.floor(i / (W * H * O));
        let s = 0;
        for (let c = 0; c < C; c++)
          for (let dy = 0; dy < 3; dy++)
            for (let dx = 0; dx < 3; dx++) {
              const y = oh + dy - 1, xx = ow + dx - 1;
              if (y < 0 || y >= H || xx < 0 || xx >= W) continue;
              s += x[((n * C + c) * H + y) * W + xx] * wt[((o * C + c) * 3 + dy) * 3 + dx];
            }
        return s;
      },
      tol: 1e-4, unit: quick ? "GFLOP/s" : "TFLOP/s", figure: tflops(2 * N * O * H * W * C * 9),
      note: "stride 1, padding 1, no bias (NCHW)",
    });
  }
  // MLP 784-256-128-10 (ReLU), cross-entropy, one Adam step (lr 1e-3) at batch 1,000.
  {
    const B = quick ? 100 : 1000, dims = [784, 256, 128, 10];
    const x = randn(B * 784, 19);
    const y = Array.from({ length: B }, (_, i) => (i * 7) % 10);
    const params = {};
    for (let l = 0; l < 3; l++) {
      const [i, o] = [dims[l], dims[l + 1]];
      params[`${2 * l}.weight`] = { data: scaled(o * i, 20 + l, 1 / Math.sqrt(i)), shape: [o, i] };
      params[`${2 * l}.bias`] = { data: scaled(o, 30 + l, 0.01), shape: [o] };
    }
    // Host loss of the first step (the weights as given): checks the forward pass.
    const lossRef = () => {
      let total = 0;
      for (let r = 0; r < B; r++) {
        let h = x.subarray(r * 784, (r + 1) * 784);
        for (let l = 0; l < 3; l++) {
          h = linRow(h, params[`${2 * l}.weight`].data, params[`${2 * l}.bias`].data, dims[l + 1], dims[l]);
          if (l < 2) h = h.map((t) => Math.max(t, 0));
        }
        const mx = Math.max(...h);
        const lse = mx + Math.log(h.reduce((s, t) => s + Math.exp(t - mx), 0));
        total += lse - h[y[r]];
      }
      return total / B;
    };
    let cached = null;
    list.push({
      name: `MLP 784-256-128-10 Adam step, batch ${B}`, kind: "mlp_step",
      inputs: [{ data: x, shape: [B, 784] }], labels: y, params,
      ref: () => (cached ??= lossRef()), scalar: true, tol: 1e-4, unit: "ms", figure: (ms) => ms,
      note: "zero_grad, forward, cross_entropy, backward, Adam step (lr 1e-3); check: the first step's loss against a host forward",
    });
  }
  // GPT-2-small-sized pre-norm block (d 768, 12 heads, MLP 3072, GELU, causal), forward + backward.
  {
    const [B, L, D, Hh, F] = quick ? [1, 64, 64, 4, 256] : [8, 1024, 768, 12, 3072];
    const x = randn(B * L * D, 40);
    const p = (name, shape, seed, sc, base = 0) => {
      const n = shape.reduce((a, c) => a * c, 1);
      params[name] = { data: scaled(n, seed, sc).map((t) => t + base), shape };
    };
    const params = {};
    p("self_attn.in_proj_weight", [3 * D, D], 41, 1 / Math.sqrt(D));
    p("self_attn.in_proj_bias", [3 * D], 42, 0.02);
    p("self_attn.out_proj.weight", [D, D], 43, 1 / Math.sqrt(D));
    p("self_attn.out_proj.bias", [D], 44, 0.02);
    p("linear1.weight", [F, D], 45, 1 / Math.sqrt(D));
    p("linear1.bias", [F], 46, 0.02);
    p("linear2.weight", [D, F], 47, 1 / Math.sqrt(F));
    p("linear2.bias", [D], 48, 0.02);
    p("norm1.weight", [D], 49, 0.1, 1);
    p("norm1.bias", [D], 50, 0.1);
    p("norm2.weight", [D], 51, 0.1, 1);
    p("norm2.bias", [D], 52, 0.1);
    // Host forward of batch 0's first tokens (causal: they need only earlier keys).
    const T = Math.min(L, 96), E = D / Hh, P = (k) => params[k].data;
    let kv = null;
    const tokens = new Map();
    const refToken = (t) => {
      if (!kv) {
        kv = [];
        for (let s = 0; s < T; s++) {
          const h = lnRow(x.subarray(s * D, (s + 1) * D), P("norm1.weight"), P("norm1.bias"));
          kv.push(linRow(h, P("self_attn.in_proj_weight"), P("self_attn.in_proj_bias"), 3 * D, D));
        }
      }
      const att = new Float64Array(D);
      for (let hd = 0; hd < Hh; hd++) {
        const sc = new Float64Array(t + 1);
        let mx = -Infinity;
        for (let s = 0; s <= t; s++) {
          let d = 0;
          for (let e = 0; e < E; e++) d += kv[t][hd * E + e] * kv[s][D + hd * E + e];
          sc[s] = d / Math.sqrt(E);
          mx = Math.max(mx, sc[s]);
        }
        let sum = 0;
        for (let s = 0; s <= t; s++) sum += sc[s] = Math.exp(sc[s] - mx);
        for (let s = 0; s <= t; s++) for (let e = 0; e < E; e++) att[hd * E + e] += (sc[s] / sum) * kv[s][2 * D + hd * E + e];
      }
      const o = linRow(att, P("self_attn.out_proj.weight"), P("self_attn.out_proj.bias"), D, D);
      const x1 = Float64Array.from(o, (v, j) => v + x[t * D + j]);
      const h2 = lnRow(x1, P("norm2.weight"), P("norm2.bias"));
      const f = linRow(h2, P("linear1.weight"), P("linear1.bias"), F, D).map(gelu);
      const f2 = linRow(f, P("linear2.weight"), P("linear2.bias"), D, F);
      return Float64Array.from(f2, (v, j) => v + x1[j]);
    };
    const sample = [];
    for (const t of [0, 1, 17, 50, T - 1]) for (let j = 0; j < D; j += Math.max(1, D >> 5)) sample.push(t * D + j);
    const flop = B * L * (2 * 4 * D * D + 2 * 2 * D * F) + 4 * B * L * L * D;
    list.push({
      name: `transformer block fwd+bwd ${B}×${L}×${D}`, kind: "block_step", dims: { B, L, D, H: Hh, F },
      inputs: [{ data: x, shape: [B, L, D] }], params, sample,
      ref: (i) => {
        const t = Math.floor(i / D);
        if (!tokens.has(t)) tokens.set(t, refToken(t));
        return tokens.get(t)[i % D];
      },
      tol: 2e-4, unit: "ms", figure: (ms) => ms,
      note: `pre-norm TransformerEncoderLayer (d ${D}, ${Hh} heads, ff ${F}, GELU, dropout 0, causal float mask and the is_causal hint, as torch_bench.py passes them), loss = mean(out²), backward; no optimizer step; the gradients are held until the wait (lazy libraries compute them); ≈ ${((3 * flop) / 1e9).toFixed(0)} GFLOP per step (3× forward, full attention counted); check: forward output of batch 0's first tokens against a host forward`,
    });
  }
  return list;
}
