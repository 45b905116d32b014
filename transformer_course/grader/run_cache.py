"""A value computed once per key and kept on disk, for the capstone's bar: the accuracy the package's own model
reaches, which takes minutes to train. `cached(key, compute)` stores `compute()`'s value under a digest of `key`
in the package's cache folder, next to Multi30k's files ($XDG_CACHE_HOME/transformer/capstone, default
~/.cache); the next call with the same key reads it. Two processes that need it at once: one computes, the
other waits for its result."""

import json

from transformer.checkpoint import sha256_bytes, write_atomic

try:
    import fcntl
except ImportError:  # Windows: no lock, two processes may both compute it
    fcntl = None


def cache_dir():
    from transformer.data import default_cache_folder

    return default_cache_folder().parent / "capstone"


def cached(key: dict, compute):
    "`compute()`'s value for `key`, read from cache_dir() when an earlier call stored it, else computed and stored."
    folder = cache_dir()
    name = sha256_bytes(json.dumps(key, sort_keys=True).encode())[:32]
    path = folder / f"{name}.json"

    def stored():
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        return record.get("value") if record.get("key") == key else None

    if (value := stored()) is not None:
        return value
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = open(folder / f"{name}.lock", "w")
    except OSError:  # no cache can be written: compute it every time
        return compute()
    with lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the process ends
        if (value := stored()) is not None:  # computed meanwhile by another process
            return value
        value = compute()
        write_atomic(path, json.dumps({"key": key, "value": value}, indent=1) + "\n")
    return value
