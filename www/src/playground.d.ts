// The playground's globals: what code in the editor may use besides `import * as torch from
// "webtorch"`. The editor's TypeScript loads this file next to webtorch's .d.ts; the run worker
// (www/src/run-worker.js) defines the values.

/** What the plots take: any webtorch tensor (checked at run time), whatever its shape type. */
type PlotTensor = { readonly shape: readonly number[]; readonly dtype: string };

/**
 * Prints to the output panel, values separated by spaces; tensors are printed as PyTorch prints
 * them (`tensor([[1.0000, 2.0000]], device='webgpu')`). Calls print in order even when not
 * awaited; await it to wait until the line is shown.
 */
declare function print(...values: unknown[]): Promise<void>;

/** Charts in the plots panel (uPlot for curves and histograms, a canvas for images). */
declare namespace plot {
  /**
   * Appends a point to each named series of the line chart `chart` (made on first use): call it
   * every few steps for a live loss curve. `x` defaults to the point's index.
   *
   * ```ts
   * plot.line("loss", { train: loss, test: testLoss }, step);
   * ```
   */
  function line(
    chart: string,
    values: Record<string, number>,
    x?: number,
  ): void;

  /**
   * Shows a tensor as an image: `[H, W]` as a heatmap (viridis, or gray), `[N, H, W]` as a row of
   * N heatmaps, `[3, H, W]` with `{ rgb: true }` as a colour image (values in 0..1).
   */
  function image(
    t: PlotTensor,
    options?: { title?: string; colormap?: "viridis" | "gray"; rgb?: boolean },
  ): Promise<void>;

  /**
   * A bar chart of a 1-D tensor's (or an array's) values, one bar per entry, labelled `labels`
   * (default: the indices). Calling it again with the same `chart` redraws it in place: live class
   * probabilities.
   */
  function bars(
    chart: string,
    t: PlotTensor | ArrayLike<number>,
    options?: { labels?: ArrayLike<string | number> },
  ): Promise<void>;

  /** A histogram of a tensor's (or an array's) values in `bins` equal bins (default 30). */
  function hist(
    t: PlotTensor | ArrayLike<number>,
    options?: { title?: string; bins?: number },
  ): Promise<void>;
}

/** Shows a progress bar under the output: `label` and `done` of `total`. */
declare function progress(label: string, done: number, total: number): void;

/** One split of the digits data: images as rows of 64 pixels in 0..1, labels as int64. */
interface DigitsSplit {
  /** float32 `[n, 64]`: each 8×8 image flattened, pixel / 16. */
  x: import("webtorch").Tensor;
  /** int64 `[n]`: the digit 0–9. */
  y: import("webtorch").Tensor;
  /** The number of images. */
  n: number;
}

/**
 * scikit-learn's 8×8 handwritten digits (data/digits.bin, served at /data/): 1,437 training and
 * 360 test images, as tensors on the default device.
 */
declare function loadDigits(): Promise<{
  train: DigitsSplit;
  test: DigitsSplit;
}>;

/** True when the page was opened with `?quick` (the tests do): examples then run fewer steps. */
declare const QUICK: boolean;

/** A drawing pad made by {@link drawPad}. */
interface DrawPad {
  /** The side of the drawings it hands over, in pixels. */
  readonly size: number;
  /** The next finished drawing (when the visitor lifts the pen). */
  next(): Promise<Float32Array>;
  /** Every drawing, as each stroke ends: `for await (const pixels of pad) …`. */
  [Symbol.asyncIterator](): AsyncIterator<Float32Array>;
}

/**
 * Puts a drawing pad in the plots panel. Each time a stroke ends, the drawing so far is handed
 * over as `size × size` ink values in 0..1 (row-major), cropped to the ink and scaled, aspect
 * kept, to fill the square. The pad lives until the run ends or is stopped.
 */
declare function drawPad(options?: { title?: string; size?: number }): DrawPad;
