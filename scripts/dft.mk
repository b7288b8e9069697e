# dft.mk - call the dft stages from your own Makefile.
#
#   include /path/to/dft/scripts/dft.mk     (from the source tree)
#   include $(PREFIX)/share/dft/dft.mk      (after make install)
#
#   make dft-annotate   clone, build with the compiler wrapper, smoke test,
#                       annotate, lint, build the annotated copy (no trace yet)
#   make dft-trace      the traced run (and the non-empty trace check)
#   make dft-analyze    split, analyze, proposals, optimization loop, report
#   make dft-optimize   the optimization loop again; with DFT_PATCHES, each
#                       patch (a unified diff of the source) is measured as
#                       one iteration (see skills/dft-optimize)
#   make dft-all        all of it in one go
#   make dft-status     where the latest run is
#   make dft-bundle     final_report/ of the latest run
#
# Each target is one `dft-pipeline` call in batch mode (-y) on the latest run
# of DFT_APP, so a stage can be rerun alone; see dft-pipeline(1).
#
# Settings (override on the command line or before the include):
DFT_URL ?= .
DFT_SMOKE ?=
DFT_BUILD_FLAGS ?=
DFT_WORKSPACES ?= workspaces
DFT_PIPELINE ?= dft-pipeline
DFT_FLAGS ?=
DFT_PATCHES ?=
# the application name dft derives from DFT_URL (its latest run is the one
# the later stages work on)
DFT_APP ?= $(shell dft-clone --print-app-name '$(DFT_URL)' 2>/dev/null)

DFT_OPTS = -y -w '$(DFT_WORKSPACES)' $(DFT_FLAGS) \
	$(if $(DFT_SMOKE),--smoke '$(DFT_SMOKE)') \
	$(if $(DFT_BUILD_FLAGS),--build-flags '$(DFT_BUILD_FLAGS)')

.PHONY: dft-annotate dft-trace dft-analyze dft-optimize dft-all dft-status dft-bundle

dft-annotate:
	$(DFT_PIPELINE) run $(DFT_OPTS) --stop-after build_annotated '$(DFT_URL)'

dft-trace:
	$(DFT_PIPELINE) resume $(DFT_OPTS) --stop-after trace_run '$(DFT_APP)'

dft-analyze:
	$(DFT_PIPELINE) resume $(DFT_OPTS) '$(DFT_APP)'

dft-optimize:
	$(DFT_PIPELINE) optimize -w '$(DFT_WORKSPACES)' $(DFT_FLAGS) \
		$(foreach p,$(DFT_PATCHES),--patch '$(abspath $(p))') '$(DFT_APP)'

dft-all:
	$(DFT_PIPELINE) run $(DFT_OPTS) '$(DFT_URL)'

dft-status:
	$(DFT_PIPELINE) status -w '$(DFT_WORKSPACES)' '$(DFT_APP)'

dft-bundle:
	$(DFT_PIPELINE) bundle -w '$(DFT_WORKSPACES)' '$(DFT_APP)'
