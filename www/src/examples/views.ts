// Broadcasting and views: shapes stretch, views share storage
import * as torch from "webtorch";

// Broadcasting: [3, 1] + [4] → [3, 4]
const col = torch.arange(3).reshape(3, 1).float();
const row = torch.tensor([0, 10, 20, 30]);
const grid = col.add(row);
print("[3, 1] + [4] →", grid.shape, grid);

// Views are metadata: transpose/permute/expand copy nothing.
const a = torch.arange(12).reshape(3, 4);
const t = a.transpose(0, 1);
print("a.transpose(0, 1):", t);
print("stride", a.stride(), "→", t.stride(), "contiguous?", t.is_contiguous());
print("narrow(1, 1, 2):", a.narrow(1, 1, 2));
print(
  "expand(2, 3, 4) shares storage, stride:",
  a.unsqueeze(0).expand(2, 3, 4).stride(),
);

// An in-place write through a view is seen by the base tensor.
const b = torch.zeros(2, 3);
b.select(0, 1).fill_(7);
print("b after b[1].fill_(7):", b);

// A heatmap of an outer product, by broadcasting.
const u = torch.linspace(-1, 1, 32);
await plot.image(u.reshape(32, 1).mul(u.reshape(1, 32)), { title: "u ⊗ u" });
