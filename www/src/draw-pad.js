// A drawing pad for code in the editor (`drawPad()` in www/src/playground.d.ts): a canvas the
// visitor draws on with the mouse, a pen or a finger. When a stroke ends, the drawing goes to the
// run worker as a `size × size` Float32Array of ink (0 = paper, 1 = ink), cropped to the ink's
// bounding box and scaled, aspect kept, to fill the square: how the UCI digits were normalised
// (handwriting in a 32 × 32 box) before their 4 × 4 blocks were counted.

const SIDE = 224; // the canvas's pixels (its CSS size too)
const PEN = 18; // stroke width in canvas pixels

export class DrawPad {
  /** `{ id, title, size }` from the worker; `send(pixels)` hands a drawing to it. */
  constructor({ id, title, size }, send) {
    this.size = size;
    this.send = send;
    const fig = document.createElement("figure");
    fig.className = "plot plot-pad";
    fig.dataset.pad = String(id);
    const cap = document.createElement("figcaption");
    cap.textContent = title;
    const canvas = document.createElement("canvas");
    canvas.className = "pad";
    canvas.width = canvas.height = SIDE;
    const clear = document.createElement("button");
    clear.textContent = "Clear";
    clear.addEventListener("click", () => this.clear());
    fig.append(cap, canvas, clear);
    this.figure = fig;
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d", { willReadFrequently: true });
    this.clear();
    let last = null;
    const at = (e) => {
      const r = canvas.getBoundingClientRect();
      return [
        ((e.clientX - r.left) * SIDE) / r.width,
        ((e.clientY - r.top) * SIDE) / r.height,
      ];
    };
    canvas.addEventListener("pointerdown", (e) => {
      canvas.setPointerCapture?.(e.pointerId);
      last = at(e);
      this.line(last, last);
    });
    canvas.addEventListener("pointermove", (e) => {
      if (!last) return;
      const p = at(e);
      this.line(last, p);
      last = p;
    });
    const end = () => {
      if (!last) return;
      last = null;
      const pixels = this.pixels();
      if (pixels) this.send(pixels);
    };
    canvas.addEventListener("pointerup", end);
    canvas.addEventListener("pointercancel", end);
  }

  clear() {
    this.ctx.fillStyle = "#fff";
    this.ctx.fillRect(0, 0, SIDE, SIDE);
  }

  line([x0, y0], [x1, y1]) {
    const c = this.ctx;
    c.strokeStyle = "#000";
    c.lineWidth = PEN;
    c.lineCap = c.lineJoin = "round";
    c.beginPath();
    c.moveTo(x0, y0);
    c.lineTo(x1 + 0.01, y1);
    c.stroke();
  }

  /** The drawing as `size × size` ink in 0..1, or null when the pad is blank. */
  pixels() {
    const { data } = this.ctx.getImageData(0, 0, SIDE, SIDE);
    let [x0, y0, x1, y1] = [SIDE, SIDE, -1, -1];
    for (let y = 0; y < SIDE; y++)
      for (let x = 0; x < SIDE; x++)
        if (data[(y * SIDE + x) * 4] < 128) {
          x0 = Math.min(x0, x);
          x1 = Math.max(x1, x);
          y0 = Math.min(y0, y);
          y1 = Math.max(y1, y);
        }
    if (x1 < 0) return null;
    const n = this.size;
    const w = x1 - x0 + 1;
    const h = y1 - y0 + 1;
    const scale = n / Math.max(w, h);
    const small = new OffscreenCanvas(n, n);
    const s = small.getContext("2d", { willReadFrequently: true });
    s.fillStyle = "#fff";
    s.fillRect(0, 0, n, n);
    s.imageSmoothingQuality = "high";
    s.drawImage(
      this.canvas,
      x0,
      y0,
      w,
      h,
      (n - w * scale) / 2,
      (n - h * scale) / 2,
      w * scale,
      h * scale,
    );
    const px = s.getImageData(0, 0, n, n).data;
    return Float32Array.from({ length: n * n }, (_, i) => 1 - px[i * 4] / 255);
  }
}
