// `x.index(...)` calls that must NOT compile (messages checked in indexing.ts).
import * as torch from "webtorch";

const x = torch.randn(4, 5, 6);
const mask = torch.zeros(4, 5, 6).gt(0);

// @ts-expect-error — too many indices
x.index(0, 0, 0, 0);
// @ts-expect-error — too many indices, also in one string
x.index("0, 0, 0, 0");
// @ts-expect-error — 4 is out of range for size 4
x.index(4);
// @ts-expect-error — -6 is out of range for size 5
x.index(":", -6);
// @ts-expect-error — out of range after an ellipsis
x.index("...", 6);
// @ts-expect-error — a boolean mask needs index_async
x.index(mask);
// @ts-expect-error — index tensors that do not broadcast
x.index(torch.tensor([0, 1]), torch.tensor([0, 1, 2]));
// @ts-expect-error — not an index
x.index(1.5 as unknown as boolean);
const y = torch.zeros(3, 4);
// @ts-expect-error — x[1, 1:] is [3]; a [2] value does not broadcast to it
y.set([1, "1:"], torch.ones(2));
// @ts-expect-error — x[:] is [3, 4]; [3] does not broadcast to it
y.set(":", torch.ones(3));
// @ts-expect-error — set with an index out of range
y.set(5, 0);
// @ts-expect-error — the result's shape is known: [5, 6] is not [4, 6]
const wrong: torch.Tensor<[4, 6]> = x.index(0);
void wrong;
