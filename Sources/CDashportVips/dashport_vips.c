// Fixed-arity wrappers over libvips' variadic, GObject-based API (see include/CDashportVips.h).
#include "CDashportVips.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include <vips/vips.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_result = -1;

static void ignore_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

static void init_vips(void) {
    if (VIPS_INIT("dashport")) {
        init_result = -1;
        return;
    }
    // Thumbnails are made once and cached on disk by Dashport; vips' own operation cache would
    // only hold memory and open files.
    vips_cache_set_max(0);
    vips_cache_set_max_files(0);
    // Loaders marked untrusted (ImageMagick, PDF, SVG, ...) are never reached by untrusted data.
    vips_block_untrusted_set(TRUE);
    // Warnings (e.g. "premature end of JPEG file") surface as errors via fail_on; keep stderr clean.
    g_log_set_handler("VIPS", (GLogLevelFlags)(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO
                                               | G_LOG_LEVEL_DEBUG), ignore_log, NULL);
    init_result = 0;
}

int dashport_vips_init(void) {
    pthread_once(&init_once, init_vips);
    return init_result;
}

void dashport_vips_free(void *bytes) { g_free(bytes); }

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
    char *text = vips_error_buffer_copy();
    copy_text(error, capacity, (text != NULL && text[0] != '\0') ? text : fallback);
    g_free(text);
}

/// Opens `path` as a vips source. The file is opened by descriptor so vips never parses
/// `[options]` out of a file name.
static dashport_vips_status open_source(const char *path, VipsSource **out, char *error, size_t capacity) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        copy_text(error, capacity, strerror(errno));
        return DASHPORT_VIPS_IO;
    }
    VipsSource *source = vips_source_new_from_descriptor(fd);
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
    const char *loader = vips_foreign_find_load_source(source);
    if (loader == NULL) {
        // Drop vips' "not a known format" so it does not prefix a later error. The buffer is
        // global, so this is the only place that clears it outside taking an error.
        vips_error_clear();
        return DASHPORT_VIPS_FORMAT_UNKNOWN;
    }
    if (strcmp(loader, "VipsForeignLoadJpegSource") == 0) return DASHPORT_VIPS_FORMAT_JPEG;
    if (strcmp(loader, "VipsForeignLoadPngSource") == 0) return DASHPORT_VIPS_FORMAT_PNG;
    if (strcmp(loader, "VipsForeignLoadWebpSource") == 0) return DASHPORT_VIPS_FORMAT_WEBP;
    return DASHPORT_VIPS_FORMAT_UNKNOWN;
}

dashport_vips_status dashport_vips_probe_file(const char *path, dashport_vips_probe_result *out,
                                              char *error, size_t error_capacity) {
    VipsSource *source = NULL;
    dashport_vips_status status = open_source(path, &source, error, error_capacity);
    if (status != DASHPORT_VIPS_OK) return status;
    dashport_vips_format format = format_of(source);
    if (format == DASHPORT_VIPS_FORMAT_UNKNOWN) {
        copy_text(error, error_capacity, "not a JPEG, PNG or WebP image");
        g_object_unref(source);
        return DASHPORT_VIPS_UNSUPPORTED;
    }
    // Sequential access: only the header is read here; no pixel is decoded.
    VipsImage *image = vips_image_new_from_source(source, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    g_object_unref(source);
    if (image == NULL) {
        take_vips_error(error, error_capacity, "cannot read image header");
        return DASHPORT_VIPS_FAILED;
    }
    out->width = vips_image_get_width(image);
    out->height = vips_image_get_height(image);
    out->has_alpha = vips_image_hasalpha(image) ? 1 : 0;
    out->format = format;
    g_object_unref(image);
    return DASHPORT_VIPS_OK;
}

dashport_vips_status dashport_vips_thumbnail_file(const char *path, int box_width, int box_height,
                                                  int jpeg_quality,
                                                  dashport_vips_thumbnail_result *out,
                                                  char *error, size_t error_capacity) {
    VipsSource *source = NULL;
    dashport_vips_status status = open_source(path, &source, error, error_capacity);
    if (status != DASHPORT_VIPS_OK) return status;
    if (format_of(source) == DASHPORT_VIPS_FORMAT_UNKNOWN) {
        copy_text(error, error_capacity, "not a JPEG, PNG or WebP image");
        g_object_unref(source);
        return DASHPORT_VIPS_UNSUPPORTED;
    }
    VipsImage *thumbnail = NULL;
    int failed = vips_thumbnail_source(source, &thumbnail, box_width,
                                       "height", box_height,
                                       "size", VIPS_SIZE_DOWN,
                                       // libvips 8.14 does not pass thumbnail's own fail_on on to a
                                       // source loader; the loader's option string does.
                                       "option_string", "fail_on=error",
                                       NULL);
    g_object_unref(source);
    if (failed) {
        take_vips_error(error, error_capacity, "thumbnail failed");
        return DASHPORT_VIPS_FAILED;
    }
    int has_alpha = vips_image_hasalpha(thumbnail) ? 1 : 0;
    void *bytes = NULL;
    size_t length = 0;
    // Pixels are decoded here, while saving: truncated data fails now (fail_on above).
    if (has_alpha) {
        failed = vips_pngsave_buffer(thumbnail, &bytes, &length, "strip", TRUE, "bitdepth", 8, NULL);
    } else {
        failed = vips_jpegsave_buffer(thumbnail, &bytes, &length, "Q", jpeg_quality, "strip", TRUE, NULL);
    }
    int width = vips_image_get_width(thumbnail);
    int height = vips_image_get_height(thumbnail);
    g_object_unref(thumbnail);
    if (failed) {
        g_free(bytes);
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
