// A small assert library for the API checks: they run in Node and in a browser page, which has no
// node:assert.

export class CheckFailure extends Error {
  name = "CheckFailure";
}

export const show = (v) =>
  JSON.stringify(v, (_k, x) =>
    typeof x === "number" && !Number.isFinite(x)
      ? String(x)
      : ArrayBuffer.isView(x)
        ? Array.from(x)
        : x,
  );

function sameValue(a, b) {
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

/** Deep equality of nested arrays / typed arrays / scalars (NaN equals NaN, no tolerance). */
export function eq(actual, expected, what = "value") {
  const walk = (a, b) => {
    if (ArrayBuffer.isView(a)) a = Array.from(a);
    if (ArrayBuffer.isView(b)) b = Array.from(b);
    if (Array.isArray(a) || Array.isArray(b)) {
      return (
        Array.isArray(a) &&
        Array.isArray(b) &&
        a.length === b.length &&
        a.every((x, i) => walk(x, b[i]))
      );
    }
    return sameValue(a, b);
  };
  if (!walk(actual, expected))
    throw new CheckFailure(
      `${what}: expected ${show(expected)}, got ${show(actual)}`,
    );
}

/** Nested numeric closeness: |a - b| <= atol + rtol * |b| (NaN matches NaN, ±inf match exactly). */
export function close(
  actual,
  expected,
  { atol = 1e-5, rtol = 1e-5, what = "value" } = {},
) {
  const walk = (a, b) => {
    if (ArrayBuffer.isView(a)) a = Array.from(a);
    if (ArrayBuffer.isView(b)) b = Array.from(b);
    if (Array.isArray(a) || Array.isArray(b)) {
      return (
        Array.isArray(a) &&
        Array.isArray(b) &&
        a.length === b.length &&
        a.every((x, i) => walk(x, b[i]))
      );
    }
    if (typeof a !== "number" || typeof b !== "number") return false;
    if (!Number.isFinite(b)) return sameValue(a, b);
    return Math.abs(a - b) <= atol + rtol * Math.abs(b);
  };
  if (!walk(actual, expected))
    throw new CheckFailure(
      `${what}: expected ≈${show(expected)}, got ${show(actual)}`,
    );
}

export function ok(cond, what) {
  if (!cond) throw new CheckFailure(what);
}

function checkError(err, Class, message, what) {
  if (!(err instanceof Class)) {
    throw new CheckFailure(
      `${what}: expected ${Class.name}, got ${err?.name ?? typeof err}: ${err?.message ?? err}`,
    );
  }
  if (message !== undefined && !String(err.message).includes(message)) {
    throw new CheckFailure(
      `${what}: expected message containing ${show(message)}, got ${show(err.message)}`,
    );
  }
  return err;
}

/** `fn()` must throw an instance of `Class` whose message contains `message`. */
export function throws(fn, Class, message, what = "call") {
  try {
    fn();
  } catch (err) {
    return checkError(err, Class, message, what);
  }
  throw new CheckFailure(
    `${what}: expected ${Class.name} to be thrown, but it returned`,
  );
}

/** `await fn()` must reject with an instance of `Class` whose message contains `message`. */
export async function rejects(fn, Class, message, what = "call") {
  try {
    await fn();
  } catch (err) {
    return checkError(err, Class, message, what);
  }
  throw new CheckFailure(
    `${what}: expected ${Class.name} to be thrown, but it resolved`,
  );
}

/** Shape, dtype and values of a tensor in one go. */
export async function tensorIs(
  t,
  { shape, dtype, values, atol, rtol },
  what = "tensor",
) {
  if (shape !== undefined) eq(t.shape, shape, `${what}.shape`);
  if (dtype !== undefined) eq(t.dtype, dtype, `${what}.dtype`);
  if (values !== undefined) {
    const got = await t.tolist();
    if (atol !== undefined || rtol !== undefined)
      close(got, values, { atol, rtol, what: `${what} values` });
    else eq(got, values, `${what} values`);
  }
}
