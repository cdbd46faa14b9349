// libvips (Debian libvips-dev) for DashportArtwork. Every vips operation entry point is variadic,
// which Swift cannot call, so the ones DashportArtwork needs get a static inline wrapper here.
// Nothing outside DashportArtwork imports this module.
#ifndef CDASHPORT_VIPS_SHIM_H
#define CDASHPORT_VIPS_SHIM_H
#include <vips/vips.h>
static inline void dashport_g_free(void *p) { g_free(p); }
#endif
