// Types as precise as the values (issue #34): item() by dtype, the dtype through sum/Linear/
// Module.call and the functional activations, the shape through F.relu & co. and Module.call.
// tests/types/precise_bad.ts holds the calls that must not compile.
import * as torch from "webtorch";
import { nn, type DType, type Tensor } from "webtorch";
import { expectType } from "./expect.js";

const F = nn.functional;
const x = torch.randn(2, 3);
const h = torch.zeros(2, 3, { dtype: "float16" });
const bf = torch.zeros(4, { dtype: "bfloat16" });
const i32 = torch.ones(2, 3, { dtype: "int32" });
const i64 = torch.zeros(6, { dtype: "int64" });
const u8 = torch.ones(5, { dtype: "uint8" });
const b = torch.ones(2, 2, { dtype: "bool" });
declare const any: Tensor;

// ---- item() by dtype ----
expectType<Promise<number>>()(x.sum().item());
expectType<Promise<number>>()(x.mean().item());
expectType<Promise<number>>()(i32.sum().item());
expectType<Promise<number>>()(i64.max().item());
expectType<Promise<number>>()(u8.amax().item());
expectType<Promise<number>>()(h.sum().item());
expectType<Promise<boolean>>()(b.all().item());
expectType<Promise<boolean>>()(x.gt(0).any().item());
expectType<Promise<boolean>>()(torch.isnan(x).any().item());
expectType<Promise<number | boolean>>()(any.item());
export async function strict(): Promise<string> {
  // The example: a number under `strict`, so `toFixed` is there.
  return (await x.sum().item()).toFixed(2);
}

// ---- sum: the input's floating dtype, int64 for integers and bool, or `dtype` ----
expectType<Tensor<[], "float32">>()(x.sum());
expectType<Tensor<[3], "float32">>()(x.sum(0));
expectType<Tensor<[2, 1], "float32">>()(x.sum(1, true));
expectType<Tensor<[3], "float32">>()(x.sum({ dim: 0 }));
expectType<Tensor<[2], "float16">>()(h.sum(1));
expectType<Tensor<[], "bfloat16">>()(bf.sum());
expectType<Tensor<[], "float64">>()(torch.zeros(3, { dtype: "float64" }).sum());
expectType<Tensor<[2], "int64">>()(i32.sum(1));
expectType<Tensor<[], "int64">>()(i64.sum());
expectType<Tensor<[], "int64">>()(u8.sum());
expectType<Tensor<[2], "int64">>()(b.sum(0));
expectType<Tensor<[1, 3], "int64">>()(i32.sum({ dim: 0, keepdim: true }));
expectType<Tensor<[], "float32">>()(i32.sum({ dtype: "float32" }));
expectType<Tensor<[3], "float32">>()(i32.sum(0, false, { dtype: "float32" }));
expectType<Tensor<[2], "float16">>()(x.sum(1, false, { dtype: "float16" }));
expectType<Tensor<number[], DType>>()(any.sum(0));

// ---- nn.Linear and Module.call ----
const fc = new nn.Linear(3, 4);
expectType<Tensor<[2, 4], "float32">>()(fc.forward(x));
expectType<Tensor<[2, 4], "float32">>()(fc.call(x));
expectType<Tensor<[2, 4], "float16">>()(fc.call(h));
expectType<Tensor<[5, 2, 4], "float32">>()(fc.call(torch.randn(5, 2, 3)));
expectType<Tensor<number[], DType>>()(fc.call(any));
const relu = new nn.ReLU();
expectType<Tensor<[2, 3], "float32">>()(relu.call(x));
expectType<Tensor<[2, 3], "int32">>()(relu.call(i32));
expectType<Tensor<[2, 3], "float32">>()(new nn.Sigmoid().call(x));
expectType<Tensor<[2, 3], "float32">>()(new nn.Tanh().forward(x));
expectType<Tensor<[2, 3], "float32">>()(new nn.GELU().call(x));
expectType<Tensor<[2, 3], "float32">>()(new nn.Softmax(-1).call(x));
expectType<Tensor<[2, 3], "float32">>()(new nn.LogSoftmax(1).call(x));
expectType<Tensor<[2, 3], "float32">>()(new nn.Dropout(0.1).call(x));
expectType<Tensor<[2, 3], "float16">>()(new nn.Identity().call(h));
expectType<Tensor<[2, 3], "float32">>()(new nn.LeakyReLU(0.2).call(x));
expectType<Tensor<[2, 3], "float32">>()(new nn.Hardtanh().call(x));
expectType<Tensor<[2, 3], "float32">>()(new nn.ELU().call(x));
expectType<Tensor<[2, 3], "float32">>()(new nn.Softplus().call(x));

/** A user module: `call` has its `forward`'s type, type parameters included. */
class Head extends nn.Module {
  fc = new nn.Linear(3, 2);
  override forward<B extends number>(
    input: Tensor<[B, 3], "float32">,
  ): Tensor<[B, 2], "float32"> {
    // A generic B is beyond Linear's shape arithmetic: the body casts, callers get the types.
    return this.fc.call(input as Tensor).relu() as never;
  }
}
const head = new Head();
expectType<Tensor<[7, 2], "float32">>()(head.call(torch.randn(7, 3)));
expectType<Tensor<[2, 2], "float32">>()(head.call(x));
const gru = new nn.GRU(3, 4);
expectType<[Tensor, Tensor]>()(gru.call(torch.zeros(5, 2, 3)));

// ---- functional activations: the shape, and the dtype by PyTorch's rule ----
expectType<Tensor<[2, 3], "float32">>()(F.relu(x));
expectType<Tensor<[2, 3], "int32">>()(F.relu(i32));
expectType<Tensor<[2, 3], "float16">>()(F.relu6(h));
expectType<Tensor<[2, 3], "float32">>()(F.sigmoid(x));
expectType<Tensor<[2, 3], "float32">>()(F.tanh(x));
expectType<Tensor<[2, 3], "float32">>()(F.silu(x));
expectType<Tensor<[2, 3], "float32">>()(F.gelu(x));
expectType<Tensor<[2, 3], "float32">>()(F.gelu(x, { approximate: "tanh" }));
expectType<Tensor<[2, 3], "float32">>()(F.softmax(x, -1));
expectType<Tensor<[2, 3], "float32">>()(F.log_softmax(x, 1));
expectType<Tensor<[2, 3], "float32">>()(F.softmin(x, 0));
expectType<Tensor<[2, 3], "float32">>()(F.leaky_relu(x, 0.1));
expectType<Tensor<[2, 3], "float32">>()(F.hardtanh(x, -2, 2));
expectType<Tensor<[2, 3], "float32">>()(F.elu(x));
expectType<Tensor<[2, 3], "float32">>()(F.celu(x, 2));
expectType<Tensor<[2, 3], "float32">>()(F.softplus(x));
expectType<Tensor<[2, 3], "float32">>()(F.dropout(x, 0.5));
expectType<Tensor<[2, 3], "float32">>()(F.hardswish(x));
expectType<Tensor<[2, 3], "float32">>()(F.mish(x));
expectType<Tensor<[2, 3], "float32">>()(torch.exp(x));
expectType<Tensor<[2, 3], "int32">>()(torch.abs(i32));
expectType<Tensor<[2, 3], "bool">>()(torch.isnan(x));
expectType<Tensor<[2, 3], "bool">>()(torch.logical_not(i32));
expectType<Tensor<[2, 4], "float32">>()(F.relu(fc.call(x)));
expectType<Tensor<number[], DType>>()(F.relu(any));
