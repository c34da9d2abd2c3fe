#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# fakectl.py SOCKET ANSWER: a stand-in for revoke-bpfd's control socket,
# for tests of what revoke-bpf prints (tests/host/output.bats).  Every
# connection's request is read and dropped (a descriptor passed with it
# is closed), and the text of the file ANSWER, read again for each
# connection, is sent back before the connection is closed.  Prints
# "ready" on stdout once it listens.
import os
import socket
import sys

path, answer = sys.argv[1], sys.argv[2]
try:
    os.unlink(path)
except FileNotFoundError:
    pass
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path)
srv.listen(8)
print("ready", flush=True)
while True:
    conn, _ = srv.accept()
    try:
        conn.settimeout(2)
        msg, anc, _, _ = conn.recvmsg(65536, socket.CMSG_SPACE(64))
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                for i in range(0, len(data) - len(data) % 4, 4):
                    os.close(int.from_bytes(data[i:i + 4], sys.byteorder))
        with open(answer, "rb") as f:
            conn.sendall(f.read())
    except OSError:
        pass
    finally:
        conn.close()
