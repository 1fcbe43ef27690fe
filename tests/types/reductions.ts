// Reductions beyond sum/mean (prod, amax/amin, max/min, argmax/argmin, all/any, count_nonzero,
// var/std, logsumexp, norm): the reduced shape with dim/keepdim as sum's, and the result dtype.
// tests/types/reductions_bad.ts holds the calls that must not compile.
import * as torch from "webtorch";
import type { DType, Tensor } from "webtorch";
import { expectType } from "./expect.js";

const x = torch.randn(2, 3, 4);
const i = torch.ones(2, 3, { dtype: "int32" });
const u = torch.ones(5, { dtype: "uint8" });

// ---- prod: int64 for integers ----
expectType<Tensor<[], "float32">>()(x.prod());
expectType<Tensor<[2, 4], "float32">>()(x.prod(1));
expectType<Tensor<[2, 1, 4], "float32">>()(x.prod(-2, true));
expectType<Tensor<[3], "int64">>()(i.prod(0));

// ---- amax / amin keep the dtype ----
expectType<Tensor<[4], "float32">>()(x.amax([0, 1]));
expectType<Tensor<[1, 1, 4], "float32">>()(x.amin([0, -2], true));
expectType<Tensor<[2, 3, 1], "float32">>()(x.amax({ dim: -1, keepdim: true }));
expectType<Tensor<[2], "int32">>()(i.amin(1));
expectType<Tensor<[], "int32">>()(i.amax());

// ---- max / min ----
expectType<Tensor<[], "float32">>()(x.max());
expectType<Tensor<[], "int32">>()(i.min());
const m = x.max(1);
expectType<Tensor<[2, 4], "float32">>()(m[0]);
expectType<Tensor<[2, 4], "int64">>()(m[1]);
// `.values` is also the array method's name, so its type is an intersection; assignable to:
const mvals: Tensor<[2, 4], "float32"> = m.values;
expectType<Tensor<[2, 4], "int64">>()(m.indices);
const [mv, mi] = x.min(-1, true);
expectType<Tensor<[2, 3, 1], "float32">>()(mv);
expectType<Tensor<[2, 3, 1], "int64">>()(mi);
expectType<Tensor<[3, 4], "float32">>()(x.max({ dim: 0 })[0]);
expectType<Tensor<[1, 3, 4], "int64">>()(
  x.min({ dim: 0, keepdim: true }).indices,
);
expectType<Tensor<[2, 3, 4], "float32">>()(x.max(torch.zeros(3, 1)));
expectType<Tensor<[5, 2, 3, 4], "float32">>()(x.min(torch.zeros(5, 1, 1, 1)));

// ---- argmax / argmin: int64 ----
expectType<Tensor<[], "int64">>()(x.argmax());
expectType<Tensor<[1, 1, 1], "int64">>()(x.argmax(undefined, true));
expectType<Tensor<[2, 4], "int64">>()(x.argmax(1));
expectType<Tensor<[2, 3, 1], "int64">>()(x.argmin(-1, true));
expectType<Tensor<[3, 4], "int64">>()(x.argmin({ dim: 0 }));
expectType<Tensor<[2, 1, 4], "int64">>()(x.argmax({ dim: 1, keepdim: true }));

// ---- all / any: bool (uint8 stays uint8) ----
expectType<Tensor<[], "bool">>()(x.all());
expectType<Tensor<[2, 3], "bool">>()(x.gt(0).any(-1));
expectType<Tensor<[2, 1], "bool">>()(i.all(1, true));
expectType<Tensor<[], "uint8">>()(u.any());

// ---- count_nonzero: int64, no keepdim ----
expectType<Tensor<[], "int64">>()(x.count_nonzero());
expectType<Tensor<[3], "int64">>()(x.count_nonzero([0, 2]));
expectType<Tensor<[2, 3], "int64">>()(x.count_nonzero(-1));

// ---- var / std: float, keepdim in the options ----
expectType<Tensor<[], "float32">>()(x.var());
expectType<Tensor<[2, 4], "float32">>()(x.var(1));
expectType<Tensor<[2, 1, 4], "float32">>()(
  x.std(1, { correction: 0, keepdim: true }),
);
expectType<Tensor<[1, 1, 1], "float32">>()(x.std(null, { keepdim: true }));
expectType<Tensor<[2], "float32">>()(x.var({ dim: [1, 2] }));
expectType<Tensor<[2, 3, 1], "float32">>()(
  x.std({ dim: -1, keepdim: true, unbiased: false }),
);

// ---- logsumexp ----
expectType<Tensor<[2, 3], "float32">>()(x.logsumexp(-1));
expectType<Tensor<[1, 3, 1], "float32">>()(x.logsumexp([0, 2], true));

// ---- norm ----
expectType<Tensor<[], "float32">>()(x.norm());
expectType<Tensor<[2, 3], "float32">>()(x.norm(2, -1));
expectType<Tensor<[2, 1, 4], "float32">>()(x.norm(1, 1, true));
expectType<Tensor<[], "float32">>()(x.norm("fro", null));
expectType<Tensor<[4], "float32">>()(x.norm({ p: Infinity, dim: [0, 1] }));
expectType<Tensor<[2, 3, 1], "float32">>()(x.norm({ dim: 2, keepdim: true }));

// ---- unknown sizes and dims degrade ----
declare const n: number;
declare const k: boolean;
const y = torch.zeros(n, 3);
expectType<Tensor<[number], "float32">>()(y.amax(1));
expectType<Tensor<[3], "int64">>()(y.argmax(0));
expectType<Tensor<number[], "float32">>()(x.amax(n));
expectType<Tensor<number[], "float32">>()(x.logsumexp(0, k));
const z: Tensor = x;
expectType<Tensor<number[], "int64">>()(z.argmax(0));
expectType<Tensor<number[], DType>>()(z.max(0)[0]);
void mvals;
