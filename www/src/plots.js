// The plots panel: live line charts and histograms with uPlot (small, fast, canvas-based, made for
// series that grow while you watch), and tensors as images on a plain canvas (a heatmap is one
// pixel per value: no charting library needed).
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

const COLORS = ["#d9480f", "#1c7ed6", "#2b8a3e", "#7048e8", "#e64980"];

/** Makes and updates the charts in `root` from the run worker's plot messages. */
export class Plots {
  constructor(root) {
    this.root = root;
    this.lines = new Map();
    this.bar = new Map();
    this.frame = 0;
  }

  /** Removes every chart (a new run starts). */
  clear() {
    for (const l of this.lines.values()) l.chart.destroy();
    this.lines.clear();
    for (const b of this.bar.values()) b.chart.destroy();
    this.bar.clear();
    this.root.replaceChildren();
  }

  /** Handles one `{ type: "plot", kind, … }` message. */
  add(msg) {
    if (msg.kind === "line") this.line(msg);
    else if (msg.kind === "image") this.image(msg);
    else if (msg.kind === "hist") this.hist(msg);
    else if (msg.kind === "bars") this.bars(msg);
  }

  /** A bar chart that each call with the same `chart` redraws in place (live probabilities). */
  bars({ chart, values, labels }) {
    let b = this.bar.get(chart);
    const xs = values.map((_, i) => i);
    if (!b) {
      const fig = this.figure(chart, "bars");
      fig.dataset.chart = chart;
      b = { fig };
      b.chart = new uPlot(
        {
          width: 360,
          height: 200,
          scales: { x: { time: false, range: [-0.6, values.length - 0.4] } },
          series: [
            { label: "class" },
            {
              label: chart,
              fill: "#1c7ed6aa",
              stroke: "#1c7ed6",
              paths: uPlot.paths.bars({ size: [0.7, Infinity], align: 0 }),
              points: { show: false },
            },
          ],
          axes: [
            {
              splits: () => xs,
              values: (_, ticks) => ticks.map((t) => labels[t] ?? ""),
            },
            { size: 40 },
          ],
          legend: { show: false },
        },
        [xs, values],
        fig,
      );
      this.bar.set(chart, b);
    } else b.chart.setData([xs, values]);
    const top = values.indexOf(Math.max(...values));
    b.fig.dataset.values = JSON.stringify(values);
    b.fig.dataset.top = labels[top];
  }

  figure(title, kind) {
    const fig = document.createElement("figure");
    fig.className = `plot plot-${kind}`;
    const cap = document.createElement("figcaption");
    cap.textContent = title;
    fig.append(cap);
    this.root.append(fig);
    return fig;
  }

  line({ chart, series, x }) {
    let l = this.lines.get(chart);
    const names = Object.keys(series);
    if (!l) {
      const fig = this.figure(chart, "line");
      fig.dataset.chart = chart;
      l = { names, data: [[], ...names.map(() => [])], fig };
      l.chart = new uPlot(
        {
          width: 360,
          height: 200,
          scales: { x: { time: false } },
          series: [
            { label: "step" },
            ...names.map((n, i) => ({
              label: n,
              stroke: COLORS[i % COLORS.length],
              width: 2,
            })),
          ],
          legend: { live: false },
        },
        l.data,
        fig,
      );
      this.lines.set(chart, l);
    }
    l.data[0].push(x ?? l.data[0].length);
    l.names.forEach((n, i) => l.data[i + 1].push(series[n] ?? null));
    l.fig.dataset.points = String(l.data[0].length);
    // Many points can arrive between two frames: redraw once per frame.
    if (!this.frame)
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        for (const m of this.lines.values()) m.chart.setData(m.data);
      });
  }

  hist({ title, centers, counts, width }) {
    const fig = this.figure(title || "histogram", "hist");
    new uPlot(
      {
        width: 360,
        height: 200,
        scales: { x: { time: false } },
        series: [
          { label: "value" },
          {
            label: "count",
            fill: "#1c7ed655",
            stroke: "#1c7ed6",
            paths: uPlot.paths.bars({ size: [1, Infinity], align: 0 }),
            points: { show: false },
          },
        ],
        axes: [{}, { size: 40 }],
        legend: { live: false },
      },
      [centers, counts],
      fig,
    );
    fig.dataset.bins = String(counts.length);
    fig.title = `bin width ${width.toPrecision(3)}`;
  }

  image({ title, colormap, rgb, shape, data }) {
    const fig = this.figure(title || `image [${shape.join(", ")}]`, "image");
    const [n, h, w] =
      shape.length === 2
        ? [1, ...shape]
        : rgb
          ? [1, shape[1], shape[2]]
          : shape;
    const canvas = document.createElement("canvas");
    canvas.width = n * w + (n - 1);
    canvas.height = h;
    const ctx = canvas.getContext("2d");
    const img = ctx.createImageData(canvas.width, h);
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of data) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    const span = hi > lo ? hi - lo : 1;
    const put = (px, py, [r, g, b]) => {
      const o = (py * canvas.width + px) * 4;
      img.data.set([r, g, b, 255], o);
    };
    for (let k = 0; k < n; k++)
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) {
          const px = k * (w + 1) + x;
          if (rgb) {
            const c = (ch) =>
              Math.round(255 * clamp01(data[ch * h * w + y * w + x]));
            put(px, y, [c(0), c(1), c(2)]);
          } else {
            const t = (data[k * h * w + y * w + x] - lo) / span;
            put(px, y, colormap === "gray" ? gray(t) : viridis(t));
          }
        }
    ctx.putImageData(img, 0, 0);
    // Scale small images up with crisp pixels.
    const scale = Math.max(1, Math.floor(Math.min(360 / canvas.width, 16)));
    canvas.style.width = `${canvas.width * scale}px`;
    canvas.style.height = `${h * scale}px`;
    fig.append(canvas);
    const legend = document.createElement("small");
    legend.textContent = rgb
      ? ""
      : `min ${lo.toPrecision(3)} · max ${hi.toPrecision(3)}`;
    fig.append(legend);
  }
}

const clamp01 = (v) => Math.min(1, Math.max(0, v));
const gray = (t) => {
  const v = Math.round(255 * clamp01(t));
  return [v, v, v];
};
// Viridis at nine stops (matplotlib's colormap values), linearly interpolated.
const VIRIDIS = [
  [68, 1, 84],
  [71, 45, 123],
  [59, 82, 139],
  [44, 114, 142],
  [33, 145, 140],
  [39, 173, 129],
  [92, 200, 99],
  [170, 220, 50],
  [253, 231, 37],
];
function viridis(t) {
  const x = clamp01(t) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - i;
  return VIRIDIS[i].map((a, c) => Math.round(a + f * (VIRIDIS[i + 1][c] - a)));
}
