/* Linux interfaces that Glibc's Swift module leaves out: epoll, eventfd and TCP_CORK/TCP_NODELAY
   for the threads that hold SSE streams' sockets (Live/StreamWriters.swift), and the send()
   flags (MSG_NOSIGNAL, MSG_DONTWAIT) they and Server/HeadDeadline.swift write with. */
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <netinet/tcp.h>
