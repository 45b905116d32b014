# Question 5 (2 points): positions that change when a padded input changes
# WRONG: believes the padded positions 7, 8, 9 attend to each other (the mask hides padded keys from every query).
answer_q5 = 3
