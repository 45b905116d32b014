# Question 6 (3 points): sampling_probs
# RIGHT: a function for one row and one temperature, applied to every row in a Python loop.
def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    "The next-token distribution after temperature (a number, or one per row), top-k and top-p."
    def one_row(z, t):                                            # z (vocab,), t a float
        if t == 0:
            out = torch.zeros_like(z)
            out[z.argmax()] = 1.0
            return out
        z = z / t
        if top_k is not None:
            z = torch.where(z >= z.sort(descending=True).values[top_k - 1], z, torch.tensor(-math.inf))
        p = torch.softmax(z, dim=0)
        if top_p is not None:
            keep, mass = torch.zeros_like(p, dtype=torch.bool), 0.0
            for i in p.argsort(descending=True).tolist():
                if mass >= top_p:
                    break
                keep[i] = True
                mass += p[i].item()
            p = torch.where(keep, p, torch.zeros_like(p))
            p = p / p.sum()
        return p
    flat = logits.reshape(-1, logits.size(-1))
    temps = torch.as_tensor(temperature, dtype=torch.float32).expand(logits.shape[:-1]).reshape(-1)
    return torch.stack([one_row(z, float(t)) for z, t in zip(flat, temps)]).reshape(logits.shape)
