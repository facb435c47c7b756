"""One module per file format: each declares ``SUFFIXES``, ``WHAT`` and ``convert(path) -> Converted``."""
