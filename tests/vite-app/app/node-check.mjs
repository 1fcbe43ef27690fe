// The same computation in Node, importing the installed package by name.
import * as torch from "webtorch";

const x = torch.tensor(
  [
    [1, 2],
    [3, 4],
  ],
  { dtype: torch.float32 },
);
const y = x.matmul(x).relu().sum();
console.log(
  JSON.stringify({
    device: torch.get_default_device(),
    result: await y.item(),
  }),
);
