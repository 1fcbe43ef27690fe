// The model: a character-level GPT, module for module as scripts/textgen/train.py writes it in
// PyTorch, so the weights load by PyTorch's state-dict names ("blocks.0.qkv.weight", …).
import * as torch from "webtorch";
const { nn } = torch;
const F = nn.functional;

/** The architecture and the vocabulary (www/assets/textgen/config.json). */
export interface Config {
  vocab: string[];
  d: number;
  heads: number;
  layers: number;
  context: number;
}

/** LayerNorm → causal self-attention → residual; LayerNorm → GELU MLP → residual. */
class Block extends nn.Module {
  ln1: torch.nn.LayerNorm;
  qkv: torch.nn.Linear;
  proj: torch.nn.Linear;
  ln2: torch.nn.LayerNorm;
  fc: torch.nn.Linear;
  fc2: torch.nn.Linear;
  constructor(
    readonly d: number,
    readonly heads: number,
  ) {
    super();
    this.ln1 = new nn.LayerNorm(d);
    this.qkv = new nn.Linear(d, 3 * d);
    this.proj = new nn.Linear(d, d);
    this.ln2 = new nn.LayerNorm(d);
    this.fc = new nn.Linear(d, 4 * d);
    this.fc2 = new nn.Linear(4 * d, d);
  }
  forward(x: torch.Tensor): torch.Tensor {
    const [b, t, d] = x.shape;
    const hd = d / this.heads;
    // [b, t, 3d] → q, k, v as [b, heads, t, hd]
    const [q, k, v] = this.qkv
      .call(this.ln1.call(x))
      .split(d, 2)
      .map((z) => z.view(b, t, this.heads, hd).transpose(1, 2));
    const y = F.scaled_dot_product_attention(q, k, v, { is_causal: true });
    x = x.add(this.proj.call(y.transpose(1, 2).reshape(b, t, d)));
    return x.add(this.fc2.call(F.gelu(this.fc.call(this.ln2.call(x)))));
  }
}

export class CharGPT extends nn.Module {
  tok: torch.nn.Embedding;
  pos: torch.nn.Embedding;
  blocks: torch.nn.ModuleList;
  ln_f: torch.nn.LayerNorm;
  head: torch.nn.Linear;
  constructor(readonly config: Config) {
    super();
    const { vocab, d, heads, layers, context } = config;
    this.tok = new nn.Embedding(vocab.length, d);
    this.pos = new nn.Embedding(context, d);
    this.blocks = new nn.ModuleList(
      Array.from({ length: layers }, () => new Block(d, heads)),
    );
    this.ln_f = new nn.LayerNorm(d);
    this.head = new nn.Linear(d, vocab.length);
  }
  /** int64 `[b, t]` character ids → float32 `[b, t, vocab]` logits of the next character. */
  forward(idx: torch.Tensor): torch.Tensor {
    let x = this.tok.call(idx).add(this.pos.call(torch.arange(idx.shape[1])));
    for (const block of this.blocks) x = (block as Block).call(x);
    return this.head.call(this.ln_f.call(x));
  }
}

/** Characters → ids and back, over the training text's alphabet. */
export function codec(vocab: string[]) {
  const index = new Map(vocab.map((c, i) => [c, i]));
  return {
    encode: (s: string) =>
      [...s].map((c) => {
        const i = index.get(c);
        if (i === undefined)
          throw new Error(
            `${JSON.stringify(c)} is not in the model's alphabet`,
          );
        return i;
      }),
    decode: (ids: number[]) => ids.map((i) => vocab[i]).join(""),
  };
}

/**
 * Samples `n` characters after `ids`: softmax(logits / temperature), then torch.multinomial. Every
 * forward pass takes `context` positions, the text right-padded while it is shorter: attention is
 * causal, so the padding cannot change the logits read at the text's last position, and one input
 * shape means the GPU kernels are compiled once. Calls `onToken(id)` as each character comes.
 */
export async function generate(
  model: CharGPT,
  ids: number[],
  n: number,
  {
    temperature = 0.8,
    onToken = (_id: number) => {},
  }: { temperature?: number; onToken?: (id: number) => void } = {},
): Promise<number[]> {
  const { context } = model.config;
  const out = [...ids];
  model.eval();
  for (let i = 0; i < n; i++) {
    const window = out.slice(-context);
    const last = window.length - 1;
    while (window.length < context) window.push(0);
    const next = torch.scope(() =>
      torch.no_grad(() => {
        const logits = model.call(torch.tensor([window], { dtype: "int64" }));
        const at = logits.index_select(1, torch.tensor([last])); // [1, 1, vocab]
        return torch.multinomial(
          at.view(1, -1).div(temperature).softmax(-1),
          1,
        );
      }),
    );
    const id = Number(await next.item());
    next.dispose();
    out.push(id);
    onToken(id);
  }
  return out.slice(ids.length);
}
