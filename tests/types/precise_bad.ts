// Calls that must not compile now that types are as precise as the values (precise.ts).
import * as torch from "webtorch";
import { nn } from "webtorch";

const x = torch.randn(2, 3);
const b = x.gt(0).all();

export async function bad(): Promise<void> {
  // @ts-expect-error a bool tensor's item() is a boolean
  (await b.item()).toFixed(2);
  // @ts-expect-error a float tensor's item() is a number
  const flag: boolean = await x.sum().item();
  void flag;
}
// @ts-expect-error the sum of an int32 tensor is int64
export const s: torch.Tensor<[], "int32"> = torch
  .ones(3, { dtype: "int32" })
  .sum();
// @ts-expect-error Linear keeps the input's float16
export const l: torch.Tensor<[2, 4], "float32"> = new nn.Linear(3, 4).call(
  torch.zeros(2, 3, { dtype: "float16" }),
);
// @ts-expect-error F.relu keeps the shape [2, 3]
export const r: torch.Tensor<[3, 2]> = nn.functional.relu(x);
// @ts-expect-error Module.call checks the input's last dim as forward does
new nn.Linear(3, 4).call(torch.zeros(2, 5));
// @ts-expect-error nn.ReLU's call keeps the shape
export const c: torch.Tensor<[2]> = new nn.ReLU().call(x);
