"""What a bench figure depends on besides the code: the CPU's relevant flags, bf16, the load.

Every timing bench prints :func:`describe` first: MiniLM runs under bf16 autocast only where
the CPU multiplies bf16 natively (AVX512-BF16 or AMX), and ``JUDGEAGENT_EMBED_BF16=0``
forces fp32 there, which emulates an AVX2-only CPU's precision (not its speed: the fp32
kernels still use AVX-512 here).
"""

from __future__ import annotations

import os

FLAGS = ("avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "amx_bf16", "amx_int8")


def cpu_model_and_flags() -> tuple[str, list[str]]:
    model, flags = "?", set()
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("model name") and model == "?":
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return model, [f for f in FLAGS if f in flags]


def describe() -> str:
    """One line: CPU, its relevant flags, whether MiniLM runs bf16 here, cores, load average."""
    from judgeagent.graph.embed import bf16_supported

    model, flags = cpu_model_and_flags()
    forced = os.environ.get("JUDGEAGENT_EMBED_BF16")
    bf16 = "bf16 " + ("on" if bf16_supported() else "off") + (f" (JUDGEAGENT_EMBED_BF16={forced})" if forced is not None else " (detected)")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"CPU {model}, {os.cpu_count()} cores, flags {' '.join(flags) or 'none of ' + ' '.join(FLAGS)}; {bf16}; load average {load}"
