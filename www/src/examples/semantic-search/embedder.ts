// A sentence-transformers model: BertModel → mean pooling over the tokens → L2 normalisation,
// with the model's WordPiece tokenizer (@huggingface/tokenizers reading its tokenizer.json).
import * as torch from "webtorch";
import { Tokenizer } from "@huggingface/tokenizers";
import { BertModel, type BertConfig } from "./bert.ts";

/** The mean of the token embeddings `[b, t, h]` where the mask `[b, t]` is 1: `[b, h]`. */
export function meanPooling(
  tokens: torch.Tensor,
  attention_mask: torch.Tensor,
): torch.Tensor {
  const m = attention_mask.float().unsqueeze(-1); // [b, t, 1]
  return tokens.mul(m).sum(1).div(m.sum(1).clamp_min(1e-9));
}

export class SentenceEmbedder {
  constructor(
    readonly model: BertModel,
    readonly tokenizer: Tokenizer,
    readonly max_seq_length = 256,
  ) {
    model.eval();
  }

  /**
   * Loads config.json, tokenizer.json, tokenizer_config.json and model.safetensors from the
   * folder `base` (a URL); `onProgress(loaded, total)` follows the weights' download in bytes.
   */
  static async from_pretrained(
    base: string,
    {
      onProgress,
    }: { onProgress?: (loaded: number, total?: number) => void } = {},
  ): Promise<SentenceEmbedder> {
    const json = async (f: string) => {
      const res = await fetch(new URL(f, base));
      if (!res.ok) throw new Error(`HTTP ${res.status} for ${res.url}`);
      return res.json();
    };
    // The weights download while the small files are read and the model is built.
    const weights = torch.load(new URL("model.safetensors", base).href, {
      onProgress,
    });
    weights.catch(() => {}); // a failed download is reported where it is awaited, below
    const [config, tokenizerJson, tokenizerConfig] = await Promise.all(
      ["config.json", "tokenizer.json", "tokenizer_config.json"].map(json),
    );
    const model = new BertModel(config as BertConfig);
    const state = await weights;
    model.load_state_dict(state); // strict: every name of PyTorch's checkpoint
    Object.values(state).forEach((t) => t.dispose());
    return new SentenceEmbedder(
      model,
      new Tokenizer(tokenizerJson, tokenizerConfig),
    );
  }

  /** The token ids of `text`: [CLS] … [SEP], cut to max_seq_length as sentence-transformers cuts. */
  tokenize(text: string): number[] {
    const ids = this.tokenizer.encode(text).ids;
    if (ids.length <= this.max_seq_length) return ids;
    return [...ids.slice(0, this.max_seq_length - 1), ids[ids.length - 1]];
  }

  /** The unit-length embeddings of `sentences`, one batch padded to the longest: `[n, hidden]`. */
  encode(sentences: string[]): torch.Tensor {
    const ids = sentences.map((s) => this.tokenize(s));
    const t = Math.max(...ids.map((x) => x.length));
    const padded = (f: (row: number[], j: number) => number) =>
      ids.map((row) => Array.from({ length: t }, (_, j) => f(row, j)));
    return torch.scope(() =>
      torch.no_grad(() => {
        const input = torch.tensor(
          padded((row, j) => row[j] ?? 0),
          { dtype: "int64" },
        );
        const mask = torch.tensor(
          padded((row, j) => (j < row.length ? 1 : 0)),
          { dtype: "int64" },
        );
        const pooled = meanPooling(this.model.call(input, mask), mask);
        return torch.nn.functional.normalize(pooled, { p: 2, dim: -1 });
      }),
    );
  }
}
