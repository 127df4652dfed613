# lit configuration of the gemmc test suite: .tir tests run through gemmc-opt / gemmc and FileCheck.
import ctypes
import os
import shutil

import lit.formats

config.name = "gemmc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".tir"]
# unit/ holds the C tests that ctest runs; Inputs/ folders hold files that tests read.
config.excludes = ["unit", "Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.test_source_root = os.path.dirname(__file__)
gemmc_obj_root = getattr(config, "gemmc_obj_root", None)
if gemmc_obj_root is None:
    lit_config.fatal("run lit on the build folder (build/test), which has lit.site.cfg.py")
config.test_exec_root = os.path.join(gemmc_obj_root, "test")

# FileCheck, not and count come from LLVM 19's tools folder, ahead of anything else on PATH.
llvm_tools_dir = getattr(config, "llvm_tools_dir", "") or "/usr/lib/llvm-19/bin"
path = os.pathsep.join([config.gemmc_tools_dir, llvm_tools_dir, config.environment.get("PATH", "")])
config.environment["PATH"] = path
for tool in ("FileCheck", "not", "count"):
    if not shutil.which(tool, path=path):
        lit_config.warning("'%s' not found in %s (install llvm-19-tools)" % (tool, llvm_tools_dir))

# Sanitizer and device settings pass through from the caller's environment.
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "CUDA_VISIBLE_DEVICES",
            "HIP_VISIBLE_DEVICES", "HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.environment.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")

# Longest first: lit applies substitutions in order and %gemmc is a prefix of %gemmc-opt.
config.substitutions.append(("%gemmc-tune", os.path.join(config.gemmc_tools_dir, "gemmc-tune")))
config.substitutions.append(("%gemmc-opt", os.path.join(config.gemmc_tools_dir, "gemmc-opt")))
config.substitutions.append(("%gemmc", os.path.join(config.gemmc_tools_dir, "gemmc")))
config.substitutions.append(("%shared", config.gemmc_shared_dir))

# ---------------------------------------------------------------- features


def loadable(library):
    try:
        ctypes.CDLL(library)
        return True
    except OSError:
        return False


# ptxas: on PATH, or in the usual CUDA toolkit folder; its folder joins the tests' PATH.
ptxas = shutil.which("ptxas", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/local/cuda/bin"]))
if ptxas:
    config.available_features.add("ptxas")
    config.environment["PATH"] += os.pathsep + os.path.dirname(ptxas)
# A C compiler for tests that build generated C (gemmc --emit=c).
cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
if cc:
    config.available_features.add("cc")
    config.substitutions.append(("%cc", cc))
# ld.lld from LLVM 19 (Debian's lld-19), as gemmc_target_find_lld looks for it: links .hsaco.
if shutil.which("ld.lld-19", path=config.environment["PATH"]) or os.access("/usr/lib/llvm-19/bin/ld.lld", os.X_OK):
    config.available_features.add("ld.lld-19")
if loadable("libcuda.so.1"):
    config.available_features.add("cuda")
if loadable("libamdhip64.so") or loadable("libamdhip64.so.6"):
    config.available_features.add("hip")
if os.path.isdir(os.path.join(config.gemmc_shared_dir, "triton-3.6")):
    config.available_features.add("triton-dumps")
# Triton 3.6's dumps of the Hopper kernels (scripts/triton-dump.py, unpacked): $GEMMC_TRITON_DUMPS,
# shared/triton-3.6-hopper or test/triton-dumps/Inputs/triton-dumps; see test/triton-dumps/README.md.
for hopper_dumps in (os.environ.get("GEMMC_TRITON_DUMPS", ""),
                     os.path.join(config.gemmc_shared_dir, "triton-3.6-hopper"),
                     os.path.join(config.test_source_root, "triton-dumps", "Inputs", "triton-dumps")):
    if hopper_dumps and os.path.isfile(os.path.join(hopper_dumps, "index.json")):
        config.available_features.add("triton-hopper-dumps")
        config.substitutions.append(("%triton_hopper_dumps", hopper_dumps))
        break
if str(getattr(config, "gemmc_sanitize", "")).upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("asan")
if os.path.exists(os.path.join(config.gemmc_tools_dir, "gemmc")):
    config.available_features.add("gemmc-driver")
