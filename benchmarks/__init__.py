"""Benchmarks: each a module run from the repository's root, ``python -m benchmarks.<name>``.

They share the browser harness with the tests (``tests.support``) and print a
table and write JSON (``benchmarks/results/``); ``./dev bench`` runs them all.
"""
