/**
 * The JS runner's calls for the torch.nn.functional ops of the parity sweep's loss, norm and
 * sampling families: the twin of fixture_nn.py (its convention: `F[op](...inputs, options)`, the
 * last inputs named by `kw_inputs` going into the options; instance_norm's running statistics
 * are fill values and its result `[y, running_mean, running_var]`). Returns `undefined` for other
 * ops.
 */

const NN_OPS = new Set([
  "soft_margin_loss",
  "kl_div",
  "binary_cross_entropy",
  "binary_cross_entropy_with_logits",
  "poisson_nll_loss",
  "gaussian_nll_loss",
  "margin_ranking_loss",
  "hinge_embedding_loss",
  "cosine_embedding_loss",
  "multilabel_soft_margin_loss",
  "multilabel_margin_loss",
  "multi_margin_loss",
  "triplet_margin_loss",
  "triplet_margin_with_distance_loss",
  "ctc_loss",
  "pairwise_distance",
  "cosine_similarity",
  "pixel_shuffle",
  "pixel_unshuffle",
  "unfold",
  "fold",
  "grid_sample",
  "affine_grid",
  "instance_norm",
]);

export function callNN(torch, op, a, inputs) {
  if (!NN_OPS.has(op)) return undefined;
  const { kw_inputs: names = [], ...opts } = a;
  const pos = inputs.slice(0, inputs.length - names.length);
  names.forEach((k, i) => {
    opts[k] = inputs[pos.length + i];
  });
  if (op === "instance_norm") {
    const c = pos[0].shape[1];
    const stat = (v) =>
      torch.full([c], v, { dtype: pos[0].dtype, device: pos[0].device });
    const has = opts.running_mean !== undefined;
    if (has) {
      opts.running_mean = stat(opts.running_mean);
      opts.running_var = stat(opts.running_var);
    }
    const y = torch.nn.functional.instance_norm(...pos, opts);
    return has ? [y, opts.running_mean, opts.running_var] : y;
  }
  return torch.nn.functional[op](...pos, opts);
}
