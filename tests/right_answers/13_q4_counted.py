# Question 4 (1 point): SwiGLU's width for the paper's parameter count
# RIGHT: counted on the meta device, searching upwards
count = lambda *layers: sum(p.numel() for layer in layers for p in layer.parameters())
ffn = count(nn.Linear(512, 2048, device="meta"), nn.Linear(2048, 512, device="meta"))
answer_q4 = 1
while count(nn.Linear(512, answer_q4 + 1, bias=False, device="meta"), nn.Linear(512, answer_q4 + 1, bias=False, device="meta"),
            nn.Linear(answer_q4 + 1, 512, bias=False, device="meta")) <= ffn:
    answer_q4 += 1
