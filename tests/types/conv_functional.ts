// F.conv1d/conv2d and the functional pools: output shapes from the input's and weight's shapes
// and literal stride/padding/dilation/groups/kernel sizes; the calls that must not compile are
// at the end (each `@ts-expect-error` line has to be a type error).
import * as torch from "webtorch";
import type { Tensor } from "webtorch";
import { expectType } from "./expect.js";

const F = torch.nn.functional;
const img = torch.randn(8, 3, 32, 32);
const w = torch.randn(16, 3, 3, 3);

// ---- conv2d ----
expectType<Tensor<[8, 16, 30, 30]>>()(F.conv2d(img, w));
expectType<Tensor<[8, 16, 32, 32]>>()(F.conv2d(img, w, null, 1, 1));
expectType<Tensor<[8, 16, 16, 16]>>()(F.conv2d(img, w, torch.zeros(16), 2, 1));
expectType<Tensor<[8, 16, 28, 28]>>()(F.conv2d(img, w, null, 1, 0, 2));
expectType<Tensor<[8, 16, 32, 32]>>()(F.conv2d(img, w, null, 1, "same"));
expectType<Tensor<[8, 16, 30, 30]>>()(F.conv2d(img, w, null, 1, "valid"));
expectType<Tensor<[8, 16, 15, 32]>>()(
  F.conv2d(img, torch.randn(16, 3, 3, 1), null, [2, 1], [0, 0]),
);
expectType<Tensor<[16, 30, 30]>>()(F.conv2d(torch.randn(3, 32, 32), w));
// groups: the weight's second dim times groups is the input's channel count
expectType<Tensor<[8, 6, 30, 30]>>()(
  F.conv2d(
    torch.randn(8, 6, 32, 32),
    torch.randn(6, 2, 3, 3),
    null,
    1,
    0,
    1,
    3,
  ),
);
// unknown sizes degrade
declare const n: number;
expectType<Tensor<[number, 16, 30, 30]>>()(
  F.conv2d(torch.randn(n, 3, 32, 32), w),
);
expectType<Tensor<[8, 16, number, number]>>()(F.conv2d(img, w, null, n));
const anyImg: Tensor = img;
expectType<Tensor<number[]>>()(F.conv2d(anyImg, w));

// ---- conv1d ----
const seq = torch.randn(4, 8, 100);
expectType<Tensor<[4, 32, 96]>>()(F.conv1d(seq, torch.randn(32, 8, 5)));
expectType<Tensor<[4, 32, 50]>>()(
  F.conv1d(seq, torch.randn(32, 8, 5), null, 2, 2),
);
expectType<Tensor<[32, 100]>>()(
  F.conv1d(torch.randn(8, 100), torch.randn(32, 8, 5), null, 1, "same"),
);

// ---- pools ----
expectType<Tensor<[8, 3, 16, 16], "float32">>()(F.max_pool2d(img, 2));
expectType<Tensor<[8, 3, 16, 16], "float32">>()(F.max_pool2d(img, 3, 2, 1));
expectType<Tensor<[8, 3, 31, 31], "float32">>()(F.max_pool2d(img, [2, 2], 1));
expectType<Tensor<[8, 3, 15, 15], "float32">>()(F.max_pool2d(img, 2, 2, 0, 3));
expectType<Tensor<[8, 3, number, number], "float32">>()(
  F.max_pool2d(img, 3, 2, 0, 1, true),
);
expectType<Tensor<[4, 8, 50], "float32">>()(F.max_pool1d(seq, 2));
expectType<Tensor<[8, 3, 8, 8], "float32">>()(F.avg_pool2d(img, 4));
expectType<Tensor<[8, 3, 16, 32], "float32">>()(F.avg_pool2d(img, [2, 1]));
expectType<Tensor<[4, 8, 34], "float32">>()(F.avg_pool1d(seq, 3, 3, 1));
expectType<Tensor<[8, 3, 1, 1], "float32">>()(F.adaptive_avg_pool2d(img, 1));
expectType<Tensor<[8, 3, 7, 5], "float32">>()(
  F.adaptive_avg_pool2d(img, [7, 5]),
);
expectType<Tensor<[4, 8, 10], "float32">>()(F.adaptive_avg_pool1d(seq, 10));

// ---- must not compile ----
// @ts-expect-error — conv2d: the input has 4 channels, the weight expects 3
F.conv2d(torch.randn(8, 4, 32, 32), w);
// @ts-expect-error — conv2d: groups 2 with a [16, 3, 3, 3] weight expects 6 channels
F.conv2d(img, w, null, 1, 0, 1, 2);
// @ts-expect-error — conv2d of a 2-d input
F.conv2d(torch.randn(32, 32), w);
// @ts-expect-error — conv1d of a 4-d input
F.conv1d(img, torch.randn(32, 3, 5));
// @ts-expect-error — the result's shape is checked downstream: [8, 16, 30, 30] is not [8, 16, 32, 32]
const c0: Tensor<[8, 16, 32, 32]> = F.conv2d(img, w);
// @ts-expect-error — max_pool2d of a 2-d input
F.max_pool2d(torch.randn(32, 32), 2);
// @ts-expect-error — avg_pool1d of a 4-d input
F.avg_pool1d(img, 2);
// @ts-expect-error — adaptive_avg_pool2d of a 1-d input
F.adaptive_avg_pool2d(torch.randn(10), 1);
void c0;

// 3-D max pooling without indices is a tensor; with them, a pair.
const vol = torch.randn(1, 2, 4, 4, 4);
const mp3: Tensor = F.max_pool3d(vol, 2);
const mp3i: [Tensor, Tensor] = F.max_pool3d(vol, 2, null, 0, 1, false, true);
void mp3;
void mp3i;
// torch.max_pool3d (PyTorch's native binding) has no return_indices: always a tensor.
const tmp3: Tensor = torch.max_pool3d(vol, 2, null, 0, 1, false);
// @ts-expect-error — torch.max_pool2d takes no return_indices
torch.max_pool2d(img, 2, 2, 0, 1, false, true);
void tmp3;
