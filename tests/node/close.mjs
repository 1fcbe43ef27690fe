// `assertClose` for the nn/optim/safetensors tests: elementwise |a - e| <= tol · max(1, |e|).
import assert from "node:assert/strict";

export function assertClose(actual, expected, tol = 1e-4, what = "") {
  const a = Array.from(actual);
  const e = Array.from(expected);
  assert.equal(a.length, e.length, `${what}: length`);
  for (let i = 0; i < a.length; i++) {
    const err = Math.abs(a[i] - e[i]);
    assert.ok(
      err <= tol * Math.max(1, Math.abs(e[i])) ||
        (Number.isNaN(a[i]) && Number.isNaN(e[i])),
      `${what}[${i}]: got ${a[i]}, expected ${e[i]}`,
    );
  }
}
