/**
 * The JS runner's calls for webtorch's small languages (einops patterns, index expressions,
 * tensor expressions): the twin of fixture_syntax.py. Returns `undefined` for other ops; a tuple
 * result (`unpack`) is an array.
 */

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
    default:
      return undefined;
  }
}
