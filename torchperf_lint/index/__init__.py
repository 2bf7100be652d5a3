"""The project index: one summary per file of a project, built from CPython's ``ast`` and stored by
content hash, so that rules know what other files' functions are without parsing them again."""
