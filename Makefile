# mbkit — the library, the commands, the tests and the benchmarks (make run's pipeline: run.mk).
#
#   make run              the main job on defaults (installs what it needs first)
#   make check            build with -Werror and run the CUnit suites      (SAN=1: ASan + UBSan;
#                         installs python3-torch too: the PyTorch tests run in every check)
#   make bench            benchmarks (tests/bench/), never part of check
#   make fuzz             libFuzzer harnesses under ASan + UBSan (FUZZ_TIME=s, FUZZ_RUNS=n)
#   make deps             apt-get the Debian packages mbkit needs; silent when all are there
#   make install PREFIX=  commands, libmbkit.a and headers
#   make zoo              the whole pipeline on every workload of data/zoo.txt (part of bench)
#   make nodes            the across-node figures on network namespaces (root; part of bench)
#   make gpu-verify       the CUDA backend on the GPU at hand, one report (tests/gpu/verify.sh)
#   make run-torch        the pipeline on a PyTorch model (frontends/torch/torch.mk; = make run FRONTEND=torch)
#   V=1                   print every build command in full
#
# Sources are found by folder: every *.c file under model/ data/ net/ train/ probe/ fit/ solver/
# plots/ (sub-folders included) goes into libmbkit.a, except each module's command (mbtrain.c,
# mbprobe.c, mbfit.c, mbopt.c, mbplot.c, at the module's top), which becomes build/bin/<name> with
# its parts (NAME_*.c beside it, e.g. solver/mbopt_scale.c: one subcommand each).
# train/backend/cuda/*.cu is built with nvcc when nvcc, cuDNN and cuBLAS are found (CUDA=0 turns
# that off). tests/test_*.c are CUnit suites gathered into one runner.

# A knob's own text is checked before make expands it: a $ in a value given on the command line
# (or a knob's from the environment) would run its $(shell ...) when the value is first read,
# even under make -n, before any check of the value (campaign 32's B3); so this comes first, before
# NVCC's value is read below (campaign 33's D8). The knobs, one list (make run's check of unknown
# names reads it too, so a new knob is in both or neither): every `NAME ?=` of the makefiles, and
# those read without a default: BUILD (set by SAN below) and MBKIT_NETS (the NET check reads it
# from the environment, as the commands do); make install's DESTDIR is checked for a $ as well.
# The check's own variables are override: under make -e the environment (and always the command
# line: DOLLAR=q) would replace them, and the knob's $(shell ...) ran (campaign 34's E7).
override KNOB_NAMES := $(shell sed -n 's/^\([A-Z_][A-Z0-9_]*\) *?=.*/\1/p' Makefile run.mk frontends/torch/torch.mk 2>/dev/null) \
              BUILD MBKIT_NETS
override DOLLAR := $$
# MAKEFLAGS (or GNUMAKEFLAGS) from the environment is expanded by make itself before it reads
# any makefile, so a $(shell ...) there has run by now and the knob it set holds what that printed
# (MAKEFLAGS='LR=$(shell ...)' left LR empty): what make was handed ($(shell) sees make's own
# environment) is refused with a $ in it, rather than run on (campaign 33's D8). A make that make
# run starts hands on no $: its command line's were refused here first. Under make -e, make hands
# a sub-make MAKEFLAGS ending in its own text ` -- $(MAKEOVERRIDES)` (and MAKEOVERRIDES holding
# `${-*-command-variables-*-}`), not expanded: that is no user's $ (campaign 34's E8: make -e run
# was refused by the build that run-c starts), so those two texts alone are dropped before the look.
override ENV_MAKEFLAGS := $(shell printenv MAKEFLAGS | sed 's/ -- [$$](MAKEOVERRIDES)$$//'; printenv GNUMAKEFLAGS; \
                            printenv MAKEOVERRIDES | grep -vxF '$${-*-command-variables-*-}')
$(if $(findstring $(DOLLAR),$(ENV_MAKEFLAGS)),$(error MAKEFLAGS from the environment holds a $$: make expanded it before reading the Makefile, even under make -n (give make run's knobs on the command line)))
override DOLLAR_KNOB := $(firstword $(foreach v,$(.VARIABLES),$(if $(or $(filter command line,$(origin $(v))),$(and $(filter environment,$(origin $(v))),$(filter $(v),$(KNOB_NAMES) DESTDIR))),$(if $(findstring $(DOLLAR),$(value $(v))),$(v)))))
$(if $(DOLLAR_KNOB),$(error $(DOLLAR_KNOB): a make run knob holds no $$ (make would expand it, even under make -n)))

PREFIX  ?= /usr/local
SAN     ?= 0
NVCC    ?= $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
# The toolkit root is asked of nvcc itself (it may be a wrapper script elsewhere on PATH), and
# CUDA is on only when that toolkit also ships the runtime library to link against.
CUDA_TOP := $(if $(NVCC),$(shell $(NVCC) -dryrun -x cu -c /dev/null -o /dev/null 2>&1 | sed -n 's/^\#\$$ TOP=//p'))
CUDA_LIBDIR := $(patsubst %/libcudart.so,%,$(firstword $(wildcard $(addsuffix /libcudart.so, \
               $(CUDA_TOP)/lib64 $(CUDA_TOP)/targets/*/lib $(CUDA_TOP)/lib))))
CUDA    ?= $(if $(CUDA_LIBDIR),1,0)
OUT     ?= out
# Numbers are written with a decimal point whatever the user's locale: every recipe runs in the C
# locale, and every $(shell awk ...) says LC_ALL=C itself (make 4.3 does not pass exported
# variables to $(shell)); Debian's mawk reads "0.02" as 0 under de_DE (campaign 31's A3)
export LC_ALL := C
# A value make pastes into a shell line (a recipe, a $(shell ...)) holds none of ' " ` $ \ ; & |
# < > ( ): make runs a line holding $(MAKE) even under make -n, and a check's own awk would read
# the rest as shell code (issue #25, campaigns 8 to 10). UNSAFE_IN(VALUE) is non-empty when it does.
UNSAFE_CHARS := ' " ` $$ \ ; & | < > ( )
UNSAFE_IN = $(strip $(foreach c,$(UNSAFE_CHARS),$(findstring $(c),$(1))))
# A folder knob (OUT, the front end's TORCH_OUT) is pasted into recipes and make's targets:
# $(call folder_knob,NAME) refuses, naming NAME, a value with a shell character, a space, no
# name at all, a shell pattern (a * would match other folders), a # or : (a target's
# separator), a % (a pattern rule's stem: "No rule to make target", campaign 26's W8), or a
# leading - (mkdir, rm, grep and ls would read OUT=-rf as options: campaign 13, Q3)
HASH := \#
OUT_CHARS := * ? [ ] { } ~ : % $(HASH)
folder_knob = $(if $(call UNSAFE_IN,$($(1))),$(error $(1)=$($(1)): a make run knob holds no quote character (nor any of " ` $$ \ ; & | < > ( ))))$(if $(filter-out 1,$(words $($(1)))),$(error $(1)=$($(1)): one folder name, without spaces))$(if $(strip $(foreach c,$(OUT_CHARS),$(findstring $(c),$($(1))))),$(error $(1)=$($(1)): a folder name without * ? [ ] { } ~ : % or $(HASH)))$(if $(filter -%,$($(1))),$(error $(1)=$($(1)): a folder name that does not start with - (write ./$($(1)))))
$(call folder_knob,OUT)
# A path knob (NET, DATA, HOSTFILE, the front end's TORCH_MODEL) is pasted into recipes as one
# shell word: $(call path_knob,NAME,WHAT) refuses, naming NAME, a value of more than one word
# (NET="a b.cfg": the commands read b.cfg as another argument; make's own functions split it too,
# so HOSTFILE="h f" was "no such file" beside the file; campaign 33's D10), a shell pattern
# character (* ? [ ]: the shell would put the names it matches in its place) or a leading # (the
# shell would read the rest of the command as a comment). An empty value is left to the knob's
# own check. The knob's quote characters are refused before it (UNSAFE_IN).
path_knob = $(if $(filter-out 0 1,$(words $($(1)))),$(error $(1)=$($(1)): one $(2), without spaces))$(if $(strip $(foreach c,* ? [ ],$(findstring $(c),$($(1))))),$(error $(1)=$($(1)): a $(2) without * ? [ or ] (the shell would expand them in make run's commands)))$(if $(filter $(HASH)%,$($(1))),$(error $(1)=$($(1)): a $(2) that does not start with $(HASH) (write ./$($(1)))))

# The CUDA backend (train/backend/cuda/) needs cuDNN and cuBLAS as well: their headers and libraries are
# looked for next to the toolkit, then in Python's bundled NVIDIA packages (site-packages/nvidia/
# {cudnn,cublas,...}/{include,lib}, as PyTorch installs them); the first directory holding each
# wins. A library is linked by its file name (-l:libcudnn.so.9): the bundled packages ship no
# unversioned .so. Without all four, CUDA is off with one line saying why.
ifeq ($(CUDA),1)
PY_SITES := $(shell python3 -c 'import site; print(" ".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null)
CUDA_INC_DIRS := $(CUDA_TOP)/include $(wildcard $(CUDA_TOP)/targets/*/include) \
                 $(foreach s,$(PY_SITES),$(wildcard $(s)/nvidia/*/include))
CUDA_LIB_DIRS := $(CUDA_LIBDIR) $(CUDA_TOP)/lib64 $(CUDA_TOP)/lib $(wildcard $(CUDA_TOP)/targets/*/lib) \
                 $(foreach s,$(PY_SITES),$(wildcard $(s)/nvidia/*/lib))
cuda_hdr = $(patsubst %/$(1),%,$(firstword $(wildcard $(addsuffix /$(1),$(CUDA_INC_DIRS)))))
cuda_lib = $(firstword $(foreach d,$(CUDA_LIB_DIRS),$(wildcard $(d)/lib$(1).so) $(wildcard $(d)/lib$(1).so.[0-9]*)))
CUDNN_INC  := $(call cuda_hdr,cudnn.h)
CUBLAS_INC := $(call cuda_hdr,cublas_v2.h)
CUDNN_SO   := $(call cuda_lib,cudnn)
CUBLAS_SO  := $(call cuda_lib,cublas)
CUDA_MISSING := $(if $(CUDNN_INC),,cudnn.h )$(if $(CUBLAS_INC),,cublas_v2.h )$(if $(CUDNN_SO),,libcudnn.so )$(if $(CUBLAS_SO),,libcublas.so )
ifneq ($(strip $(CUDA_MISSING)),)
ifeq ($(origin CUDA),command line)
$(error CUDA=1 but not found next to $(CUDA_TOP) or in Python's nvidia packages: $(CUDA_MISSING))
endif
ifeq ($(MAKELEVEL),0)
$(info make: CUDA backend off: nvcc found, but not $(strip $(CUDA_MISSING)) (looked next to $(CUDA_TOP) and in Python's nvidia packages))
endif
override CUDA := 0
endif
endif

# Quiet build: one line a target ("CC obj/x.o"); V=1 prints every command in full.
V ?= 0
ifeq ($(V),1)
Q :=
say = true
else
Q := @
say = printf '  %-5s %s\n' '$(1)' '$(2)'
endif

# BUILD (build/release; build/san with SAN=1) given on the command line is a relative path inside
# the tree (build/x, not /tmp nor ../x): make reads every *.d file under it, and make run's PATH
# and the CUDA plugin's path are $(CURDIR)/$(BUILD) (campaign 19's M5: BUILD=/tmp read the .d
# files of every other build there, and put /work/..//tmp/bin on PATH). One line, exit 2.
$(if $(filter command,$(firstword $(origin BUILD))),$(if $(call UNSAFE_IN,$(BUILD)),$(error BUILD=$(BUILD): a make knob holds no quote character (nor any of " ` $$ \ ; & | < > ( )))))
BUILD_ERROR = $(shell LC_ALL=C awk -v b='$(BUILD)' 'BEGIN { n = split(b, c, "/"); ok = b ~ /^[A-Za-z0-9_.+\/-]+$$/ && b !~ /^[\/-]/; \
  for (i = 1; i <= n; i++) { if (c[i] == "..") ok = 0; if (c[i] != "" && c[i] != ".") real = 1 } \
  if (!(ok && real)) print "BUILD=" b ": a relative path inside the tree (build/x: no leading / or -, no .., letters, digits and _ . + - only)" }')
$(if $(filter command,$(firstword $(origin BUILD))),$(if $(BUILD_ERROR),$(error $(BUILD_ERROR))))

ifeq ($(SAN),1)
BUILD   := build/san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
else
BUILD   := build/release
SANFLAGS :=
endif

# Debian packages behind every library and tool mbkit uses.
DEB_PKGS := build-essential pkg-config libgsl-dev libglpk-dev libopenblas-dev libopenmpi-dev \
            openmpi-bin libfftw3-dev libisal-dev zlib1g-dev libcjson-dev libcunit1-dev \
            gnuplot-nox dataset-fashion-mnist
# The PyTorch side's tests (the front end, gradients against PyTorch) run on Debian's PyTorch:
# make check installs it (about 30 s here), and those suites fail, not skip, without it; and
# the locales package's sources (a test compiles de_DE to check make run under a decimal comma).
TEST_PKGS := python3-torch locales
# Peers for parity checks and benchmarks (large; not needed by make check or make run).
PEER_PKGS := python3-torch python3-scipy python3-numpy
# The fuzz harnesses' compiler (clang with libFuzzer; not needed by make check or make run).
FUZZ_PKGS := clang

MODULES := model data net train probe fit solver plots
# Library sources: every .c under the modules, sub-folders included (train/run/, train/backend/cpu/ ...).
ALL_SRCS := $(sort $(shell find $(MODULES) -name '*.c'))
CMD_SRCS := $(foreach m,$(MODULES),$(foreach f,$(wildcard $(m)/mb*.c),$(if $(findstring _,$(notdir $(f))),,$(f))))
cmd_parts = $(wildcard $(basename $(1))_*.c)
CMD_PART_SRCS := $(foreach c,$(CMD_SRCS),$(call cmd_parts,$(c)))
LIB_SRCS := $(filter-out $(CMD_SRCS) $(CMD_PART_SRCS),$(ALL_SRCS))
CU_SRCS  := $(if $(filter 1,$(CUDA)),$(sort $(shell find train -name '*.cu')))
CMDS     := $(patsubst %.c,$(BUILD)/bin/%,$(notdir $(CMD_SRCS)))
HEADERS  := $(sort $(shell find $(MODULES) -name 'mb_*.h'))
TEST_SRCS := $(wildcard tests/test_*.c)
TEST_SUPPORT := $(filter-out tests/runner.c $(TEST_SRCS),$(wildcard tests/*.c))
BENCH_SRCS := $(wildcard tests/bench/*.c)

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
CU_OBJS  := $(CU_SRCS:%.cu=$(BUILD)/obj/%.o)
TEST_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(TEST_SRCS) $(TEST_SUPPORT)) $(BUILD)/obj/tests/runner.o
LIB      := $(BUILD)/lib/libmbkit.a

# Open MPI's flags are asked of its wrapper when a rule runs (after `make deps` installed it).
MPI_CFLAGS = $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS   = $(shell mpicc --showme:link 2>/dev/null)

CC      := gcc
CFLAGS  := -std=c11 -O2 -g -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
           -MMD -MP $(SANFLAGS)
CPPFLAGS = -I. $(MPI_CFLAGS) -DMB_HAVE_CUDA=$(CUDA) -DMB_VERSION='"0.1.0"' \
           $(if $(filter 1,$(CUDA)),-DMB_CUDA_PLUGIN='"$(CURDIR)/$(BUILD)/lib/libmbkit-cuda.so"')
LDFLAGS := $(SANFLAGS)
LDLIBS   = -lgsl -lglpk -lfftw3f -lopenblas -lcjson -lisal -lz -lpthread -lm $(MPI_LIBS)
ifeq ($(CUDA),1)
ifeq ($(CUDA_LIBDIR),)
$(error CUDA=1 but no libcudart.so next to nvcc ($(or $(NVCC),not found)); use CUDA=0)
endif
# The CUDA backend is its own shared object, CUDA_PLUGIN, which backend.c loads the first time
# CUDA is asked about: the commands do not link cuBLAS and cuDNN (0.06 s and 155 MB a start).
# It takes the functions it uses from mbkit (CUDA_IMPORTS) from the command that loads it, so the
# commands export those. mbtest links it too: it calls the kernels' host-side arithmetic.
CUDA_DNN_DIRS := $(sort $(dir $(CUDNN_SO) $(CUBLAS_SO)))
CUDA_LIBS := $(foreach d,$(CUDA_DNN_DIRS),-L$(d) -Wl,-rpath,$(d)) -l:$(notdir $(CUDNN_SO)) \
             -l:$(notdir $(CUBLAS_SO)) -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -lcudart -lstdc++
CUDA_PLUGIN  := $(BUILD)/lib/libmbkit-cuda.so
CUDA_IMPORTS := mb_error_set mb_conv_out_h mb_conv_out_w mb_conv_pass_name
LDLIBS   += -Wl,-rpath,'$$ORIGIN/../lib' $(foreach f,$(CUDA_IMPORTS),-Wl,--undefined=$(f) -Wl,--export-dynamic-symbol=$(f))
# Machine code for Turing (sm_75), Ampere (sm_80) and Hopper (sm_90), plus sm_90's PTX for later
# chips (the driver compiles it at the first start); CUDA_ARCH=... builds other targets.
CUDA_ARCH ?= -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 \
             -gencode arch=compute_90,code=[sm_90,compute_90]
NVFLAGS  := -O2 -std=c++17 $(CUDA_ARCH) -Xcompiler -Wall,-Wextra,-Werror,-fPIC -I. \
            $(addprefix -I,$(sort $(CUDNN_INC) $(CUBLAS_INC)))
endif

.PHONY: all deps deps-test deps-peers deps-fuzz build check check-build run run-c pipeline run-example bench zoo gpu-verify install clean help \
        fuzz fuzz-build nodes
.DEFAULT_GOAL := all

all: deps
	@$(MAKE) --no-print-directory build

help:
	@sed -n '2,18p' Makefile | sed 's/^# \{0,1\}//'

# $(call apt_install,PACKAGES,WHO): apt-get the PACKAGES that are not installed yet (sudo unless
# root); silent when all are there; one line naming them and exit 1 when apt-get fails.
apt_install = missing=$$(for p in $(1); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	  done); \
	if [ -n "$$missing" ]; then \
	  echo "make $(2): installing" $$missing; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null || \
	    { echo "make $(2): apt-get failed for:" $$missing >&2; exit 1; }; \
	fi

deps:
	@$(call apt_install,$(DEB_PKGS),deps)

deps-test:
	@$(call apt_install,$(TEST_PKGS),deps-test)

deps-peers:
	@$(call apt_install,$(PEER_PKGS),deps-peers)

deps-fuzz:
	@$(call apt_install,$(FUZZ_PKGS),deps-fuzz)

build: $(LIB) $(CMDS) $(CUDA_PLUGIN)

# train/ (its sub-folders too: the kernels of train/backend/cpu/): -O3 for the vectoriser
# (element-wise and copy loops; +13% lenet5 samples/s)
$(BUILD)/obj/train/%.o: CFLAGS += -O3

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	@$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.cu
	@mkdir -p $(@D)
	@$(call say,NVCC,$@)
	$(Q)$(NVCC) $(NVFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(@D)
	@$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# Beside it, PLUGIN.crc: its size and CRC-32 (zlib's, the gzip trailer's first word), which
# backend.c checks before dlopen (a damaged plugin crashed the dynamic loader: campaign 18)
$(CUDA_PLUGIN): $(CU_OBJS)
	@mkdir -p $(@D)
	@$(call say,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,$(notdir $@) -o $@ $^ $(CUDA_LIBS)
	$(Q)printf '%s %s\n' "$$(wc -c < $@)" "$$(gzip -c -n $@ | tail -c 8 | od -An -tu4 -N4 | tr -d ' ')" > $@.crc

# Each command's object lives under its folder; tell make where.
define CMD_RULE
$(BUILD)/bin/$(notdir $(1:.c=)): $(BUILD)/obj/$(1:.c=.o) $(patsubst %.c,$(BUILD)/obj/%.o,$(call cmd_parts,$(1))) $(LIB)
	@mkdir -p $$(@D)
	@$$(call say,LD,$$@)
	$$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) $(LIB) $$(LDLIBS)
endef
$(foreach c,$(CMD_SRCS),$(eval $(call CMD_RULE,$(c))))

# ---- tests: every tests/test_NAME.c defines mb_test_suite_NAME(); the list is generated -------
$(BUILD)/gen/suites.h: FORCE
	@mkdir -p $(@D)
	@{ for f in $(notdir $(TEST_SRCS:.c=)); do echo "MB_SUITE($${f#test_})"; done; } > $@.new
	@cmp -s $@.new $@ 2>/dev/null && rm -f $@.new || mv $@.new $@
FORCE:

# The convolution probe's cache keys its timings by the kernels that made them (probe/conv.c):
# a hash of the backends' sources, rewritten (and probe/conv.o rebuilt) only when they change.
KERNEL_SRCS := $(sort $(wildcard train/backend/backend*.c train/backend/backend*.h \
                 train/backend/cpu/*.c train/backend/cpu/*.h train/backend/cuda/*.cu train/backend/cuda/*.h))
%/gen/kernels.h: FORCE
	@mkdir -p $(@D)
	@echo "#define MB_KERNELS_ID \"$$(cat $(KERNEL_SRCS) | sha1sum | cut -c1-12)\"" > $@.new
	@cmp -s $@.new $@ 2>/dev/null && rm -f $@.new || mv $@.new $@
$(BUILD)/obj/probe/conv.o: $(BUILD)/gen/kernels.h
$(BUILD)/obj/probe/conv.o: CPPFLAGS += -I$(BUILD)/gen

$(BUILD)/obj/tests/runner.o: tests/runner.c $(BUILD)/gen/suites.h
	@mkdir -p $(@D)
	@$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) -I$(BUILD)/gen $(CFLAGS) -c $< -o $@

$(BUILD)/obj/tests/%.o: CPPFLAGS += -DMB_TEST_BIN='"$(CURDIR)/$(BUILD)/bin"' -DMB_TEST_SRC='"$(CURDIR)"' \
                                    -DMB_TEST_MAKE_ARGS='"BUILD=$(BUILD) SAN=$(SAN) CUDA=$(CUDA)"'

$(BUILD)/bin/mbtest: $(TEST_OBJS) $(LIB) $(CUDA_PLUGIN)
	@mkdir -p $(@D)
	@$(call say,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(TEST_OBJS) $(LIB) $(CUDA_PLUGIN) -lcunit $(LDLIBS)

check-build: $(LIB) $(CMDS) $(BUILD)/bin/mbtest

# Sanitizer runs: leaks inside Open MPI's own start-up are not ours (tests/lsan.supp).
# (MAKEFLAGS and MFLAGS emptied: the suites run make themselves, and under make -j2 check a nested
# make would inherit a jobserver it cannot reach and warn on stderr, which the tests read)
CHECK_ENV := MAKEFLAGS= MFLAGS= \
             OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 \
             ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
             LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
             UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

check: deps deps-test
	@$(MAKE) --no-print-directory check-build
	$(CHECK_ENV) $(BUILD)/bin/mbtest

# ---- fuzzing: tests/fuzz/fuzz_*.c, one libFuzzer harness per parser, under ASan + UBSan ---------
# `make fuzz` builds the library again with clang's coverage instrumentation (build/fuzz, no
# CUDA) and runs every harness for FUZZ_TIME seconds or FUZZ_RUNS inputs, whichever comes first
# (0 / -1: no limit), from its corpus tests/fuzz/corpus/NAME (new inputs go to build/fuzz, not
# into the repository). FUZZ=table,ckpt runs only those. A crash, leak, UB or a run over 10 s
# stops with the harness's report and the input that did it (build/fuzz/NAME.log).
FUZZ_CC   ?= clang
FUZZ_TIME ?= 60
FUZZ_RUNS ?= -1
comma     := ,
empty     :=
space     := $(empty) $(empty)
FUZZ      ?= $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_DIR  := build/fuzz
FUZZ_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS = -std=c11 -O1 -g -Wall -Wextra -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
              -MMD -MP $(FUZZ_SAN) -I. $(MPI_CFLAGS) -DMB_HAVE_CUDA=0 -DMB_VERSION='"0.1.0"'
FUZZ_OBJS := $(LIB_SRCS:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_BINS  = $(patsubst %,$(FUZZ_DIR)/bin/fuzz_%,$(subst $(comma), ,$(FUZZ)))

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/obj/probe/conv.o: $(FUZZ_DIR)/gen/kernels.h
$(FUZZ_DIR)/obj/probe/conv.o: FUZZ_CFLAGS += -I$(FUZZ_DIR)/gen

$(FUZZ_DIR)/lib/libmbkit.a: $(FUZZ_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(FUZZ_DIR)/bin/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(FUZZ_DIR)/lib/libmbkit.a
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_DIR)/lib/libmbkit.a \
	  -lgsl -lglpk -lfftw3f -lopenblas -lcjson -lisal -lz -lpthread -lm $(MPI_LIBS)

fuzz-build: $(FUZZ_BINS)

fuzz: deps deps-fuzz
	@$(MAKE) --no-print-directory fuzz-build
	@for n in $(subst $(comma), ,$(FUZZ)); do \
	  w=$(FUZZ_DIR)/corpus/$$n; c=tests/fuzz/corpus/$$n; mkdir -p $$w; \
	  printf '  fuzz %-8s ' $$n; \
	  if ! OPENBLAS_NUM_THREADS=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	       $(FUZZ_DIR)/bin/fuzz_$$n -max_total_time=$(FUZZ_TIME) -runs=$(FUZZ_RUNS) -timeout=10 \
	       -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/$$n- \
	       $$w $$c > $(FUZZ_DIR)/$$n.log 2>&1; then \
	    echo FAILED; tail -n 40 $(FUZZ_DIR)/$$n.log; exit 1; \
	  fi; \
	  awk '/stat::number_of_executed_units/ { r = $$2 } /stat::peak_rss_mb/ { m = $$2 } \
	       /Done [0-9]+ runs in/ { t = $$(NF-1) } \
	       END { printf "%d runs in %d s, no crash, leak or timeout (peak %d MB)\n", r, t, m }' \
	    $(FUZZ_DIR)/$$n.log; \
	done

# ---- benchmarks: tests/bench/*.c, each its own program, run in turn ---------------------------
BENCHES := $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(BENCH_SRCS))
$(BUILD)/bench/%: tests/bench/%.c tests/bench/bench.h $(LIB)
	@mkdir -p $(@D)
	@$(call say,LD,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

bench: deps
	@$(MAKE) --no-print-directory $(BENCHES) $(CMDS)
	@for b in $(BENCHES); do echo "== $$b"; $$b || exit 1; done
	@for s in tests/bench/*.sh; do [ -f "$$s" ] || continue; echo "== $$s"; BIN=$(BUILD)/bin bash $$s || exit 1; done

# ---- across "nodes": network namespaces joined by rate-limited veths, Open MPI over TCP between
# them (tests/nodes/netns.sh); the collective fit, Delta(P) per P and predicted against measured
# T_C at P = 2..4 into $(OUT)/nodes (tests/bench/nodes.sh; one line and nothing else where
# namespaces cannot be made). RATE=100mbit for slower links.
nodes: deps
	@$(MAKE) --no-print-directory build
	@BIN=$(BUILD)/bin OUT=$(OUT)/nodes bash tests/bench/nodes.sh

# ---- the CUDA backend on the GPU at hand: the CUDA-vs-CPU suites, bad input on the device, the
# lenet5 step against PyTorch + cuDNN and cuDNN's algorithms, one report (tests/gpu/verify.sh) --
gpu-verify: deps
	@$(if $(filter 1,$(CUDA)),,echo "make gpu-verify: the CUDA backend is not built (CUDA=0, or nvcc, cuDNN or cuBLAS not found)" >&2; exit 1)
	@$(MAKE) --no-print-directory build $(BUILD)/bin/mbtest
	@BIN=$(BUILD)/bin GPU_VERIFY_DIR=$(OUT)/gpu-verify bash tests/gpu/verify.sh

# ---- the workload zoo: make run on every line of data/zoo.txt, one table (tests/bench/zoo.sh) ----
# (ZOO=FILE, ZOO_TABLE_ONLY=1 given to make zoo are zoo.sh's, from the environment: not passed on
# to its make runs, which refuse a variable that is none of their knobs)
zoo: MAKEOVERRIDES := $(filter-out ZOO%,$(MAKEOVERRIDES))
zoo: deps
	@$(MAKE) --no-print-directory build
	@ZOO_OUT=$(OUT)/zoo bash tests/bench/zoo.sh

# ---- the main job: probe -> train -> fit -> optimise -> report, into $(OUT) (run.mk) ----------
include run.mk

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/share/mbkit
	install -m 755 $(CMDS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/
	$(if $(CUDA_PLUGIN),install -m 755 $(CUDA_PLUGIN) $(DESTDIR)$(PREFIX)/lib/)
	$(if $(CUDA_PLUGIN),install -m 644 $(CUDA_PLUGIN).crc $(DESTDIR)$(PREFIX)/lib/)
	for h in $(HEADERS); do install -D -m 644 $$h $(DESTDIR)$(PREFIX)/include/mbkit/$$h; done
	cp -r data/nets data/examples $(DESTDIR)$(PREFIX)/share/mbkit/ 2>/dev/null || true

clean:
	rm -rf build

-include frontends/torch/torch.mk
# Two of the torch front end's knobs, checked after torch.mk's own checks as those are (one line,
# exit 2, before any stage; campaign 23's R10: both failed a stage). TORCH_EVAL_FRAC: the model's
# data size is known only once its dataset() runs, so the fraction is held to the floor make run
# holds a DATA of no stated size to. TORCH_PYTHON, when given: a program that finds torch
# (importlib, not import torch's seconds; run-torch imports it before any stage). The default's
# torch is what deps-peers installs, so it is not asked for here.
TORCH_MORE_ERROR = $(shell LC_ALL=C awk -v ef='$(TORCH_EVAL_FRAC)' '$(KNOB_AWK) BEGIN { m = evalfrac("TORCH_EVAL_FRAC", ef, 0, ""); if (m != "") print m }')
TORCH_PYTHON_ERROR = $(shell set -f; set -- $(TORCH_PYTHON); p="$$1"; \
  case "$$p" in (*/*) [ -f "$$p" ] && [ -x "$$p" ] ;; (*) [ -n "$$p" ] && command -v "$$p" >/dev/null 2>&1 ;; esac || \
  { echo "TORCH_PYTHON=$(TORCH_PYTHON): not a program here (an executable file, or a name on PATH: the Python 3 with torch that runs the front end)"; exit; }; \
  [ "$$(timeout 20 $(TORCH_PYTHON) -c 'import importlib.util as u; print(u.find_spec("torch") is not None)' </dev/null 2>/dev/null | head -n 1)" = True ] || \
  echo "TORCH_PYTHON=$(TORCH_PYTHON): finds no torch package (the front end imports torch; make deps-peers installs Debian's python3-torch for /usr/bin/python3)")
ifneq ($(and $(RUN_GOALS),$(TORCH_RUN)),)
$(if $(strip $(TORCH_MORE_ERROR)),$(error $(TORCH_MORE_ERROR)))
$(if $(and $(call GIVEN,TORCH_PYTHON),$(strip $(TORCH_PYTHON_ERROR))),$(error $(TORCH_PYTHON_ERROR)))
endif
-include $(shell find $(BUILD) $(if $(filter fuzz%,$(MAKECMDGOALS)),$(FUZZ_DIR)) -name '*.d' 2>/dev/null)
