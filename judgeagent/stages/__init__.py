"""The three stages of an interview: grading → extension → feedback."""
