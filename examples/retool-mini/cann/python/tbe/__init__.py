"""A stand-in for CANN's tbe package: torch_npu imports it to compile
operators online, from the PYTHONPATH CANN's set_env.sh exports."""

VERSION = "8.3.RC1"
