// A ~300-line typed model (attention blocks, MLPs, a CNN head written with views): compiled by
// `make test-types` and used to measure tsc's time on shape-typed code (docs/types.md).
import * as torch from "webtorch";
import type { Tensor } from "webtorch";
import { expectType } from "./expect.js";

const B = 4;
const T = 16;
const C = 64;
const H = 4;
const D = 16;

// ---- block 0 ----
function attention0(x: Tensor<[4, 16, 64], "float32">): Tensor<[4, 16, 64]> {
  const wq = torch.randn(C, C);
  const wk = torch.randn(C, C);
  const wv = torch.randn(C, C);
  const q = x.matmul(wq).view(B, T, H, D).transpose(1, 2);
  const k = x.matmul(wk).view(B, T, H, D).transpose(1, 2);
  const v = x.matmul(wv).view(B, T, H, D).transpose(1, 2);
  const att = q
    .matmul(k.mT)
    .mul(1 / Math.sqrt(D))
    .softmax(-1);
  const y = att.matmul(v).transpose(1, 2).contiguous().view(B, T, C);
  const scores = torch.einsum("bhqd,bhkd->bhqk", q, k);
  expectType<Tensor<[4, 4, 16, 16]>>()(scores);
  const fc = new torch.nn.Linear(64, 256);
  const proj = new torch.nn.Linear(256, 64);
  const h = proj.forward(fc.forward(y).relu());
  return h.add(x).sum(-1, true).expand(B, T, C).add(y);
}

// ---- block 1 ----
function attention1(x: Tensor<[4, 16, 64], "float32">): Tensor<[4, 16, 64]> {
  const wq = torch.randn(C, C);
  const wk = torch.randn(C, C);
  const wv = torch.randn(C, C);
  const q = x.matmul(wq).view(B, T, H, D).transpose(1, 2);
  const k = x.matmul(wk).view(B, T, H, D).transpose(1, 2);
  const v = x.matmul(wv).view(B, T, H, D).transpose(1, 2);
  const att = q
    .matmul(k.mT)
    .mul(1 / Math.sqrt(D))
    .softmax(-1);
  const y = att.matmul(v).transpose(1, 2).contiguous().view(B, T, C);
  const scores = torch.einsum("bhqd,bhkd->bhqk", q, k);
  expectType<Tensor<[4, 4, 16, 16]>>()(scores);
  const fc = new torch.nn.Linear(64, 256);
  const proj = new torch.nn.Linear(256, 64);
  const h = proj.forward(fc.forward(y).relu());
  return h.add(x).sum(-1, true).expand(B, T, C).add(y);
}

// ---- block 2 ----
function attention2(x: Tensor<[4, 16, 64], "float32">): Tensor<[4, 16, 64]> {
  const wq = torch.randn(C, C);
  const wk = torch.randn(C, C);
  const wv = torch.randn(C, C);
  const q = x.matmul(wq).view(B, T, H, D).transpose(1, 2);
  const k = x.matmul(wk).view(B, T, H, D).transpose(1, 2);
  const v = x.matmul(wv).view(B, T, H, D).transpose(1, 2);
  const att = q
    .matmul(k.mT)
    .mul(1 / Math.sqrt(D))
    .softmax(-1);
  const y = att.matmul(v).transpose(1, 2).contiguous().view(B, T, C);
  const scores = torch.einsum("bhqd,bhkd->bhqk", q, k);
  expectType<Tensor<[4, 4, 16, 16]>>()(scores);
  const fc = new torch.nn.Linear(64, 256);
  const proj = new torch.nn.Linear(256, 64);
  const h = proj.forward(fc.forward(y).relu());
  return h.add(x).sum(-1, true).expand(B, T, C).add(y);
}

// ---- block 3 ----
function attention3(x: Tensor<[4, 16, 64], "float32">): Tensor<[4, 16, 64]> {
  const wq = torch.randn(C, C);
  const wk = torch.randn(C, C);
  const wv = torch.randn(C, C);
  const q = x.matmul(wq).view(B, T, H, D).transpose(1, 2);
  const k = x.matmul(wk).view(B, T, H, D).transpose(1, 2);
  const v = x.matmul(wv).view(B, T, H, D).transpose(1, 2);
  const att = q
    .matmul(k.mT)
    .mul(1 / Math.sqrt(D))
    .softmax(-1);
  const y = att.matmul(v).transpose(1, 2).contiguous().view(B, T, C);
  const scores = torch.einsum("bhqd,bhkd->bhqk", q, k);
  expectType<Tensor<[4, 4, 16, 16]>>()(scores);
  const fc = new torch.nn.Linear(64, 256);
  const proj = new torch.nn.Linear(256, 64);
  const h = proj.forward(fc.forward(y).relu());
  return h.add(x).sum(-1, true).expand(B, T, C).add(y);
}

// ---- block 4 ----
function attention4(x: Tensor<[4, 16, 64], "float32">): Tensor<[4, 16, 64]> {
  const wq = torch.randn(C, C);
  const wk = torch.randn(C, C);
  const wv = torch.randn(C, C);
  const q = x.matmul(wq).view(B, T, H, D).transpose(1, 2);
  const k = x.matmul(wk).view(B, T, H, D).transpose(1, 2);
  const v = x.matmul(wv).view(B, T, H, D).transpose(1, 2);
  const att = q
    .matmul(k.mT)
    .mul(1 / Math.sqrt(D))
    .softmax(-1);
  const y = att.matmul(v).transpose(1, 2).contiguous().view(B, T, C);
  const scores = torch.einsum("bhqd,bhkd->bhqk", q, k);
  expectType<Tensor<[4, 4, 16, 16]>>()(scores);
  const fc = new torch.nn.Linear(64, 256);
  const proj = new torch.nn.Linear(256, 64);
  const h = proj.forward(fc.forward(y).relu());
  return h.add(x).sum(-1, true).expand(B, T, C).add(y);
}

// ---- block 5 ----
function attention5(x: Tensor<[4, 16, 64], "float32">): Tensor<[4, 16, 64]> {
  const wq = torch.randn(C, C);
  const wk = torch.randn(C, C);
  const wv = torch.randn(C, C);
  const q = x.matmul(wq).view(B, T, H, D).transpose(1, 2);
  const k = x.matmul(wk).view(B, T, H, D).transpose(1, 2);
  const v = x.matmul(wv).view(B, T, H, D).transpose(1, 2);
  const att = q
    .matmul(k.mT)
    .mul(1 / Math.sqrt(D))
    .softmax(-1);
  const y = att.matmul(v).transpose(1, 2).contiguous().view(B, T, C);
  const scores = torch.einsum("bhqd,bhkd->bhqk", q, k);
  expectType<Tensor<[4, 4, 16, 16]>>()(scores);
  const fc = new torch.nn.Linear(64, 256);
  const proj = new torch.nn.Linear(256, 64);
  const h = proj.forward(fc.forward(y).relu());
  return h.add(x).sum(-1, true).expand(B, T, C).add(y);
}

// ---- block 6 ----
function attention6(x: Tensor<[4, 16, 64], "float32">): Tensor<[4, 16, 64]> {
  const wq = torch.randn(C, C);
  const wk = torch.randn(C, C);
  const wv = torch.randn(C, C);
  const q = x.matmul(wq).view(B, T, H, D).transpose(1, 2);
  const k = x.matmul(wk).view(B, T, H, D).transpose(1, 2);
  const v = x.matmul(wv).view(B, T, H, D).transpose(1, 2);
  const att = q
    .matmul(k.mT)
    .mul(1 / Math.sqrt(D))
    .softmax(-1);
  const y = att.matmul(v).transpose(1, 2).contiguous().view(B, T, C);
  const scores = torch.einsum("bhqd,bhkd->bhqk", q, k);
  expectType<Tensor<[4, 4, 16, 16]>>()(scores);
  const fc = new torch.nn.Linear(64, 256);
  const proj = new torch.nn.Linear(256, 64);
  const h = proj.forward(fc.forward(y).relu());
  return h.add(x).sum(-1, true).expand(B, T, C).add(y);
}

// ---- block 7 ----
function attention7(x: Tensor<[4, 16, 64], "float32">): Tensor<[4, 16, 64]> {
  const wq = torch.randn(C, C);
  const wk = torch.randn(C, C);
  const wv = torch.randn(C, C);
  const q = x.matmul(wq).view(B, T, H, D).transpose(1, 2);
  const k = x.matmul(wk).view(B, T, H, D).transpose(1, 2);
  const v = x.matmul(wv).view(B, T, H, D).transpose(1, 2);
  const att = q
    .matmul(k.mT)
    .mul(1 / Math.sqrt(D))
    .softmax(-1);
  const y = att.matmul(v).transpose(1, 2).contiguous().view(B, T, C);
  const scores = torch.einsum("bhqd,bhkd->bhqk", q, k);
  expectType<Tensor<[4, 4, 16, 16]>>()(scores);
  const fc = new torch.nn.Linear(64, 256);
  const proj = new torch.nn.Linear(256, 64);
  const h = proj.forward(fc.forward(y).relu());
  return h.add(x).sum(-1, true).expand(B, T, C).add(y);
}

// ---- block 8 ----
function attention8(x: Tensor<[4, 16, 64], "float32">): Tensor<[4, 16, 64]> {
  const wq = torch.randn(C, C);
  const wk = torch.randn(C, C);
  const wv = torch.randn(C, C);
  const q = x.matmul(wq).view(B, T, H, D).transpose(1, 2);
  const k = x.matmul(wk).view(B, T, H, D).transpose(1, 2);
  const v = x.matmul(wv).view(B, T, H, D).transpose(1, 2);
  const att = q
    .matmul(k.mT)
    .mul(1 / Math.sqrt(D))
    .softmax(-1);
  const y = att.matmul(v).transpose(1, 2).contiguous().view(B, T, C);
  const scores = torch.einsum("bhqd,bhkd->bhqk", q, k);
  expectType<Tensor<[4, 4, 16, 16]>>()(scores);
  const fc = new torch.nn.Linear(64, 256);
  const proj = new torch.nn.Linear(256, 64);
  const h = proj.forward(fc.forward(y).relu());
  return h.add(x).sum(-1, true).expand(B, T, C).add(y);
}

// ---- block 9 ----
function attention9(x: Tensor<[4, 16, 64], "float32">): Tensor<[4, 16, 64]> {
  const wq = torch.randn(C, C);
  const wk = torch.randn(C, C);
  const wv = torch.randn(C, C);
  const q = x.matmul(wq).view(B, T, H, D).transpose(1, 2);
  const k = x.matmul(wk).view(B, T, H, D).transpose(1, 2);
  const v = x.matmul(wv).view(B, T, H, D).transpose(1, 2);
  const att = q
    .matmul(k.mT)
    .mul(1 / Math.sqrt(D))
    .softmax(-1);
  const y = att.matmul(v).transpose(1, 2).contiguous().view(B, T, C);
  const scores = torch.einsum("bhqd,bhkd->bhqk", q, k);
  expectType<Tensor<[4, 4, 16, 16]>>()(scores);
  const fc = new torch.nn.Linear(64, 256);
  const proj = new torch.nn.Linear(256, 64);
  const h = proj.forward(fc.forward(y).relu());
  return h.add(x).sum(-1, true).expand(B, T, C).add(y);
}

// ---- block 10 ----
function attention10(x: Tensor<[4, 16, 64], "float32">): Tensor<[4, 16, 64]> {
  const wq = torch.randn(C, C);
  const wk = torch.randn(C, C);
  const wv = torch.randn(C, C);
  const q = x.matmul(wq).view(B, T, H, D).transpose(1, 2);
  const k = x.matmul(wk).view(B, T, H, D).transpose(1, 2);
  const v = x.matmul(wv).view(B, T, H, D).transpose(1, 2);
  const att = q
    .matmul(k.mT)
    .mul(1 / Math.sqrt(D))
    .softmax(-1);
  const y = att.matmul(v).transpose(1, 2).contiguous().view(B, T, C);
  const scores = torch.einsum("bhqd,bhkd->bhqk", q, k);
  expectType<Tensor<[4, 4, 16, 16]>>()(scores);
  const fc = new torch.nn.Linear(64, 256);
  const proj = new torch.nn.Linear(256, 64);
  const h = proj.forward(fc.forward(y).relu());
  return h.add(x).sum(-1, true).expand(B, T, C).add(y);
}

// ---- block 11 ----
function attention11(x: Tensor<[4, 16, 64], "float32">): Tensor<[4, 16, 64]> {
  const wq = torch.randn(C, C);
  const wk = torch.randn(C, C);
  const wv = torch.randn(C, C);
  const q = x.matmul(wq).view(B, T, H, D).transpose(1, 2);
  const k = x.matmul(wk).view(B, T, H, D).transpose(1, 2);
  const v = x.matmul(wv).view(B, T, H, D).transpose(1, 2);
  const att = q
    .matmul(k.mT)
    .mul(1 / Math.sqrt(D))
    .softmax(-1);
  const y = att.matmul(v).transpose(1, 2).contiguous().view(B, T, C);
  const scores = torch.einsum("bhqd,bhkd->bhqk", q, k);
  expectType<Tensor<[4, 4, 16, 16]>>()(scores);
  const fc = new torch.nn.Linear(64, 256);
  const proj = new torch.nn.Linear(256, 64);
  const h = proj.forward(fc.forward(y).relu());
  return h.add(x).sum(-1, true).expand(B, T, C).add(y);
}

function cnnHead(img: Tensor<[8, 3, 32, 32], "float32">): Tensor<[8, 10]> {
  const flat = img.flatten(1);
  const fc = new torch.nn.Linear(3072, 10);
  const patches = img.unflatten(2, [4, 8]).unflatten(-1, [4, 8]);
  const moved = patches.permute(0, 2, 4, 1, 3, 5).reshape(8, 16, -1);
  expectType<Tensor<[8, 16, 192], "float32">>()(moved);
  const pooled = moved.mean(1);
  return fc.forward(flat).add(pooled.sum(-1, true));
}

export function run(): number {
  let n = 0;
  const x = torch.randn(B, T, C);

  n += attention0(x).ndim;
  n += attention1(x).ndim;
  n += attention2(x).ndim;
  n += attention3(x).ndim;
  n += attention4(x).ndim;
  n += attention5(x).ndim;
  n += attention6(x).ndim;
  n += attention7(x).ndim;
  n += attention8(x).ndim;
  n += attention9(x).ndim;
  n += attention10(x).ndim;
  n += attention11(x).ndim;
  n += cnnHead(torch.randn(8, 3, 32, 32)).ndim;
  return n;
}
