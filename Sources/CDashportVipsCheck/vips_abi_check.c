// Checks CDashportVips' hand-written declarations (vips_abi.h) against libvips' and GLib's own
// headers. Nothing calls this target: DashportArtworkTests depends on it so that building the
// tests compiles it, and a declaration that differs from the real one is a conflicting
// redeclaration here, a constant with another value a failed static assertion: an error either way.
// The server itself does not include these headers, so it does not link GLib (issue 10, item 6).
#include <vips/vips.h>

#include "../CDashportVips/vips_abi.h"

_Static_assert(DASHPORT_VIPS_ABI_VERSION == VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE,
               "vips_abi.h describes another libvips ABI than the installed headers");
_Static_assert(DASHPORT_VIPS_ACCESS_SEQUENTIAL == VIPS_ACCESS_SEQUENTIAL, "VIPS_ACCESS_SEQUENTIAL");
_Static_assert(DASHPORT_VIPS_SIZE_DOWN == VIPS_SIZE_DOWN, "VIPS_SIZE_DOWN");
_Static_assert(DASHPORT_G_TRUE == TRUE, "TRUE");
_Static_assert(DASHPORT_G_LOG_QUIET_LEVELS
                   == (G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG),
               "G_LOG_LEVEL_*");
_Static_assert(__builtin_types_compatible_p(dashport_g_log_func, GLogFunc), "GLogFunc");
_Static_assert(sizeof(gboolean) == sizeof(int) && sizeof(GLogLevelFlags) == sizeof(int), "gboolean and GLogLevelFlags are ints");
