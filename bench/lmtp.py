#!/usr/bin/env python3
"""lmtp: ludusd's LMTP intake against its IMAP intake, side by side in one
run, against the private Dovecot + Postfix of tests/mailenv.

  bench/lmtp.py     from a build directory (./ludus, ./ludusd), as root

The same N mixed mails (bench/flow.py's backlog: 80% moves in 50 Kalah
games, 20% help and list) reach a ludusd that starts from the same
database, the answers going out by SMTP to the sandbox in both:

  imap   the mails wait in the referee's IMAP inbox when ludusd starts
         (IDLE, moved to Processed as they are committed)
  lmtp   ludusd runs with in.lmtp on a loopback port and is handed the
         mails by LMTP_CONNS connections (default 2, Postfix's lmtp
         client per destination does alike), one transaction after
         another, PIPELINING as Postfix uses it

Each run is timed from ludusd's start (imap) or the first LMTP connection
(lmtp) until the referee has committed the last mail (its row in
`processed`).  The two alternate, RUNS times; printed per run are both
times, the LMTP's own acceptance rate (the 250s a second), the ratio
imap ms / lmtp ms (above 1: LMTP drains faster) and the load average
beside each, then the median ratio.

Environment: FLOW_N (mails, default 500), FLOW_RUNS (default 3),
LMTP_CONNS, FLOW_MAILENV, LUDUS_BIN, LUDUSD_BIN, LUDUS_GAMES_DIR as for
bench/flow.py.  Needs root (the sandbox); build without sanitizers.
"""
import os
import socket
import sqlite3
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("FLOW_N", "500")
import flow  # noqa: E402  (the sandbox, the referee, the backlog)

CONNS = int(os.environ.get("LMTP_CONNS", "2"))


def processed(db):
    c = sqlite3.connect(db, timeout=30)
    try:
        return c.execute("SELECT count(*) FROM processed").fetchone()[0]
    finally:
        c.close()


def wait_processed(db, n, limit_s=900):
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if processed(db) >= n:
            return True
        time.sleep(0.01)
    return False


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def lmtp_config(ref, port):
    """The referee's in: section made LMTP alone."""
    with open(ref.cfg) as f:
        lines = f.read().split("\n")
    out, skip = [], False
    for line in lines:
        if line == "in:":
            out += ["in:", "  lmtp: 127.0.0.1:%d" % port]
            skip = True
            continue
        if skip and line.startswith(" "):
            continue
        skip = False
        out.append(line)
    with open(ref.cfg, "w") as f:
        f.write("\n".join(out))


class Lmtp:
    """One LMTP connection, as a mail server's delivery agent opens it."""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.buf = b""
        self.reply()
        self.s.sendall(b"LHLO bench\r\n")
        self.reply()

    def line(self):
        while b"\r\n" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise RuntimeError("lmtp: connection closed")
            self.buf += chunk
        ln, self.buf = self.buf.split(b"\r\n", 1)
        return ln

    def reply(self):
        while True:
            ln = self.line()
            if ln[3:4] != b"-":
                return ln

    def send(self, frm, to, raw):
        self.s.sendall(b"MAIL FROM:<%s>\r\nRCPT TO:<%s>\r\nDATA\r\n" %
                       (frm.encode(), to.encode()))
        for want in (b"250", b"250", b"354"):
            r = self.reply()
            if not r.startswith(want):
                raise RuntimeError("lmtp: %r" % r)
        body = raw.encode()
        lines = body.split(b"\r\n")
        body = b"\r\n".join(b"." + ln if ln.startswith(b".") else ln
                            for ln in lines)
        if not body.endswith(b"\r\n"):
            body += b"\r\n"
        self.s.sendall(body + b".\r\n")
        r = self.reply()
        if not r.startswith(b"250"):
            raise RuntimeError("lmtp: %r" % r)

    def close(self):
        self.s.sendall(b"QUIT\r\n")
        self.reply()
        self.s.close()


def sender(m):
    for ln in m.split("\r\n"):
        if ln.startswith("From: "):
            return ln[6:]
    return ""


def run_imap(sb, template, msgs):
    sb.empty_mailboxes()
    ref = flow.Referee(sb, template=template)
    try:
        base = processed(ref.db)
        flow.append_all(sb, msgs)
        t0 = ref.start()
        ok = wait_processed(ref.db, base + len(msgs))
        ms = flow.now_ms() - t0
        load = flow.load()
        ref.stop()
        if not ok:
            raise RuntimeError("imap: not every mail was taken")
        return ms, load
    finally:
        ref.remove()


def run_lmtp(sb, template, msgs):
    sb.empty_mailboxes()
    ref = flow.Referee(sb, template=template)
    port = free_port()
    lmtp_config(ref, port)
    try:
        base = processed(ref.db)
        ref.start()
        end = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 1).close()
                break
            except OSError:
                if time.monotonic() > end:
                    raise
                time.sleep(0.02)
        to = "referee@" + sb.domain
        errors = []
        accepted = [0.0]

        def push(part):
            try:
                c = Lmtp(port)
                for m in part:
                    c.send(sender(m), to, m)
                c.close()
            except Exception as e:  # reported after the run
                errors.append(e)

        t0 = flow.now_ms()
        threads = [threading.Thread(target=push, args=(msgs[k::CONNS],))
                   for k in range(CONNS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        accepted[0] = flow.now_ms() - t0
        ok = wait_processed(ref.db, base + len(msgs))
        ms = flow.now_ms() - t0
        load = flow.load()
        ref.stop()
        if errors:
            raise errors[0]
        if not ok:
            raise RuntimeError("lmtp: not every mail was taken")
        return ms, accepted[0], load
    finally:
        ref.remove()


def main():
    sb = flow.Sandbox()
    try:
        template = flow.Referee(sb)
        moves = flow.make_games(template, sb)
        ratios = []
        for run in range(flow.RUNS):
            tag = "%d.%d" % (os.getpid(), run)
            msgs = flow.backlog(sb, moves, flow.N, tag)
            # The same mails, with Message-IDs of their own per side.
            msgs_l = flow.backlog(sb, moves, flow.N, tag + "l")
            ims, iload = run_imap(sb, template, msgs)
            lms, acc, lload = run_lmtp(sb, template, msgs_l)
            ratios.append(ims / lms)
            flow.say("lmtp", "run %d: imap ms (load); lmtp ms (load)" %
                     (run + 1), "%.0f (%s); %.0f (%s)" % (ims, iload, lms,
                                                         lload))
            flow.say("lmtp", "run %d: lmtp 250s a second; ratio imap/lmtp"
                     % (run + 1), "%.0f; %.2f" % (flow.N / acc * 1000.0,
                                                  ims / lms))
        template.remove()
        r = statistics.median(ratios)
        flow.say("lmtp", "%d mails, median ratio imap/lmtp (target >= 1)"
                 % flow.N, "%.2f %s" % (r, "met" if r >= 1 else "MISSED"))
    finally:
        sb.stop()


if __name__ == "__main__":
    main()
