// The part of libvips' and GLib's C interface that dashport_vips.c calls, declared by hand.
//
// libvips is opened with dlopen, so only its headers were ever needed; but they include GLib's,
// whose include paths come from pkg-config, and SwiftPM then links GLib, GObject, libffi and
// PCRE2 into every `dashport serve` (1 MiB resident, issue 10, item 6). This header needs neither.
// Each declaration below is checked against libvips' and GLib's own headers when the tests are
// built (Sources/CDashportVipsCheck): a declaration that differs from the real one, or a
// constant with another value, fails that build.
#ifndef DASHPORT_VIPS_ABI_H
#define DASHPORT_VIPS_ABI_H

#include <stddef.h>

/// The soname's major version of the libvips these declarations describe (libvips.so.42 for
/// 8.x: VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE).
#define DASHPORT_VIPS_ABI_VERSION 42
/// `VipsAccess` VIPS_ACCESS_SEQUENTIAL and `VipsSize` VIPS_SIZE_DOWN (enums pass as int through `...`).
#define DASHPORT_VIPS_ACCESS_SEQUENTIAL 1
#define DASHPORT_VIPS_SIZE_DOWN 2
/// GLib's TRUE, as a gboolean.
#define DASHPORT_G_TRUE 1
/// G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG.
#define DASHPORT_G_LOG_QUIET_LEVELS ((1 << 4) | (1 << 5) | (1 << 6) | (1 << 7))

typedef struct _VipsImage VipsImage;
typedef struct _VipsSource VipsSource;

int vips_version(int flag);
int vips_init(const char *argv0);
void vips_cache_set_max(int max);
void vips_cache_set_max_files(int max_files);
void vips_block_untrusted_set(int state);
char *vips_error_buffer_copy(void);
void vips_error_clear(void);
VipsSource *vips_source_new_from_descriptor(int descriptor);
const char *vips_foreign_find_load_source(VipsSource *source);
VipsImage *vips_image_new_from_source(VipsSource *source, const char *option_string, ...);
int vips_image_get_width(const VipsImage *image);
int vips_image_get_height(const VipsImage *image);
int vips_image_hasalpha(VipsImage *image);
int vips_thumbnail_source(VipsSource *source, VipsImage **out, int width, ...);
int vips_pngsave_buffer(VipsImage *in, void **buf, size_t *len, ...);
int vips_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, ...);
/// GLib's log handler type: (domain, GLogLevelFlags, message, user data); the enum is an int.
typedef void (*dashport_g_log_func)(const char *log_domain, int log_level, const char *message, void *user_data);
unsigned int g_log_set_handler(const char *log_domain, int log_levels, dashport_g_log_func log_func, void *user_data);
void g_free(void *mem);
void g_object_unref(void *object);

#endif
