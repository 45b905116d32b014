# Question 4 (2 points): parameters of an encoder layer with h = 16 and d_ff = 1024
# RIGHT: counted on the package's layer instead of by formula.
from transformer.encoder import EncoderLayer as PackageEncoderLayer

answer_q4 = sum(p.numel() for p in PackageEncoderLayer(512, 16, 1024).parameters())
