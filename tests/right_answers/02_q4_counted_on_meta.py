# Question 4 (2 points): parameters with full-width heads, d_model = 512, h = 8
# RIGHT: build the four projections on the meta device and count.
layers = [nn.Linear(512, 8 * 512, device="meta") for _ in range(3)] + [nn.Linear(8 * 512, 512, device="meta")]
answer_q4 = sum(p.numel() for layer in layers for p in layer.parameters())
