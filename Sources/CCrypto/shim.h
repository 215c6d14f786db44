// OpenSSL's libcrypto (Debian's libssl-dev) for the push sender's JWT signatures: ES256 for
// APNs (a .p8 key), RS256 for FCM's OAuth2 assertion (a service account's key).
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
