# Builds the SMPI smoke program by hand with smpicc (until the SMPI CMake
# build, `make smpi`, is there): papcoll's sources compiled with
# -DPAPC_SMPI=1 and linked STATICALLY into the program, as SMPI privatizes
# only the simulated program's own globals.  Objects are kept in OUT, so a
# second run only recompiles what changed (headers included).
#   make -f tests/smpi/smoke.mk SRC=. OUT=build/smpi-smoke -j2
SRC ?= .
OUT ?= build/smpi-smoke
CC := smpicc
SRCS := $(wildcard $(SRC)/src/core/*.c $(SRC)/src/arrival/*.c \
          $(SRC)/src/coll/*.c $(SRC)/src/coll/*/*.c $(SRC)/src/topo/*.c \
          $(SRC)/src/model/*.c $(SRC)/src/clairvoyant/*.c)
OBJS := $(patsubst $(SRC)/%.c,$(OUT)/obj/%.o,$(SRCS))
CFLAGS := -O2 -g -std=c11 -fPIC -Wall -Wextra -Werror -MMD -MP \
          -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DPAPC_SMPI=1 \
          -I$(SRC)/include -I$(SRC)/src -I$(SRC)/src/topo \
          -I$(SRC)/src/clairvoyant $(shell pkg-config --cflags jansson gsl)
LIBS := $(shell pkg-config --libs jansson gsl) -lm

$(OUT)/papc-smpi-smoke: $(OUT)/obj/tests/smpi/smoke.o $(OUT)/libpapcoll-smpi.a
	$(CC) -o $@ $^ $(LIBS)

$(OUT)/libpapcoll-smpi.a: $(OBJS)
	rm -f $@ && ar rcs $@ $^

$(OUT)/obj/%.o: $(SRC)/%.c $(SRC)/tests/smpi/smoke.mk
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

-include $(OBJS:.o=.d) $(OUT)/obj/tests/smpi/smoke.d
