/* Internals shared by the trace codec, writer and reader (docs/trace-format.md). */
#ifndef OSPROF_TRACE_INTERNAL_H
#define OSPROF_TRACE_INTERNAL_H

#include <stdint.h>
#include <string.h>
#include <osprof/trace.h>

#define OSPT_MAGIC       "OSPTRACE"
#define OSPT_MAGIC_LEN   8
#define OSPT_BLOCK_MAGIC 0x4250534fu /* "OSPB" little-endian */
#define OSPT_BLOCK_HDR   48
#define OSPT_BLOCK_ZSTD  1u
#define OSPT_BLOCK_END   2u /* last block of a cleanly closed segment */
#define OSPT_MAX_BLOCK   (16u << 20)
#define OSPT_MAX_HEADER  (64u << 10)

struct ospt_block_hdr {
	uint32_t flags, nevents, raw_len, stored_len, payload_crc;
	uint64_t dropped, first_ts;
};

static inline void ospt_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline void ospt_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint32_t ospt_get32(const uint8_t *p)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}
static inline uint64_t ospt_get64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Serialises a block header (with its own checksum) into out[48]. */
void ospt_block_hdr_pack(const struct ospt_block_hdr *h, uint8_t out[OSPT_BLOCK_HDR]);
/* 0, or -1 when the magic or the header checksum is wrong. */
int ospt_block_hdr_unpack(const uint8_t in[OSPT_BLOCK_HDR], struct ospt_block_hdr *h);
uint32_t ospt_crc32(const void *p, size_t n);

/* Segment header text (key=value lines). */
size_t ospt_host_format(const struct osp_trace_host *h, char *buf, size_t len);
int ospt_host_parse(const char *text, size_t len, struct osp_trace_host *h);

#endif
