// OpenSSL's libcrypto (Debian's libssl-dev) for the push sender's JWT signatures: ES256 for
// APNs (a .p8 key), RS256 for FCM's OAuth2 assertion (a service account's key); social sign-in's
// RS256 checks of Apple's and Google's ID tokens and Apple's client secret (Social/).
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
