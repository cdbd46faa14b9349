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
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/bio.h>
#include <openssl/sha.h>

static inline int dashport_ssl_ctx_set_min_proto(SSL_CTX *c, int v) { return (int)SSL_CTX_set_min_proto_version(c, v); }
static inline int dashport_ssl_ctx_set_max_proto(SSL_CTX *c, int v) { return (int)SSL_CTX_set_max_proto_version(c, v); }
static inline uint64_t dashport_ssl_op_no_ticket(void) { return SSL_OP_NO_TICKET; }
static inline uint64_t dashport_ssl_op_no_compression(void) { return SSL_OP_NO_COMPRESSION; }
static inline uint64_t dashport_ssl_op_no_renegotiation(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline uint64_t dashport_ssl_op_cipher_server_preference(void) { return SSL_OP_CIPHER_SERVER_PREFERENCE; }
static inline long dashport_ssl_ctx_set_session_cache_mode(SSL_CTX *c, long m) { return SSL_CTX_set_session_cache_mode(c, m); }
static inline long dashport_ssl_ctx_release_buffers(SSL_CTX *c) { return SSL_CTX_set_mode(c, SSL_MODE_RELEASE_BUFFERS); }
static inline int dashport_ssl_ctx_releases_buffers(SSL_CTX *c) { return (SSL_CTX_get_mode(c) & SSL_MODE_RELEASE_BUFFERS) != 0; }

/// Verify callback that lets every certificate through the handshake. OpenSSL still runs the chain
/// check and records its outcome (SSL_get_verify_result), and DashportTLS applies the configured
/// peer policy once the handshake is done. This is how head-unit certificates that strict checks
/// refuse (X.509 v1, BER validity times, long-expired) still get to the policy (aap-protocol §8.6).
static inline int dashport_accept_any_certificate(int preverify_ok, X509_STORE_CTX *store) {
    (void)preverify_ok;
    (void)store;
    return 1;
}

/// Server side: send CertificateRequest (SSL_VERIFY_PEER) but let every certificate, or none, through.
static inline void dashport_ssl_ctx_request_any_client_certificate(SSL_CTX *c) {
    SSL_CTX_set_verify(c, SSL_VERIFY_PEER, dashport_accept_any_certificate);
}

/// Password callback that supplies none. Passing NULL instead would make OpenSSL prompt on the
/// terminal for an encrypted key, which would hang a server; with this it fails to decrypt.
static inline int dashport_no_password(char *buffer, int size, int rwflag, void *userdata) {
    (void)buffer;
    (void)size;
    (void)rwflag;
    (void)userdata;
    return 0;
}

/// Reads one unencrypted PEM private key, never prompting for a password.
static inline EVP_PKEY *dashport_pem_read_private_key(BIO *bio) {
    return PEM_read_bio_PrivateKey(bio, NULL, dashport_no_password, NULL);
}

/// Reads one PEM certificate, never prompting for a password.
static inline X509 *dashport_pem_read_x509(BIO *bio) {
    return PEM_read_bio_X509(bio, NULL, dashport_no_password, NULL);
}
#endif
