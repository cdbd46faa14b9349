// OpenSSL 3 (Debian libssl-dev) for DashportTLS. Function-like macros and SSL_OP_* constants do
// not import into Swift, so each one DashportTLS needs gets a static inline wrapper here.
// Nothing outside DashportTLS imports this module.
#ifndef CDASHPORT_SSL_SHIM_H
#define CDASHPORT_SSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/bio.h>
#include <openssl/sha.h>

static inline int dashport_ssl_ctx_set_min_proto(SSL_CTX *c, int v) { return (int)SSL_CTX_set_min_proto_version(c, v); }
static inline int dashport_ssl_ctx_set_max_proto(SSL_CTX *c, int v) { return (int)SSL_CTX_set_max_proto_version(c, v); }
static inline uint64_t dashport_ssl_op_no_ticket(void) { return SSL_OP_NO_TICKET; }
static inline uint64_t dashport_ssl_op_no_compression(void) { return SSL_OP_NO_COMPRESSION; }
static inline uint64_t dashport_ssl_op_no_renegotiation(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline long dashport_ssl_ctx_set_session_cache_mode(SSL_CTX *c, long m) { return SSL_CTX_set_session_cache_mode(c, m); }
#endif
