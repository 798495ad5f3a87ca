/* Block headers: fixed 48 bytes, little-endian, with their own CRC so a
 * reader never trusts a length it has not verified. */
#include <zlib.h>
#include "trace/internal.h"

uint32_t ospt_crc32(const void *p, size_t n)
{
	uLong c = crc32(0L, Z_NULL, 0);
	const Bytef *b = p;
	while (n) {
		uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
		c = crc32(c, b, k);
		b += k;
		n -= k;
	}
	return (uint32_t)c;
}

void ospt_block_hdr_pack(const struct ospt_block_hdr *h, uint8_t out[OSPT_BLOCK_HDR])
{
	memset(out, 0, OSPT_BLOCK_HDR);
	ospt_put32(out + 0, OSPT_BLOCK_MAGIC);
	ospt_put32(out + 4, h->flags);
	ospt_put32(out + 8, h->nevents);
	ospt_put32(out + 12, h->raw_len);
	ospt_put32(out + 16, h->stored_len);
	ospt_put32(out + 20, h->payload_crc);
	ospt_put64(out + 24, h->dropped);
	ospt_put64(out + 32, h->first_ts);
	ospt_put32(out + 44, ospt_crc32(out, 44));
}

int ospt_block_hdr_unpack(const uint8_t in[OSPT_BLOCK_HDR], struct ospt_block_hdr *h)
{
	if (ospt_get32(in) != OSPT_BLOCK_MAGIC || ospt_get32(in + 44) != ospt_crc32(in, 44))
		return -1;
	h->flags = ospt_get32(in + 4);
	h->nevents = ospt_get32(in + 8);
	h->raw_len = ospt_get32(in + 12);
	h->stored_len = ospt_get32(in + 16);
	h->payload_crc = ospt_get32(in + 20);
	h->dropped = ospt_get64(in + 24);
	h->first_ts = ospt_get64(in + 32);
	return 0;
}
