// Code that must type-check against the published declarations.
import * as torch from "webtorch";
import {
  Tensor,
  ShapeError,
  TorchError,
  type DType,
  type Device,
} from "webtorch";

const device: Device = torch.get_default_device();
const f: DType = torch.float32;
const dtypes: DType[] = [
  torch.float32,
  torch.int32,
  torch.int64,
  torch.uint8,
  torch.bool,
  "float32",
];

const a: Tensor = torch.tensor(
  [
    [1, 2],
    [3, 4],
  ],
  { dtype: f, device },
);
const b = torch.tensor(new Float32Array([1, 2, 3, 4])).reshape(2, 2);
const c = torch
  .zeros(2, 3)
  .add(torch.ones([3]), { alpha: 2 })
  .sub(1)
  .mul(2)
  .div(torch.full([1], 4));
const d = torch
  .randn(2, 3)
  .matmul(torch.rand([3, 4]))
  .relu()
  .exp()
  .neg()
  .sum();
const e = torch.sum(a, 1, true).mean({ dim: [0, 1], keepdim: false });
const g = torch
  .arange(0, 10, 2, { dtype: "float32" })
  .view(-1, 1)
  .expand(5, 3)
  .contiguous();
const h = a
  .transpose(0, 1)
  .permute(1, 0)
  .t()
  .to("float32")
  .float()
  .int()
  .clone();
const i = torch
  .sub(1, a)
  .pow(2)
  .maximum(a)
  .minimum(3)
  .eq(a)
  .ne(true)
  .lt(2)
  .le(b)
  .gt(0)
  .ge(c.sum());
const unary = [
  a.abs(),
  a.sqrt(),
  a.log(),
  a.sigmoid(),
  a.tanh(),
  a.square(),
  a.sin(),
  a.cos(),
];
const fns = [
  torch.abs(a),
  torch.exp(a),
  torch.relu(a),
  torch.add(a, 1),
  torch.matmul(a, b),
];
torch.manual_seed(0);

async function reads(): Promise<void> {
  const arr: Float32Array | Float64Array | Int32Array | Uint8Array =
    await d.toArray();
  const v: number | boolean = await d.item();
  const list: torch.NestedList = await a.tolist();
  const shape: readonly number[] = a.shape;
  const n: number = a.numel() + a.ndim + a.dim() + a.size(0) + a.stride(-1);
  const sizes: readonly number[] = a.size();
  const contiguous: boolean = a.is_contiguous();
  await torch.webgpu.sync_device();
  torch.webgpu.flush_batch();
  torch.webgpu.set_batch_threshold(64);
  torch.webgpu.set_batch_delay(16);
  const pending: number = torch.webgpu.get_pending_count();
  const stats: torch.webgpu.RuntimeStats = torch.webgpu.runtime_stats();
  const available: boolean = torch.webgpu.is_available();
  const name: Device = await torch.init({ device: "cpu" });
  {
    using t = torch.ones(3);
    void t;
  }
  void [
    arr,
    v,
    list,
    shape,
    n,
    sizes,
    contiguous,
    pending,
    stats,
    available,
    name,
  ];
}

function handle(err: unknown): string {
  if (err instanceof ShapeError) return err.message;
  if (err instanceof TorchError) return err.name;
  return "";
}

void [dtypes, c, e, g, h, i, unary, fns, reads, handle];

// Every op-table row named in UNARY_OPS/BINARY_OPS is a torch.* function and a Tensor method
// (a name missing from either fails here, at compile time).
type UnaryFns = { [K in torch.UnaryOp]: (input: Tensor) => Tensor };
type BinaryFns = {
  [K in torch.BinaryOp]: (
    input: Tensor | number,
    other: Tensor | number,
  ) => Tensor;
};
type UnaryMethods = { [K in torch.UnaryOp]: () => Tensor };
type BinaryMethods = {
  [K in torch.BinaryOp]: (other: Tensor | number | boolean) => Tensor;
};
export const everyOpIsAFunction: UnaryFns & BinaryFns = torch;
export const everyOpIsAMethod: UnaryMethods & BinaryMethods = a;

// The torch.webgpu namespace.
async function webgpuNamespace(x: Tensor): Promise<void> {
  const w = torch.webgpu;
  const y: Tensor = w.batch(() => x.add(1).relu());
  const n: number = await w.batch(async () => 1);
  w.disable_batching();
  w.enable_batching();
  const batching: boolean = w.is_batching_enabled();
  w.enable_fusion();
  w.disable_fusion();
  w.set_fusion_window(4);
  w.set_fusion_min_size(1024);
  const fusion: torch.webgpu.FusionStats = w.get_fusion_stats();
  const fused: number =
    fusion.fusions +
    fusion.fused_ops +
    fusion.bypasses +
    (fusion.patterns["add_relu"] ?? 0);
  w.add_fusion_pattern({
    ops: ["add", "relu"],
    name: "mine",
    description: "d",
  });
  const patterns: torch.webgpu.FusionPattern[] = w.get_fusion_patterns();
  const mem: torch.webgpu.MemoryStats = w.memory_stats();
  const summary: string = w.memory_summary();
  w.empty_cache();
  const caps = w.getCapabilities();
  const maxBuffer: number | undefined = caps?.limits["maxBufferSize"];
  void [
    y,
    n,
    batching,
    fused,
    patterns,
    mem,
    summary,
    maxBuffer,
    w.is_fusion_enabled(),
  ];
}
void webgpuNamespace;

// Device moves: a core device gives a Tensor, a registered custom device a DeviceTensor; dtype
// conversions keep their type.
const movedToCpu: Tensor = torch.ones(2).to("cpu");
const movedToCustom: torch.DeviceTensor = torch.ones(2).to("mydevice");
const converted: Tensor = torch.ones(2).to("int32");
void [movedToCpu, movedToCustom, converted];

// PyTorch's device spellings: "cuda" is the WebGPU device; moves keep the shape type.
const onCuda: Tensor<[2, 3]> = torch.ones(2, 3, { device: "cuda" }).cuda();
const back: Tensor<[2, 3], "float32"> = onCuda
  .to("cuda:0", "float16")
  .cpu()
  .float();
const keywords: Tensor = onCuda.to({ device: "cpu", dtype: "bfloat16" });
const model: torch.nn.Linear = new torch.nn.Linear(2, 2)
  .to("cuda")
  .half()
  .cpu();
const gpuCount: number = torch.cuda.device_count();
const synced: Promise<void> = torch.cuda.synchronize();
torch.set_default_device("cuda");
torch.set_default_dtype(torch.bfloat16);
const where: Device = torch.device("cuda", 0);
void [back, keywords, model, gpuCount, synced, where];
