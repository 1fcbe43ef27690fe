// torch.utils.data's types follow the data: a DataLoader yields what default_collate makes of
// its dataset's samples (or what its collate_fn returns), in `for…of` and `for await`, and the
// datasets have `length`.
import * as torch from "webtorch";
import type { Tensor } from "webtorch";
import { expectType } from "./expect.js";

const { DataLoader, TensorDataset, Dataset, Subset, ConcatDataset } =
  torch.utils.data;

const x = torch.randn(8, 3);
const y = torch.zeros(8, { dtype: "int64" });
const ds = new TensorDataset(x, y);
expectType<number>()(ds.length);
expectType<[Tensor<number[], "float32">, Tensor<number[], "int64">]>()(
  ds.getitem(0),
);

const loader = new DataLoader(ds, { batch_size: 4, shuffle: true });
for (const batch of loader)
  expectType<[Tensor<number[], "float32">, Tensor<number[], "int64">]>()(batch);
for (const [xb, yb] of loader) {
  expectType<Tensor<number[], "float32">>()(xb);
  expectType<Tensor<number[], "int64">>()(yb);
}
export async function asyncLoop(): Promise<void> {
  for await (const [xb] of loader)
    expectType<Tensor<number[], "float32">>()(xb);
}

// A map-style dataset of records: collated field by field.
class Points extends Dataset<{ p: Float32Array; label: number; name: string }> {
  getitem(i: number) {
    return { p: new Float32Array([i, i]), label: i % 2, name: `p${i}` };
  }
  len() {
    return 10;
  }
}
for (const b of new DataLoader(new Points(), { batch_size: 2 })) {
  expectType<Tensor>()(b.p);
  expectType<Tensor>()(b.label);
  expectType<string[]>()(b.name);
}

// Arrays are datasets; booleans collate to a bool tensor, tuples element-wise.
for (const b of new DataLoader([[1, true] as [number, boolean]], {
  batch_size: 1,
}))
  expectType<[Tensor, Tensor<number[], "bool">]>()(b);

// Without batching, each sample is converted on its own.
for (const s of new DataLoader(new Points(), { batch_size: null }))
  expectType<{ p: Tensor; label: number; name: string }>()(s);

// A collate_fn decides the batch type.
const custom = new DataLoader(new Points(), {
  batch_size: 3,
  collate_fn: (items) => items.map((it) => it.name).join(","),
});
for (const s of custom) expectType<string>()(s);

// Subsets and concatenations keep the sample type and have a length.
const sub = new Subset(new Points(), [0, 2, 4]);
expectType<number>()(sub.length);
const cat = new ConcatDataset([sub, new Points()]);
expectType<number>()(cat.length);
for (const b of new DataLoader(cat, { batch_size: 2 })) {
  expectType<Tensor>()(b.label);
  // @ts-expect-error: a collated label is a Tensor, not the samples' numbers
  expectType<number[]>()(b.label);
}
