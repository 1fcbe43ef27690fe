// PyTorch-style printing of a tensor's values for the playground: `tensor([[2.5000, 0.0000], …])`,
// summarised with `...` past `torch.get_printoptions().threshold` elements, as PyTorch does.

/** Formats a tensor like PyTorch's repr (values read asynchronously). */
export async function formatTensor(torch, t) {
  const opts = torch.get_printoptions();
  const values = await t.tolist();
  const float = t.dtype === "float32" || t.dtype === "float16";
  const summarize = t.numel() > opts.threshold;
  const edge = opts.edgeitems;
  // Which entries of each dim are shown (all, or the first and last `edge` with "..." between).
  const shown = (row) =>
    summarize && row.length > 2 * edge
      ? [...row.slice(0, edge), ELLIPSIS, ...row.slice(-edge)]
      : row;
  const flat = [];
  const walk = (x) =>
    Array.isArray(x) ? shown(x).forEach(walk) : x !== ELLIPSIS && flat.push(x);
  walk(values);
  // PyTorch prints floats that are all integers as `1.`, and switches to scientific notation when
  // the magnitudes span too much; fixed-point with `precision` digits otherwise.
  const finite = flat.filter((v) => typeof v === "number" && isFinite(v));
  const absMax = Math.max(0, ...finite.map(Math.abs));
  const absMin = Math.min(...finite.map(Math.abs).filter((v) => v > 0));
  const sci =
    opts.sci_mode ??
    (float && (absMax >= 1e8 || (absMin < 1e-4 && absMin !== Infinity)));
  const scalar = (v) => {
    if (v === ELLIPSIS) return "...";
    if (typeof v === "boolean") return v ? "True" : "False";
    if (!float) return String(v);
    if (Number.isNaN(v)) return "nan";
    if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
    return sci
      ? v.toExponential(opts.precision).replace(/e([+-])(\d)$/, "e$10$2")
      : v.toFixed(opts.precision);
  };
  const width = Math.max(0, ...flat.map((v) => scalar(v).length));
  const indent = "tensor(".length;
  const render = (x, depth) => {
    if (!Array.isArray(x)) return scalar(x).padStart(width);
    const sep =
      depth === t.ndim - 1
        ? ", "
        : ",\n" +
          "\n".repeat(Math.max(0, t.ndim - depth - 2)) +
          " ".repeat(indent + depth + 1);
    return (
      "[" +
      shown(x)
        .map((y) => render(y, depth + 1))
        .join(sep) +
      "]"
    );
  };
  const body = t.ndim === 0 ? scalar(values) : render(values, 0);
  const extras = [];
  if (t.numel() === 0)
    extras.push(`size=(${t.shape.join(", ")}${t.ndim === 1 ? "," : ""})`);
  if (t.dtype !== "float32" && t.dtype !== "int64" && t.dtype !== "bool")
    extras.push(`dtype=torch.${t.dtype}`);
  extras.push(`device='${t.device}'`);
  if (t.requires_grad) extras.push("requires_grad=True");
  return `tensor(${body}, ${extras.join(", ")})`;
}

const ELLIPSIS = Symbol("...");
