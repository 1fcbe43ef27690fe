// GPT-2 written with webtorch.nn the way `transformers`' GPT2LMHeadModel is written in PyTorch:
// the same module tree and state-dict names ("transformer.h.0.attn.c_attn.weight"), Conv1D
// projections (weights stored [in, out]), tanh-approximated GELU ("gelu_new"), a tied LM head, and
// greedy generation with a key/value cache.
//
//   const { GPT2 } = await import("./gpt2.mjs");
//   const model = await GPT2.from_pretrained(torch, "/models/gpt2-124m-random/", { onProgress });
//   const tokens = await model.generate([464, 2068, 7586], { max_new_tokens: 20 });
import { readJson } from "./fetch.mjs";

/** The GPT-2 modules over a `torch` module (webtorch). */
export function gpt2Modules(torch) {
  const { nn } = torch;

  /** GPT-2's Conv1D: a linear layer whose weight is stored `[nx, nf]` (x @ W + b). */
  class Conv1D extends nn.Module {
    constructor(nf, nx) {
      super();
      this.nf = nf;
      const [w, b] = [torch.randn(nx, nf).mul_(0.02), torch.zeros(nf)];
      this.weight = new nn.Parameter(w);
      this.bias = new nn.Parameter(b);
      w.dispose(); // the parameters keep the storage; these handles would hold it until GC
      b.dispose();
    }
    forward(x) {
      return x.matmul(this.weight).add(this.bias);
    }
  }

  class GPT2Attention extends nn.Module {
    constructor(c) {
      super();
      this.n_head = c.n_head;
      this.head_dim = c.n_embd / c.n_head;
      this.c_attn = new Conv1D(3 * c.n_embd, c.n_embd);
      this.c_proj = new Conv1D(c.n_embd, c.n_embd);
    }
    /** `[b, t, h*d]` → `[b, h, t, d]`. */
    heads(x) {
      const [b, t] = x.shape;
      return x.view(b, t, this.n_head, this.head_dim).transpose(1, 2);
    }
    /**
     * `x` `[b, t, c]` after `past` (`[key, value]`, each `[b, h, t_past, d]`, or null); returns
     * the output and the cache extended by these `t` positions.
     */
    forward(x, past) {
      const [b, t, c] = x.shape;
      let [q, k, v] = this.c_attn.call(x).split(c, 2);
      [q, k, v] = [this.heads(q), this.heads(k), this.heads(v)];
      if (past) {
        k = torch.cat([past[0], k], 2);
        v = torch.cat([past[1], v], 2);
      }
      const total = k.shape[2];
      // Query i sits at position total - t + i and sees keys 0 … total - t + i: with no cache
      // that is PyTorch's is_causal, and one query sees every key; one core node either way (on
      // WebGPU one kernel, no t × total scores). A chunk after a cache passes the mask.
      const F = nn.functional;
      const opts =
        t === 1 || t === total
          ? { is_causal: t > 1 }
          : {
              attn_mask: torch
                .ones([t, total], { dtype: "bool" })
                .tril(total - t),
            };
      const y = F.scaled_dot_product_attention(q, k, v, opts)
        .transpose(1, 2)
        .reshape(b, t, c);
      return [this.c_proj.call(y), [k, v]];
    }
  }

  class GPT2MLP extends nn.Module {
    constructor(c) {
      super();
      this.c_fc = new Conv1D(4 * c.n_embd, c.n_embd);
      this.c_proj = new Conv1D(c.n_embd, 4 * c.n_embd);
    }
    forward(x) {
      const h = nn.functional.gelu(this.c_fc.call(x), { approximate: "tanh" });
      return this.c_proj.call(h);
    }
  }

  class GPT2Block extends nn.Module {
    constructor(c) {
      super();
      this.ln_1 = new nn.LayerNorm(c.n_embd, c.layer_norm_epsilon);
      this.attn = new GPT2Attention(c);
      this.ln_2 = new nn.LayerNorm(c.n_embd, c.layer_norm_epsilon);
      this.mlp = new GPT2MLP(c);
    }
    forward(x, past) {
      const [a, present] = this.attn.call(this.ln_1.call(x), past);
      const h = x.add(a);
      return [h.add(this.mlp.call(this.ln_2.call(h))), present];
    }
  }

  class GPT2Model extends nn.Module {
    constructor(c) {
      super();
      this.wte = new nn.Embedding(c.vocab_size, c.n_embd);
      this.wpe = new nn.Embedding(c.n_positions, c.n_embd);
      this.h = new nn.ModuleList(
        Array.from({ length: c.n_layer }, () => new GPT2Block(c)),
      );
      this.ln_f = new nn.LayerNorm(c.n_embd, c.layer_norm_epsilon);
    }
    forward(input_ids, past) {
      const t = input_ids.shape[1];
      const start = past ? past[0][0].shape[2] : 0;
      let x = this.wte
        .call(input_ids)
        .add(this.wpe.call(torch.arange(start, start + t)));
      const presents = [];
      let i = 0;
      for (const block of this.h) {
        let present;
        [x, present] = block.call(x, past?.[i++] ?? null);
        presents.push(present);
      }
      return [this.ln_f.call(x), presents];
    }
  }

  /** `GPT2LMHeadModel(config)`: `forward(ids, past)` → `[logits, presents]`. */
  class GPT2LMHeadModel extends nn.Module {
    constructor(config) {
      super();
      if (config.activation_function !== "gelu_new")
        throw new Error(`activation "${config.activation_function}"`);
      this.config = config;
      this.transformer = new GPT2Model(config);
      this.lm_head = new nn.Linear(config.n_embd, config.vocab_size, false);
      this.lm_head.weight.dispose();
      this.lm_head.weight = this.transformer.wte.weight; // tied, as in GPT-2
    }
    forward(input_ids, past = null) {
      const [h, presents] = this.transformer.call(input_ids, past);
      return [this.lm_head.call(h), presents];
    }
  }

  return { GPT2LMHeadModel };
}

/** A GPT-2 language model with greedy generation. */
export class GPT2 {
  constructor(torch, model) {
    this.torch = torch;
    this.model = model.eval();
  }

  /**
   * Loads config.json and model.safetensors from `base` (a folder URL; `file:` URLs work in
   * Node). `onProgress(loaded, total)` follows the weights' download in bytes. The checkpoint
   * has no `lm_head.weight` (tied to `transformer.wte.weight`): that is the one key it may lack.
   */
  static async from_pretrained(torch, base, { onProgress, device } = {}) {
    const config = await readJson(new URL("config.json", base));
    const { GPT2LMHeadModel } = gpt2Modules(torch);
    const model = new GPT2LMHeadModel(config);
    const state = await torch.load(new URL("model.safetensors", base), {
      onProgress,
      device,
    });
    try {
      const { missing_keys, unexpected_keys } = model.load_state_dict(
        state,
        false,
      );
      if (missing_keys.join() !== "lm_head.weight" || unexpected_keys.length)
        throw new Error(
          `GPT-2 checkpoint: missing ${missing_keys}, unexpected ${unexpected_keys}`,
        );
    } finally {
      for (const t of Object.values(state)) t.dispose();
    }
    return new GPT2(torch, model);
  }

  /** The logits `[1, t, vocab]` of a prompt (an array of token ids). */
  logits(ids) {
    const { torch } = this;
    return torch.scope(() =>
      torch.no_grad(
        () => this.model.call(torch.tensor([ids], { dtype: "int64" }), null)[0],
      ),
    );
  }

  /**
   * Greedy decoding: `max_new_tokens` token ids after `ids`. The prompt runs once; each new token
   * then runs alone against the key/value cache. `onToken(id, i)` sees each token as it comes.
   */
  async generate(ids, { max_new_tokens = 20, onToken } = {}) {
    const { torch } = this;
    const out = [];
    let past = null;
    let input = ids;
    try {
      for (let i = 0; i < max_new_tokens; i++) {
        const step = torch.scope(() =>
          torch.no_grad(() => {
            const [logits, presents] = this.model.call(
              torch.tensor([input], { dtype: "int64" }),
              past,
            );
            return { next: logits.select(1, -1).argmax(-1), presents };
          }),
        );
        for (const kv of past ?? []) for (const t of kv) t.dispose();
        past = step.presents;
        const id = (await step.next.tolist())[0];
        step.next.dispose();
        out.push(id);
        onToken?.(id, i);
        input = [id];
      }
    } finally {
      for (const kv of past ?? []) for (const t of kv) t.dispose();
    }
    return out;
  }

  /** Frees the model's parameters. */
  dispose() {
    this.model.dispose();
  }
}
