/**
 * Max pooling's `return_indices` (`max_pool1d`/`2d`/`3d`, `adaptive_max_pool1d`/`2d`/`3d`) and its
 * partial inverse `max_unpool1d`/`2d`/`3d`, composed from core ops.
 *
 * An index is the flat position in the input's spatial plane (`h·W + w` for 2-D), int64, as
 * PyTorch gives it. Each window is scanned in row-major order as PyTorch's CPU kernel does: the
 * first maximum wins a tie, the last NaN wins over everything, and a window of `-inf` (or of
 * padding and `-inf`) points at its first element inside the input. The values are the input
 * gathered at those positions, so the gradient reaches exactly the positions the indices name
 * (summed where windows overlap), as PyTorch's backward does.
 *
 * @module
 */

import { DTypeError, ShapeError, TorchError } from "../../errors.js";
import { checkHostAlloc } from "../../args.js";
import type { Tensor } from "../../tensor/tensor.js";
import { scope } from "../../lifetime.js";
import { tensor, zeros } from "../../ops/creation.js";
import { where } from "../../ops/conditional.js";
import { checkValues } from "../../ops/value_checks.js";
import { scalarTypeName } from "../../dtype.js";

/** Per spatial dim, per output position: the input positions its window covers, ascending. */
export type Windows = number[][][];

/** Max pooling's windows along one dim: `o·stride - pad + j·dilation`, those inside `[0, n)`. */
export function poolWindows(
  n: number,
  out: number,
  kernel: number,
  stride: number,
  pad: number,
  dilation: number,
): number[][] {
  const w: number[][] = [];
  for (let o = 0; o < out; o++) {
    const list: number[] = [];
    for (let j = 0; j < kernel; j++) {
      const i = o * stride - pad + j * dilation;
      if (i >= 0 && i < n) list.push(i);
    }
    w.push(list);
  }
  return w;
}

/** Adaptive pooling's windows along one dim, each as {@link adaptiveWindow} gives it. */
export function adaptiveWindows(n: number, out: number): number[][] {
  const w: number[][] = [];
  for (let o = 0; o < out; o++) {
    const list: number[] = [];
    const [start, end] = adaptiveWindow(o, n, out);
    for (let i = start; i < end; i++) list.push(i);
    w.push(list);
  }
  return w;
}

/**
 * PyTorch's adaptive pooling window `o` of `out` over `n` inputs: `[⌊o·n/out⌋, ⌈(o+1)·n/out⌉)`.
 */
export function adaptiveWindow(
  o: number,
  n: number,
  out: number,
): [number, number] {
  return [Math.floor((o * n) / out), Math.ceil(((o + 1) * n) / out)];
}

/**
 * `[values, indices]` of max pooling `x` over the last `windows.length` dims, window by window.
 * The windows become one `(outputs, window)` table of flat input positions (-1 past a window's
 * end), the input is gathered through it and each row is reduced by PyTorch's scan rule.
 */
export function maxWithIndices(x: Tensor, windows: Windows): [Tensor, Tensor] {
  const k = windows.length;
  const lead = x.shape.slice(0, x.ndim - k);
  const sizes = x.shape.slice(x.ndim - k);
  const outs = windows.map((w) => w.length);
  const spans = windows.map((w) => Math.max(1, ...w.map((l) => l.length)));
  const plane = sizes.reduce((a, b) => a * b, 1);
  const nOut = outs.reduce((a, b) => a * b, 1);
  const span = spans.reduce((a, b) => a * b, 1);
  checkHostAlloc("max_pool", nOut * span, 4 + 8);
  const table = new Int32Array(nOut * span);
  const o = new Array<number>(k).fill(0);
  const j = new Array<number>(k).fill(0);
  for (let r = 0; r < nOut; r++) {
    for (let d = k - 1, q = r; d >= 0; d--) {
      o[d] = q % outs[d]!;
      q = Math.floor(q / outs[d]!);
    }
    for (let c = 0; c < span; c++) {
      for (let d = k - 1, q = c; d >= 0; d--) {
        j[d] = q % spans[d]!;
        q = Math.floor(q / spans[d]!);
      }
      let flat = 0;
      for (let d = 0; d < k && flat >= 0; d++) {
        const pos = windows[d]![o[d]!]![j[d]!];
        flat = pos === undefined ? -1 : flat * sizes[d]! + pos;
      }
      table[r * span + c] = flat;
    }
  }
  return scope(() => {
    const pos = tensor(table, { dtype: "int64", device: x.device }).reshape([
      nOut,
      span,
    ]);
    const valid = pos.ge(0);
    const xf = x.reshape([...lead, plane]);
    const xw =
      plane === 0
        ? xf.new_zeros([...lead, nOut, span])
        : xf
            .index_select(-1, pos.clamp_min(0).reshape([-1]))
            .reshape([...lead, nOut, span]);
    const float = x.is_floating_point();
    // Padding never wins: the lowest value of the dtype there, then ties go by position.
    const low = float ? -Infinity : x.dtype === "uint8" ? 0 : -(2 ** 31);
    const m = where(valid, xw, low).amax(-1, true);
    const first = where(valid.logical_and(xw.eq(m)), pos, 2 ** 31 - 1).amin(-1);
    let idx = first;
    if (float) {
      const lastNaN = where(valid.logical_and(xw.isnan()), pos, -1).amax(-1);
      idx = where(m.isnan().squeeze(-1), lastNaN, first);
    }
    const values = xf.gather(-1, idx).reshape([...lead, ...outs]);
    return [values, idx.reshape([...lead, ...outs])] as [Tensor, Tensor];
  });
}

/** `max_unpool{k}d`'s output size (PyTorch's `_unpool_output_size`, its ValueError wording). */
export function unpoolSize(
  input: Tensor,
  kernel: number[],
  stride: number[],
  padding: number[],
  output_size: readonly number[] | null | undefined,
): number[] {
  const k = kernel.length;
  const dflt = kernel.map(
    (ks, d) =>
      (input.shape[input.ndim - k + d]! - 1) * stride[d]! +
      ks -
      2 * padding[d]!,
  );
  if (output_size == null) return dflt;
  let size = [...output_size];
  if (size.length === k + 2) size = size.slice(2);
  if (size.length !== k)
    throw new TorchError(
      `output_size should be a sequence containing ${k} or ${k + 2} elements, but it has a length of '${size.length}'`,
    );
  for (let d = 0; d < k; d++) {
    const lo = dflt[d]! - stride[d]!;
    const hi = dflt[d]! + stride[d]!;
    if (!(lo < size[d]! && size[d]! < hi))
      throw new TorchError(
        `invalid output_size "[${output_size.join(", ")}]" (dim ${d} must be between ${lo} and ${hi})`,
      );
  }
  return size;
}

/**
 * `max_unpool{k}d`: `input`'s values written at `indices` (flat positions in each output plane)
 * of a zero tensor of the unpooled size; the rest stays zero. `fn` names PyTorch's kernel in its
 * messages (`max_unpool1d` runs as a 2-D unpooling of width 1 there, as in PyTorch).
 */
export function maxUnpool(
  fn: string,
  input: Tensor,
  indices: Tensor,
  kernel: number[],
  stride: number[],
  padding: number[],
  output_size: readonly number[] | null | undefined,
): Tensor {
  const k = kernel.length;
  const out = unpoolSize(input, kernel, stride, padding, output_size);
  if (indices.dtype !== "int64")
    throw new TorchError(
      `elements in indices should be type int64 but got: ${scalarTypeName(indices.dtype)}`,
    );
  const same =
    indices.ndim === input.ndim &&
    indices.shape.every((s, i) => s === input.shape[i]);
  if (!same)
    throw new ShapeError(
      `Expected shape of indices to be same as that of the input tensor ([${input.shape.join(", ")}]) but got indices tensor with shape: [${indices.shape.join(", ")}]`,
    );
  if (input.ndim !== k + 1 && input.ndim !== k + 2)
    throw new TorchError(
      `Input to ${fn.replace("max_unpool", "max_unpooling")} should be a ${k + 1}d or ${k + 2}d Tensor, but got a tensor with ${input.ndim} dimensions.`,
    );
  if (!input.is_floating_point())
    throw new DTypeError(
      `"${fn}" not implemented for '${scalarTypeName(input.dtype)}'`,
    );
  const lead = input.shape.slice(0, input.ndim - k);
  const plane = out.reduce((a, b) => a * b, 1);
  // On the caller's tensor: on WebGPU the check runs on the device and throws at the next read.
  checkValues(indices, 0, plane - 1, {
    low: `Found an invalid max index: {} (output volumes are of size ${out.join("x")})`,
  });
  return scope(() => {
    const idx = indices.reshape([...lead, -1]);
    const y = zeros([...lead, plane], {
      dtype: input.dtype,
      device: input.device,
    });
    return y
      .scatter(-1, idx, input.reshape([...lead, -1]))
      .reshape([...lead, ...out]);
  });
}
