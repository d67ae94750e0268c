"""Throughput benchmark (same as `python -m cule.benchmark`); see cule/benchmark.py."""
from cule.benchmark import main

if __name__ == "__main__":
    main(prog="python examples/benchmark.py")
