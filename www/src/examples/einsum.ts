// einsum: batched matmul, traces, outer products and attention scores
import * as torch from "webtorch";

torch.manual_seed(0);
const q = torch.randn(2, 4, 8); // [batch, query, dim]
const k = torch.randn(2, 6, 8); // [batch, key, dim]

// Attention scores: [2, 4, 8] × [2, 6, 8] → [2, 4, 6]; hover `scores` to see its type.
const scores = torch.einsum("bqd,bkd->bqk", q, k).div(Math.sqrt(8));
print("scores.shape:", scores.shape);
const viaMatmul = q.matmul(k.transpose(1, 2)).div(Math.sqrt(8));
const same = await torch.allclose(scores, viaMatmul, {
  rtol: 1e-4,
  atol: 1e-5,
});
print("einsum equals matmul:", same);

const m = torch.arange(9).reshape(3, 3).float();
print("trace 'ii->' :", torch.einsum("ii->", m));
print("diagonal 'ii->i':", torch.einsum("ii->i", m));
print(
  "outer 'i,j->ij':",
  torch.einsum("i,j->ij", torch.tensor([1, 2]), torch.tensor([1, 10, 100])),
);
await plot.image(torch.softmax(scores, -1).select(0, 0), {
  title: "softmax(scores)[0]",
});
