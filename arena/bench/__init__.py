"""Benchmarks behind ``arena bench``: each prints figures, none asserts a time."""
