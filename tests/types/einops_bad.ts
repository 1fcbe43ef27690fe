// einops calls that must NOT compile (each `@ts-expect-error` line has to be a type error; the
// messages are checked in einops.ts).
import * as torch from "webtorch";

const { rearrange, reduce, repeat } = torch.einops;
const img = torch.randn(8, 3, 32, 32);
const seq = torch.randn(4, 15, 64);

// @ts-expect-error — 4 names for a 3-d tensor
rearrange(seq, "b c h w -> b (h w) c");
// @ts-expect-error — 3 names for a 4-d tensor
rearrange(img, "b c h -> b h c");
// @ts-expect-error — an axis dropped without a reduction
rearrange(img, "b c h w -> b c h");
// @ts-expect-error — an axis appearing from nowhere
rearrange(seq, "b t c -> b t c k");
// @ts-expect-error — 15 is not divisible by 2
rearrange(seq, "b (t k) c -> b t k c", { k: 2 });
// @ts-expect-error — a given length that does not match
rearrange(seq, "b t c -> b c t", { t: 16 });
// @ts-expect-error — ellipsis needs at least 4 dims here
rearrange(seq, "a b c d ... -> ... a b c d");
// @ts-expect-error — 2×2 pooling of an odd size
reduce(seq, "b (t 2) c -> b t c", "max");
// @ts-expect-error — reduce cannot add axes
reduce(img, "b c h w -> b c k", "sum");
// @ts-expect-error — reduce: wrong rank
reduce(img, "b c h -> b", "mean");
// @ts-expect-error — repeat: a new axis needs a length
repeat(seq, "b t c -> b t c r");
// @ts-expect-error — repeat cannot drop axes
repeat(seq, "b t c -> b t", { r: 2 });
// @ts-expect-error — repeat: wrong rank
repeat(img, "h w -> h w c", { c: 3 });
// @ts-expect-error — pack: a 1-d tensor has no room for the axes around *
torch.einops.pack([seq, torch.zeros(4)], "b * c");
// @ts-expect-error — the result's shape is known: [8, 1024, 3] is not [8, 3, 1024]
const wrong: torch.Tensor<[8, 3, 1024]> = rearrange(
  img,
  "b c h w -> b (h w) c",
);
void wrong;
// @ts-expect-error — unpack: a 2-d input for "b * c" (rank 3)
torch.einops.unpack(torch.zeros(4, 17), [[16], []], "b * c");
// @ts-expect-error — unpack: 16 + 2 do not make the packed axis' 17
torch.einops.unpack(torch.zeros(4, 17, 64), [[16], [2]], "b * c");
// @ts-expect-error — unpack: two -1s cannot both be inferred
torch.einops.unpack(torch.zeros(4, 17, 64), [[-1], [-1]], "b * c");
// @ts-expect-error — unpack's results have the packed shapes: [4, 16, 64], not [4, 17, 64]
const u0: torch.Tensor<[4, 17, 64]> = torch.einops.unpack(
  torch.zeros(4, 17, 64),
  [[16], []],
  "b * c",
)[0];
void u0;
