#!/usr/bin/python3
"""Talks to GIMP's Script-Fu server (plug-in-script-fu-server), so that a GUI
test drives GIMP without a Script-Fu loop polling for files, which would keep
GIMP's main loop busy and starve its rendering.

  script_fu_server.py port           prints a free TCP port on 127.0.0.1
  script_fu_server.py send PORT EXPR  evaluates EXPR, prints GIMP's answer;
                                      exits 1 when GIMP reports an error
"""
import socket
import struct
import sys


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def receive(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("GIMP closed the connection")
        data += chunk
    return data


def send(port, expr, timeout=300):
    """The server's protocol: 'G', a 16-bit length, the text; the answer has
    'G', an error byte, a 16-bit length and the text."""
    command = expr.encode()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(b"G" + struct.pack(">H", len(command)) + command)
        magic, error, length = struct.unpack(">cBH", receive(sock, 4))
        return error == 0, receive(sock, length).decode(errors="replace")


def main():
    if sys.argv[1:2] == ["port"]:
        print(free_port())
        return 0
    if len(sys.argv) != 4 or sys.argv[1] != "send":
        print(__doc__, file=sys.stderr)
        return 2
    try:
        ok, answer = send(int(sys.argv[2]), sys.argv[3])
    except OSError as e:
        print(f"no answer from GIMP's Script-Fu server: {e}", file=sys.stderr)
        return 1
    print(answer)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
