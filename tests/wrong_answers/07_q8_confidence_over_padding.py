# Question 8 (3 points): confidence with and without label smoothing
# WRONG: the confidence is averaged over every position, the padding ones included.
from transformer.model import Transformer, TransformerConfig
from transformer.training import LabelSmoothingLoss, make_batch, reverse_task

def train_tiny(smoothing, steps=60):
    "A tiny Transformer fitted to 16 reversal pairs with LabelSmoothingLoss(smoothing): (model in eval mode, batch)."
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        torch.manual_seed(0)
        model = Transformer(TransformerConfig(14, 14, d_model=32, n_layers=1, h=2, d_ff=64, dropout=0.0)).double()
        batch = make_batch(reverse_task(16, seed=0), 0, 2, 3)
        criterion = LabelSmoothingLoss(smoothing, pad_id=0)
        params = list(model.parameters())
        moments = [(torch.zeros_like(p), torch.zeros_like(p)) for p in params]
        for step in range(1, steps + 1):
            loss = criterion(model(batch.src, batch.tgt_in, batch.src_mask, batch.tgt_mask), batch.tgt_out)
            model.zero_grad()
            loss.backward()
            with torch.no_grad():
                for p, (m, v) in zip(params, moments):
                    m.lerp_(p.grad, 0.1)
                    v.lerp_(p.grad ** 2, 0.001)
                    p -= 0.01 * (m / (1 - 0.9 ** step)) / ((v / (1 - 0.999 ** step)).sqrt() + 1e-8)
    finally:
        torch.set_num_threads(threads)
    return model.eval(), batch

def measure(model, batch):
    with torch.no_grad():
        probs = model(batch.src, batch.tgt_in, batch.src_mask, batch.tgt_mask).softmax(dim=-1)
    return probs.max(dim=-1).values.mean().item()

answer_q8_plain = measure(*train_tiny(0.0))
answer_q8_smoothed = measure(*train_tiny(0.3))
