/**
 * The `Tensor` methods of the ops in ops/joins.ts: declared on `Tensor` and installed on its
 * prototype; the `torch.*` functions stay in ops/joins.ts.
 *
 * @module
 */

import { type Shape, checkInts, plainInts, sizeList } from "../../args.js";
import { methodArgs } from "../../schema/index.js";
import { DTypeError, TorchError } from "../../errors.js";
import { scalarTypeName } from "../../dtype.js";
import { searchsorted } from "../../ops/searching.js";
import { scope } from "../../lifetime.js";
import { Tensor, wrapDim } from "../tensor.js";
import { arange } from "../../ops/creation.js";

declare module "../tensor.js" {
  interface Tensor {
    /**
     * The tensor repeated `repeats[i]` times along each dim (`repeats` may have more entries
     * than dims: new leading dims). `t.repeat(2, 3)` or `t.repeat([2, 3])`.
     */
    repeat(...repeats: number[]): Tensor;
    repeat(repeats: Shape): Tensor;
    /** `repeat` with `dims` padded with leading 1s to the tensor's rank (NumPy's `tile`). */
    tile(...dims: number[]): Tensor;
    tile(dims: Shape): Tensor;
    /** Each element repeated `repeats` times along `dim` (the flattened tensor without one). */
    repeat_interleave(repeats: number, dim?: number | null): Tensor;
    /**
     * Element `i` repeated `repeats[i]` times (a tensor of repeats; none: this tensor is the
     * repeats of the indices). The length depends on the values: a `Promise`.
     */
    repeat_interleave(
      repeats?: Tensor | null,
      dim?: number | null,
    ): Promise<Tensor>;
  }
}

function repeatImpl(t: Tensor, sizes: number[]): Tensor {
  if (sizes.length < t.ndim)
    throw new TorchError(
      "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor",
    );
  if (sizes.some((s) => s < 0))
    throw new TorchError(
      `Trying to create tensor with negative dimension ${sizes.find((s) => s < 0)}: [${sizes.join(", ")}]`,
    );
  const lead = sizes.length - t.ndim;
  const padded = [...new Array<number>(lead).fill(1), ...t.shape];
  // [d0, d1, …] viewed as [1, d0, 1, d1, …], expanded to [r0, d0, r1, d1, …], then merged.
  return scope(() =>
    t
      .reshape(padded.flatMap((d) => [1, d]))
      .expand(padded.flatMap((d, i) => [sizes[i]!, d]))
      .reshape(padded.map((d, i) => d * sizes[i]!)),
  );
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;

const proto = Tensor.prototype as unknown as Methods;

proto.repeat = function (this: Tensor, ...repeats: (number | Shape)[]) {
  if (!plainInts(repeats))
    repeats = sizeList(
      "repeat",
      methodArgs("repeat", this, arguments).repeats,
      "repeats",
    );
  return repeatImpl(this, checkInts("repeat", "repeats", repeats));
};

proto.tile = function (this: Tensor, ...dims: (number | Shape)[]) {
  const ds = sizeList("tile", methodArgs("tile", this, arguments).dims, "dims");
  const padded = [
    ...new Array<number>(Math.max(0, this.ndim - ds.length)).fill(1),
    ...ds,
  ];
  return repeatImpl(this, padded);
};

proto.repeat_interleave = function (
  this: Tensor,
  repeats?: number | Tensor | null,
  dim?: number | null,
) {
  ({ repeats, dim } = methodArgs("repeat_interleave", this, arguments));
  if (repeats === null || repeats === undefined)
    return repeatByTensor(null, this, null);
  if (repeats instanceof Tensor) return repeatByTensor(this, repeats, dim);
  const r = checkInts("repeat_interleave", "repeats", [repeats])[0]!;
  if (r < 0) throw new TorchError("Repeats must be non-negative");
  return scope(() => {
    const src = dim === undefined || dim === null ? this.reshape(-1) : this;
    const d = wrapDim(dim ?? 0, Math.max(src.ndim, 1));
    if (src.ndim === 0) return src.reshape(1).expand(r).contiguous();
    // [.., n, ..] → [.., n, 1, ..] → [.., n, r, ..] → [.., n * r, ..]
    const shape = [...src.shape];
    const expanded = [...shape.slice(0, d + 1), r, ...shape.slice(d + 1)];
    return src
      .unsqueeze(d + 1)
      .expand(expanded)
      .reshape([...shape.slice(0, d), shape[d]! * r, ...shape.slice(d + 1)]);
  });
};

/**
 * `x` with element `i` along `dim` (of the flattened `x` without one) repeated `repeats[i]` times;
 * `x` null: the indices `0 … n-1` repeated so (the one-argument form). Reads the total and checks
 * the signs on the host, then gathers with `index_select` (which carries the gradient).
 */
function repeatByTensor(
  x: Tensor | null,
  repeats: Tensor,
  dim: number | null | undefined,
): Promise<Tensor> {
  if (repeats.dtype !== "int64" && repeats.dtype !== "int32")
    throw new DTypeError(
      `"repeat_interleave_cpu" not implemented for '${scalarTypeName(repeats.dtype)}'`,
    );
  if (x === null && repeats.ndim !== 1)
    throw new TorchError("repeat_interleave only accept 1D vector as repeat");
  if (repeats.ndim > 1)
    throw new TorchError("repeats must be 0-dim or 1-dim tensor");
  const src =
    x === null ? null : dim === null || dim === undefined ? x.reshape(-1) : x;
  const d = src === null ? 0 : wrapDim(dim ?? 0, Math.max(src.ndim, 1));
  const n = src === null ? repeats.numel() : src.ndim === 0 ? 1 : src.shape[d]!;
  if (repeats.numel() !== n && !(repeats.numel() === 1 && src !== null))
    throw new TorchError(
      `repeats must have the same size as input along dim, but got repeats.size(0) = ${repeats.numel()} and input.size(0) = ${n}`,
    );
  const reps = scope(() =>
    repeats.reshape(-1).to("int64").expand([n]).contiguous(),
  );
  return gatherRepeats(src, d, reps);
}

/** The read and the gather of {@link repeatByTensor}, after its checks; disposes `reps`. */
async function gatherRepeats(
  src: Tensor | null,
  d: number,
  reps: Tensor,
): Promise<Tensor> {
  try {
    const values = (await reps.toArray()) as ArrayLike<number | bigint>;
    let total = 0;
    for (let i = 0; i < values.length; i++) {
      const r = Number(values[i]);
      if (r < 0) throw new TorchError("repeats can not be negative");
      total += r;
    }
    return scope(() => {
      // Output position p comes from the first i with p < repeats[0] + … + repeats[i].
      const ends = reps.cumsum(0);
      const positions = arange(total, { dtype: "int64", device: reps.device });
      const index = searchsorted(ends, positions, { right: true });
      if (src === null) return index;
      return (src.ndim === 0 ? src.reshape(1) : src).index_select(d, index);
    });
  } finally {
    reps.dispose();
  }
}
