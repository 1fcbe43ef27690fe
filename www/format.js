// PyTorch-style printing of a tensor's values, for the playground: `tensor([[2.5000, 0.0000], …])`.

/** Formats a tensor like PyTorch's repr (values read asynchronously). */
export async function formatTensor(t) {
  const values = await t.tolist();
  const float = t.dtype === "float32";
  const scalar = (v) => {
    if (typeof v === "boolean") return v ? "True" : "False";
    if (!float) return String(v);
    if (Number.isNaN(v)) return "nan";
    if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
    return v.toFixed(4);
  };
  const flat = [];
  const walk = (x) =>
    Array.isArray(x) ? x.forEach(walk) : flat.push(scalar(x));
  walk(values);
  const width = Math.max(0, ...flat.map((s) => s.length));
  const indent = "tensor(".length;
  const render = (x, depth) => {
    if (!Array.isArray(x)) return scalar(x).padStart(width);
    const sep =
      depth === t.ndim - 1
        ? ", "
        : ",\n" +
          "\n".repeat(Math.max(0, t.ndim - depth - 2)) +
          " ".repeat(indent + depth + 1);
    return "[" + x.map((y) => render(y, depth + 1)).join(sep) + "]";
  };
  const body = t.ndim === 0 ? scalar(values) : render(values, 0);
  const extras = [];
  if (t.dtype !== "float32" && t.dtype !== "int64" && t.dtype !== "bool")
    extras.push(`dtype=torch.${t.dtype}`);
  if (t.numel() === 0)
    extras.push(`size=(${t.shape.join(", ")}${t.ndim === 1 ? "," : ""})`);
  extras.push(`device='${t.device}'`);
  return `tensor(${body}, ${extras.join(", ")})`;
}
