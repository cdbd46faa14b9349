// libcurl for DashportArtwork's downloader. curl_easy_setopt and curl_easy_getinfo are variadic,
// which Swift cannot call: these inline wrappers give each argument type it needs its own function.
#ifndef CDASHPORT_CURL_SHIM_H
#define CDASHPORT_CURL_SHIM_H

#include <curl/curl.h>

typedef size_t (*dashport_curl_write_callback)(char *data, size_t size, size_t count, void *user);
typedef int (*dashport_curl_xferinfo_callback)(void *user, curl_off_t dltotal, curl_off_t dlnow,
                                               curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode dashport_curl_set_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode dashport_curl_set_offset(CURL *curl, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode dashport_curl_set_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode dashport_curl_set_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode dashport_curl_set_write(CURL *curl, dashport_curl_write_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, callback);
}
static inline CURLcode dashport_curl_set_header(CURL *curl, dashport_curl_write_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, callback);
}
static inline CURLcode dashport_curl_set_xferinfo(CURL *curl, dashport_curl_xferinfo_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, callback);
}
static inline long dashport_curl_info_long(CURL *curl, CURLINFO info) {
    long value = 0;
    return curl_easy_getinfo(curl, info, &value) == CURLE_OK ? value : -1;
}
static inline curl_off_t dashport_curl_info_offset(CURL *curl, CURLINFO info) {
    curl_off_t value = -1;
    return curl_easy_getinfo(curl, info, &value) == CURLE_OK ? value : -1;
}
static inline const char *dashport_curl_info_string(CURL *curl, CURLINFO info) {
    char *value = NULL;
    return curl_easy_getinfo(curl, info, &value) == CURLE_OK ? value : NULL;
}

#endif
