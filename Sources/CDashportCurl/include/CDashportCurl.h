// CDashportCurl: Dashport's own wrappers around libcurl (Debian libcurl4-openssl-dev) for
// DashportArtwork's downloader.
//
// libcurl is not linked: dashport_curl_load opens it (dlopen) before the first download, so a
// server that never fetches an https:// cover does not map it and the ~25 libraries it needs
// (GnuTLS, Kerberos, LDAP, SSH, nghttp2, ...). curl_easy_setopt and curl_easy_getinfo are
// variadic, which Swift cannot call: each argument type gets its own function. Only
// DashportArtwork imports this module.
#ifndef CDASHPORT_CURL_H
#define CDASHPORT_CURL_H

#include <curl/curl.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef size_t (*dashport_curl_write_callback)(char *data, size_t size, size_t count, void *user);
typedef int (*dashport_curl_xferinfo_callback)(void *user, curl_off_t dltotal, curl_off_t dlnow,
                                               curl_off_t ultotal, curl_off_t ulnow);

/// Opens libcurl and runs curl_global_init, once per process (thread-safe; later calls return
/// the first result). 0 on success. Every function below needs it to have succeeded.
int dashport_curl_load(void);

/// Why dashport_curl_load failed (the library or a symbol missing, global init failing), or ""
/// when it succeeded. The text is static.
const char *dashport_curl_load_error(void);

CURL *dashport_curl_easy_init(void);
void dashport_curl_easy_cleanup(CURL *curl);
CURLcode dashport_curl_easy_perform(CURL *curl);
const char *dashport_curl_easy_strerror(CURLcode code);

CURLcode dashport_curl_set_long(CURL *curl, CURLoption option, long value);
CURLcode dashport_curl_set_offset(CURL *curl, CURLoption option, curl_off_t value);
CURLcode dashport_curl_set_string(CURL *curl, CURLoption option, const char *value);
CURLcode dashport_curl_set_pointer(CURL *curl, CURLoption option, void *value);
CURLcode dashport_curl_set_write(CURL *curl, dashport_curl_write_callback callback);
CURLcode dashport_curl_set_header(CURL *curl, dashport_curl_write_callback callback);
CURLcode dashport_curl_set_xferinfo(CURL *curl, dashport_curl_xferinfo_callback callback);

/// The value of `info`, or -1 (NULL for strings) when libcurl has none.
long dashport_curl_info_long(CURL *curl, CURLINFO info);
curl_off_t dashport_curl_info_offset(CURL *curl, CURLINFO info);
const char *dashport_curl_info_string(CURL *curl, CURLINFO info);

#ifdef __cplusplus
}
#endif

#endif
