#!/usr/bin/env python3
"""Idle-connection floods against an `actorflow server` with a secret (issue 21).

A stranger opens many TCP connections to the server's CAF (TLS) port from
one or many loopback addresses (127.0.0.1..127.0.0.K all reach loopback) and
sends nothing. Against a server with the default connection caps and one
with the caps lifted (--max_connections_per_source/--max_connections at
their maximum, --handshake_timeout_secs 86400: the server before the guard,
except that the descriptor reserve still holds), it prints how many
connections the server holds (its socket descriptors less those it had
before), its resident memory, and whether a member's step (`actorflow run
--target af://...`) is served while the flood is open and after the
handshake deadline (2 s and 12 s after the last connect returned).

usage: python3 bench/security/connection_flood.py build/bin/actorflow SECRET_FILE
       [--connections N,N...] [--sources K,K...]
(make a secret file with `(umask 077; openssl rand -hex 32 > FILE)`; N is
paired with K: the defaults run 1000 connections from 1 address, then
19000 from 100)
"""
import argparse
import os
import re
import resource
import socket
import subprocess
import tempfile
import threading
import time

NEG_GRAPH = """
node { name: "x" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 5 } } } }
node { name: "n" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
"""

LIFTED = ["--max_connections_per_source", "16777216", "--max_connections", "16777216",
          "--handshake_timeout_secs", "86400"]


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return None


def sockets_held(pid):
    held = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            held += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
        except OSError:
            pass
    return held


def start_server(binary, args):
    server = subprocess.Popen([binary, "server", "--port", "0"] + args, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    port, caps = None, ""
    for line in server.stdout:
        found = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if found:
            port = int(found.group(1))
        if line.startswith("  connections to port"):
            caps = line.split(": ", 1)[1].strip()
            # Drained all along: a server whose log pipe is full blocks.
            lines = []
            reader = threading.Thread(target=lambda: lines.extend(server.stdout), daemon=True)
            reader.start()
            return server, port, caps, lines, reader
    raise RuntimeError("the server did not start")


def member_served(binary, secret_file, port, graph):
    try:
        run = subprocess.run([binary, "run", "--graph", graph, "--fetch", "n", "--target",
                              f"af://127.0.0.1:{port}", "--secret_file", secret_file],
                             capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "no (timed out)"
    if run.returncode == 0 and "-5" in run.stdout:
        return "yes"
    last = (run.stdout + run.stderr).strip().splitlines()
    return "no (" + (last[-1][:90] if last else f"exit {run.returncode}") + ")"


def flood(port, connections, sources):
    opened, failed = [], 0
    for i in range(connections):
        connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        connection.settimeout(5)
        try:
            connection.bind((f"127.0.0.{1 + i % sources}", 0))
            connection.connect(("127.0.0.1", port))
            opened.append(connection)
        except OSError:
            connection.close()
            failed += 1
    return opened, failed


def attack(binary, secret_file, graph, label, args, connections, sources):
    server, port, caps, lines, reader = start_server(binary, ["--secret_file", secret_file] + args)
    time.sleep(1)
    base_sockets, before = sockets_held(server.pid), rss_mib(server.pid)
    start = time.monotonic()
    opened, failed = flood(port, connections, sources)
    took = time.monotonic() - start
    time.sleep(2)
    held, during = sockets_held(server.pid) - base_sockets, rss_mib(server.pid)
    served_during = member_served(binary, secret_file, port, graph)
    time.sleep(max(0.0, 12 - (time.monotonic() - start - took)))  # past the 10 s deadline
    held_later, later = sockets_held(server.pid) - base_sockets, rss_mib(server.pid)
    served_later = member_served(binary, secret_file, port, graph)
    alive = server.poll() is None
    for connection in opened:
        connection.close()
    server.terminate()
    server.wait(timeout=60)
    reader.join(timeout=10)
    output = "".join(lines)
    farewell = re.search(r"connections to port \d+: (.*)", output)
    print(f"{label}: {connections} idle connections from {sources} address(es), opened in "
          f"{took:.1f} s ({failed} failed to connect)\n"
          f"  caps: {caps}\n"
          f"  held 2 s after the last connect: {held}; 12 s after: {held_later}; RSS {before} -> "
          f"{during} -> {later} MiB; alive: {alive}\n"
          f"  member served 2 s after: {served_during}; 12 s after: {served_later}\n"
          f"  server: {farewell.group(1) if farewell else '(no farewell line)'}", flush=True)


def main():
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("binary")
    parser.add_argument("secret_file")
    parser.add_argument("--connections", default="1000,19000")
    parser.add_argument("--sources", default="1,100")
    flags = parser.parse_args()
    counts = [int(n) for n in flags.connections.split(",")]
    sources = [int(k) for k in flags.sources.split(",")]
    limit = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit[1], limit[1]))
    print(f"descriptor limit (ulimit -n) of this script and the servers: {limit[1]}")
    with tempfile.TemporaryDirectory() as scratch:
        graph = os.path.join(scratch, "neg.pbtxt")
        with open(graph, "w") as out:
            out.write(NEG_GRAPH)
        for n, k in zip(counts, sources):
            attack(flags.binary, flags.secret_file, graph, "defaults", [], n, k)
            attack(flags.binary, flags.secret_file, graph, "caps lifted", LIFTED, n, k)


if __name__ == "__main__":
    main()
