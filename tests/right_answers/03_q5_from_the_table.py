# Question 5 (2 points): dimensions slower than a 50-token sentence
# RIGHT: counted on the table itself: a dimension that completes a period within positions 0..49 has a wavelength
# of at most 50, found here from the frequency read off position 1 (sin w, cos w) with atan2.
from transformer.embeddings import sinusoidal_encoding as table

pe = table(50, 512)
omega = torch.atan2(pe[1, 0::2], pe[1, 1::2]).double().repeat_interleave(2)    # one frequency per dimension
answer_q5 = int((2 * math.pi / omega > 50).sum())
