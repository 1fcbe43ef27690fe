// torch.narrow / torch.narrow_copy / torch.select and the narrow_copy method: the narrowed or
// removed dim, with negative dims; the calls that must not compile are at the end.
import * as torch from "webtorch";
import type { Tensor } from "webtorch";
import { expectType } from "./expect.js";

const x = torch.randn(4, 5, 6);
expectType<Tensor<[4, 2, 6], "float32">>()(torch.narrow(x, 1, 1, 2));
expectType<Tensor<[4, 5, 3], "float32">>()(torch.narrow(x, -1, 0, 3));
expectType<Tensor<[1, 5, 6], "float32">>()(torch.narrow_copy(x, 0, 3, 1));
expectType<Tensor<[4, 5, 2], "float32">>()(x.narrow_copy(2, 4, 2));
expectType<Tensor<[5, 6], "float32">>()(torch.select(x, 0, 3));
expectType<Tensor<[4, 5], "float32">>()(torch.select(x, -1, 0));
declare const n: number;
expectType<Tensor<number[], "float32">>()(torch.narrow(x, n, 0, 2));
expectType<Tensor<[4, number, 6], "float32">>()(torch.narrow(x, 1, 0, n));
const anyT: Tensor = x;
expectType<Tensor<number[]>>()(torch.select(anyT, 0, 0));

// ---- must not compile ----
// @ts-expect-error — narrow: Dimension out of range (expected to be in range of [-3, 2], but got 3)
torch.narrow(x, 3, 0, 1);
// @ts-expect-error — narrow_copy: dim out of range
x.narrow_copy(-4, 0, 1);
// @ts-expect-error — select: dim out of range
torch.select(x, 5, 0);
// @ts-expect-error — the narrowed dim is the length: [4, 2, 6] is not [4, 5, 6]
const nx: Tensor<[4, 5, 6]> = torch.narrow(x, 1, 0, 2);
void nx;
