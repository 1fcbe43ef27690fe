/**
 * Tensor lifetimes: `dispose()`, `using`, {@link scope}, and a
 * `FinalizationRegistry` backstop (the wasm-bindgen glue's, on every core handle) that frees the
 * core handle of a tensor the garbage collector found unreachable. The core frees a storage when its last handle goes and its buffer returns to
 * the pool, so `memory_stats()` comes back to its baseline after a scope.
 *
 * @module
 */

import { args } from "./schema/index.js";
import { noteDisposed, noteMade } from "./webgpu/pressure.js";

/** What the lifetime machinery needs of a tensor (kept structural to avoid an import cycle). */
interface Disposable {
  dispose(): void;
}

// NOTE: no FinalizationRegistry here. The wasm-bindgen glue registers every core handle
// (`RawTensor`) in its own registry, which frees it once the handle is unreachable — and a
// Tensor is its handle's only holder. A second registry on the Tensor cost one registration and
// one unregistration per op (a measurable share of a tiny op's host time, mostly in GC) for
// nothing more.

/** The tensors made inside each open {@link scope}, innermost last. */
const scopes: Set<Disposable>[] = [];

/** Nonzero while a scope disposes what it made (those disposals are not the caller's). */
let closing = 0;

/**
 * Called by the Tensor constructor. A tensor made outside every scope is counted by the
 * memory-pressure warning (webgpu/pressure.ts): only such tensors can be left to the garbage collector.
 */
export function track(t: Disposable): void {
  const s = scopes.at(-1);
  if (s !== undefined) s.add(t);
  else noteMade();
}

/** Called by `Tensor.dispose()`. */
export function untrack(t: Disposable): void {
  const s = scopes.at(-1);
  if (s?.delete(t) !== true && closing === 0) noteDisposed();
}

/**
 * Keeps `t` alive past the {@link scope}s open now (as if they returned it): for state that
 * outlives a step, such as an optimizer's moment buffers.
 */
export function keep<T extends Disposable>(t: T): T {
  // Internal calls pass one value: only other calls go through the parser.
  if (arguments.length !== 1) args("keep", arguments);
  for (const s of scopes) s.delete(t);
  return t;
}

/** Every Tensor reachable from a scope's return value (arrays, plain objects, Maps, Sets). */
function kept(
  value: unknown,
  out: Set<unknown>,
  seen = new Set<unknown>(),
): Set<unknown> {
  if (value === null || typeof value !== "object" || seen.has(value))
    return out;
  seen.add(value);
  if (
    typeof (value as Disposable).dispose === "function" &&
    "_raw" in (value as object)
  ) {
    out.add(value);
    return out;
  }
  const items: unknown[] =
    value instanceof Map
      ? [...value.values()]
      : value instanceof Set || Array.isArray(value)
        ? [...(value as Iterable<unknown>)]
        : Object.values(value as object);
  for (const v of items) kept(v, out, seen);
  return out;
}

function close(made: Set<Disposable>, result: unknown): void {
  const keep = kept(result, new Set());
  const parent = scopes.at(-1);
  let escaped = 0;
  closing++;
  try {
    for (const t of made) {
      if (!keep.has(t)) t.dispose();
      else if (parent !== undefined) parent.add(t);
      else escaped++;
    }
  } finally {
    closing--;
  }
  // What the outermost scope returns is now the caller's to free, as if made outside it.
  if (escaped > 0) noteMade(escaped);
}

/**
 * Runs `fn` and disposes every tensor made inside it except those it returns (found in arrays
 * and plain objects of the result, too). `fn` may be async: `await torch.scope(async () => …)`
 * closes the scope when its promise settles. Scopes nest; what a scope returns belongs to the
 * enclosing one.
 *
 * ```ts
 * const loss = await torch.scope(async () => {
 *   const y = model.call(x);          // intermediates are freed when the scope ends
 *   return y.sub(t).square().mean();  // … except the result
 * });
 * ```
 */
export function scope<T>(fn: () => T): T {
  // Internal calls pass one function: only other calls go through the parser.
  if (arguments.length !== 1 || typeof fn !== "function")
    args("scope", arguments);
  const made = new Set<Disposable>();
  scopes.push(made);
  let result: T;
  try {
    result = fn();
  } catch (e) {
    scopes.pop();
    close(made, undefined);
    throw e;
  }
  if (result instanceof Promise) {
    return result.then(
      (value: unknown) => {
        remove(made);
        close(made, value);
        return value;
      },
      (e: unknown) => {
        remove(made);
        close(made, undefined);
        throw e;
      },
    ) as T;
  }
  scopes.pop();
  close(made, result);
  return result;
}

/** Removes a scope's set from the stack wherever it is (async scopes may close out of order). */
function remove(made: Set<Disposable>): void {
  const i = scopes.lastIndexOf(made);
  if (i >= 0) scopes.splice(i, 1);
}
