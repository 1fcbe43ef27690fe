/**
 * `torch.nn.functional`'s lookups by class index: `one_hot`, `embedding` (the rows of a weight;
 * differentiable through a one-hot matmul when the core's `index_select` records no gradient) and
 * `embedding_bag` (sums, means or maxima of bags of rows).
 *
 * @module
 */

import { args, omit } from "../../schema/index.js";
import { tensorTypeName } from "../../dtype.js";
import { DTypeError, TorchError } from "../../errors.js";
import type { Tensor } from "../../tensor/tensor.js";
import { scope } from "../../lifetime.js";
import { arange, full, zeros } from "../../ops/creation.js";
import { where } from "../../ops/conditional.js";
import { checkValues } from "../../ops/value_checks.js";
import { cat } from "../../ops/indexing.js";
import { kernelOr, shapeStr, temps } from "./composition.js";

/** One-hot rows of `num_classes` (int64 like PyTorch; `dtype` to ask for float32 directly). */
export function one_hot(
  input: Tensor,
  num_classes: number,
  dtype?: "int64" | "float32",
): Tensor;
/**
 * Without `num_classes` (or -1): `max(input) + 1` classes, which is read back first, so the
 * result is a `Promise`.
 */
export function one_hot(
  input: Tensor,
  num_classes?: -1,
  dtype?: "int64" | "float32",
): Promise<Tensor>;
export function one_hot(
  input: Tensor,
  num_classes?: number,
  dtype?: "int64" | "float32",
): Tensor | Promise<Tensor> {
  ({ input, num_classes, dtype } = args("nn.functional.one_hot", arguments));
  if (input.dtype !== "int64")
    throw new TorchError(
      "one_hot is only applicable to index tensor of type LongTensor.",
    );
  if (num_classes === -1) return inferredOneHot(input, dtype);
  if (!Number.isInteger(num_classes) || num_classes < 0)
    throw new TorchError(
      "one_hot: num_classes must be given as a non-negative integer",
    );
  checkValues(input, 0, num_classes - 1, {
    low: "Class values must be non-negative.",
    high: "Class values must be smaller than num_classes.",
  });
  return temps((k) => {
    const classes = k(arange(num_classes, { device: input.device }));
    const eq = k(k(input.reshape([...input.shape, 1])).eq(classes));
    return eq.to(dtype);
  });
}

function inferredOneHot(
  input: Tensor,
  dtype: "int64" | "float32",
): Promise<Tensor> {
  if (input.numel() === 0)
    throw new TorchError(
      "Can not infer total number of classes from empty tensor.",
    );
  const [lo, hi] = [input.min(), input.max()];
  return (async () => {
    try {
      const [a, b] = await Promise.all([lo.item(), hi.item()]);
      if (Number(a) < 0)
        throw new TorchError("Class values must be non-negative.");
      return one_hot(input, Number(b) + 1, dtype);
    } finally {
      lo.dispose();
      hi.dispose();
    }
  })();
}

/**
 * The rows of `weight` at `input`'s indices: `weight[input]`. Differentiable w.r.t. `weight`
 * through a one-hot matmul when the core's `index_select` records no gradient.
 */
export function embedding(input: Tensor, weight: Tensor): Tensor {
  ({ input, weight } = args("nn.functional.embedding", arguments));
  if (input.dtype !== "int64" && input.dtype !== "int32")
    throw new DTypeError(
      `Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got ${tensorTypeName(input.dtype)} instead (while checking arguments for embedding)`,
    );
  const outShape = [...input.shape, weight.shape[1]!];
  return kernelOr(
    [weight],
    () =>
      temps((k) =>
        k(weight.index_select(0, k(input.reshape([-1])))).reshape(outShape),
      ),
    () =>
      temps((k) => {
        const oh = k(
          one_hot(k(input.reshape([-1])), weight.shape[0]!, "float32"),
        );
        return k(oh.matmul(weight)).reshape(outShape);
      }),
  );
}

/** Options of {@link embedding_bag}. */
export interface EmbeddingBagOptions {
  /** Start of each bag in a 1-D `input` (not allowed with 2-D input, whose rows are bags). */
  offsets?: Tensor | null;
  /** `"mean"` (default), `"sum"` or `"max"`. */
  mode?: "sum" | "mean" | "max";
  /** One weight per index (`"sum"` mode only), multiplying its row. */
  per_sample_weights?: Tensor | null;
  /** `offsets` has one more entry: the end of the last bag. */
  include_last_offset?: boolean;
  /** Indices equal to this are left out of their bag. */
  padding_idx?: number | null;
}

/**
 * Sums, means or maxes of bags of embedding rows, without materializing each bag: positions are
 * assigned to bags by comparing them with the offsets on the device (no read back), and empty
 * bags give zeros, as in PyTorch.
 */
export function embedding_bag(
  input: Tensor,
  weight: Tensor,
  options?: EmbeddingBagOptions,
): Tensor {
  const a = args("nn.functional.embedding_bag", arguments);
  ({ input, weight } = a);
  options = omit(a, "input", "weight") as EmbeddingBagOptions;
  const mode = options.mode ?? "mean";
  if (input.dtype !== "int64" && input.dtype !== "int32")
    throw new TorchError(
      `Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got ${tensorTypeName(input.dtype)} instead (while checking arguments for embedding_bag)`,
    );
  if (!["sum", "mean", "max"].includes(mode))
    throw new TorchError(`mode has to be one of sum, mean or max`);
  const psw = options.per_sample_weights ?? null;
  if (psw && mode !== "sum")
    throw new TorchError(
      `embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' (got mode='${mode}'). Please open a feature request on GitHub.`,
    );
  let offsets = options.offsets ?? null;
  if (input.ndim === 2) {
    if (offsets)
      throw new TorchError(
        "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences.",
      );
  } else if (input.ndim === 1) {
    if (!offsets)
      throw new TorchError("offsets has to be a 1D Tensor but got None");
    if (offsets.ndim !== 1)
      throw new TorchError("offsets has to be a 1D Tensor");
  } else
    throw new TorchError(
      `input has to be 1D or 2D Tensor, but got Tensor of dimension ${input.ndim}`,
    );
  if (psw && psw.shape.join() !== input.shape.join())
    throw new TorchError(
      `embedding_bag: If per_sample_weights (${shapeStr(psw)}) is not None, then it must have the same shape as the input (${shapeStr(input)})`,
    );
  return scope(() => {
    const device = input.device;
    let idx = input;
    let w = psw;
    if (input.ndim === 2) {
      const [b, l] = input.shape as number[];
      offsets = arange(0, b! * l!, l!, { dtype: "int64", device });
      idx = input.reshape([-1]);
      w = psw ? psw.reshape([-1]) : null;
    }
    const total = idx.shape[0]!;
    const starts = options.include_last_offset
      ? offsets!.narrow(0, 0, offsets!.shape[0]! - 1)
      : offsets!;
    const ends = options.include_last_offset
      ? offsets!.narrow(0, 1, offsets!.shape[0]! - 1)
      : cat([
          offsets!.narrow(0, 1, offsets!.shape[0]! - 1),
          full([1], total, { dtype: offsets!.dtype, device }),
        ]);
    const pos = arange(total, { dtype: offsets!.dtype, device }).unsqueeze(0);
    // member[b, t]: position t belongs to bag b.
    let member = pos
      .ge(starts.unsqueeze(1))
      .logical_and(pos.lt(ends.unsqueeze(1)));
    if (options.padding_idx !== null && options.padding_idx !== undefined)
      member = member.logical_and(idx.ne(options.padding_idx).unsqueeze(0));
    const rows = embedding(idx, weight); // (T, D)
    if (mode === "max") {
      const masked = where(member.unsqueeze(2), rows.unsqueeze(0), -Infinity);
      const m = masked.amax(1);
      const empty = member.any(1).logical_not().unsqueeze(1);
      return where(empty, zeros([], { device }), m);
    }
    // Masked, not a 0/1 matmul: a row's inf or NaN must not reach the bags without it.
    const picked = w ? rows.mul(w.unsqueeze(1)) : rows;
    const sums = where(member.unsqueeze(2), picked.unsqueeze(0), 0).sum(1);
    if (mode === "sum") return sums;
    const counts = member.to("float32").sum(1, true).maximum(1);
    return sums.div(counts);
  });
}
