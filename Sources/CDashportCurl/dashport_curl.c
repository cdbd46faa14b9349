// libcurl opened on first use (see include/CDashportCurl.h). The header is still included, so
// every entry point is called through a pointer of its exact type.
// curl.h turns curl_easy_setopt and curl_easy_getinfo into type-checking macros under GCC and
// clang, which would expand in `lib.curl_easy_setopt(...)`.
#define CURL_DISABLE_TYPECHECK 1
#include "CDashportCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// libcurl's soname has been libcurl.so.4 since 2006 (curl 7.16); the ABI it names is the one
// <curl/curl.h> describes.
#define DASHPORT_CURL_SONAME "libcurl.so.4"

#define DASHPORT_CURL_SYMBOLS(X) \
    X(curl_global_init) X(curl_easy_init) X(curl_easy_cleanup) X(curl_easy_perform) \
    X(curl_easy_strerror) X(curl_easy_setopt) X(curl_easy_getinfo)

static struct {
#define DASHPORT_CURL_POINTER(name) __typeof__(name) *name;
    DASHPORT_CURL_SYMBOLS(DASHPORT_CURL_POINTER)
#undef DASHPORT_CURL_POINTER
} lib;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_result = -1;
static char load_error[256] = "libcurl was not loaded";

static void load(void) {
    void *handle = dlopen(DASHPORT_CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s", reason != NULL ? reason : DASHPORT_CURL_SONAME);
        return;
    }
#define DASHPORT_CURL_RESOLVE(name) \
    lib.name = (__typeof__(lib.name))dlsym(handle, #name); \
    if (lib.name == NULL) { \
        snprintf(load_error, sizeof load_error, "%s has no symbol %s", DASHPORT_CURL_SONAME, #name); \
        return; \
    }
    DASHPORT_CURL_SYMBOLS(DASHPORT_CURL_RESOLVE)
#undef DASHPORT_CURL_RESOLVE
    // The handle is never closed: curl_global_cleanup is never called either.
    CURLcode code = lib.curl_global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "curl_global_init: %s", lib.curl_easy_strerror(code));
        return;
    }
    load_result = 0;
}

int dashport_curl_load(void) {
    pthread_once(&load_once, load);
    return load_result;
}

const char *dashport_curl_load_error(void) {
    return dashport_curl_load() == 0 ? "" : load_error;
}

CURL *dashport_curl_easy_init(void) {
    return dashport_curl_load() == 0 ? lib.curl_easy_init() : NULL;
}

void dashport_curl_easy_cleanup(CURL *curl) {
    if (curl != NULL && dashport_curl_load() == 0) lib.curl_easy_cleanup(curl);
}

CURLcode dashport_curl_easy_perform(CURL *curl) {
    return dashport_curl_load() == 0 ? lib.curl_easy_perform(curl) : CURLE_FAILED_INIT;
}

const char *dashport_curl_easy_strerror(CURLcode code) {
    return dashport_curl_load() == 0 ? lib.curl_easy_strerror(code) : load_error;
}

// The setters and getters run only on a handle from dashport_curl_easy_init, so libcurl is loaded.
CURLcode dashport_curl_set_long(CURL *curl, CURLoption option, long value) {
    return lib.curl_easy_setopt(curl, option, value);
}
CURLcode dashport_curl_set_offset(CURL *curl, CURLoption option, curl_off_t value) {
    return lib.curl_easy_setopt(curl, option, value);
}
CURLcode dashport_curl_set_string(CURL *curl, CURLoption option, const char *value) {
    return lib.curl_easy_setopt(curl, option, value);
}
CURLcode dashport_curl_set_pointer(CURL *curl, CURLoption option, void *value) {
    return lib.curl_easy_setopt(curl, option, value);
}
CURLcode dashport_curl_set_write(CURL *curl, dashport_curl_write_callback callback) {
    return lib.curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, callback);
}
CURLcode dashport_curl_set_header(CURL *curl, dashport_curl_write_callback callback) {
    return lib.curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, callback);
}
CURLcode dashport_curl_set_xferinfo(CURL *curl, dashport_curl_xferinfo_callback callback) {
    return lib.curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, callback);
}

long dashport_curl_info_long(CURL *curl, CURLINFO info) {
    long value = 0;
    return lib.curl_easy_getinfo(curl, info, &value) == CURLE_OK ? value : -1;
}
curl_off_t dashport_curl_info_offset(CURL *curl, CURLINFO info) {
    curl_off_t value = -1;
    return lib.curl_easy_getinfo(curl, info, &value) == CURLE_OK ? value : -1;
}
const char *dashport_curl_info_string(CURL *curl, CURLINFO info) {
    char *value = NULL;
    return lib.curl_easy_getinfo(curl, info, &value) == CURLE_OK ? value : NULL;
}
