# A stand-in for CANN's ascend-toolkit/set_env.sh: it puts the toolkit's
# Python packages (here a stand-in tbe, the operator compiler torch_npu
# imports) on PYTHONPATH, relative to where the script lives, and says where
# the toolkit is.
_cann_home="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export ASCEND_TOOLKIT_HOME="$_cann_home"
export PYTHONPATH="$_cann_home/python${PYTHONPATH:+:$PYTHONPATH}"
unset _cann_home
