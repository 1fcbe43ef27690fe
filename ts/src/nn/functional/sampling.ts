/**
 * `torch.nn.functional`'s sampling, shuffling and sliding-block functions: `normalize`,
 * `pixel_shuffle`/`pixel_unshuffle`, `unfold`/`fold`, `grid_sample` and `affine_grid`. Each is a
 * composite of differentiable ops (views, `gather`/`scatter_add`, elementwise ops, `matmul`), so
 * its gradients come from its parts.
 *
 * `unfold` and `fold` share one index map (each block element's position in the padded image):
 * `unfold` gathers through it, `fold` scatter-adds through it — the adjoint, as in PyTorch.
 *
 * @module
 */

import { args } from "../../schema/index.js";
import {
  ArgumentError,
  DTypeError,
  ShapeError,
  TorchError,
} from "../../errors.js";
import { isFloatingPoint, scalarTypeName } from "../../dtype.js";
import { scope } from "../../lifetime.js";
import { tensor, zeros } from "../../ops/creation.js";
import { pad } from "../../ops/conv.js";
import { Tensor, checkTensor } from "../../tensor/tensor.js";
import { no_grad } from "../../autograd/grad_mode.js";

/** Options of {@link normalize} (its arguments after `input`, by name). */
export interface NormalizeOptions {
  /** The norm's exponent (default 2). */
  p?: number;
  /** The dim normalized over (default 1). */
  dim?: number;
  /** The smallest divisor (default 1e-12). */
  eps?: number;
}

/** `input / max(‖input‖_p along dim, eps)`; the arguments after `input` may be given by name. */
export function normalize(
  input: Tensor,
  p?: number | NormalizeOptions,
  dim?: number,
  eps?: number,
): Tensor {
  ({ input, p, dim, eps } = args("nn.functional.normalize", arguments));
  const x = checkTensor("normalize", "input", input);
  return scope(() => x.div(x.norm(p, dim, true).clamp_min(eps)));
}

function checkShuffle(fn: string, x: Tensor, what: string, r: number): void {
  if (x.ndim < 3)
    throw new ShapeError(
      `${fn} expects input to have at least 3 dimensions, but got input with ${x.ndim} dimension(s)`,
    );
  if (r <= 0)
    throw new TorchError(`${fn} expects a positive ${what}, but got ${r}`);
}

/**
 * `(*, C·r², H, W)` → `(*, C, H·r, W·r)`: each group of r² channels becomes an r×r patch.
 */
export function pixel_shuffle(input: Tensor, upscale_factor: number): Tensor {
  ({ input, upscale_factor } = args("nn.functional.pixel_shuffle", arguments));
  const x = checkTensor("pixel_shuffle", "input", input);
  const r = upscale_factor;
  checkShuffle("pixel_shuffle", x, "upscale_factor", r);
  const [c, h, w] = x.shape.slice(-3) as [number, number, number];
  if (c % (r * r) !== 0)
    throw new ShapeError(
      `pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)=${c} is not divisible by ${r * r}`,
    );
  const lead = x.shape.slice(0, -3);
  const oc = c / (r * r);
  return scope(() =>
    x
      .reshape([-1, oc, r, r, h, w])
      .permute([0, 1, 4, 2, 5, 3])
      .reshape([...lead, oc, h * r, w * r]),
  );
}

/** The inverse of {@link pixel_shuffle}: `(*, C, H·r, W·r)` → `(*, C·r², H, W)`. */
export function pixel_unshuffle(
  input: Tensor,
  downscale_factor: number,
): Tensor {
  ({ input, downscale_factor } = args(
    "nn.functional.pixel_unshuffle",
    arguments,
  ));
  const x = checkTensor("pixel_unshuffle", "input", input);
  const r = downscale_factor;
  checkShuffle("pixel_unshuffle", x, "downscale_factor", r);
  const [c, h, w] = x.shape.slice(-3) as [number, number, number];
  if (h % r !== 0)
    throw new ShapeError(
      `pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=${h} is not divisible by ${r}`,
    );
  if (w % r !== 0)
    throw new ShapeError(
      `pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=${w} is not divisible by ${r}`,
    );
  // An empty input comes back as a copy of the same shape (PyTorch's early return).
  if (x.numel() === 0) return x.clone();
  const lead = x.shape.slice(0, -3);
  return scope(() =>
    x
      .reshape([-1, c, h / r, r, w / r, r])
      .permute([0, 1, 3, 5, 2, 4])
      .reshape([...lead, c * r * r, h / r, w / r]),
  );
}

/** PyTorch's error for a kernel without an integer (or bool) instance. */
function notImplementedFor(kernel: string, x: Tensor): void {
  if (!isFloatingPoint(x.dtype))
    throw new DTypeError(
      `"${kernel}" not implemented for '${scalarTypeName(x.dtype)}'`,
    );
}

type Pair = [number, number];
type Size = number | readonly number[];

/** Options of {@link unfold} and {@link fold} (their arguments after the sizes, by name). */
export interface BlockOptions {
  /** Spacing between kernel elements (default 1). */
  dilation?: Size;
  /** Implicit zero padding on both sides (default 0). */
  padding?: Size;
  /** Step between blocks (default 1). */
  stride?: Size;
}

function pair(v: number | readonly number[]): Pair {
  return typeof v === "number" ? [v, v] : [v[0]!, v[1]!];
}

/** PyTorch's checks of a sliding-block window (its order and words). */
function checkWindow(k: Pair, d: Pair, p: Pair, s: Pair): void {
  if (k[0] <= 0 || k[1] <= 0)
    throw new TorchError(
      `kernel size should be greater than zero, but got kernel_height: ${k[0]} kernel_width: ${k[1]}`,
    );
  if (s[0] <= 0 || s[1] <= 0)
    throw new TorchError(
      `stride should be greater than zero, but got stride_height: ${s[0]} stride_width: ${s[1]}`,
    );
  if (d[0] <= 0 || d[1] <= 0)
    throw new TorchError(
      `dilation should be greater than zero, but got dilation_height: ${d[0]} dilation_width: ${d[1]}`,
    );
  if (p[0] < 0 || p[1] < 0)
    throw new TorchError(
      `padding should be non-negative, but got pad_height: ${p[0]} pad_width: ${p[1]}`,
    );
}

/** The number of block positions along one dim of size `n`. */
function blocks(n: number, k: number, d: number, p: number, s: number): number {
  return Math.floor((n + 2 * p - (d * (k - 1) + 1)) / s) + 1;
}

/**
 * The flat position in the padded `(H + 2p) × (W + 2p)` image of each element of the unfolded
 * `(kH·kW, L)` block matrix, as an int64 tensor of `kH·kW·L` entries on `device`.
 */
function blockIndex(
  size: Pair,
  k: Pair,
  d: Pair,
  p: Pair,
  s: Pair,
  out: Pair,
  device: Tensor["device"],
): Tensor {
  const wp = size[1] + 2 * p[1];
  const l = out[0] * out[1];
  const idx = new Array<number>(k[0] * k[1] * l);
  for (let ki = 0; ki < k[0]; ki++)
    for (let kj = 0; kj < k[1]; kj++) {
      const base = (ki * k[1] + kj) * l;
      for (let oy = 0; oy < out[0]; oy++)
        for (let ox = 0; ox < out[1]; ox++)
          idx[base + oy * out[1] + ox] =
            (oy * s[0] + ki * d[0]) * wp + ox * s[1] + kj * d[1];
    }
  return tensor(idx, { dtype: "int64", device });
}

/**
 * Extracts sliding blocks: `(N, C, H, W)` (or `(C, H, W)`) → `(N, C·kH·kW, L)` with one column
 * per block position (PyTorch's im2col).
 */
export function unfold(
  input: Tensor,
  kernel_size: Size,
  dilation?: Size | BlockOptions,
  padding?: number | readonly number[],
  stride?: number | readonly number[],
): Tensor {
  ({ input, kernel_size, dilation, padding, stride } = args(
    "nn.functional.unfold",
    arguments,
  ));
  const x = checkTensor("unfold", "input", input);
  const [k, d, p, s] = [kernel_size, dilation, padding, stride].map(pair) as [
    Pair,
    Pair,
    Pair,
    Pair,
  ];
  checkWindow(k, d, p, s);
  const batched = x.ndim === 4;
  if (
    (x.ndim !== 3 && x.ndim !== 4) ||
    x.shape.slice(batched ? 1 : 0).some((n) => n === 0)
  )
    throw new ShapeError(
      `Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: [${x.shape.join(", ")}]`,
    );
  const size: Pair = [x.shape[x.ndim - 2]!, x.shape[x.ndim - 1]!];
  const out: Pair = [
    blocks(size[0], k[0], d[0], p[0], s[0]),
    blocks(size[1], k[1], d[1], p[1], s[1]),
  ];
  if (out[0] < 1 || out[1] < 1)
    throw new ShapeError(
      `Given input with spatial size (${size.join(", ")}), kernel_size=(${k.join(", ")}), dilation=(${d.join(", ")}), padding=(${p.join(", ")}), calculated shape of the array of sliding blocks as (${out.join(", ")}), but its components must be at least one.`,
    );
  notImplementedFor("im2col_out_cpu", x);
  const n = batched ? x.shape[0]! : 1;
  const c = x.shape[x.ndim - 3]!;
  const l = out[0] * out[1];
  const hw = (p[0] * 2 + size[0]) * (p[1] * 2 + size[1]);
  return scope(() => {
    const xp = p[0] || p[1] ? pad(x, [p[1], p[1], p[0], p[0]]) : x;
    const idx = blockIndex(size, k, d, p, s, out, x.device)
      .reshape([1, 1, -1])
      .expand([n, c, -1]);
    const cols = xp
      .reshape([n, c, hw])
      .gather(2, idx)
      .reshape([n, c * k[0] * k[1], l]);
    return batched ? cols : cols.squeeze(0);
  });
}

/**
 * Combines sliding blocks into an image, summing where they overlap: `(N, C·kH·kW, L)` (or
 * `(C·kH·kW, L)`) → `(N, C, H, W)` with `(H, W) = output_size` (PyTorch's col2im).
 */
export function fold(
  input: Tensor,
  output_size: Size,
  kernel_size: Size,
  dilation?: Size | BlockOptions,
  padding?: number | readonly number[],
  stride?: number | readonly number[],
): Tensor {
  ({ input, output_size, kernel_size, dilation, padding, stride } = args(
    "nn.functional.fold",
    arguments,
  ));
  const x = checkTensor("fold", "input", input);
  const [size, k, d, p, s] = [
    output_size,
    kernel_size,
    dilation,
    padding,
    stride,
  ].map(pair) as [Pair, Pair, Pair, Pair, Pair];
  checkWindow(k, d, p, s);
  const batched = x.ndim === 3;
  if (
    (x.ndim !== 2 && x.ndim !== 3) ||
    x.shape.slice(batched ? 1 : 0).some((v) => v === 0)
  )
    throw new ShapeError(
      `Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: [${x.shape.join(", ")}]`,
    );
  const ck = x.shape[x.ndim - 2]!;
  if (ck % (k[0] * k[1]) !== 0)
    throw new ShapeError(
      `Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)=${ck} and kernel_size=(${k.join(", ")}).`,
    );
  const out: Pair = [
    blocks(size[0], k[0], d[0], p[0], s[0]),
    blocks(size[1], k[1], d[1], p[1], s[1]),
  ];
  const l = x.shape[x.ndim - 1]!;
  if (out[0] * out[1] !== l || out[0] < 1 || out[1] < 1)
    throw new ShapeError(
      `Given output_size=(${size.join(", ")}), kernel_size=(${k.join(", ")}), dilation=(${d.join(", ")}), padding=(${p.join(", ")}), stride=(${s.join(", ")}), expected size of input's dimension 2 to match the calculated number of sliding blocks ${Math.max(out[0], 0)} * ${Math.max(out[1], 0)} = ${Math.max(out[0], 0) * Math.max(out[1], 0)}, but got input.size(2)=${l}.`,
    );
  notImplementedFor("col2im_out_cpu", x);
  const n = batched ? x.shape[0]! : 1;
  const c = ck / (k[0] * k[1]);
  const [hp, wp] = [size[0] + 2 * p[0], size[1] + 2 * p[1]];
  return scope(() => {
    const idx = blockIndex(size, k, d, p, s, out, x.device)
      .reshape([1, 1, -1])
      .expand([n, c, -1]);
    const img = zeros([n, c, hp * wp], { dtype: x.dtype, device: x.device })
      .scatter_add(2, idx, x.reshape([n, c, (ck / c) * l]))
      .reshape([n, c, hp, wp])
      .narrow(2, p[0], size[0])
      .narrow(3, p[1], size[1]);
    return batched ? img : img.squeeze(0);
  });
}

// ---- grid_sample and affine_grid ----

/** PyTorch's `reflect_coordinates`: `v` reflected into `[low, high]` (given doubled). */
function reflect(v: Tensor, twiceLow: number, twiceHigh: number): Tensor {
  if (twiceLow === twiceHigh) return v.mul(0);
  const min = twiceLow / 2;
  const span = (twiceHigh - twiceLow) / 2;
  const a = v.sub(min).abs();
  const extra = a.fmod(span);
  const flips = a.div(span).floor();
  const even = flips.remainder(2).eq(0);
  return extra.add(min).where(even, extra.neg().add(span + min));
}

/**
 * A grid coordinate (in [-1, 1]) as a pixel coordinate of a dim of `size` pixels, with the
 * padding mode's clipping or reflection (PyTorch's `grid_sampler_compute_source_index`).
 */
function sourceIndex(
  g: Tensor,
  size: number,
  padding: "zeros" | "border" | "reflection",
  align: boolean,
): Tensor {
  let v = unnormalize(g, size, align);
  if (padding === "border") v = v.clamp(0, size - 1);
  else if (padding === "reflection") {
    v = align ? reflect(v, 0, 2 * (size - 1)) : reflect(v, -1, 2 * size - 1);
    v = v.clamp(0, size - 1);
  }
  return v;
}

/** A grid coordinate (in [-1, 1]) as a pixel coordinate of a dim of `size` pixels. */
function unnormalize(g: Tensor, size: number, align: boolean): Tensor {
  return align
    ? g.add(1).mul((size - 1) / 2)
    : g.add(1).mul(size).sub(1).div(2);
}

/**
 * PyTorch's `compute_coordinates` for bicubic's integer taps: clipped to the border, or
 * reflected and clipped; as they are for zero padding (read as zero outside).
 */
function tapIndex(
  v: Tensor,
  size: number,
  padding: "zeros" | "border" | "reflection",
  align: boolean,
): Tensor {
  if (padding === "border") return v.clamp(0, size - 1);
  if (padding === "reflection")
    return (
      align ? reflect(v, 0, 2 * (size - 1)) : reflect(v, -1, 2 * size - 1)
    ).clamp(0, size - 1);
  return v;
}

/** The cubic convolution weights (A = -0.75) of the taps at -1, 0, 1, 2 from `floor(u)`. */
function cubicWeights(t: Tensor): Tensor[] {
  const A = -0.75;
  // (A+2)x³ − (A+3)x² + 1 for |x| ≤ 1; Ax³ − 5Ax² + 8Ax − 4A for 1 < |x| < 2.
  const near = (x: Tensor) =>
    x
      .mul(A + 2)
      .sub(A + 3)
      .mul(x)
      .mul(x)
      .add(1);
  const far = (x: Tensor) =>
    x
      .mul(A)
      .sub(5 * A)
      .mul(x)
      .add(8 * A)
      .mul(x)
      .sub(4 * A);
  const rest = t.neg().add(1);
  return [far(t.add(1)), near(t), near(rest), far(rest.add(1))];
}

/** Options of {@link grid_sample} (its arguments after `grid`, by name). */
export interface GridSampleOptions {
  /** The interpolation (default `"bilinear"`). */
  mode?: "bilinear" | "nearest" | "bicubic";
  /** What points outside the input read (default `"zeros"`). */
  padding_mode?: "zeros" | "border" | "reflection";
  /** Whether -1 and 1 are the corner pixels' centres (true) or their outer edges (default). */
  align_corners?: boolean | null;
}

/**
 * Samples `input` `(N, C, H_in, W_in)` at the points of `grid` `(N, H, W, 2)` (x, y in [-1, 1]),
 * or `(N, C, D_in, H_in, W_in)` at `(N, D, H, W, 3)` (x, y, z), with (bi/tri)linear or nearest
 * interpolation; `padding_mode` says what points outside read (zeros, the border's value, or the
 * reflection). Bicubic weights the 4×4 (4×4×4) pixels around each point by PyTorch's cubic
 * convolution (A = -0.75) along each dim.
 */
export function grid_sample(
  input: Tensor,
  grid: Tensor,
  mode?: "bilinear" | "nearest" | "bicubic" | GridSampleOptions,
  padding_mode?: "zeros" | "border" | "reflection",
  align_corners?: boolean | null,
): Tensor {
  const a = args("nn.functional.grid_sample", arguments);
  ({ input, grid, align_corners } = a);
  const mode_ = a.mode;
  const padding = a.padding_mode;
  const x = checkTensor("grid_sample", "input", input);
  const g = checkTensor("grid_sample", "grid", grid);
  if (mode_ !== "bilinear" && mode_ !== "nearest" && mode_ !== "bicubic")
    throw new ArgumentError(
      `nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '${mode_}'`,
    );
  if (padding !== "zeros" && padding !== "border" && padding !== "reflection")
    throw new ArgumentError(
      `nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but got: '${padding}'`,
    );
  const sizes = (t: Tensor) => `[${t.shape.join(", ")}]`;
  if (g.shape[g.ndim - 1] !== x.ndim - 2)
    throw new ShapeError(
      `grid_sampler(): expected grid to have size ${x.ndim - 2} in last dimension, but got grid with sizes ${sizes(g)}`,
    );
  if (x.ndim !== g.ndim)
    throw new ShapeError(
      `grid_sampler(): expected ${x.ndim}D input and grid with same number of dimensions, but got input with sizes ${sizes(x)} and grid with sizes ${sizes(g)}`,
    );
  if (x.shape[0] !== g.shape[0])
    throw new ShapeError(
      `grid_sampler(): expected grid and input to have same batch size, but got input with sizes ${sizes(x)} and grid with sizes ${sizes(g)}`,
    );
  if (x.ndim !== 4 && x.ndim !== 5)
    throw new TorchError(
      `grid_sampler(): expected 5D input and grid with same number of dimensions, but got input with sizes ${sizes(x)} and grid with sizes ${sizes(g)}`,
    );
  notImplementedFor(`grid_sampler_${x.ndim - 2}d_cpu_kernel_impl`, x);
  const align = align_corners ?? false;
  const [n, c] = x.shape as [number, number];
  // The spatial sizes, last first (W, H[, D]): grid coordinate j indexes spatial[j].
  const spatial = x.shape.slice(2).reverse();
  const k = spatial.length;
  const outShape = g.shape.slice(1, -1);
  const points = outShape.reduce((p, v) => p * v, 1);
  // Each spatial dim's stride in the flattened input, in the same (last-first) order.
  const strides = spatial.map((_, j) =>
    spatial.slice(0, j).reduce((p, v) => p * v, 1),
  );
  return scope(() => {
    const coords = spatial.map((size, j) =>
      sourceIndex(g.select(k + 1, j), size, padding, align),
    );
    const flat = x.reshape([n, c, spatial.reduce((p, v) => p * v, 1)]);
    // The values at the integer positions `at` (one [N, *out] tensor per coordinate); zero
    // outside the input.
    const read = (at: Tensor[]): Tensor => {
      let inside: Tensor | null = null;
      let idx: Tensor | null = null;
      at.forEach((p, j) => {
        const ok = p.ge(0).logical_and(p.le(spatial[j]! - 1));
        inside = inside ? inside.logical_and(ok) : ok;
        // NaN reads position 0 (then masked by `inside`; its weight makes the result NaN).
        const term = p
          .nan_to_num(0)
          .clamp(0, spatial[j]! - 1)
          .to("int64")
          .mul(strides[j]!);
        idx = idx ? idx.add(term) : term;
      });
      const v = flat
        .gather(2, idx!.reshape([n, 1, points]).expand([n, c, points]))
        .reshape([n, c, ...outShape]);
      return v.mul(inside!.unsqueeze(1).to(v.dtype));
    };
    if (mode_ === "bicubic") {
      // Each point's 4^k neighbourhood: the 4 taps along x combined first, then those sums
      // along y (then z), PyTorch's order. The taps' positions carry no gradient; the weights
      // carry the grid's.
      const u = spatial.map((size, j) =>
        unnormalize(g.select(k + 1, j), size, align),
      );
      const base = no_grad(() => u.map((v) => v.floor()));
      const w = u.map((v, j) => cubicWeights(v.sub(base[j]!)));
      const taps = no_grad(() =>
        base.map((b, j) =>
          [-1, 0, 1, 2].map((o) =>
            tapIndex(b.add(o), spatial[j]!, padding, align),
          ),
        ),
      );
      const at: Tensor[] = new Array<Tensor>(k);
      const combine = (j: number): Tensor => {
        if (j < 0) return read(at);
        let sum: Tensor | null = null;
        for (let i = 0; i < 4; i++) {
          at[j] = taps[j]![i]!;
          const term = combine(j - 1).mul(w[j]![i]!.unsqueeze(1));
          sum = sum ? sum.add(term) : term;
        }
        return sum!;
      };
      return combine(k - 1);
    }
    if (mode_ === "nearest") {
      // PyTorch's grid gradient of nearest sampling is zeros (not none): the grid joins the
      // graph through a `where` that never selects it.
      const never = zeros([n, ...outShape], {
        dtype: "bool",
        device: g.device,
      });
      return read(coords.map((v) => v.round())).add(
        coords[0]!.where(never, 0).unsqueeze(1),
      );
    }
    // (Bi/tri)linear: the 2^k corners around each point, weighted by the opposite distances.
    const lo = no_grad(() => coords.map((v) => v.floor()));
    const hi = lo.map((v) => v.add(1));
    const wHi = coords.map((v, j) => v.sub(lo[j]!));
    const wLo = coords.map((v, j) => hi[j]!.sub(v));
    let out: Tensor | null = null;
    for (let corner = 0; corner < 1 << k; corner++) {
      const up = (j: number) => ((corner >> j) & 1) === 1;
      const at = spatial.map((_, j) => (up(j) ? hi[j]! : lo[j]!));
      const weight = spatial
        .map((_, j) => (up(j) ? wHi[j]! : wLo[j]!))
        .reduce((p, v) => p.mul(v));
      const term = read(at).mul(weight.unsqueeze(1));
      out = out ? out.add(term) : term;
    }
    return out!;
  });
}

/** PyTorch's `linspace_from_neg_one`: `n` points over [-1, 1], scaled by (n−1)/n without `align`. */
function steps(n: number, align: boolean): number[] {
  if (n <= 1) return [0];
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = -1 + (2 * i) / (n - 1);
    out.push(align ? v : (v * (n - 1)) / n);
  }
  return out;
}

/**
 * The sampling grid of the affine maps `theta` (`(N, 2, 3)` for a 4-D `size` `[N, C, H, W]`,
 * `(N, 3, 4)` for a 5-D one): `(N, H, W, 2)` (or `(N, D, H, W, 3)`) points in [-1, 1] for
 * {@link grid_sample}.
 */
export function affine_grid(
  theta: Tensor,
  size: readonly number[],
  align_corners?: boolean | null | { align_corners?: boolean | null },
): Tensor {
  ({ theta, size, align_corners } = args(
    "nn.functional.affine_grid",
    arguments,
  ));
  const t = checkTensor("affine_grid", "theta", theta);
  if (!t.is_floating_point())
    throw new ArgumentError(
      `Expected theta to have floating point type, but got torch.${t.dtype}`,
    );
  const list = `[${size.join(", ")}]`;
  const k = size.length - 2;
  if (k === 2 || k === 3) {
    if (t.ndim !== 3 || t.shape[1] !== k || t.shape[2] !== k + 1)
      throw new ShapeError(
        `Expected a batch of ${k}D affine matrices of shape Nx${k}x${k + 1} for size ${list}. Got torch.Size([${t.shape.join(", ")}]).`,
      );
  } else
    throw new TorchError(
      `affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size ${list}.`,
    );
  if (Math.min(...size) <= 0)
    throw new ShapeError(
      `Expected non-zero, positive output size. Got ${list}`,
    );
  const n = size[0]!;
  if (t.shape[0] !== n)
    throw new ShapeError(
      `Expected size for first two dimensions of batch2 tensor to be: [${n}, ${k + 1}] but got: [${t.shape[0]}, ${k + 1}].`,
    );
  const align = align_corners ?? false;
  // The base grid: one (x, y[, z], 1) row per output point, x varying fastest.
  const spatial = size.slice(2);
  const axes = spatial.map((s) => steps(s, align));
  const points = spatial.reduce((a, b) => a * b, 1);
  const base = new Array<number>(points * (k + 1));
  for (let i = 0; i < points; i++) {
    let rest = i;
    for (let a = k - 1; a >= 0; a--) {
      const s = spatial[a]!;
      // Column 0 is x (the last spatial dim), column 1 y, column 2 z.
      base[i * (k + 1) + (k - 1 - a)] = axes[a]![rest % s]!;
      rest = Math.floor(rest / s);
    }
    base[i * (k + 1) + k] = 1;
  }
  return scope(() =>
    tensor(base, { dtype: t.dtype, device: t.device })
      .reshape([points, k + 1])
      .matmul(t.transpose(1, 2))
      .reshape([n, ...spatial, k]),
  );
}
