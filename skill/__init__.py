"""The reviewers' agent skill (Agent Skills format), shipped as package data of ``torchperf_lint.skill``."""
