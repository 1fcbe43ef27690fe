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
  const tiny = randn(64, 6);
  list.push(
    { name: "1,000 chained tiny adds", kind: "tiny_chain", inputs: [{ data: tiny, shape: [64] }],
      ref: (i) => tiny[i] + 1000 * 0.001, tol: 1e-4, unit: "µs/op", figure: (ms) => (ms * 1e3) / 1000,
      note: "x = x + 0.001, 1,000 times on 64 elements, then wait (fusing libraries may merge them)" },
    { name: "1,000 chained tiny matmuls", kind: "tiny_matmul_chain", inputs: [{ data: tiny, shape: [8, 8] }],
      unit: "µs/op", figure: (ms) => (ms * 1e3) / 1000,
      note: "x = x @ I, 1,000 times on 8×8 (one dispatch each: no fusion)" },
    { name: "tiny op + read-back", kind: "readback", inputs: [{ data: tiny, shape: [64] }],
      ref: (i) => tiny[i] + 1, tol: 1e-6, unit: "µs", figure: (ms) => ms * 1e3,
      note: "x + 1 on 64 elements, then read the result to the host" },
  );
  return list;
}
