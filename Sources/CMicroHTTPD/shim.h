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

/* The client's address as text into out (at least INET6_ADDRSTRLEN bytes): IPv4 dotted (an
   IPv4-mapped IPv6 address is printed as the IPv4 it is), IPv6 otherwise. 1 on success. */
static inline int focus_format_address(const struct sockaddr *address, char *out, socklen_t size) {
    if (address == NULL) return 0;
    if (address->sa_family == AF_INET) {
        return inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, out, size) != NULL;
    }
    if (address->sa_family == AF_INET6) {
        const struct in6_addr *v6 = &((const struct sockaddr_in6 *)address)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(v6)) return inet_ntop(AF_INET, &v6->s6_addr[12], out, size) != NULL;
        return inet_ntop(AF_INET6, v6, out, size) != NULL;
    }
    return 0;
}

static inline int focus_client_address(struct MHD_Connection *connection, char *out, socklen_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? focus_format_address(info->client_addr, out, size) : 0;
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
