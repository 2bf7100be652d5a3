"""The benchmark harness: times whole public calls against every candidate, per region and thread count.

Run ``python -m torchperf_lint.reference_kernels.bench --quick --threads 1,2 --json OUT``.
"""
