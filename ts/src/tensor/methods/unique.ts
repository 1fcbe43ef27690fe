/**
 * The `Tensor` methods of the ops in ops/unique.ts: declared on `Tensor` and installed on its
 * prototype; the `torch.*` functions stay in ops/unique.ts.
 *
 * @module
 */

import { scope } from "../../lifetime.js";
import { arange, ones, zeros } from "../../ops/creation.js";
import { cat } from "../../ops/indexing.js";
import { where } from "../../ops/conditional.js";
import { Tensor, checkTensor, wrapDim } from "../tensor.js";
import { methodArgs } from "../../schema/index.js";
import "./sorting.js";
import {
  type UniqueConsecutiveOptions,
  type UniqueOptions,
  unique,
  unique_consecutive,
} from "../../ops/unique.js";

declare module "../tensor.js" {
  interface Tensor {
    /** {@link unique} of this tensor (a `Promise`: the size depends on the values). */
    unique(options?: UniqueOptions): Promise<Tensor | Tensor[]>;
    /** {@link unique_consecutive} of this tensor (a `Promise`). */
    unique_consecutive(
      options?: UniqueConsecutiveOptions,
    ): Promise<Tensor | Tensor[]>;
  }
}

/** The distinct rows of `rows` (`[n, m]`), consecutive runs only unless `sortFirst`. */
async function uniqueRows(
  rows: Tensor,
  sortFirst: boolean,
): Promise<{ values: Tensor; inverse: Tensor; counts: Tensor }> {
  const n = rows.shape[0]!;
  const m = rows.shape[1]!;
  const device = rows.device;
  const long = { dtype: "int64", device } as const;
  if (n === 0)
    return {
      values: rows.clone(),
      inverse: zeros(0, long),
      counts: zeros(0, long),
    };
  // On the device: sort (stable, by each column from the last), number the runs.
  const [sorted, perm, first, group, last] = scope(() => {
    let perm = arange(n, long);
    if (sortFirst) {
      const keys =
        rows.dtype === "bool" || rows.dtype === "uint8"
          ? rows.to("int32")
          : rows;
      for (let c = m - 1; c >= 0; c--) {
        const [, p] = keys.select(1, c).index_select(0, perm).sort(0);
        perm = perm.index_select(0, p);
      }
    }
    const sorted = sortFirst ? rows.index_select(0, perm) : rows.clone();
    const first =
      n === 1
        ? ones(1, { dtype: "bool", device })
        : cat([
            ones(1, { dtype: "bool", device }),
            sorted
              .narrow(0, 1, n - 1)
              .ne(sorted.narrow(0, 0, n - 1))
              .any(1),
          ]);
    const group = first.to("int64").cumsum(0).sub(1);
    return [sorted, perm, first, group, group.narrow(0, n - 1, 1)];
  });
  try {
    const k = Number(await last.item()) + 1;
    return scope(() => {
      // Each group's first row: its position scattered to the group's slot (others to a spare).
      const at = where(first, group, k);
      const pos = zeros(k + 1, long)
        .scatter(0, at, arange(n, long))
        .narrow(0, 0, k);
      return {
        values: sorted.index_select(0, pos),
        counts: zeros(k, long).scatter_add(0, group, ones(n, long)),
        inverse: sortFirst
          ? zeros(n, long).scatter(0, perm, group)
          : group.clone(),
      };
    });
  } finally {
    for (const t of [sorted, perm, first, group, last]) t.dispose();
  }
}

export async function uniqueImpl(
  fn: string,
  input: Tensor,
  o: UniqueConsecutiveOptions,
  sortFirst: boolean,
): Promise<Tensor | Tensor[]> {
  const x = checkTensor(fn, "input", input);
  let out: Tensor[];
  if (o.dim === undefined || o.dim === null) {
    const r = await uniqueRows(
      scope(() => x.reshape(-1, 1)),
      sortFirst,
    );
    out = [
      scope(() => r.values.reshape(-1)),
      scope(() => r.inverse.reshape(x.shape)),
      r.counts,
    ];
    r.values.dispose();
    r.inverse.dispose();
  } else {
    const d = wrapDim(o.dim, Math.max(x.ndim, 1));
    const moved = x.ndim === 0 ? x.reshape(1) : x.movedim(d, 0);
    const rest = moved.shape.slice(1);
    const r = await uniqueRows(
      scope(() =>
        moved.reshape(
          moved.shape[0]!,
          rest.reduce((a, b) => a * b, 1),
        ),
      ),
      sortFirst,
    );
    out = [
      scope(() =>
        r.values
          .reshape([r.values.shape[0]!, ...rest])
          .movedim(0, x.ndim === 0 ? 0 : d),
      ),
      r.inverse,
      r.counts,
    ];
    r.values.dispose();
    if (moved !== x) moved.dispose();
  }
  const keep = [true, Boolean(o.return_inverse), Boolean(o.return_counts)];
  out.forEach((t, i) => {
    if (!keep[i]) t.dispose();
  });
  const result = out.filter((_, i) => keep[i]);
  return result.length === 1 ? result[0]! : result;
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;

const proto = Tensor.prototype as unknown as Methods;

proto.unique = function (this: Tensor) {
  const a = methodArgs("unique", this, arguments);
  return uniqueImpl("unique", this, a, true);
};

proto.unique_consecutive = function (this: Tensor) {
  const a = methodArgs("unique_consecutive", this, arguments);
  return uniqueImpl("unique_consecutive", this, a, false);
};
