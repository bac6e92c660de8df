# frontends/torch/torch.mk — `make run-torch`: mbkit's pipeline on a PyTorch model, measured by
# the PyTorch front end (frontends/torch/mbkit_torch.py) and fitted, solved, checked on held-out
# seeds and reported by the C tools of $(BUILD)/bin. Included by the main Makefile (one line);
# it uses the main Makefile's BUILD, THREADS, CMDS and its `stage` function (docs/commands.md,
# "PyTorch front end").
#
#   make run FRONTEND=torch (or make run-torch)      the example: a small CNN on Fashion-MNIST
#   make run-torch TORCH_MODEL=my_model.py TORCH_LR=0.1 TORCH_TARGET=0.3 OUT=out/mine
#
# Stages (each a stamp in $(OUT)/.torch/, so a failed stage stops the run, names itself and its
# log, and `make run-torch` again redoes only what is missing; rm -rf $(OUT) to start over):
#   probe     mbkit_torch probe   -> step.csv (the model's update step at TORCH_PROBE_BATCHES)
#   train     mbkit_torch runs    -> runs/lrLR/*.csv (TORCH_BATCHES x TORCH_SEEDS to TORCH_TARGET)
#   check     fit the sweep; train the M that would check the recommendation (mbopt validate
#             --missing) on the sweep's seeds -> check/lrLR/*.csv; refit; once more if it moved
#   nfit      mbfit nupdate --weights pooled of every run    -> nfit.json
#   tfit      mbfit tupdate step.csv + every run             -> tfit.json
#   scale     mbopt scale (one learner: the front end times one)  -> scale.txt, scale.json
#   holdout   mbopt validate --holdout-plan N, trained by mbkit_torch runs --plan -> holdout/lrLR/
#   validate  mbopt validate --holdout ... -> validate.txt, .csv, .json
#   report    mbplot report -> report.html
# `make run FRONTEND=torch` is the same target (the main Makefile's run dispatches on FRONTEND).
# Not here: P > 1 learners (the probe times them, mbkit_torch probe --procs, but the runs train
# one learner, so nothing measures N_update at P > 1), the conv stage.

TORCH_PYTHON   ?= /usr/bin/python3
TORCH_MODEL    ?= frontends/torch/examples/fashion_cnn.py
TORCH_DEVICE   ?= auto
TORCH_THREADS  ?= $(THREADS)
TORCH_PROBE_BATCHES ?= 8,16,32,64,128,256
TORCH_PROBE_BUDGET  ?= 0.5
TORCH_BATCHES  ?= 16 32 64 128
TORCH_SEEDS    ?= 0 1 2
TORCH_LR       ?= 0.05
TORCH_TARGET   ?= 0.6
TORCH_EVAL_FRAC ?= 0.05
TORCH_MAX_UPDATES ?= 20000
TORCH_HOLDOUT_SEEDS ?= 5
# the output folder: OUT when given on the command line, else out/torch (make run's is out/)
TORCH_OUT      ?= $(if $(filter command line,$(origin OUT)),$(OUT),out/torch)
# checked as OUT is (the main Makefile's folder_knob): it is pasted into recipes too, one of them
# a $(MAKE) line that runs even under make -n (campaign 31's A6)
$(call folder_knob,TORCH_OUT)
# TORCH_MODEL is pasted into the stages' commands as one word (the Makefile's path_knob: a space
# passed the check and split the path there; campaign 33's D10)
$(call path_knob,TORCH_MODEL,file name)

# The knobs above, checked when make reads the Makefile as make run's are (the main Makefile's
# KNOB_AWK; a quote in one is refused there first): a bad value is one line naming it, exit 2.
# make run's own knobs are not read here, and given with this front end they are refused too;
# HOLDOUT_SEED0 (shared) is held to TORCH_HOLDOUT_SEEDS here (campaign 45's B-F7).
# TORCH_LR: KNOB_AWK's floatrate(), the rate rule the front end's --lr and mbtrain's share.
TORCH_KNOB_ERROR = $(shell LC_ALL=C awk -v batches='$(TORCH_BATCHES)' -v seeds='$(TORCH_SEEDS)' \
  -v lr='$(TORCH_LR)' -v tgt='$(TORCH_TARGET)' -v hs='$(TORCH_HOLDOUT_SEEDS)' \
  -v ef='$(TORCH_EVAL_FRAC)' -v mu='$(TORCH_MAX_UPDATES)' -v pb='$(TORCH_PROBE_BATCHES)' \
  -v pbu='$(TORCH_PROBE_BUDGET)' -v th='$(TORCH_THREADS)' -v dev='$(TORCH_DEVICE)' \
  -v model='$(TORCH_MODEL)' -v hs0='$(HOLDOUT_SEED0)' ' $(KNOB_AWK) BEGIN { \
    m = list("TORCH_BATCHES", batches, 1, 2, "M: the law across M needs two", 0); \
    if (m == "") m = list("TORCH_SEEDS", seeds, 0, 1, "seed", 0); \
    if (m == "" && !(num(lr) && lr + 0 > 0)) m = "TORCH_LR=" lr ": one rate above 0"; \
    if (m == "") m = floatrate("TORCH_LR", lr); \
    if (m == "") m = lossfloat("TORCH_TARGET", tgt); \
    if (m == "") m = w("TORCH_HOLDOUT_SEEDS", hs, 3, 64); \
    if (m == "" && w("HOLDOUT_SEED0", hs0, 1000, 1000000000) == "" && hs0 + hs - 1 > 1000000000) \
      m = sprintf("HOLDOUT_SEED0=%s with TORCH_HOLDOUT_SEEDS=%s: the held-out seeds would run to %.0f, past 1000000000 (HOLDOUT_SEED0 at most %.0f)", hs0, hs, hs0 + hs - 1, 1000000000 - hs + 1); \
    if (m == "" && !(num(ef) && ef + 0 > 0 && ef + 0 <= 1)) m = "TORCH_EVAL_FRAC=" ef ": a fraction above 0, at most 1"; \
    if (m == "") m = w("TORCH_MAX_UPDATES", mu, 1, 1099511627776); \
    if (m == "") m = range("TORCH_PROBE_BATCHES", pb, 1048576); \
    if (m == "") m = pos("TORCH_PROBE_BUDGET", pbu, 0, 1e300); \
    if (m == "") m = w("TORCH_THREADS", th, 1, 4096); \
    if (m == "" && dev !~ /^(auto|cpu|cuda(:[0-9]+)?)$$/) m = "TORCH_DEVICE=" dev ": auto, cpu, cuda or cuda:N"; \
    if (m == "" && system("test -f " sh(model) " && test -r " sh(model)) != 0) \
      m = "TORCH_MODEL=" model ": not a readable file (a Python file defining the model)"; \
    if (m != "") print m }')
TORCH_C_KNOBS = LR LRS TARGET_LOSS RUN_BATCHES RUN_SEEDS HOLDOUT_SEEDS HOLDOUT_BEYOND SPEED_REPEATS EVAL_FRAC \
  MAX_UPDATES PROBE_BATCHES PROBE_BUDGET PROBE_LEARNERS NET DATA COMM COMM_BYTES PROCS HOSTFILE \
  SEED_BUDGET MAX_SEEDS RUN_TIME_CAP PAR_BATCHES PAR_SEEDS CONV_BATCHES CONV_BUDGET CONV_MEM \
  BACKEND DEVICE
ifneq ($(and $(RUN_GOALS),$(TORCH_RUN)),)
$(if $(call IGNORED_KNOB,$(TORCH_C_KNOBS)),$(error $(call IGNORED_KNOB,$(TORCH_C_KNOBS)) is a knob of make run's C front end: the torch front end does not read it (its own are TORCH_*: docs/commands.md, "PyTorch front end")))
$(if $(strip $(TORCH_KNOB_ERROR)),$(error $(TORCH_KNOB_ERROR)))
# OUT and TORCH_OUT both given: TORCH_OUT would win and OUT be ignored without a word (campaign
# 39's B-F7), as make zoo refuses a ZOO_OUT beside OUT (the same folder is no conflict: the
# run-torch recipe's own make passes OUT=$(TORCH_OUT))
$(if $(and $(filter command line,$(origin OUT)),$(call GIVEN,TORCH_OUT),$(filter-out $(abspath $(TORCH_OUT)),$(abspath $(OUT)))),$(error OUT=$(OUT) and TORCH_OUT=$(TORCH_OUT): give one (the torch front end writes into TORCH_OUT, which is OUT when OUT alone is given)))
endif

TORCH_FE     = $(TORCH_PYTHON) frontends/torch/mbkit_torch.py
TORCH_COMMON = --model $(TORCH_MODEL) --device $(TORCH_DEVICE) --threads $(TORCH_THREADS) \
               --algo momentum --momentum 0.9
# TORCH_RUNS trains a plan (--plan "M,LR,SEED ...", whose tokens give the rates) or, with
# --lr $(TORCH_LR), the sweep: mbkit_torch refuses --lr beside --plan, as a flag it would ignore
TORCH_RUNS   = $(TORCH_FE) runs $(TORCH_COMMON) --target-loss $(TORCH_TARGET) \
               --eval-frac $(TORCH_EVAL_FRAC) --max-updates $(TORCH_MAX_UPDATES)
TORCH_LOGS   = $(OUT)/runs/lr$(TORCH_LR)
TORCH_FITS   = --nfit $(OUT)/nfit.json --tfit $(OUT)/tfit.json
TORCH_NFIT   = mbfit nupdate --target-loss $(TORCH_TARGET) --lr $(TORCH_LR) --weights pooled --bootstrap 200
# the sweep's runs and the check's (P = 1, one learning rate)
TORCH_DIRS     = $(TORCH_LOGS) $$(ls -d $(OUT)/check/lr* 2>/dev/null)
TORCH_ALL_LOGS = $(TORCH_LOGS)/*.csv $$(ls $(OUT)/check/lr*/*.csv 2>/dev/null)
TS           = $(OUT)/.torch

.PHONY: run-torch torch-pipeline

run-torch: deps deps-peers
	@$(MAKE) --no-print-directory build
	@$(TORCH_PYTHON) -c 'import torch' 2>/dev/null || { echo "make run-torch: $(TORCH_PYTHON) cannot import torch (make deps-peers installs python3-torch; TORCH_PYTHON=... names another Python)" >&2; exit 1; }
	@t0=$$(date +%s); \
	echo "mbkit run-torch: $(TORCH_MODEL) with the PyTorch front end (device $(TORCH_DEVICE), $(TORCH_THREADS) threads), into $(TORCH_OUT)/"; \
	$(MAKE) --no-print-directory torch-pipeline OUT=$(TORCH_OUT) || exit 1; \
	$(MB_DRY_RUN_STOP) \
	echo; sed -n 's/^# source=/measured by the /p' $(TORCH_OUT)/step.csv; \
	grep -E '^(fastest|recommendation|settled|level|flat|budget):' $(TORCH_OUT)/scale.txt; \
	echo; grep -v '^#' $(TORCH_OUT)/validate.txt; \
	awk '/^# .*eval_s=/ { for (i = 2; i <= NF; i++) { split($$i, kv, "="); \
	    if (kv[1] == "wall_s") w += kv[2]; if (kv[1] == "eval_s") e += kv[2] } } \
	  END { if (w + e > 0) printf "runs: %.1f s training, %.1f s evaluating (%.0f%% evaluation)\n", w, e, 100 * e / (w + e) }' \
	  $$(ls $(TORCH_OUT)/runs/lr*/*.csv $(TORCH_OUT)/check/lr*/*.csv $(TORCH_OUT)/holdout/lr*/*.csv 2>/dev/null); \
	echo "report: $(TORCH_OUT)/report.html"; \
	echo "total: $$(( $$(date +%s) - t0 )) s"

torch-pipeline: $(TS)/report.done

$(TS)/probe.done: | $(CMDS)
	@mkdir -p $(TS)
	@$(call stage,probe,time the update step (mbkit_torch probe),check TORCH_MODEL=$(TORCH_MODEL); a shorter sweep: TORCH_PROBE_BATCHES=8:64, \
	  run $(TORCH_FE) probe $(TORCH_COMMON) --lr $(TORCH_LR) --batch $(TORCH_PROBE_BATCHES) --budget $(TORCH_PROBE_BUDGET) -o $(OUT)/step.csv && touch $@)

$(TS)/train.done: | $(CMDS) $(TS)/probe.done
	@mkdir -p $(TS)
	@$(call stage,train,train to loss $(TORCH_TARGET) at M = $(TORCH_BATCHES) (mbkit_torch runs),a run that does not reach the target wants a higher TORCH_TARGET (now $(TORCH_TARGET)) or a lower TORCH_LR (now $(TORCH_LR)), \
	  rm -rf $(OUT)/runs && run $(TORCH_RUNS) --lr $(TORCH_LR) --batch $(subst $() ,$(comma),$(strip $(TORCH_BATCHES))) \
	    --seeds $(subst $() ,$(comma),$(strip $(TORCH_SEEDS))) --log-dir $(TORCH_LOGS) && touch $@)

# Closing the loop as make run's check stage does: fit the sweep, train the M that would check
# the recommendation and have no runs yet (mbopt validate --missing: the optimum and M / 1.5,
# M * 1.5) on the sweep's seeds, refit, and once more if the optimum moved to an untrained M.
$(TS)/check.done: $(TS)/train.done $(TS)/probe.done
	@$(call stage,check,fit the sweep; train the recommended M and its neighbours,too few runs reached the target: raise TORCH_TARGET (now $(TORCH_TARGET)); see $(OUT)/logs/check.log, \
	  rm -rf $(OUT)/check && mkdir -p $(OUT)/check && \
	  fit() { run $(TORCH_NFIT) $(TORCH_ALL_LOGS) --json -o $(OUT)/check/nfit.json && \
	    run mbfit tupdate $(OUT)/step.csv $(TORCH_ALL_LOGS) --json -o $(OUT)/check/tfit.json; } && \
	  fit && for round in 1 2; do \
	    todo=$$(mbopt validate --nfit $(OUT)/check/nfit.json --tfit $(OUT)/check/tfit.json --missing $(TORCH_DIRS)) || exit 1; \
	    [ -n "$$todo" ] || break; \
	    plan=$$(for s in $(TORCH_SEEDS); do for t in $$todo; do printf '%s$(comma)%s ' "$$t" "$$s"; done; done); \
	    run $(TORCH_RUNS) --plan "$$plan" --log-dir '$(OUT)/check/lr{lr}' || exit 1; \
	    fit || exit 1; \
	  done && touch $@)

$(TS)/nfit.done: $(TS)/check.done
	@$(call stage,nfit,fit N_update(M) to every run (mbfit nupdate),see $(OUT)/logs/check.log, \
	  run $(TORCH_NFIT) $(TORCH_ALL_LOGS) --json -o $(OUT)/nfit.json && touch $@)

$(TS)/tfit.done: $(TS)/probe.done $(TS)/check.done
	@$(call stage,tfit,T_update from the runs and the probe (mbfit tupdate),the step table needs 3 or more batch sizes (TORCH_PROBE_BATCHES), \
	  run mbfit tupdate $(OUT)/step.csv $(TORCH_ALL_LOGS) --json -o $(OUT)/tfit.json && touch $@)

$(TS)/scale.done: $(TS)/nfit.done $(TS)/tfit.done
	@$(call stage,scale,optimal M for one learner (mbopt scale),see the fits in $(OUT)/nfit.json and $(OUT)/tfit.json, \
	  run mbopt scale $(TORCH_FITS) --comm none --procs 1 --procs-available 1 $(SCALE_BUDGET) $(TORCH_DIRS) -o $(OUT)/scale.txt && \
	  run mbopt scale $(TORCH_FITS) --comm none --procs 1 --procs-available 1 $(SCALE_BUDGET) $(TORCH_DIRS) --json -o $(OUT)/scale.json && touch $@)

$(TS)/holdout.done: $(TS)/scale.done
	@$(call stage,holdout,train the answer and its rivals on $(TORCH_HOLDOUT_SEEDS) fresh seeds,TORCH_HOLDOUT_SEEDS sets how many (3 to 64); see $(OUT)/logs/holdout.log, \
	  rm -rf $(OUT)/holdout && \
	  plan=$$(mbopt validate $(TORCH_FITS) --holdout-plan $(TORCH_HOLDOUT_SEEDS) --holdout-seed0 $(HOLDOUT_SEED0) $(TORCH_DIRS)) && \
	  run $(TORCH_RUNS) --plan "$$plan" --log-dir '$(OUT)/holdout/lr{lr}' && touch $@)

$(TS)/validate.done: $(TS)/holdout.done
	@$(call stage,validate,predicted against measured T_C (mbopt validate),see the fits and $(OUT)/logs/validate.log, \
	  held=$$(for d in $(OUT)/holdout/lr*; do [ -d "$$d" ] && printf -- '--holdout %s ' "$$d"; done) && \
	  run mbopt validate $(TORCH_FITS) $$held $(TORCH_DIRS) -o $(OUT)/validate.txt && \
	  run mbopt validate $(TORCH_FITS) $(TORCH_DIRS) --csv -o $(OUT)/validate.csv && \
	  run mbopt validate $(TORCH_FITS) $$held $(TORCH_DIRS) --json -o $(OUT)/validate.json && touch $@)

$(TS)/report.done: $(TS)/validate.done
	@$(call stage,report,figures and the report (mbplot report),see the log; gnuplot draws the figures, \
	  for s in probe train check nfit tfit scale holdout validate; do cat $(OUT)/logs/$$s.cmd 2>/dev/null; done > $(OUT)/commands.txt && \
	  echo 'mbplot report $(OUT)' >> $(OUT)/commands.txt && mbplot report $(OUT) && touch $@)
