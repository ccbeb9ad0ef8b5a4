#!/usr/bin/env python3
"""Many idle connections over several damka nodes sharing one Redis, from several
load-test processes (each process may hold fewer than 20,000 files on the test box),
gathered into one report.

Starts --nodes damka nodes (each with its own SQLite file in a scratch folder, all on
one Redis under a prefix of the run's own), runs --processes `damka-loadtest idle`
processes at once, each spreading its connections over every node, and while they
hold their connections reads the cluster's online count through the public interface
(`GET /api/online` on the first node). Then it reports, in one JSON document and a
summary: connections opened, failed and alive at the end (from the load tests' own
reports), the connect rate, the online count against what the load tests held, each
node's RSS before and with the connections open (per connection), its open files, and
Redis's `INFO memory` before and during the hold.

    tools/loadtest-cluster.py --damka target/release/damka \\
        --loadtest target/release/damka-loadtest --nodes 5 --processes 6 \\
        --connections 16600 --hold 60 --json-out /tmp/cluster.json

Only loopback addresses are used; nodes and the scratch folder are removed at the end.
Standard library only.
"""

import argparse
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def open_files(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def get_json(url, timeout=5.0):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


def redis_memory(url, prefix):
    """`INFO memory` fields and the number of keys under the run's prefix."""
    host_port = url.split("://", 1)[-1].split("/", 1)[0]
    host, _, port = host_port.partition(":")
    args = ["redis-cli", "-h", host or "127.0.0.1", "-p", port or "6379"]
    out = subprocess.run(args + ["INFO", "memory"], capture_output=True, text=True).stdout
    info = {}
    for line in out.splitlines():
        if ":" in line and not line.startswith("#"):
            k, v = line.strip().split(":", 1)
            if k in ("used_memory", "used_memory_human", "used_memory_rss", "used_memory_peak"):
                info[k] = int(v) if v.isdigit() else v
    keys = subprocess.run(
        args + ["--scan", "--pattern", prefix + "*"],
        capture_output=True,
        text=True,
    ).stdout.split()
    info["run_keys"] = len(keys)
    return info


def start_nodes(args, scratch, prefix):
    secret = secrets.token_hex(16)
    nodes = []
    for i in range(args.nodes):
        port = free_port()
        env = dict(os.environ)
        env.pop("DAMKA_CONFIG", None)
        env.update(
            {
                "DAMKA_LISTEN": f"127.0.0.1:{port}",
                "DAMKA_MAX_CONNECTIONS": "1000000",
                "DAMKA_LOG__FILTER": "warn",
                "DAMKA_AUTH__SECRET": secret,
                # Every bot takes its guest token from the same few addresses.
                "DAMKA_API__REQUESTS_PER_MIN": "100000000",
                "DAMKA_API__REQUESTS_BURST": "1000000",
                "DAMKA_NODE_ID": f"lt{i}",
                "DAMKA_REDIS__URL": args.redis,
                "DAMKA_REDIS__PREFIX": prefix,
                "DAMKA_DATABASE__URL": f"sqlite://{scratch}/node{i}.sqlite",
                "DAMKA_DATABASE__DATA_DIR": os.path.join(scratch, f"data{i}"),
            }
        )
        for kv in args.damka_env:
            k, _, v = kv.partition("=")
            env[k] = v
        proc = subprocess.Popen(
            [args.damka, "serve"], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
        )
        nodes.append({"proc": proc, "port": port, "url": f"http://127.0.0.1:{port}"})
    for n in nodes:
        deadline = time.time() + 60
        while True:
            try:
                get_json(n["url"] + "/healthz", timeout=1)
                break
            except OSError:
                if n["proc"].poll() is not None or time.time() > deadline:
                    raise SystemExit(f"node on port {n['port']} did not start")
                time.sleep(0.2)
    return nodes


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--damka", required=True)
    p.add_argument("--loadtest", required=True)
    p.add_argument("--nodes", type=int, default=5)
    p.add_argument("--processes", type=int, default=6)
    p.add_argument("--connections", type=int, default=16_600, help="per load-test process")
    p.add_argument("--hold", type=int, default=60, help="seconds each process holds")
    p.add_argument("--connect-parallel", type=int, default=256)
    p.add_argument("--redis", default="redis://127.0.0.1:6379")
    p.add_argument("--damka-env", action="append", default=[], help="KEY=VALUE for the nodes")
    p.add_argument("--loadtest-arg", action="append", default=[], help="extra load-test argument")
    p.add_argument("--json-out")
    args = p.parse_args()

    prefix = f"lt-cluster:{os.getpid()}:{int(time.time())}:"
    scratch = tempfile.mkdtemp(prefix="damka-cluster-")
    report = {
        "nodes": args.nodes,
        "processes": args.processes,
        "connections_per_process": args.connections,
        "hold_secs": args.hold,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "loadavg_start": os.getloadavg(),
    }
    nodes = start_nodes(args, scratch, prefix)
    loadtests = []
    try:
        time.sleep(1)
        report["redis_before"] = redis_memory(args.redis, prefix)
        for n in nodes:
            n["rss_before_kib"] = rss_kib(n["proc"].pid)
            n["files_before"] = open_files(n["proc"].pid)
        urls = ",".join(f"ws://127.0.0.1:{n['port']}" for n in nodes)
        pids = ",".join(str(n["proc"].pid) for n in nodes)
        t0 = time.time()
        for i in range(args.processes):
            out = os.path.join(scratch, f"lt{i}.json")
            cmd = [
                args.loadtest, "idle", "--url", urls, "--server-pid", pids,
                "--connections", str(args.connections), "--duration", str(args.hold),
                "--connect-parallel", str(args.connect_parallel), "--no-baseline",
                "--seed", str(i + 1), "--json-out", out,
            ] + args.loadtest_arg
            log = open(os.path.join(scratch, f"lt{i}.log"), "w")
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
            loadtests.append({"proc": proc, "out": out, "log": log.name})
        # While every process holds its connections: the online count, node memory.
        samples = []
        peak = None
        while all(lt["proc"].poll() is None for lt in loadtests):
            try:
                online = get_json(nodes[0]["url"] + "/api/online", timeout=10)["online"]
            except (OSError, KeyError, ValueError):
                online = None
            samples.append({"t": round(time.time() - t0, 1), "online": online})
            if online is not None and (peak is None or online >= peak["online"]):
                peak = {"online": online, "t": samples[-1]["t"]}
                for n in nodes:
                    n["rss_held_kib"] = rss_kib(n["proc"].pid)
                    n["files_held"] = open_files(n["proc"].pid)
                report["redis_held"] = redis_memory(args.redis, prefix)
            time.sleep(2)
        report["online_samples"] = samples
        report["online_last_while_all_held"] = next(
            (s["online"] for s in reversed(samples) if s["online"] is not None), None
        )
        report["online_peak"] = peak
        runs = []
        for lt in loadtests:
            lt["proc"].wait()
            try:
                with open(lt["out"]) as f:
                    runs.append(json.load(f)["damka"])
            except (OSError, ValueError, KeyError):
                with open(lt["log"]) as f:
                    sys.stderr.write(f.read()[-2000:])
                runs.append(None)
        ok = [r for r in runs if r]
        opened = sum(r["connections_opened"] for r in ok)
        report["connections_opened"] = opened
        report["connections_failed"] = sum(r["connections_failed"] for r in ok)
        report["connections_lost"] = sum(r["connections_lost"] for r in ok)
        report["connections_alive"] = sum(r.get("connections_alive") or 0 for r in ok)
        report["connect_secs"] = [round(r["connect_secs"], 1) for r in ok]
        report["connects_per_sec"] = [round(r["connects_per_sec"]) for r in ok]
        report["loadtest_reports_missing"] = len(runs) - len(ok)
        per_node = []
        for i, n in enumerate(nodes):
            held, before = n.get("rss_held_kib"), n.get("rss_before_kib")
            per_node.append(
                {
                    "node": i,
                    "rss_before_kib": before,
                    "rss_held_kib": held,
                    "files_before": n.get("files_before"),
                    "files_held": n.get("files_held"),
                }
            )
        report["per_node"] = per_node
        total_growth = sum(
            (n["rss_held_kib"] or 0) - (n["rss_before_kib"] or 0) for n in per_node
        )
        # Sockets the nodes held when their RSS was read (open files beyond the idle ones).
        held = sum((n["files_held"] or 0) - (n["files_before"] or 0) for n in per_node)
        report["node_sockets_at_rss_sample"] = held
        report["rss_kib_per_connection"] = round(total_growth / held, 2) if held > 0 else None
        held_online = (peak or {}).get("online") or 0
        rb, rh = report.get("redis_before", {}), report.get("redis_held", {})
        if "used_memory" in rb and "used_memory" in rh and held_online:
            report["redis_bytes_per_connection"] = round(
                (rh["used_memory"] - rb["used_memory"]) / held_online
            )
        report["loadavg_end"] = os.getloadavg()
    finally:
        for lt in loadtests:
            if lt["proc"].poll() is None:
                lt["proc"].kill()
        for n in nodes:
            n["proc"].kill()
            n["proc"].wait()
        shutil.rmtree(scratch, ignore_errors=True)
        subprocess.run(
            ["sh", "-c", f"redis-cli --scan --pattern '{prefix}*' | xargs -r -n 500 redis-cli DEL"],
            capture_output=True,
        )
    text = json.dumps(report, indent=2)
    if args.json_out:
        with open(args.json_out, "w") as f:
            f.write(text)
    summary = {k: v for k, v in report.items() if k != "online_samples"}
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
