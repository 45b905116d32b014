"""The course's grader and figure helpers: not part of the `transformer` library."""
