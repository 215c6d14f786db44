#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* MHD_get_daemon_info is variadic, which Swift cannot call: this asks it for the bound port. */
static inline uint16_t focus_daemon_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

#include <string.h>
#include <netinet/in.h>
#include <arpa/inet.h>

/* MHD_get_connection_info is variadic too: the connection's socket, or -1. */
static inline int focus_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/* The connection's socket address as libmicrohttpd holds it: the peer's, or the one given to
   MHD_add_connection (the client a PROXY protocol header named); NULL if none. Swift reads it
   as an IPAddress (an IPv4-mapped IPv6 address is the IPv4 it maps). */
static inline const struct sockaddr *focus_client_sockaddr(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

/* The length of the request head (request line and headers) as received, or 0. */
static inline size_t focus_request_head_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info ? info->header_size : 0;
}

/* MHD_set_response_options is variadic as well: the response's body ends when the connection
   closes (no chunked coding), so that its socket can be handed over after the headers. */
static inline int focus_response_close_delimited(struct MHD_Response *response) {
    return MHD_set_response_options(response, MHD_RF_HTTP_1_0_COMPATIBLE_STRICT, MHD_RO_END) == MHD_YES;
}
