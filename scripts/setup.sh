#!/usr/bin/env bash
# Creates .venv and installs JudgeAgent with everything it needs, offline-capable models included.
# Idempotent: a second run only checks what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

STAMP=.venv/.judgeagent-installed
if [ -f "$STAMP" ] && [ "$STAMP" -nt pyproject.toml ] && [ "$STAMP" -nt scripts/setup.sh ]; then
  exit 0  # already set up for this pyproject.toml
fi

PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null || PY=python3
[ -x .venv/bin/python ] || "$PY" -m venv .venv
VPIP=".venv/bin/python -m pip"
$VPIP install --quiet --upgrade pip

# CPU torch first: otherwise sentence-transformers pulls a multi-GB CUDA build.
.venv/bin/python -c "import torch" 2>/dev/null || $VPIP install "torch==2.13.0"

# llama.cpp's default native build crashes at the first decode on these CPUs (AMX),
# so build it portably. A native wheel already in pip's cache would be reused
# whatever CMAKE_ARGS say, so a failed smoke test below clears the cache and rebuilds.
export CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_BF16=OFF"
if ! .venv/bin/python -c "import llama_cpp" 2>/dev/null; then
  $VPIP install "llama-cpp-python[server]>=0.3,<0.4"
fi

$VPIP install --quiet -e ".[dev]"

# Smoke-test the llama.cpp build in a subprocess: a crash here means a bad cached wheel.
if ! .venv/bin/python scripts/check_llama.py; then
  echo "llama-cpp-python build is not usable here; rebuilding it portably" >&2
  $VPIP cache remove llama_cpp_python >/dev/null 2>&1 || true
  $VPIP install --force-reinstall --no-deps --no-cache-dir "llama-cpp-python>=0.3,<0.4"
  .venv/bin/python scripts/check_llama.py
fi
touch "$STAMP"
echo "setup: .venv ready"
