// A BERT encoder written with webtorch.nn as `transformers` writes BertModel in PyTorch: the same
// module tree, so the same state-dict names ("encoder.layer.0.attention.self.query.weight", …)
// and PyTorch's checkpoint loads as it is.
import * as torch from "webtorch";
const { nn } = torch;
const F = nn.functional;

/** The fields of a BERT config.json that the modules read. */
export interface BertConfig {
  vocab_size: number;
  hidden_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  intermediate_size: number;
  hidden_act: string;
  max_position_embeddings: number;
  type_vocab_size: number;
  layer_norm_eps: number;
  hidden_dropout_prob: number;
  attention_probs_dropout_prob: number;
}

/** Word + token-type + position embeddings → LayerNorm → dropout. */
class BertEmbeddings extends nn.Module {
  word_embeddings: torch.nn.Embedding;
  position_embeddings: torch.nn.Embedding;
  token_type_embeddings: torch.nn.Embedding;
  LayerNorm: torch.nn.LayerNorm;
  dropout: torch.nn.Dropout;
  constructor(c: BertConfig) {
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
  forward(input_ids: torch.Tensor, token_type_ids: torch.Tensor): torch.Tensor {
    const x = this.word_embeddings
      .call(input_ids)
      .add(this.token_type_embeddings.call(token_type_ids))
      .add(this.position_embeddings.call(torch.arange(input_ids.shape[1])));
    return this.dropout.call(this.LayerNorm.call(x));
  }
}

/** Multi-head self-attention: query, key and value projections, scaled dot-product attention. */
class BertSelfAttention extends nn.Module {
  heads: number;
  headSize: number;
  query: torch.nn.Linear;
  key: torch.nn.Linear;
  value: torch.nn.Linear;
  dropout: torch.nn.Dropout;
  constructor(c: BertConfig) {
    super();
    this.heads = c.num_attention_heads;
    this.headSize = c.hidden_size / c.num_attention_heads;
    this.query = new nn.Linear(c.hidden_size, c.hidden_size);
    this.key = new nn.Linear(c.hidden_size, c.hidden_size);
    this.value = new nn.Linear(c.hidden_size, c.hidden_size);
    this.dropout = new nn.Dropout(c.attention_probs_dropout_prob);
  }
  /** `[b, t, heads·d]` → `[b, heads, t, d]`. */
  split(x: torch.Tensor): torch.Tensor {
    const [b, t] = x.shape;
    return x.view(b, t, this.heads, this.headSize).transpose(1, 2);
  }
  forward(hidden: torch.Tensor, mask: torch.Tensor): torch.Tensor {
    const q = this.split(this.query.call(hidden));
    const k = this.split(this.key.call(hidden));
    const v = this.split(this.value.call(hidden));
    const [b, , t] = q.shape;
    // Attention dropout only while training (PyTorch's sdpa takes its probability as dropout_p).
    const y = F.scaled_dot_product_attention(q, k, v, {
      attn_mask: mask,
      dropout_p: this.training ? this.dropout.p : 0,
    });
    return y.transpose(1, 2).reshape(b, t, this.heads * this.headSize);
  }
}

/** dense → dropout → LayerNorm(x + residual): BertSelfOutput and BertOutput. */
class BertResidual extends nn.Module {
  dense: torch.nn.Linear;
  LayerNorm: torch.nn.LayerNorm;
  dropout: torch.nn.Dropout;
  constructor(c: BertConfig, inFeatures: number) {
    super();
    this.dense = new nn.Linear(inFeatures, c.hidden_size);
    this.LayerNorm = new nn.LayerNorm(c.hidden_size, c.layer_norm_eps);
    this.dropout = new nn.Dropout(c.hidden_dropout_prob);
  }
  forward(hidden: torch.Tensor, input: torch.Tensor): torch.Tensor {
    return this.LayerNorm.call(
      this.dropout.call(this.dense.call(hidden)).add(input),
    );
  }
}

class BertAttention extends nn.Module {
  self: BertSelfAttention;
  output: BertResidual;
  constructor(c: BertConfig) {
    super();
    this.self = new BertSelfAttention(c);
    this.output = new BertResidual(c, c.hidden_size);
  }
  forward(hidden: torch.Tensor, mask: torch.Tensor): torch.Tensor {
    return this.output.call(this.self.call(hidden, mask), hidden);
  }
}

class BertIntermediate extends nn.Module {
  dense: torch.nn.Linear;
  constructor(c: BertConfig) {
    super();
    if (c.hidden_act !== "gelu")
      throw new Error(`hidden_act "${c.hidden_act}" is not supported`);
    this.dense = new nn.Linear(c.hidden_size, c.intermediate_size);
  }
  forward(hidden: torch.Tensor): torch.Tensor {
    return F.gelu(this.dense.call(hidden)); // BERT's "gelu" is the exact (erf) GELU
  }
}

class BertLayer extends nn.Module {
  attention: BertAttention;
  intermediate: BertIntermediate;
  output: BertResidual;
  constructor(c: BertConfig) {
    super();
    this.attention = new BertAttention(c);
    this.intermediate = new BertIntermediate(c);
    this.output = new BertResidual(c, c.intermediate_size);
  }
  forward(hidden: torch.Tensor, mask: torch.Tensor): torch.Tensor {
    const a = this.attention.call(hidden, mask);
    return this.output.call(this.intermediate.call(a), a);
  }
}

class BertEncoder extends nn.Module {
  layer: torch.nn.ModuleList;
  constructor(c: BertConfig) {
    super();
    this.layer = new nn.ModuleList(
      Array.from({ length: c.num_hidden_layers }, () => new BertLayer(c)),
    );
  }
  forward(hidden: torch.Tensor, mask: torch.Tensor): torch.Tensor {
    for (const layer of this.layer)
      hidden = (layer as BertLayer).call(hidden, mask);
    return hidden;
  }
}

/** tanh(dense(the first token's state)): in the checkpoint, unused by sentence embeddings. */
class BertPooler extends nn.Module {
  dense: torch.nn.Linear;
  constructor(c: BertConfig) {
    super();
    this.dense = new nn.Linear(c.hidden_size, c.hidden_size);
  }
  forward(hidden: torch.Tensor): torch.Tensor {
    return this.dense.call(hidden.select(1, 0)).tanh();
  }
}

/**
 * `BertModel(config)`: int64 `[b, t]` token ids and attention mask (1 = token, 0 = padding) →
 * the last hidden state, float32 `[b, t, hidden]` (the pooler is there for the checkpoint's
 * names; mean pooling reads the hidden states).
 */
export class BertModel extends nn.Module {
  embeddings: BertEmbeddings;
  encoder: BertEncoder;
  pooler: BertPooler;
  constructor(readonly config: BertConfig) {
    super();
    this.embeddings = new BertEmbeddings(config);
    this.encoder = new BertEncoder(config);
    this.pooler = new BertPooler(config);
  }
  forward(input_ids: torch.Tensor, attention_mask: torch.Tensor): torch.Tensor {
    const [b, t] = input_ids.shape;
    // (1 - mask) · torch.finfo(torch.float32).min, broadcast over heads and query positions, as
    // PyTorch's BERT adds it to the attention scores: padding gets no weight.
    const mask = attention_mask
      .float()
      .neg()
      .add(1)
      .mul(-3.4028234663852886e38)
      .view(b, 1, 1, t);
    const types = torch.zeros([b, t], { dtype: "int64" });
    return this.encoder.call(this.embeddings.call(input_ids, types), mask);
  }
}
