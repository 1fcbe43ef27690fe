/**
 * The JS runner's calls for webtorch's small languages (einops patterns, index expressions,
 * tensor expressions): the twin of fixture_syntax.py. Returns `undefined` for other ops; a tuple
 * result (`unpack`) is an array.
 */

/** The fixture's index items as webtorch takes them (`{t: k}`: input k; `{list}`: an array). */
function items(a, inputs) {
  return a.items.map((it) =>
    it !== null && typeof it === "object"
      ? "t" in it
        ? inputs[it.t]
        : it.list
      : it,
  );
}

export function callSyntax(torch, op, a, inputs) {
  const src = a.list ? inputs : inputs[0];
  const { einops } = torch;
  switch (op) {
    case "rearrange":
      return einops.rearrange(src, a.pattern, a.lengths);
    case "einops_reduce":
      return einops.reduce(src, a.pattern, a.reduction, a.lengths);
    case "einops_repeat":
      return einops.repeat(src, a.pattern, a.lengths);
    case "pack":
      return einops.pack(inputs, a.pattern)[0];
    case "unpack":
      return einops.unpack(inputs[0], a.ps, a.pattern);
    case "getitem":
      return a.mask
        ? inputs[0].index_async(...items(a, inputs))
        : inputs[0].index(...items(a, inputs));
    case "setitem": {
      const y = inputs[0].clone();
      return y.set(items(a, inputs), "value" in a ? a.value : inputs.at(-1));
    }
    case "expr":
      return torch.$(
        a.expr,
        Object.fromEntries(a.names.map((n, k) => [n, inputs[k]])),
      );
    default:
      return undefined;
  }
}
