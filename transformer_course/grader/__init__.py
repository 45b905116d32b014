"""Exercises and their grader.

`solutions/NN_name.ipynb` is the single source of every exercise: the code between
`### BEGIN SOLUTION` and `### END SOLUTION` is what a learner must write.

    python -m transformer_course.grader build                 # regenerate exercises/ from solutions/
    python -m transformer_course.grader check                 # exit 1 when exercises/ is out of date
    python -m transformer_course.grader grade NOTEBOOK        # grade a filled-in exercise (or a solution)

A question is a code cell whose first line reads `# Question N (P points): title`.
Each question is graded on its own, in a fresh forked process with a time limit, after the
notebook's setup cell (first line `# Setup`): a broken answer costs that question only.
transformer_course/grader/README.md explains the details and how to add a question or an exercise.
"""
