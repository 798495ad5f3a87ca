# Prometheus exposition: the protobuf messages (render/proto/metrics.proto)
# are compiled with protoc-c into the library; `osprof serve` speaks HTTP
# through libmicrohttpd.
PROM_PROTO := render/proto/metrics.proto
PROM_PB_C := $(BUILD)/gen/metrics.pb-c.c
PROM_PB_H := $(BUILD)/gen/metrics.pb-c.h
PROM_PB_OBJ := $(BUILD)/obj/gen/metrics.pb-c.o

$(PROM_PB_H): $(PROM_PB_C)
$(PROM_PB_C): $(PROM_PROTO) mk/prom.mk
	@mkdir -p $(dir $@)
	protoc-c --proto_path=render/proto --c_out=$(BUILD)/gen $<

$(PROM_PB_OBJ): $(PROM_PB_C) $(PROM_PB_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/render/prometheus_pb.o: $(PROM_PB_H)
$(STATIC_LIB) $(SHARED_LIB): $(PROM_PB_OBJ)
LDLIBS += -lprotobuf-c
CLI_LIBS += -lmicrohttpd

# bench/fleet_scale.sh: 1,000 hosts x 200 profiles
all: $(BUILD)/bench/fleet_scale
$(BUILD)/bench/fleet_scale: bench/fleet_scale.c $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(STATIC_LIB) $(LDLIBS)
