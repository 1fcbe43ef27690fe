// Shared helpers of inplace_methods.test.mjs and index_names.test.mjs: build a fixture's inputs
// and compare a result with PyTorch's (tests/parity/inplace_gen.py).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

const NON_FINITE = { nan: NaN, inf: Infinity, "-inf": -Infinity };

/** A fixture of tests/parity/fixtures/, its "nan"/"inf"/"-inf" strings turned into numbers. */
export function readFixture(name) {
  return JSON.parse(
    readFileSync(new URL(`../parity/fixtures/${name}`, import.meta.url)),
    (_, v) => (typeof v === "string" && v in NON_FINITE ? NON_FINITE[v] : v),
  );
}

/** A fixture value: `{ t, dtype }` becomes a tensor, anything else stays as it is. */
export function build(torch, v) {
  if (v !== null && typeof v === "object" && "t" in v)
    return torch.tensor(v.t, { dtype: v.dtype });
  return v;
}

function close(got, want, path) {
  if (Array.isArray(want)) {
    assert.equal(got.length, want.length, `${path}: length`);
    want.forEach((w, i) => close(got[i], w, `${path}[${i}]`));
    return;
  }
  if (typeof want === "number" && Number.isNaN(want))
    return assert.ok(Number.isNaN(got), `${path}: ${got} is not NaN`);
  if (
    typeof want !== "number" ||
    !Number.isFinite(want) ||
    (Number.isInteger(want) && Number.isInteger(got))
  )
    return assert.equal(got, want, path);
  const tol = 1e-5 * Math.max(1, Math.abs(want));
  assert.ok(Math.abs(got - want) <= tol, `${path}: ${got} vs ${want}`);
}

/** Compares a tensor with a fixture `{ t, dtype }`: dtype, then values (float tolerance 1e-5). */
export async function expectTensor(tensor, want, what) {
  assert.equal(tensor.dtype, want.dtype, `${what}: dtype`);
  close(await tensor.tolist(), want.t, what);
}
