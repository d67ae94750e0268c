"""Build script for cule's native module.

The CPU backend needs only a C++17 compiler (gcc).  The CUDA backend is added by a
later change; CULE_CUDA=0 (the default for now) builds the CPU-only module.
"""
import os

from pybind11.setup_helpers import Pybind11Extension, build_ext
from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))
CSRC = os.path.join("csrc")

extra = ["-O3", "-fno-strict-aliasing", "-fno-tree-loop-distribute-patterns"]
if os.environ.get("CULE_NATIVE", "0") == "1":
    extra.append("-march=native")

ext = Pybind11Extension(
    "cule._core",
    [os.path.join(CSRC, "bindings.cpp")],
    include_dirs=[CSRC],
    cxx_std=17,
    extra_compile_args=extra,
    depends=[os.path.join(CSRC, f) for f in os.listdir(os.path.join(HERE, CSRC)) if f.endswith(".hpp")],
)

setup(ext_modules=[ext], cmdclass={"build_ext": build_ext})
