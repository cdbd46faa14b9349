// CDashportVips: Dashport's own fixed-arity wrappers around libvips (Debian libvips-dev).
//
// libvips' operation entry points are variadic and its types are GObjects, neither of which
// Swift should see. This header declares only Dashport's functions and plain C types, so the
// only thing that leaks into Swift is what DashportArtwork needs: probe a file, thumbnail it.
// Only DashportArtwork imports this module.
#ifndef CDASHPORT_VIPS_H
#define CDASHPORT_VIPS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Input formats Dashport accepts; every other loader (SVG, PDF, TIFF, ...) is refused.
typedef enum {
    DASHPORT_VIPS_FORMAT_UNKNOWN = 0,
    DASHPORT_VIPS_FORMAT_JPEG = 1,
    DASHPORT_VIPS_FORMAT_PNG = 2,
    DASHPORT_VIPS_FORMAT_WEBP = 3,
} dashport_vips_format;

/// Return codes of the functions below. Error texts come from libvips' error buffer, which is
/// one per process: when two calls fail at the same moment, one text may carry both messages.
typedef enum {
    DASHPORT_VIPS_OK = 0,
    /// libvips failed; the error text is in the caller's buffer.
    DASHPORT_VIPS_FAILED = -1,
    /// The data is not JPEG, PNG or WebP (or not an image at all).
    DASHPORT_VIPS_UNSUPPORTED = -2,
    /// The file could not be opened; `errno` text is in the caller's buffer.
    DASHPORT_VIPS_IO = -3,
    /// The header says the image has more pixels than allowed (dashport_vips_thumbnail_descriptor).
    DASHPORT_VIPS_TOO_MANY_PIXELS = -4,
} dashport_vips_status;

/// What the header says, read without decoding any pixels.
typedef struct {
    int width;
    int height;
    int has_alpha;
    dashport_vips_format format;
} dashport_vips_probe_result;

/// An encoded thumbnail. `bytes` is owned by the caller: free it with dashport_vips_free.
typedef struct {
    unsigned char *bytes;
    size_t length;
    int width;
    int height;
    /// 1 when the image has alpha and was written as PNG, 0 for JPEG.
    int is_png;
} dashport_vips_thumbnail_result;

/// Loads libvips (dlopen, on first use) and starts it once per process (thread-safe; later calls
/// return the first result): no operation cache, untrusted loaders blocked, warnings not printed.
/// 0 on success. The functions below start it themselves when needed.
int dashport_vips_init(void);

/// Why dashport_vips_init failed (the library missing, a symbol or ABI mismatch), or "" when it
/// succeeded. The text is static.
const char *dashport_vips_init_error(void);

/// Reads only the header of the file at `path`. Refuses anything but JPEG, PNG and WebP.
dashport_vips_status dashport_vips_probe_file(const char *path, dashport_vips_probe_result *out,
                                              char *error, size_t error_capacity);

/// Decodes the file at `path` with shrink-on-load and fits it into box_width x box_height
/// keeping its aspect, never upscaling. Writes JPEG at `jpeg_quality`, or PNG when the image
/// has alpha. Truncated or corrupt data fails (with libvips' error text) instead of being
/// padded out.
dashport_vips_status dashport_vips_thumbnail_file(const char *path, int box_width, int box_height,
                                                  int jpeg_quality,
                                                  dashport_vips_thumbnail_result *out,
                                                  char *error, size_t error_capacity);

/// dashport_vips_probe_file and dashport_vips_thumbnail_file on one open file, `fd` (read from
/// where it is, not closed; the caller may rename or replace the file's name meanwhile): the
/// header is read into `probe` first, and an image of more than `max_pixels` pixels is refused
/// with DASHPORT_VIPS_TOO_MANY_PIXELS before any pixel is decoded.
dashport_vips_status dashport_vips_thumbnail_descriptor(int fd, long long max_pixels,
                                                        int box_width, int box_height, int jpeg_quality,
                                                        dashport_vips_probe_result *probe,
                                                        dashport_vips_thumbnail_result *out,
                                                        char *error, size_t error_capacity);

/// Frees the bytes of a dashport_vips_thumbnail_result.
void dashport_vips_free(void *bytes);

#ifdef __cplusplus
}
#endif

#endif
