# tests/viz/build.mk — the viz tests' helper (t3*): writes a run with
# hostile bytes into a store and reads rendered DOT back through cgraph.
# Lives outside $(B)/tests/ so the runner does not take it for a test.
VIZ_HELPER := $(B)/tests-helpers/t3-viz
$(VIZ_HELPER): tests/viz/t3-viz.c $(LIBS_ALL) $(B)/config.mk | $(PUB_ALL)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_tests) -o $@ $< $(LIBS_ALL) $(LDLIBS_ALL)
EXTRA_ALL += $(VIZ_HELPER)

# svgfit: does a picture's text fit its boxes as a second renderer draws it.
SVGFIT := $(B)/tests-helpers/svgfit
$(SVGFIT): tests/viz/svgfit.c $(B)/config.mk
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_tests) -o $@ $< -lm
EXTRA_ALL += $(SVGFIT)
