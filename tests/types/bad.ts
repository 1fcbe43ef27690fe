// Misuse that must NOT type-check: each `@ts-expect-error` line below has to be a type error.
import * as torch from "webtorch";

const a = torch.ones(2, 2);

// @ts-expect-error — dtypes are checked names
torch.zeros(2, { dtype: "float128" });
// @ts-expect-error — devices are "webgpu", "cpu" or PyTorch's "cuda" (an alias of "webgpu")
torch.ones([2], { device: "tpu" });
// @ts-expect-error — reads are async: item() is a Promise
const n: number = a.item();
// @ts-expect-error — tensor() takes numbers, booleans, typed arrays and arrays of them
torch.tensor("abc");
// @ts-expect-error — operands are tensors or numbers
a.add("1");
// @ts-expect-error — matmul takes a tensor
a.matmul(2);
// @ts-expect-error — dims are numbers
a.sum({ dim: "0" });
// @ts-expect-error — unary ops take no argument
a.exp(2);
// @ts-expect-error — shape is read-only
a.shape.push(3);
// @ts-expect-error — no such op
a.frobnicate();
// @ts-expect-error — init takes "auto" | "webgpu" | "cpu"
void torch.init({ device: "gpu" });

void n;
