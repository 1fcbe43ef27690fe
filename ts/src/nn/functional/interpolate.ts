/**
 * `F.interpolate` (and `F.upsample`): resizing the spatial dims of `[N, C, ...spatial]` tensors
 * with `nearest`, `nearest-exact`, `linear` / `bilinear` / `trilinear` and `bicubic`.
 *
 * Every mode is separable, so one spatial dim is resized at a time: the source coordinate of each
 * output index follows PyTorch's rule (`align_corners`, an explicit `scale_factor` used as given),
 * the taps are `index_select`s and the weights are constants. Built from differentiable ops, it
 * carries gradients; bilinear is the product of two linear passes, bicubic of two cubic passes
 * (Keys' kernel, a = -0.75, taps clamped at the border), exactly as PyTorch computes them.
 *
 * @module
 */

import { args, omit } from "../../schema/index.js";
import { DTypeError, TorchError } from "../../errors.js";
import { scalarTypeName } from "../../dtype.js";
import { checkHostAlloc, pyTypeName } from "../../args.js";
import { scope } from "../../lifetime.js";
import { tensor } from "../../ops/creation.js";
import { Tensor, checkTensor } from "../../tensor/tensor.js";
import {
  adaptive_avg_pool1d,
  adaptive_avg_pool2d,
  adaptive_avg_pool3d,
} from "./pooling.js";

/** Options of {@link interpolate}. */
export interface InterpolateOptions {
  /** The output spatial size (one number for every spatial dim, or one per dim). */
  size?: number | readonly number[];
  /** The multiplier of each spatial size (one number or one per dim). */
  scale_factor?: number | readonly number[];
  /** Default `"nearest"`; `"area"` is adaptive average pooling to the output size. */
  mode?:
    | "nearest"
    | "nearest-exact"
    | "linear"
    | "bilinear"
    | "bicubic"
    | "trilinear"
    | "area";
  /** Linear/cubic modes: map corner pixels' centres onto each other. Default false. */
  align_corners?: boolean | null;
  /** Compute the source coordinates from the output size rather than the given scale. */
  recompute_scale_factor?: boolean | null;
}

const SPATIAL: Record<string, number> = {
  linear: 1,
  bilinear: 2,
  bicubic: 2,
  trilinear: 3,
};

/** Per-dim values from one number or a list of the spatial rank (`what`: "output" or "scale_factor"). */
function perDim(
  what: string,
  v: number | readonly number[],
  inSizes: readonly number[],
): number[] {
  const rank = inSizes.length;
  if (typeof v === "number") return Array(rank).fill(v);
  if (!Array.isArray(v))
    throw new TorchError(
      `interpolate(): ${what === "output" ? "size" : what} must be a number or a list of numbers, not ${pyTypeName(v)}`,
    );
  if (v.length !== rank)
    throw new TorchError(
      `Input and ${what} must have the same number of spatial dimensions, but got input with spatial dimensions of [${inSizes.join(", ")}] and ${what} size of [${v.join(", ")}]. Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.`,
    );
  return [...v];
}

/** Source coordinate of output index `i` (PyTorch's area_pixel_compute_source_index). */
function source(
  i: number,
  inSize: number,
  outSize: number,
  scale: number | undefined,
  alignCorners: boolean,
  cubic: boolean,
): number {
  if (alignCorners) return outSize > 1 ? (i * (inSize - 1)) / (outSize - 1) : 0;
  const s = scale !== undefined ? 1 / scale : inSize / outSize;
  const x = s * (i + 0.5) - 0.5;
  return !cubic && x < 0 ? 0 : x;
}

/** Keys' cubic convolution weights for fractional offset t (a = -0.75). */
function cubicWeights(t: number): number[] {
  const a = -0.75;
  const near = (x: number) => ((a + 2) * x - (a + 3)) * x * x + 1;
  const far = (x: number) => ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return [far(t + 1), near(t), near(1 - t), far(2 - t)];
}

/** `x` resized along `dim` to `outSize` (one separable pass). */
function resizeDim(
  x: Tensor,
  dim: number,
  outSize: number,
  scale: number | undefined,
  mode: string,
  alignCorners: boolean,
): Tensor {
  const inSize = x.shape[dim]!;
  const device = x.device;
  // The index and weight tables have `outSize` entries each, a size the caller chose: typed
  // arrays checked against the CPU budget first (at most 4 taps and 4 weights, each also copied
  // to float64 by `tensor`), so that no size can exhaust V8's heap.
  checkHostAlloc("interpolate", outSize, 4 * (4 + 8) + 4 * (8 + 8));
  const idx = (v: Int32Array) => tensor(v, { dtype: "int64", device });
  const clampI = (v: number) => Math.min(Math.max(v, 0), inSize - 1);
  // Weights broadcast along `dim`: shape [1, …, out, …, 1].
  const wshape = x.shape.map((_, d) => (d === dim ? outSize : 1));
  const weight = (v: Float64Array) => tensor(v, { device }).reshape(wshape);
  if (mode === "nearest" || mode === "nearest-exact") {
    // PyTorch computes the nearest index in float32: so do we, to agree at exact boundaries.
    const f = Math.fround;
    const s = f(scale !== undefined ? 1 / scale : inSize / outSize);
    const src = new Int32Array(outSize);
    for (let i = 0; i < outSize; i++)
      src[i] = clampI(
        Math.floor(mode === "nearest" ? f(f(i) * s) : f(f(i + 0.5) * s)),
      );
    return x.index_select(dim, idx(src));
  }
  if (mode === "cubic") {
    const taps = [0, 1, 2, 3].map(() => new Int32Array(outSize));
    const ws = [0, 1, 2, 3].map(() => new Float64Array(outSize));
    for (let i = 0; i < outSize; i++) {
      const s = source(i, inSize, outSize, scale, alignCorners, true);
      const f = Math.floor(s);
      const w = cubicWeights(s - f);
      for (let k = 0; k < 4; k++) {
        taps[k]![i] = clampI(f - 1 + k);
        ws[k]![i] = w[k]!;
      }
    }
    let y: Tensor | undefined;
    for (let k = 0; k < 4; k++) {
      const term = x.index_select(dim, idx(taps[k]!)).mul(weight(ws[k]!));
      y = y === undefined ? term : y.add(term);
    }
    return y!;
  }
  // linear
  const lo = new Int32Array(outSize);
  const hi = new Int32Array(outSize);
  const w0 = new Float64Array(outSize);
  const w1 = new Float64Array(outSize);
  for (let i = 0; i < outSize; i++) {
    const s = source(i, inSize, outSize, scale, alignCorners, false);
    const f = Math.min(Math.floor(s), inSize - 1);
    lo[i] = f;
    hi[i] = Math.min(f + 1, inSize - 1);
    w1[i] = s - f;
    w0[i] = 1 - (s - f);
  }
  const a = x.index_select(dim, idx(lo));
  const b = x.index_select(dim, idx(hi));
  return a.mul(weight(w0)).add(b.mul(weight(w1)));
}

/**
 * Resizes the spatial dims of `input` (`[N, C, L]`, `[N, C, H, W]` or `[N, C, D, H, W]`) to `size`
 * or by `scale_factor`, as `torch.nn.functional.interpolate`.
 */
export function interpolate(
  input: Tensor,
  options?: InterpolateOptions,
): Tensor {
  const a = args("nn.functional.interpolate", arguments);
  ({ input } = a);
  options = omit(a, "input") as InterpolateOptions;
  const x = checkTensor("interpolate", "input", input);
  const mode = options.mode ?? "nearest";
  const rank = x.ndim - 2;
  if (rank < 1 || rank > 3)
    throw new TorchError(
      `Input Error: Only 3D, 4D and 5D input Tensors supported (got ${x.ndim}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got ${mode})`,
    );
  const need = SPATIAL[mode];
  const area = mode === "area";
  if (
    need === undefined &&
    mode !== "nearest" &&
    mode !== "nearest-exact" &&
    !area
  )
    throw new TorchError(
      `Input Error: Only 3D, 4D and 5D input Tensors supported (got ${x.ndim}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got ${mode})`,
    );
  if (
    (mode === "nearest" || mode === "nearest-exact" || area) &&
    options.align_corners != null
  )
    throw new TorchError(
      "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear",
    );
  if ((options.size == null) === (options.scale_factor == null))
    throw new TorchError(
      options.size == null
        ? "either size or scale_factor should be defined"
        : "only one of size or scale_factor should be defined",
    );
  const inSizes = x.shape.slice(2);
  let sizes: number[];
  let scales: (number | undefined)[];
  if (options.size != null) {
    sizes = perDim("output", options.size, inSizes);
    scales = sizes.map(() => undefined);
  } else {
    const f = perDim("scale_factor", options.scale_factor!, inSizes);
    sizes = inSizes.map((s, i) => Math.floor(s * f[i]!));
    scales = options.recompute_scale_factor ? f.map(() => undefined) : f;
  }
  if (need !== undefined && need !== rank)
    throw new TorchError(
      `Got ${x.ndim}D input, but ${mode} mode needs ${need + 2}D input`,
    );
  for (const s of sizes)
    if (!Number.isInteger(s) || s <= 0)
      throw new TorchError(
        `Input and output sizes should be greater than 0, but got input (${inSizes.join(", ")}) and output (${sizes.join(", ")})`,
      );
  checkDType(x, mode, rank);
  // "area" is adaptive average pooling to the output size, as in PyTorch.
  if (area)
    return rank === 1
      ? adaptive_avg_pool1d(x, sizes[0]!)
      : rank === 2
        ? adaptive_avg_pool2d(x, sizes)
        : adaptive_avg_pool3d(x, sizes);
  const kernel =
    mode === "bicubic" ? "cubic" : mode.includes("linear") ? "linear" : mode;
  const align = Boolean(options.align_corners);
  return scope(() => {
    let y = x;
    for (let d = 0; d < rank; d++)
      y = resizeDim(y, d + 2, sizes[d]!, scales[d], kernel, align);
    // uint8 (PyTorch's one integer dtype here) comes back as uint8: rounded half up (its
    // fixed-point kernels' rounding) and saturated.
    if (x.dtype === "uint8" && y.dtype !== "uint8")
      y = y.add(0.5).floor().clamp(0, 255).to("uint8");
    return y === x ? x.clone() : y;
  });
}

/**
 * PyTorch's kernels take floating-point inputs, and uint8 for nearest (every rank) and 2-D
 * bilinear and bicubic; its message names the kernel that refuses.
 */
function checkDType(x: Tensor, mode: string, rank: number): void {
  if (x.is_floating_point()) return;
  const nearest = mode === "nearest" || mode === "nearest-exact";
  if (
    x.dtype === "uint8" &&
    (nearest || ((mode === "bilinear" || mode === "bicubic") && rank === 2))
  )
    return;
  const kernel =
    mode === "area"
      ? rank === 3
        ? "adaptive_avg_pool3d_cpu"
        : "adaptive_avg_pool2d"
      : mode === "bicubic"
        ? "compute_indices_weights_cubic"
        : mode === "bilinear"
          ? "upsample_bilinear2d_channels_last"
          : mode.includes("linear")
            ? "compute_indices_weights_linear"
            : rank === 2
              ? "upsample_nearest2d_channels_last"
              : "compute_indices_weights_nearest";
  throw new DTypeError(
    `"${kernel}" not implemented for '${scalarTypeName(x.dtype)}'`,
  );
}

/** Alias of {@link interpolate} (deprecated in PyTorch, kept for ported code). */
export const upsample = interpolate;
