// Convolution and pooling layers' output shapes at the type level (PyTorch's size formula,
// floor((L + 2p − d(k − 1) − 1) / s) + 1), and channel mismatches that do not compile.
import * as torch from "webtorch";
import type { Tensor } from "webtorch";
import { expectType } from "./expect.js";

const { nn } = torch;
const img = torch.zeros(8, 3, 32, 32);
const one = torch.zeros(3, 28, 28);
const seq = torch.zeros(4, 16, 100);
const n = img.shape[0] as number;

// ---- Conv2d ----
const c1 = new nn.Conv2d(3, 16, 3);
expectType<Tensor<[8, 16, 30, 30]>>()(c1.forward(img));
expectType<Tensor<[16, 26, 26]>>()(c1.forward(one));
const c2 = new nn.Conv2d(3, 16, 3, { padding: 1 });
expectType<Tensor<[8, 16, 32, 32]>>()(c2.forward(img));
const c3 = new nn.Conv2d(3, 64, [7, 5], { stride: 2, padding: [3, 2] });
expectType<Tensor<[8, 64, 16, 16]>>()(c3.forward(img));
const c4 = new nn.Conv2d(3, 8, 3, { dilation: 2, stride: [1, 3] });
expectType<Tensor<[8, 8, 28, 10]>>()(c4.forward(img));
const same = new nn.Conv2d(3, 4, 5, { padding: "same" });
expectType<Tensor<[8, 4, 32, 32]>>()(same.forward(img));
const valid = new nn.Conv2d(3, 4, 5, { padding: "valid" });
expectType<Tensor<[8, 4, 28, 28]>>()(valid.forward(img));
// Unknown sizes stay unknown; the rest is still computed.
expectType<Tensor<[number, 16, 30, 30]>>()(
  c1.forward(torch.zeros(n, 3, 32, 32)),
);

// ---- Conv1d ----
const k1 = new nn.Conv1d(16, 33, 3, { stride: 2 });
expectType<Tensor<[4, 33, 49]>>()(k1.forward(seq));

// ---- pooling ----
const mp = new nn.MaxPool2d(2);
expectType<Tensor<[8, 3, 16, 16]>>()(mp.forward(img));
const mp3 = new nn.MaxPool2d(3, { stride: 2, padding: 1 });
expectType<Tensor<[8, 3, 16, 16]>>()(mp3.forward(img));
const mpCeil = new nn.MaxPool2d(3, { ceil_mode: true });
expectType<Tensor<[8, 3, number, number]>>()(mpCeil.forward(img));
const ap = new nn.AvgPool2d([2, 4]);
expectType<Tensor<[3, 14, 7]>>()(ap.forward(one));
const mp1 = new nn.MaxPool1d(4);
expectType<Tensor<[4, 16, 25]>>()(mp1.forward(seq));
const ap1 = new nn.AvgPool1d(3, { stride: 1 });
expectType<Tensor<[4, 16, 98]>>()(ap1.forward(seq));
const gap = new nn.AdaptiveAvgPool2d(1);
expectType<Tensor<[8, 3, 1, 1]>>()(gap.forward(img));
const gap2 = new nn.AdaptiveAvgPool2d([7, 4]);
expectType<Tensor<[8, 3, 7, 4]>>()(gap2.forward(img));
const gap1 = new nn.AdaptiveAvgPool1d(10);
expectType<Tensor<[4, 16, 10]>>()(gap1.forward(seq));

// ---- a small CNN, typed end to end ----
const feat = gap.forward(mp.forward(c2.forward(img).relu())).flatten(1);
expectType<Tensor<[8, 16]>>()(feat);
expectType<Tensor<[8, 10]>>()(new nn.Linear(16, 10).forward(feat));

// ---- wrong code ----
// @ts-expect-error — Conv2d(3, …) given 4 channels
c1.forward(torch.zeros(8, 4, 32, 32));
// @ts-expect-error — Conv2d wants a 3-D or 4-D input
c1.forward(torch.zeros(32, 32));
// @ts-expect-error — Conv1d(16, …) given 8 channels
k1.forward(torch.zeros(4, 8, 100));
// @ts-expect-error — the output is [8, 16, 30, 30], not [8, 16, 32, 32]
const wrong: Tensor<[8, 16, 32, 32]> = c1.forward(img);
// @ts-expect-error — MaxPool2d wants a 3-D or 4-D input
mp.forward(torch.zeros(32));
// @ts-expect-error — pooling keeps the channels: [8, 3, 16, 16]
const wrong2: Tensor<[8, 16, 16, 16]> = mp.forward(img);
void [wrong, wrong2];

// ---- narrow ----
const nx = torch.zeros(4, 10, 6);
expectType<Tensor<[4, 3, 6], "float32">>()(nx.narrow(1, 2, 3));
expectType<Tensor<[4, 10, 2], "float32">>()(nx.narrow(-1, 0, 2));
expectType<Tensor<[4, 10, number], "float32">>()(nx.narrow(2, 0, n));
// @ts-expect-error — dim 3 is out of range for a 3-D tensor
nx.narrow(3, 0, 1);
// @ts-expect-error — narrowing dim 1 to 3 gives [4, 3, 6]
const wrong3: Tensor<[4, 10, 6]> = nx.narrow(1, 0, 3);
void wrong3;
