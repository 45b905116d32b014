# Question 1 (1 point): the first four merges of Sennrich's words
# WRONG: both ties broken the other way, to the pair whose left letter comes later ("s" after "e", "o" after "l")
answer_q1 = [("s", "t"), ("e", "st"), ("o", "w"), ("l", "ow")]
