// Tensor expressions that must NOT compile (messages checked in expr.ts).
import * as torch from "webtorch";

const x = torch.randn(8, 3);
const w = torch.randn(4, 5);
const b = torch.randn(5);

// @ts-expect-error — 3 vs 4 inner dims
torch.$("x @ w + b", { x, w, b });
// @ts-expect-error — [8, 3] and [5] do not broadcast
torch.$("x + b", { x, b });
// @ts-expect-error — a broadcast inside a call
torch.$("relu(x) * b", { x, b });
// @ts-expect-error — where's branches do not broadcast
torch.$("where(x > 0, x, b)", { x, b });
// @ts-expect-error — y is not given
torch.$("x + y", { x });
// @ts-expect-error — no such function
torch.$("frobnicate(x)", { x });
// @ts-expect-error — unbalanced parentheses
torch.$("(x + 1", { x });
// @ts-expect-error — two operands without an operator
torch.$("x x", { x });
// @ts-expect-error — a character the language does not have
torch.$("x $ 1", { x });
// @ts-expect-error — reducing a dim out of range
torch.$("sum(x, 2)", { x });
// @ts-expect-error — '@' of a number
torch.$("2 @ x", { x });
// @ts-expect-error — the result's shape is known: [8, 3] is not [3, 8]
const wrong: torch.Tensor<[3, 8]> = torch.$("x * 2", { x });
void wrong;
