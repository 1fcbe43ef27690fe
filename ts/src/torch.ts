/**
 * Everything `import * as torch from "webtorch"` gives, without loading anything: the package's
 * two entries re-export it — index.ts (loads the core and picks the device with a top-level
 * `await`) and require.ts (Node's `require`, which cannot wait: loads the core synchronously).
 *
 * @module
 */

import "./tensor/elementwise.js"; // installs the elementwise Tensor methods
import "./tensor/methods/index.js"; // installs the op families' Tensor methods
import "./tensor/autograd.js"; // installs the autograd Tensor members (requires_grad, backward, in-place _ forms)
import "./tensor/inplace_methods.js"; // installs the composite in-place methods, the random fills, type_as, nonzero, masked_select
export type { RandomFillOptions } from "./tensor/inplace_methods.js";
export * from "./ops/index_names.js";

export { init, type DeviceRequest, type InitOptions } from "./runtime.js";
export {
  set_default_device,
  get_default_device,
  device,
  type ToOptions,
} from "./ops/devices.js";
export type { DeviceName } from "./defaults.js";
export * as cuda from "./cuda.js";
export * from "./errors.js";
export {
  type DType,
  type Device,
  float32,
  float,
  int32,
  int,
  int64,
  long,
  uint8,
  bool,
  float16,
  half,
  bfloat16,
  float64,
  double,
} from "./dtype.js";
export type { CreationOptions, ReduceOptions, Shape } from "./args.js";
export {
  UNARY_OPS,
  BINARY_OPS,
  type UnaryOp,
  type BinaryOp,
} from "./ops/opnames.js";
export type * from "./shapes.js";
export {
  Tensor,
  type DTypeT,
  type FloatOf,
  type Promote,
  type ShapeT,
  type ShapesOf,
  type TypedArray,
  type Scalar,
  type NestedList,
  type AlphaOptions,
} from "./tensor/tensor.js";
export * from "./ops/ops.js";
export * from "./ops/creation.js";
export * from "./ops/reductions.js";
export * from "./ops/nn_kernels.js";
export * from "./ops/conditional.js";
export * from "./ops/indexing.js";
export * from "./ops/sorting.js";
export * from "./ops/searching.js";
export * from "./ops/unique.js";
export * from "./ops/aliases.js";
export * from "./ops/quantization.js";
export * from "./ops/pointwise.js";
export * from "./ops/scatter.js";
export { index_put, index_put_ } from "./ops/index_put.js";
export * from "./ops/masked_scatter.js";
import "./tensor/index_expr.js";
export type { IndexItem, IndexShape } from "./tensor/index_types.js";
export {
  conv1d,
  conv2d,
  conv3d,
  conv_transpose1d,
  conv_transpose2d,
  conv_transpose3d,
  batch_norm,
  constant_pad_nd,
  type IntOrTuple,
} from "./ops/conv.js";
export { avg_pool1d, adaptive_avg_pool1d } from "./nn/functional/pooling.js";
export { pixel_shuffle, pixel_unshuffle } from "./nn/functional/sampling.js";
export * as webgpu from "./webgpu/index.js";
export * as cpu from "./cpu.js";
export * as special from "./special.js";
export * as _C from "./internal.js";
export * as warnings from "./warnings.js";
export { TorchWarning } from "./warnings.js";

export {
  no_grad,
  enable_grad,
  inference_mode,
  is_grad_enabled,
  set_grad_enabled,
  type BackwardOptions,
  type GradFn,
  type GradHook,
  type RemovableHandle,
} from "./autograd/index.js";
export * as autograd from "./autograd/index.js";
export * as nn from "./nn/index.js";
export * as optim from "./optim/index.js";
export * as utils from "./utils/index.js";
export * as hub from "./hub/index.js";
export { Generator, default_generator } from "./generator.js";
export {
  save,
  load,
  loadBytes,
  type TensorDict,
  type LoadOptions,
  type LoadSource,
  type ByteInput,
  type FileHandleLike,
  type SaveOptions,
} from "./serialization/safetensors.js";
export { scope, keep } from "./lifetime.js";
export * as profiler from "./profiler.js";
export * from "./tensor/shape_ops.js";
export * from "./ops/joins.js";
export * from "./ops/creation_like.js";
export * from "./ops/random.js";
export * from "./ops/windows.js";
export * from "./ops/linalg.js";
export * from "./ops/einsum.js";
export * as einops from "./einops/index.js";
// torch.js spells them as torch.* functions too.
export { rearrange, reduce, repeat, pack, unpack } from "./einops/index.js";
export type * from "./einops/types.js";
export { $, type ExprValue } from "./expr/expr.js";
export type { ExprShape, ExprEnv } from "./expr/types.js";
export * from "./ops/composites.js";
export * from "./ops/trapezoid.js";
export * from "./ops/activations.js";
export * from "./state.js";
import "./tensor/printing.js"; // installs Tensor.format and Tensor.print
export * from "./ops/bitwise.js";
export * from "./ops/statistics.js";
export {
  ops,
  register_function,
  register_method,
  register_kernel,
  register_forward,
  register_backward,
  list_ops,
  list_functions,
  list_methods,
  list_kernels,
  has_kernel,
  has_autograd,
  get_op_info,
  coverage_report,
  type KernelConfig,
  type CPUKernel,
  type ShapeRule,
  type DTypeRule,
  type BackwardFn,
  type BackwardContext,
  type ForwardFn,
  type OpInfo,
  type CoverageReport,
} from "./extend/registry.js";
export {
  register_dtype,
  unregister_dtype,
  list_dtypes,
  has_dtype,
  get_dtype_info,
  QuantizedTensor,
  type DTypeConfig,
  type DTypeInfo,
} from "./extend/custom_dtypes.js";
export {
  register_device,
  unregister_device,
  list_devices,
  has_device,
  get_device_config,
  get_device_context,
  initialize_device,
  is_webgpu_available,
  is_cpu_only_mode,
  DeviceTensor,
  type DeviceConfig,
  type DeviceContext,
  type DeviceCapabilities,
  type DeviceBuffer,
  type BufferUsage,
  type DispatchConfig,
} from "./extend/devices.js";
export {
  get_device_module,
  type DeviceModule,
} from "./extend/device_module.js";
export {
  compile,
  compiler,
  type CompileOptions,
  type CompileStats,
  type Compiled,
} from "./compile/compile.js";
/**
 * torch.js's top-level memory functions (seeds/001's function index), the same functions as
 * `torch.webgpu`'s: `empty_cache()` frees pooled device memory; `memory_stats`, `memory_summary`
 * and `reset_peak_memory_stats` take PyTorch's `device` argument (default: the default device).
 */
export {
  empty_cache,
  memory_stats,
  memory_summary,
  reset_peak_memory_stats,
  type MemoryStats,
} from "./webgpu/index.js";
export { get_rng_state, set_rng_state } from "./ops/rng_state.js";
export { sym_float, sym_int, sym_not } from "./ops/sym.js";
export { vmap, type VmapDims, type VmapOptions } from "./ops/vmap.js";
