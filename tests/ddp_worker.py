"""The training loop on several processes, for tests/test_ddp.py.

Run as `python -m torch.distributed.run --nproc_per_node=2 --master_port=PORT tests/ddp_worker.py OUT_DIR`: every
process joins one gloo process group on the CPU, runs the same few tiny training runs with `train`, and saves its
final parameters as OUT_DIR/<run>_rank<r>.pt for the test to compare. test_ddp.py also imports `tiny_model`,
`DATA` and `run_config` from here to train the single-process references.
"""

import sys
from pathlib import Path

import torch
import torch.distributed as dist
from torch.optim.optimizer import register_optimizer_step_pre_hook

from transformer.loop import train
from transformer.model import Transformer, TransformerConfig
from transformer.presets import TrainConfig
from transformer.training import reverse_task

PAD, BOS, EOS = 0, 2, 3
VOCAB = 12
DATA = reverse_task(120, vocab_size=VOCAB, min_len=1, max_len=6, seed=0)
VALID = reverse_task(20, vocab_size=VOCAB, min_len=1, max_len=6, seed=1)


def tiny_model(seed=0, dropout=0.1):
    torch.manual_seed(seed)
    return Transformer(
        TransformerConfig(VOCAB, VOCAB, d_model=16, n_layers=1, h=2, d_ff=32, dropout=dropout, max_len=32)
    )


def run_config(out_folder, **kw):
    args = dict(
        max_tokens=48,
        max_epochs=50,
        warmup=5,
        eval_every=None,
        ckpt_every=None,
        log_every=1,
        precision="fp32",
        out_folder=str(out_folder),
        progress=False,
        device="cpu",
    )
    return TrainConfig(**{**args, **kw})


# name: (model dropout, config arguments, resumed from a shorter run of this many updates or None)
RUNS = {
    "whole": (0.1, dict(max_steps=6, accum_steps=2, eval_every=3), None),
    "resumed": (0.1, dict(max_steps=6, accum_steps=2, eval_every=3), 2),
    "nodrop": (0.0, dict(max_steps=4, clip_norm=None), None),
    "nodrop_accum": (0.0, dict(max_steps=3, accum_steps=2, clip_norm=None), None),
}


def record_gradients():
    "Start recording every optimizer's gradients just before each step; returns (list of steps, hook handle)."
    steps = []
    handle = register_optimizer_step_pre_hook(
        lambda opt, args, kwargs: steps.append([p.grad.clone() for g in opt.param_groups for p in g["params"]])
    )
    return steps, handle


def main(out):
    torch.set_num_threads(1)
    dist.init_process_group("gloo")  # train() uses the existing group and leaves it open
    rank = dist.get_rank()
    for name, (dropout, kw, stop_at) in RUNS.items():
        if stop_at is not None:  # interrupted after `stop_at` updates, then resumed in a fresh model
            train(
                tiny_model(dropout=dropout),
                DATA,
                VALID,
                run_config(out / name, **{**kw, "max_steps": stop_at}),
                PAD,
                BOS,
                EOS,
            )
        model = tiny_model(seed=0 if stop_at is None else 123, dropout=dropout)
        grads, handle = record_gradients()
        history = train(model, DATA, VALID, run_config(out / name, **kw), PAD, BOS, EOS, resume=stop_at is not None)
        handle.remove()
        torch.save({"params": model.state_dict(), "history": history, "grads": grads}, out / f"{name}_rank{rank}.pt")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
