// zlib (Debian zlib1g-dev) for DashportDigest: only crc32_z is used, for the browse cache's
// checksum. Nothing outside DashportDigest imports this module.
#ifndef CDASHPORT_ZLIB_SHIM_H
#define CDASHPORT_ZLIB_SHIM_H
#include <zlib.h>
#endif
