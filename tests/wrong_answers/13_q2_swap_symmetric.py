# Question 2 (2 points): RoPE's relative-position property
# WRONG: takes the score to depend on the distance |n - m|, so that swapping the positions changes nothing
answer_q2 = "abcdf"
