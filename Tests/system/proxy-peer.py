#!/usr/bin/env python3
"""proxy-peer.py: a stand-in server behind haproxy that writes down what haproxy sends it.

Python's standard library only. The proxy checks (Tests/system/proxy-checks.sh) put it where a
focus-island server would be, to see what the deployment's haproxy configuration tells a server
about the phone: the X-Forwarded-For lines as they arrive, or the PROXY protocol v2 header.

  proxy-peer.py [--proxy-v2] LOG

Listens on 127.0.0.1 (a free port; prints "listening on 127.0.0.1:PORT" once it does) and
answers every HTTP/1.1 request 200 with {} (so /ready passes haproxy's health check). With
--proxy-v2 a connection must begin with a PROXY v2 header, as a server's PROXY_PROTOCOL_PORT
requires; one without it is closed unanswered. Per request, one line in LOG:

  METHOD PATH proxy=SRC:PORT>DST:PORT|none xff=VALUE|VALUE... proto=X-FORWARDED-PROTO forwarded=FORWARDED

where xff lists each X-Forwarded-For line in the order received ("-" for none).
Runs until killed.
"""
import socket
import struct
import sys
import threading

SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"


def read_exactly(connection, count):
    data = b""
    while len(data) < count:
        chunk = connection.recv(count - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def proxy_header(connection):
    """The PROXY v2 header's addresses as "SRC:PORT>DST:PORT" (TCP over IPv4 or IPv6)."""
    head = read_exactly(connection, 16)
    if head[:12] != SIGNATURE or head[12] >> 4 != 2:
        raise ConnectionError("no PROXY v2 header")
    command, family, length = head[12] & 0x0F, head[13], struct.unpack("!H", head[14:16])[0]
    body = read_exactly(connection, length)
    if command == 0:  # LOCAL: the proxy's own connection, no client behind it
        return "local"
    if family == 0x11:  # TCP over IPv4
        source, destination, source_port, destination_port = struct.unpack("!4s4sHH", body[:12])
        family_id = socket.AF_INET
    elif family == 0x21:  # TCP over IPv6
        source, destination, source_port, destination_port = struct.unpack("!16s16sHH", body[:36])
        family_id = socket.AF_INET6
    else:
        return f"family-{family:#x}"
    return (f"{socket.inet_ntop(family_id, source)}:{source_port}>"
            f"{socket.inet_ntop(family_id, destination)}:{destination_port}")


def serve(connection, proxy_v2, log, lock):
    with connection:
        try:
            proxy = proxy_header(connection) if proxy_v2 else "none"
            buffered = b""
            while True:
                while b"\r\n\r\n" not in buffered:
                    chunk = connection.recv(65536)
                    if not chunk:
                        return
                    buffered += chunk
                head, buffered = buffered.split(b"\r\n\r\n", 1)
                lines = head.decode("latin-1").split("\r\n")
                method, path = lines[0].split(" ")[:2]
                headers = [line.split(":", 1) for line in lines[1:] if ":" in line]
                values = {}
                for name, value in headers:
                    values.setdefault(name.strip().lower(), []).append(value.strip())
                length = int(values.get("content-length", ["0"])[0])
                while len(buffered) < length:
                    chunk = connection.recv(65536)
                    if not chunk:
                        return
                    buffered += chunk
                buffered = buffered[length:]
                with lock:
                    log.write(f"{method} {path} proxy={proxy} xff={'|'.join(values.get('x-forwarded-for', ['-']))} "
                              f"proto={','.join(values.get('x-forwarded-proto', ['-']))} "
                              f"forwarded={','.join(values.get('forwarded', ['-']))}\n")
                    log.flush()
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
        except (ConnectionError, OSError, ValueError):
            return


def main(argv):
    proxy_v2 = "--proxy-v2" in argv
    arguments = [a for a in argv[1:] if a != "--proxy-v2"]
    if len(arguments) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(f"listening on 127.0.0.1:{listener.getsockname()[1]}", flush=True)
    lock = threading.Lock()
    with open(arguments[0], "a", encoding="utf-8") as log:
        while True:
            connection, _ = listener.accept()
            threading.Thread(target=serve, args=(connection, proxy_v2, log, lock), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
