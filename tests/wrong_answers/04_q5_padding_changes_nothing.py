# Question 5 (2 points): positions that change when a padded input changes
# WRONG: the mask hides key 8 from every query, but position 8's own output still sees x[0, 8] through its residual.
answer_q5 = 0
