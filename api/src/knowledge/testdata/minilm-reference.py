# Reference vectors for api/src/knowledge/local-embedder tests, computed independently of the
# project's code: Python onnxruntime and Hugging Face's Rust tokenizers (both from PyPI) on the
# same model.onnx and tokenizer.json, with mean pooling and L2 normalisation written in numpy
# as sentence-transformers does it (max_seq_length 256). Run once by hand (docs/adr/0031):
#   python3 -m venv ~/.cache/aiplane/venv-embedding-reference
#   ~/.cache/aiplane/venv-embedding-reference/bin/pip install onnxruntime tokenizers numpy
#   ~/.cache/aiplane/venv-embedding-reference/bin/python minilm-reference.py \
#     ~/.cache/aiplane/models/all-minilm-l6-v2 > minilm-reference.json
import json
import sys

import numpy as np
import onnxruntime
import tokenizers

model_dir = sys.argv[1]
texts = [
    "The quick brown fox jumps over the lazy dog.",
    "Kubernetes schedules pods onto nodes; a Deployment keeps the desired number of replicas.",
    "Zürich's café serves crème brûlée — naïve façades, 東京 and emoji 🙂 too.",
    # longer than 256 tokens: truncated to 254 word pieces between [CLS] and [SEP]
    " ".join(f"sentence number {i} talks about retrieval, chunking and embeddings." for i in range(60)),
]
tok = tokenizers.Tokenizer.from_file(f"{model_dir}/tokenizer.json")
tok.enable_truncation(256)
tok.no_padding()
session = onnxruntime.InferenceSession(f"{model_dir}/model.onnx", providers=["CPUExecutionProvider"])
out = []
for text in texts:
    enc = tok.encode(text)
    ids = np.array([enc.ids], dtype=np.int64)
    mask = np.array([enc.attention_mask], dtype=np.int64)
    types = np.array([enc.type_ids], dtype=np.int64)
    (hidden,) = session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})
    summed = (hidden * mask[..., None]).sum(axis=1)
    mean = summed / np.clip(mask.sum(axis=1, keepdims=True), 1e-9, None)
    vec = mean / np.linalg.norm(mean, axis=1, keepdims=True)
    out.append({"text": text, "tokens": len(enc.ids), "embedding": [round(float(x), 7) for x in vec[0]]})
json.dump({"model": "all-MiniLM-L6-v2", "max_tokens": 256, "onnxruntime": onnxruntime.__version__,
           "tokenizers": tokenizers.__version__, "vectors": out}, sys.stdout)
print()
