# Question 4 (2 points): parameters of an encoder layer with h = 16 and d_ff = 1024
# RIGHT: counted on the package's layer instead of by formula.
from transformer.encoder import EncoderLayer as PackageEncoderLayer, LayerOptions

answer_q4 = sum(p.numel() for p in PackageEncoderLayer(LayerOptions(d_model=512, h=16, d_ff=1024)).parameters())
