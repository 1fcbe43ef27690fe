/**
 * `torch.nn.functional`: the stateless forms of the layers and losses, by PyTorch's doc sections:
 * activations (activations.ts, and the op-table rows of ops/ops.ts), linear, dropout,
 * normalization, embedding, attention, pooling and convolution (ops/conv.ts), interpolate,
 * sampling, shuffling and sliding blocks (sampling.ts),
 * distance and the losses (losses.ts, loss_composites.ts).
 *
 * @module
 */

export {
  relu,
  silu,
  mish,
  logsigmoid,
  softsign,
  tanhshrink,
  hardsigmoid,
  hardswish,
  selu,
  relu6,
  sigmoid,
  tanh,
} from "../../ops/ops.js";

export {
  gelu,
  softplus,
  elu,
  celu,
  leaky_relu,
  hardtanh,
  softmax,
  softmin,
  log_softmax,
} from "./activations.js";

export {
  conv1d,
  conv2d,
  conv3d,
  conv_transpose1d,
  conv_transpose2d,
  conv_transpose3d,
  batch_norm,
  pad,
} from "../../ops/conv.js";

export type { Reduction } from "./losses.js";
export { linear, bilinear } from "./linear.js";
export { dropout } from "./dropout.js";
export {
  layer_norm,
  rms_norm,
  group_norm,
  instance_norm,
  type InstanceNormOptions,
} from "./normalization.js";
export {
  one_hot,
  embedding,
  embedding_bag,
  type EmbeddingBagOptions,
} from "./embedding.js";
export {
  scaled_dot_product_attention,
  type AttentionOptions,
} from "./attention.js";
export {
  max_pool1d,
  max_pool2d,
  max_pool3d,
  avg_pool1d,
  avg_pool2d,
  avg_pool3d,
  adaptive_avg_pool1d,
  adaptive_avg_pool2d,
  adaptive_avg_pool3d,
  adaptive_max_pool1d,
  adaptive_max_pool2d,
  adaptive_max_pool3d,
  max_unpool1d,
  max_unpool2d,
  max_unpool3d,
} from "./pooling.js";
export {
  mse_loss,
  l1_loss,
  smooth_l1_loss,
  nll_loss,
  cross_entropy,
  binary_cross_entropy,
  binary_cross_entropy_with_logits,
  type ClassLossOptions,
} from "./losses.js";
export { pairwise_distance, cosine_similarity } from "./distance.js";

export {
  normalize,
  pixel_shuffle,
  pixel_unshuffle,
  unfold,
  fold,
  grid_sample,
  affine_grid,
  type NormalizeOptions,
  type BlockOptions,
  type GridSampleOptions,
} from "./sampling.js";

export {
  interpolate,
  upsample,
  type InterpolateOptions,
} from "./interpolate.js";

export {
  huber_loss,
  kl_div,
  poisson_nll_loss,
  gaussian_nll_loss,
  margin_ranking_loss,
  hinge_embedding_loss,
  soft_margin_loss,
  multilabel_soft_margin_loss,
  multilabel_margin_loss,
  multi_margin_loss,
  cosine_embedding_loss,
  triplet_margin_loss,
  triplet_margin_with_distance_loss,
  ctc_loss,
  type CTCLossOptions,
  type PoissonNLLOptions,
  type GaussianNLLOptions,
  type MultiMarginOptions,
  type TripletMarginOptions,
  type TripletDistanceOptions,
} from "./loss_composites.js";

export {
  hardshrink,
  softshrink,
  threshold,
  glu,
  prelu,
  rrelu,
} from "../../ops/activations.js";
