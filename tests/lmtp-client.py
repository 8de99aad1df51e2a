#!/usr/bin/env python3
# lmtp-client.py WHERE FILE [drop|idle]: connect to an LMTP server
# (unix:/PATH or HOST:PORT), send FILE's bytes in one write (pipelined),
# print every reply line the server sends until it closes or goes quiet
# for a few seconds.  drop: close right after sending (a peer that goes
# away mid-DATA); idle: send nothing, wait for the server to give up;
# slow: wait longer for each answer (a server that waits for its store).
import socket, sys, time

where, path = sys.argv[1], sys.argv[2]
mode = sys.argv[3] if len(sys.argv) > 3 else ""
if where.startswith("unix:"):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(where[5:])
else:
    host, port = where.rsplit(":", 1)
    s = socket.create_connection((host, int(port)))
data = open(path, "rb").read()
if mode != "idle":
    s.sendall(data)
if mode == "drop":
    s.close()
    sys.exit(0)
s.settimeout(15 if mode == "idle" else 40 if mode == "slow" else 4)
got = b""
try:
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
except socket.timeout:
    pass
except ConnectionResetError:
    pass
sys.stdout.write(got.decode("latin-1").replace("\r\n", "\n"))
