// Fixed-arity wrappers over libvips' variadic, GObject-based API (see include/CDashportVips.h).
//
// libvips is not linked: it is opened with dlopen the first time a cover is scaled. Linked, it
// and the ~100 libraries it needs (pango, cairo, librsvg, poppler's and OpenEXR's dependencies,
// ...) were loaded, relocated and their constructors run in every `dashport serve`, about
// 11 MiB of resident pages before any car asked for a cover (issue 10, item 6). Its functions are
// declared in vips_abi.h, checked against libvips' own headers when the tests are built, so every
// entry point below is called through a pointer of its exact type.
#include "CDashportVips.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vips_abi.h"

// Every libvips and GLib function this file calls, resolved from the libvips handle (dlsym on
// it also finds GLib's and GObject's symbols, which libvips depends on).
#define DASHPORT_VIPS_SYMBOLS(X) \
    X(vips_version) X(vips_init) X(vips_cache_set_max) X(vips_cache_set_max_files) \
    X(vips_block_untrusted_set) X(vips_error_buffer_copy) X(vips_error_clear) \
    X(vips_source_new_from_descriptor) X(vips_foreign_find_load_source) \
    X(vips_image_new_from_source) X(vips_image_get_width) X(vips_image_get_height) \
    X(vips_image_hasalpha) X(vips_thumbnail_source) X(vips_pngsave_buffer) \
    X(vips_jpegsave_buffer) X(g_log_set_handler) X(g_free) X(g_object_unref)

static struct {
#define DASHPORT_VIPS_POINTER(name) __typeof__(name) *name;
    DASHPORT_VIPS_SYMBOLS(DASHPORT_VIPS_POINTER)
#undef DASHPORT_VIPS_POINTER
} lib;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_result = -1;
static char init_error[256] = "libvips was not started";

static void ignore_log(const char *domain, int level, const char *message, void *data) {
    (void)domain; (void)level; (void)message; (void)data;
}

/// Opens the libvips whose ABI these headers describe (libvips.so.42 for 8.x) and resolves
/// every symbol of DASHPORT_VIPS_SYMBOLS. 0 on success; else init_error says why.
static int open_library(void) {
    char soname[32];
    snprintf(soname, sizeof soname, "libvips.so.%d", DASHPORT_VIPS_ABI_VERSION);
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(init_error, sizeof init_error, "%s", reason != NULL ? reason : soname);
        return -1;
    }
#define DASHPORT_VIPS_RESOLVE(name) \
    lib.name = (__typeof__(lib.name))dlsym(handle, #name); \
    if (lib.name == NULL) { \
        snprintf(init_error, sizeof init_error, "%s has no symbol %s", soname, #name); \
        return -1; \
    }
    DASHPORT_VIPS_SYMBOLS(DASHPORT_VIPS_RESOLVE)
#undef DASHPORT_VIPS_RESOLVE
    // The handle is never closed: libvips cannot be shut down and started again in one process.
    return 0;
}

static void init_vips(void) {
    if (open_library() != 0) return;
    // What VIPS_INIT checks: the library's ABI is the one these headers describe.
    int abi = lib.vips_version(3) - lib.vips_version(5);
    if (abi != DASHPORT_VIPS_ABI_VERSION) {
        snprintf(init_error, sizeof init_error, "libvips has ABI version %d, Dashport was built for %d",
                 abi, DASHPORT_VIPS_ABI_VERSION);
        return;
    }
    if (lib.vips_init("dashport")) {
        snprintf(init_error, sizeof init_error, "vips_init failed");
        return;
    }
    // Thumbnails are made once and cached on disk by Dashport; vips' own operation cache would
    // only hold memory and open files.
    lib.vips_cache_set_max(0);
    lib.vips_cache_set_max_files(0);
    // Loaders marked untrusted (ImageMagick, PDF, SVG, ...) are never reached by untrusted data.
    lib.vips_block_untrusted_set(DASHPORT_G_TRUE);
    // Warnings (e.g. "premature end of JPEG file") surface as errors via fail_on; keep stderr clean.
    lib.g_log_set_handler("VIPS", DASHPORT_G_LOG_QUIET_LEVELS, ignore_log, NULL);
    init_result = 0;
}

int dashport_vips_init(void) {
    pthread_once(&init_once, init_vips);
    return init_result;
}

const char *dashport_vips_init_error(void) {
    return dashport_vips_init() == 0 ? "" : init_error;
}

void dashport_vips_free(void *bytes) {
    // Bytes exist only if libvips was started, so g_free is resolved; NULL is fine either way.
    if (bytes != NULL && lib.g_free != NULL) lib.g_free(bytes);
}

/// Copies text into the caller's buffer, without a trailing newline, always NUL-terminated.
static void copy_text(char *error, size_t capacity, const char *text) {
    if (error == NULL || capacity == 0) return;
    size_t length = strlen(text);
    while (length > 0 && (text[length - 1] == '\n' || text[length - 1] == ' ')) length--;
    if (length >= capacity) length = capacity - 1;
    memcpy(error, text, length);
    error[length] = '\0';
}

/// Moves libvips' error buffer (or `fallback` when it is empty) into the caller's buffer.
static void take_vips_error(char *error, size_t capacity, const char *fallback) {
    char *text = lib.vips_error_buffer_copy();
    copy_text(error, capacity, (text != NULL && text[0] != '\0') ? text : fallback);
    lib.g_free(text);
}

/// Opens `path` as a vips source. The file is opened by descriptor so vips never parses
/// `[options]` out of a file name.
static dashport_vips_status open_source(const char *path, VipsSource **out, char *error, size_t capacity) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        copy_text(error, capacity, strerror(errno));
        return DASHPORT_VIPS_IO;
    }
    VipsSource *source = lib.vips_source_new_from_descriptor(fd);
    close(fd);  // the source holds its own duplicate
    if (source == NULL) {
        take_vips_error(error, capacity, "cannot open source");
        return DASHPORT_VIPS_FAILED;
    }
    *out = source;
    return DASHPORT_VIPS_OK;
}

/// The loader libvips would pick, by sniffing the bytes (the name of the loader's class).
static dashport_vips_format format_of(VipsSource *source) {
    const char *loader = lib.vips_foreign_find_load_source(source);
    if (loader == NULL) {
        // Drop vips' "not a known format" so it does not prefix a later error. The buffer is
        // global, so this is the only place that clears it outside taking an error.
        lib.vips_error_clear();
        return DASHPORT_VIPS_FORMAT_UNKNOWN;
    }
    if (strcmp(loader, "VipsForeignLoadJpegSource") == 0) return DASHPORT_VIPS_FORMAT_JPEG;
    if (strcmp(loader, "VipsForeignLoadPngSource") == 0) return DASHPORT_VIPS_FORMAT_PNG;
    if (strcmp(loader, "VipsForeignLoadWebpSource") == 0) return DASHPORT_VIPS_FORMAT_WEBP;
    return DASHPORT_VIPS_FORMAT_UNKNOWN;
}

/// Reads the header of `source` (its format already known): no pixel is decoded.
static dashport_vips_status probe_source(VipsSource *source, dashport_vips_format format,
                                         dashport_vips_probe_result *out, char *error, size_t error_capacity) {
    // Sequential access: only the header is read here; no pixel is decoded.
    VipsImage *image = lib.vips_image_new_from_source(source, "", "access", DASHPORT_VIPS_ACCESS_SEQUENTIAL, NULL);
    if (image == NULL) {
        take_vips_error(error, error_capacity, "cannot read image header");
        return DASHPORT_VIPS_FAILED;
    }
    out->width = lib.vips_image_get_width(image);
    out->height = lib.vips_image_get_height(image);
    out->has_alpha = lib.vips_image_hasalpha(image) ? 1 : 0;
    out->format = format;
    lib.g_object_unref(image);
    return DASHPORT_VIPS_OK;
}

dashport_vips_status dashport_vips_probe_file(const char *path, dashport_vips_probe_result *out,
                                              char *error, size_t error_capacity) {
    if (dashport_vips_init() != 0) {
        copy_text(error, error_capacity, init_error);
        return DASHPORT_VIPS_FAILED;
    }
    VipsSource *source = NULL;
    dashport_vips_status status = open_source(path, &source, error, error_capacity);
    if (status != DASHPORT_VIPS_OK) return status;
    dashport_vips_format format = format_of(source);
    if (format == DASHPORT_VIPS_FORMAT_UNKNOWN) {
        copy_text(error, error_capacity, "not a JPEG, PNG or WebP image");
        lib.g_object_unref(source);
        return DASHPORT_VIPS_UNSUPPORTED;
    }
    status = probe_source(source, format, out, error, error_capacity);
    lib.g_object_unref(source);
    return status;
}

/// Thumbnails `source` (its format already known to be one Dashport accepts) and encodes it.
static dashport_vips_status thumbnail_source(VipsSource *source, int box_width, int box_height, int jpeg_quality,
                                             dashport_vips_thumbnail_result *out, char *error, size_t error_capacity) {
    VipsImage *thumbnail = NULL;
    int failed = lib.vips_thumbnail_source(source, &thumbnail, box_width,
                                       "height", box_height,
                                       "size", DASHPORT_VIPS_SIZE_DOWN,
                                       // libvips 8.14 does not pass thumbnail's own fail_on on to a
                                       // source loader; the loader's option string does.
                                       "option_string", "fail_on=error",
                                       NULL);
    if (failed) {
        take_vips_error(error, error_capacity, "thumbnail failed");
        return DASHPORT_VIPS_FAILED;
    }
    int has_alpha = lib.vips_image_hasalpha(thumbnail) ? 1 : 0;
    void *bytes = NULL;
    size_t length = 0;
    // Pixels are decoded here, while saving: truncated data fails now (fail_on above).
    if (has_alpha) {
        failed = lib.vips_pngsave_buffer(thumbnail, &bytes, &length, "strip", DASHPORT_G_TRUE, "bitdepth", 8, NULL);
    } else {
        failed = lib.vips_jpegsave_buffer(thumbnail, &bytes, &length, "Q", jpeg_quality, "strip", DASHPORT_G_TRUE, NULL);
    }
    int width = lib.vips_image_get_width(thumbnail);
    int height = lib.vips_image_get_height(thumbnail);
    lib.g_object_unref(thumbnail);
    if (failed) {
        lib.g_free(bytes);
        take_vips_error(error, error_capacity, "encoding failed");
        return DASHPORT_VIPS_FAILED;
    }
    out->bytes = bytes;
    out->length = length;
    out->width = width;
    out->height = height;
    out->is_png = has_alpha;
    return DASHPORT_VIPS_OK;
}

dashport_vips_status dashport_vips_thumbnail_file(const char *path, int box_width, int box_height,
                                                  int jpeg_quality,
                                                  dashport_vips_thumbnail_result *out,
                                                  char *error, size_t error_capacity) {
    if (dashport_vips_init() != 0) {
        copy_text(error, error_capacity, init_error);
        return DASHPORT_VIPS_FAILED;
    }
    VipsSource *source = NULL;
    dashport_vips_status status = open_source(path, &source, error, error_capacity);
    if (status != DASHPORT_VIPS_OK) return status;
    if (format_of(source) == DASHPORT_VIPS_FORMAT_UNKNOWN) {
        copy_text(error, error_capacity, "not a JPEG, PNG or WebP image");
        lib.g_object_unref(source);
        return DASHPORT_VIPS_UNSUPPORTED;
    }
    status = thumbnail_source(source, box_width, box_height, jpeg_quality, out, error, error_capacity);
    lib.g_object_unref(source);
    return status;
}

dashport_vips_status dashport_vips_thumbnail_descriptor(int fd, long long max_pixels,
                                                        int box_width, int box_height, int jpeg_quality,
                                                        dashport_vips_probe_result *probe,
                                                        dashport_vips_thumbnail_result *out,
                                                        char *error, size_t error_capacity) {
    if (dashport_vips_init() != 0) {
        copy_text(error, error_capacity, init_error);
        return DASHPORT_VIPS_FAILED;
    }
    VipsSource *source = lib.vips_source_new_from_descriptor(fd);  // a duplicate: the caller keeps fd
    if (source == NULL) {
        take_vips_error(error, error_capacity, "cannot open source");
        return DASHPORT_VIPS_FAILED;
    }
    dashport_vips_status status;
    dashport_vips_format format = format_of(source);
    if (format == DASHPORT_VIPS_FORMAT_UNKNOWN) {
        copy_text(error, error_capacity, "not a JPEG, PNG or WebP image");
        lib.g_object_unref(source);
        return DASHPORT_VIPS_UNSUPPORTED;
    }
    status = probe_source(source, format, probe, error, error_capacity);
    if (status == DASHPORT_VIPS_OK && (long long)probe->width * (long long)probe->height > max_pixels) {
        status = DASHPORT_VIPS_TOO_MANY_PIXELS;
    }
    if (status == DASHPORT_VIPS_OK) {
        // The same source: the file is sniffed once and its header read once more by the
        // thumbnail (a source rewinds for each read).
        status = thumbnail_source(source, box_width, box_height, jpeg_quality, out, error, error_capacity);
    }
    lib.g_object_unref(source);
    return status;
}
