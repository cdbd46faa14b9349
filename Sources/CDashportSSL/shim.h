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
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

// MARK: The outbound BIO

/// What OpenSSL writes for the peer: a growing buffer like a memory BIO's, without the zeroing
/// (BUF_MEM_grow_clean cleared every 8-KiB audio record's room before OpenSSL copied it in), and
/// with a target: while one is set, a write that fits goes straight into it. So an encrypted
/// record lands in the frame that carries it with one copy, where a memory BIO took a clear, a
/// copy in and a copy out. The BIO holds no lock: one connection's state machine owns it.
typedef struct {
    unsigned char *data;
    size_t length;
    size_t capacity;
    size_t readOffset;
    unsigned char *target;
    size_t targetCapacity;
    size_t targetLength;
} dashport_outbound_state;

static inline int dashport_outbound_write(BIO *bio, const char *bytes, int count) {
    dashport_outbound_state *state = (dashport_outbound_state *)BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    if (count <= 0) return 0;
    size_t size = (size_t)count;
    // Into the target only while nothing is spilled, so the bytes stay in the order written.
    if (state->target != NULL && state->length == state->readOffset && size <= state->targetCapacity - state->targetLength) {
        memcpy(state->target + state->targetLength, bytes, size);
        state->targetLength += size;
        return count;
    }
    if (state->length == state->readOffset) state->length = state->readOffset = 0;
    if (size > state->capacity - state->length) {
        size_t needed = state->length + size;
        size_t grown = state->capacity < 4096 ? 4096 : state->capacity;
        while (grown < needed) grown *= 2;
        unsigned char *data = (unsigned char *)realloc(state->data, grown);
        if (data == NULL) return -1;
        state->data = data;
        state->capacity = grown;
    }
    memcpy(state->data + state->length, bytes, size);
    state->length += size;
    return count;
}

static inline int dashport_outbound_read(BIO *bio, char *buffer, int count) {
    dashport_outbound_state *state = (dashport_outbound_state *)BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    size_t available = state->length - state->readOffset;
    if (available == 0) {
        BIO_set_retry_read(bio);
        return -1;
    }
    size_t size = count < 0 ? 0 : (size_t)count;
    if (size > available) size = available;
    memcpy(buffer, state->data + state->readOffset, size);
    state->readOffset += size;
    if (state->readOffset == state->length) state->length = state->readOffset = 0;
    return (int)size;
}

static inline long dashport_outbound_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)number;
    (void)pointer;
    dashport_outbound_state *state = (dashport_outbound_state *)BIO_get_data(bio);
    switch (command) {
    case BIO_CTRL_PENDING: {
        size_t pending = state->length - state->readOffset;
        return pending > (size_t)LONG_MAX ? LONG_MAX : (long)pending;
    }
    case BIO_CTRL_RESET:
        state->length = state->readOffset = 0;
        return 1;
    case BIO_CTRL_FLUSH: return 1;
    case BIO_CTRL_EOF: return state->length == state->readOffset;
    default: return 0;
    }
}

static inline int dashport_outbound_create(BIO *bio) {
    dashport_outbound_state *state = (dashport_outbound_state *)calloc(1, sizeof(dashport_outbound_state));
    if (state == NULL) return 0;
    BIO_set_data(bio, state);
    BIO_set_init(bio, 1);
    return 1;
}

static inline int dashport_outbound_destroy(BIO *bio) {
    dashport_outbound_state *state = (dashport_outbound_state *)BIO_get_data(bio);
    if (state != NULL) {
        free(state->data);
        free(state);
    }
    BIO_set_data(bio, NULL);
    return 1;
}

static BIO_METHOD *dashport_outbound_method = NULL;

static inline void dashport_outbound_make_method(void) {
    BIO_METHOD *method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "dashport outbound");
    if (method == NULL) return;
    BIO_meth_set_write(method, dashport_outbound_write);
    BIO_meth_set_read(method, dashport_outbound_read);
    BIO_meth_set_ctrl(method, dashport_outbound_ctrl);
    BIO_meth_set_create(method, dashport_outbound_create);
    BIO_meth_set_destroy(method, dashport_outbound_destroy);
    dashport_outbound_method = method;  // made once, kept for the process
}

/// A new outbound BIO (its method is made once per process); NULL when out of memory.
static inline BIO *dashport_outbound_bio_new(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, dashport_outbound_make_method);
    return dashport_outbound_method == NULL ? NULL : BIO_new(dashport_outbound_method);
}

/// Writes from now on go to `target` (up to `capacity` bytes) while they fit and nothing waits.
static inline void dashport_outbound_set_target(BIO *bio, unsigned char *target, size_t capacity) {
    dashport_outbound_state *state = (dashport_outbound_state *)BIO_get_data(bio);
    state->target = target;
    state->targetCapacity = capacity;
    state->targetLength = 0;
}

/// Ends the target: returns how many bytes went into it.
static inline size_t dashport_outbound_take_target(BIO *bio) {
    dashport_outbound_state *state = (dashport_outbound_state *)BIO_get_data(bio);
    size_t written = state->targetLength;
    state->target = NULL;
    state->targetCapacity = state->targetLength = 0;
    return written;
}

#endif
