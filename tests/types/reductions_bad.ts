// Reductions that must NOT compile (each `@ts-expect-error` line has to be a type error).
import * as torch from "webtorch";

const x = torch.randn(2, 3, 4);

// @ts-expect-error — prod: Dimension out of range (expected to be in range of [-3, 2], but got 3)
x.prod(3);
// @ts-expect-error — amax: a list with a dim out of range
x.amax([0, -4]);
// @ts-expect-error — amin: the options' dim is checked too
x.amin({ dim: 5, keepdim: true });
// @ts-expect-error — max(dim): out of range
x.max(3);
// @ts-expect-error — min({ dim }): out of range
x.min({ dim: -4 });
// @ts-expect-error — max(other): [2, 3, 4] and [5] do not broadcast
x.max(torch.zeros(5));
// @ts-expect-error — the values of max(dim) have the reduced shape
const v: torch.Tensor<[2, 3, 4]> = x.max(1).values;
// @ts-expect-error — the indices are int64, not float32
const ix: torch.Tensor<[2, 4], "float32"> = x.max(1).indices;
// @ts-expect-error — argmax: out of range
x.argmax(3);
// @ts-expect-error — argmin({ dim }): out of range
x.argmin({ dim: -5 });
// @ts-expect-error — argmax gives int64
const am: torch.Tensor<[2, 4], "float32"> = x.argmax(1);
// @ts-expect-error — all: out of range
x.all(4);
// @ts-expect-error — any: out of range in a list
x.any([1, 3], true);
// @ts-expect-error — count_nonzero: out of range
x.count_nonzero(-4);
// @ts-expect-error — var: out of range
x.var(3);
// @ts-expect-error — std({ dim }): out of range
x.std({ dim: [0, 7] });
// @ts-expect-error — logsumexp: out of range
x.logsumexp(-4);
// @ts-expect-error — norm(p, dim): out of range
x.norm(2, 3);
// @ts-expect-error — norm({ dim }): out of range
x.norm({ dim: 9 });
// @ts-expect-error — a reduction of a 0-d tensor over dim 0
torch.tensor(1.5).amax(0);
// @ts-expect-error — the result's shape is checked downstream: [2, 4] + [3]
x.amax(1).add(torch.ones(3));
void [v, ix, am];
