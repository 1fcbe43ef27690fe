// A BERT encoder written with webtorch.nn the way `transformers`' BertModel is written in PyTorch
// (same module tree, so the same state-dict names: "encoder.layer.0.attention.self.query.weight"),
// plus sentence-transformers' mean pooling and L2 normalisation: all-MiniLM-L6-v2 end to end.
//
//   const { SentenceEmbedder } = await import("./bert.mjs");
//   const model = await SentenceEmbedder.from_pretrained(torch, "/models/all-MiniLM-L6-v2/", {
//     onProgress: (loaded, total) => console.log(`${loaded} / ${total} bytes`),
//   });
//   const emb = await model.encode(["A man is eating food.", "A man eats bread."]); // Tensor [2, 384]
//
// Tokenizer: @huggingface/tokenizers (pure JS, no dependencies) reads the model's tokenizer.json;
// it gives the Python tokenizer's ids on the reference sentences (tests/node/minilm.test.mjs).
import { Tokenizer } from "@huggingface/tokenizers";
import { readJson } from "./fetch.mjs";

/** The BERT modules over a `torch` module (webtorch), for a `config` as in config.json. */
export function bertModules(torch) {
  const { nn } = torch;

  class BertEmbeddings extends nn.Module {
    constructor(c) {
      super();
      this.word_embeddings = new nn.Embedding(c.vocab_size, c.hidden_size);
      this.position_embeddings = new nn.Embedding(
        c.max_position_embeddings,
        c.hidden_size,
      );
      this.token_type_embeddings = new nn.Embedding(
        c.type_vocab_size,
        c.hidden_size,
      );
      this.LayerNorm = new nn.LayerNorm(c.hidden_size, c.layer_norm_eps);
      this.dropout = new nn.Dropout(c.hidden_dropout_prob);
    }
    forward(input_ids, token_type_ids) {
      const t = input_ids.shape[1];
      const x = this.word_embeddings
        .call(input_ids)
        .add(this.token_type_embeddings.call(token_type_ids))
        .add(this.position_embeddings.call(torch.arange(t)));
      return this.dropout.call(this.LayerNorm.call(x));
    }
  }

  class BertSelfAttention extends nn.Module {
    constructor(c) {
      super();
      this.num_attention_heads = c.num_attention_heads;
      this.attention_head_size = c.hidden_size / c.num_attention_heads;
      this.query = new nn.Linear(c.hidden_size, c.hidden_size);
      this.key = new nn.Linear(c.hidden_size, c.hidden_size);
      this.value = new nn.Linear(c.hidden_size, c.hidden_size);
      this.dropout = new nn.Dropout(c.attention_probs_dropout_prob);
    }
    /** `[b, t, h*d]` → `[b, h, t, d]`. */
    heads(x) {
      const [b, t] = x.shape;
      return x
        .view(b, t, this.num_attention_heads, this.attention_head_size)
        .transpose(1, 2);
    }
    forward(hidden, extended_mask) {
      const q = this.heads(this.query.call(hidden));
      const k = this.heads(this.key.call(hidden));
      const v = this.heads(this.value.call(hidden));
      const [b, , t] = q.shape;
      const merge = (y) =>
        y
          .transpose(1, 2)
          .reshape(b, t, this.num_attention_heads * this.attention_head_size);
      // Without dropout (inference) as transformers' "sdpa" attention: one kernel on WebGPU,
      // the padding mask read as it is broadcast, no `t × t` scores written.
      if (!this.training || this.dropout.p === 0)
        return merge(
          nn.functional.scaled_dot_product_attention(q, k, v, {
            attn_mask: extended_mask,
          }),
        );
      const scores = q
        .matmul(k.transpose(-1, -2))
        .div(Math.sqrt(this.attention_head_size))
        .add(extended_mask);
      return merge(this.dropout.call(scores.softmax(-1)).matmul(v));
    }
  }

  /** dense → dropout → LayerNorm(x + residual): BertSelfOutput and BertOutput. */
  class BertResidual extends nn.Module {
    constructor(c, inFeatures) {
      super();
      this.dense = new nn.Linear(inFeatures, c.hidden_size);
      this.LayerNorm = new nn.LayerNorm(c.hidden_size, c.layer_norm_eps);
      this.dropout = new nn.Dropout(c.hidden_dropout_prob);
    }
    forward(hidden, input) {
      return this.LayerNorm.call(
        this.dropout.call(this.dense.call(hidden)).add(input),
      );
    }
  }

  class BertAttention extends nn.Module {
    constructor(c) {
      super();
      this.self = new BertSelfAttention(c);
      this.output = new BertResidual(c, c.hidden_size);
    }
    forward(hidden, extended_mask) {
      return this.output.call(this.self.call(hidden, extended_mask), hidden);
    }
  }

  class BertIntermediate extends nn.Module {
    constructor(c) {
      super();
      if (c.hidden_act !== "gelu")
        throw new Error(`hidden_act "${c.hidden_act}" is not supported`);
      this.dense = new nn.Linear(c.hidden_size, c.intermediate_size);
    }
    forward(hidden) {
      return this.dense.call(hidden).gelu(); // "gelu" in BERT configs is the exact (erf) GELU
    }
  }

  class BertLayer extends nn.Module {
    constructor(c) {
      super();
      this.attention = new BertAttention(c);
      this.intermediate = new BertIntermediate(c);
      this.output = new BertResidual(c, c.intermediate_size);
    }
    forward(hidden, extended_mask) {
      const a = this.attention.call(hidden, extended_mask);
      return this.output.call(this.intermediate.call(a), a);
    }
  }

  class BertEncoder extends nn.Module {
    constructor(c) {
      super();
      this.layer = new nn.ModuleList(
        Array.from({ length: c.num_hidden_layers }, () => new BertLayer(c)),
      );
    }
    forward(hidden, extended_mask) {
      for (const layer of this.layer)
        hidden = layer.call(hidden, extended_mask);
      return hidden;
    }
  }

  class BertPooler extends nn.Module {
    constructor(c) {
      super();
      this.dense = new nn.Linear(c.hidden_size, c.hidden_size);
    }
    forward(hidden) {
      return this.dense.call(hidden.select(1, 0)).tanh();
    }
  }

  /**
   * `BertModel(config)`: `forward(input_ids, attention_mask, token_type_ids)` returns
   * `[last_hidden_state, pooler_output]` (int64 `[b, t]` inputs; mask 1 = token, 0 = padding).
   */
  class BertModel extends nn.Module {
    constructor(config, { add_pooling_layer = true } = {}) {
      super();
      this.config = config;
      this.embeddings = new BertEmbeddings(config);
      this.encoder = new BertEncoder(config);
      if (add_pooling_layer) this.pooler = new BertPooler(config);
      else this.register_module("pooler", null);
    }
    forward(input_ids, attention_mask, token_type_ids) {
      const [b, t] = input_ids.shape;
      attention_mask ??= torch.ones([b, t], { dtype: "int64" });
      token_type_ids ??= torch.zeros([b, t], { dtype: "int64" });
      // (1 - mask) · finfo(float32).min, broadcast over heads and query positions, as PyTorch's
      // eager BERT attention adds it to the scores.
      const extended = attention_mask
        .to("float32")
        .neg()
        .add(1)
        .mul(-3.4028234663852886e38)
        .view(b, 1, 1, t);
      const hidden = this.encoder.call(
        this.embeddings.call(input_ids, token_type_ids),
        extended,
      );
      return [hidden, this.pooler ? this.pooler.call(hidden) : null];
    }
  }

  return { BertModel };
}

/** sentence-transformers' mean pooling: the mean of the token embeddings where the mask is 1. */
export function meanPooling(torch, tokenEmbeddings, attentionMask) {
  const m = attentionMask.to("float32").unsqueeze(-1); // [b, t, 1]
  return tokenEmbeddings.mul(m).sum(1).div(m.sum(1).clamp_min(1e-9));
}

/** `F.normalize(x, p=2, dim=-1)`: x / max(‖x‖₂, 1e-12). */
export function l2Normalize(x) {
  return x.div(x.square().sum(-1, true).sqrt().clamp_min(1e-12));
}

/**
 * A sentence-transformers model (BertModel → mean pooling → normalisation) with its tokenizer.
 */
export class SentenceEmbedder {
  constructor(torch, model, tokenizer, { max_seq_length = 256 } = {}) {
    this.torch = torch;
    this.model = model.eval();
    this.tokenizer = tokenizer;
    this.max_seq_length = max_seq_length;
  }

  /**
   * Loads config.json, tokenizer.json, tokenizer_config.json and model.safetensors from `base`
   * (a URL of the folder `make models` writes; `file:` URLs work in Node). `onProgress(loaded,
   * total)` follows the weights' download in bytes.
   */
  static async from_pretrained(torch, base, { onProgress, device } = {}) {
    const url = (f) => new URL(f, base);
    const [config, tokJson, tokConfig] = await Promise.all(
      ["config.json", "tokenizer.json", "tokenizer_config.json"].map((f) =>
        readJson(url(f)),
      ),
    );
    const { BertModel } = bertModules(torch);
    const model = new BertModel(config);
    const state = await torch.load(url("model.safetensors"), {
      onProgress,
      device,
    });
    try {
      model.load_state_dict(state); // strict: PyTorch's names, every one
    } finally {
      for (const t of Object.values(state)) t.dispose();
    }
    return new SentenceEmbedder(
      torch,
      model,
      new Tokenizer(tokJson, tokConfig),
    );
  }

  /** The token ids of `text`: [CLS] … [SEP], cut to `max_seq_length` as sentence-transformers cuts. */
  tokenize(text) {
    const ids = this.tokenizer.encode(text).ids;
    if (ids.length <= this.max_seq_length) return ids;
    return [...ids.slice(0, this.max_seq_length - 1), ids.at(-1)];
  }

  /**
   * The normalised embeddings of `sentences`: a float32 Tensor `[n, hidden]`. Sentences run in
   * batches of `batch_size` sorted by length (less padding), each batch in its own scope.
   */
  encode(sentences, { batch_size = 16 } = {}) {
    const { torch } = this;
    const ids = sentences.map((s) => this.tokenize(s));
    const order = ids
      .map((_, i) => i)
      .sort((a, b) => ids[b].length - ids[a].length);
    const outs = [];
    for (let s = 0; s < order.length; s += batch_size) {
      const batch = order.slice(s, s + batch_size);
      const t = Math.max(...batch.map((i) => ids[i].length));
      const pad = (f) =>
        batch.map((i) => Array.from({ length: t }, (_, j) => f(i, j)));
      outs.push(
        torch.scope(() =>
          torch.no_grad(() => {
            const input = torch.tensor(
              pad((i, j) => ids[i][j] ?? 0),
              { dtype: "int64" },
            );
            const mask = torch.tensor(
              pad((i, j) => (j < ids[i].length ? 1 : 0)),
              { dtype: "int64" },
            );
            const [hidden] = this.model.call(input, mask);
            return l2Normalize(meanPooling(torch, hidden, mask));
          }),
        ),
      );
    }
    return torch.scope(() => {
      const inverse = new Array(order.length);
      order.forEach((i, k) => (inverse[i] = k));
      const all = torch.cat(outs, 0);
      for (const o of outs) o.dispose();
      return all.index_select(0, torch.tensor(inverse, { dtype: "int64" }));
    });
  }

  /** Frees the model's parameters. */
  dispose() {
    this.model.dispose();
  }
}
