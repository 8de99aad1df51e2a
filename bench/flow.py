#!/usr/bin/env python3
"""flow: ludusd against the private Dovecot + Postfix of tests/mailenv,
everything measured side by side in one run (bench/README says how).

  bench/flow.py [PART ...]     from a build directory (./ludus, ./ludusd)

Parts (all by default, in this order):
  plain    the sandbox's own rate: N plain mails submitted over SMTP and
           delivered into Maildirs, end to end, and the latency of one
           plain mail echoed through the same servers
  drain    N mails waiting in the referee's inbox (80% moves in 50 Kalah
           games, 20% help/list); ludusd started on them until the last
           of its answers is delivered, against the same servers carrying
           the larger of the two flows (N mails, or as many as the
           answers) measured right after it: the ratio, the first reply
  latency  one mail at a time to a running ludusd (IDLE), each beside a
           plain echo measured just after it: reply latency percentiles
           and the p50 ratio
  robots   `help` while three level-3 robot moves are being thought,
           against `help` on the idle daemon (p50 ratio); then a move
           answered by a level-1 robot, each beside a plain echo (p50
           ratio)
  deliver  `ludus deliver` of a move: ms per mail against /bin/true and
           `ludus -V`, and (with valgrind) the instructions of each
  memory   ludusd's RSS and Private_Dirty (smaps_rollup) after the run

Environment: FLOW_N (mails in the backlog, default 1000), FLOW_RUNS
(drain runs, default 3: the median is reported), FLOW_LAT (latency
samples, default 30), FLOW_MAILENV (a started sandbox's directory, else
one is started and stopped here), LUDUS_BIN, LUDUSD_BIN, LUDUS_GAMES_DIR.
Needs root (the sandbox) and a build without sanitizers.  The referee
keeps the default limits (the test sandbox's referee lifts them).
"""
import email.utils
import imaplib
import os
import shutil
import smtplib
import sqlite3
import ssl
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LUDUS = os.environ.get("LUDUS_BIN", os.path.abspath("ludus"))
LUDUSD = os.environ.get("LUDUSD_BIN", os.path.abspath("ludusd"))
GAMES = os.environ.get("LUDUS_GAMES_DIR", os.path.join(HERE, "games"))
N = int(os.environ.get("FLOW_N", "1000"))
RUNS = int(os.environ.get("FLOW_RUNS", "3"))
NLAT = int(os.environ.get("FLOW_LAT", "30"))
MAILENV = os.path.join(HERE, "tests", "mailenv", "mailenv")
PLAYERS = ["alice", "bob", "carol", "dave"]
NGAMES = 50

os.environ.setdefault("LUDUS_TEMPLATES_DIR", os.path.join(HERE, "templates"))
os.environ["LUDUS_GAMES_DIR"] = GAMES
os.environ["TZ"] = "UTC"

results = []    # (section, name, value text)


def say(section, name, value):
    results.append((section, name, value))
    print("%-8s %-44s %s" % (section, name, value), flush=True)


def now_ms():
    return time.monotonic() * 1000.0


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = max(0, min(len(xs) - 1, int((len(xs) * p + 99) // 100) - 1))
    return xs[k]


class Sandbox:
    def __init__(self):
        self.own = False
        d = os.environ.get("FLOW_MAILENV")
        if not d:
            self.tmp = tempfile.mkdtemp(prefix="lfl.", dir="/tmp")
            os.chmod(self.tmp, 0o755)
            d = os.path.join(self.tmp, "m")
            subprocess.run(["bash", MAILENV, "start", d], check=True,
                           stdout=subprocess.DEVNULL)
            self.own = True
        self.dir = d
        out = subprocess.run(["bash", MAILENV, "env", d], check=True,
                             capture_output=True, text=True).stdout
        self.env = {}
        for line in out.splitlines():
            if "=" in line:
                k, v = line.split("=", 1)
                self.env[k] = v.strip("'")
        e = self.env
        self.domain = e["MAILENV_DOMAIN"]
        self.maildirs = e["MAILENV_MAILDIRS"]
        self.ctx = ssl.create_default_context(cafile=e["MAILENV_CA_FILE"])

    def stop(self):
        if self.own:
            subprocess.run(["bash", MAILENV, "stop", self.dir],
                           stdout=subprocess.DEVNULL)
            shutil.rmtree(self.tmp, ignore_errors=True)

    def addr(self, user):
        return "%s@%s" % (user, self.domain)

    def smtp(self):
        return smtplib.SMTP("127.0.0.1", int(self.env["MAILENV_SMTP_PORT"]),
                            timeout=30)

    def imap(self, user):
        m = imaplib.IMAP4_SSL("localhost",
                              int(self.env["MAILENV_IMAPS_PORT"]),
                              ssl_context=self.ctx)
        m.login(user, user + self.env["MAILENV_PASSWORD_SUFFIX"])
        return m

    def maildir(self, user, folder=""):
        return os.path.join(self.maildirs, user, "Maildir", folder)

    def files(self, user, sub="new", folder=""):
        try:
            return os.listdir(os.path.join(self.maildir(user, folder), sub))
        except FileNotFoundError:
            return []

    def count(self, users, sub="new"):
        return sum(len(self.files(u, sub)) for u in users)

    def empty_mailboxes(self):
        for u in PLAYERS + ["referee"]:
            base = self.maildir(u)
            if not os.path.isdir(base):
                continue
            for root, dirs, files in os.walk(base):
                if os.path.basename(root) in ("new", "cur"):
                    for f in files:
                        os.unlink(os.path.join(root, f))
            # Dovecot's indexes would still count the removed files.
            for root, dirs, files in os.walk(base):
                for f in files:
                    if f.startswith("dovecot.index") or \
                            f == "dovecot-uidlist":
                        os.unlink(os.path.join(root, f))


def message(frm, to, subject, body, msgid):
    return ("From: %s\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <%s>\r\n"
            "Date: %s\r\nMIME-Version: 1.0\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n\r\n%s\r\n" %
            (frm, to, subject, msgid, email.utils.formatdate(), body))


def smaps_top(pid, k=15):
    """The mappings of pid with the most Private_Dirty (for FLOW_SMAPS)."""
    rows, name = [], None
    for line in open("/proc/%d/smaps" % pid):
        f = line.split()
        if "-" in f[0] and ":" not in f[0]:
            name = f[5] if len(f) > 5 else "[anon]"
        elif f[0] == "Private_Dirty:":
            rows.append((int(f[1]), name))
    agg = {}
    for kb, n in rows:
        agg[n] = agg.get(n, 0) + kb
    for n, kb in sorted(agg.items(), key=lambda x: -x[1])[:k]:
        print("  %6d kB  %s" % (kb, n))


def wait_for(pred, limit_s, step=0.01):
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()


# plain: the sandbox's own end-to-end rate and echo latency.
def plain_rate(sb, n):
    sb.empty_mailboxes()
    t0 = now_ms()
    s = sb.smtp()
    for i in range(n):
        frm, to = sb.addr(PLAYERS[i % 4]), sb.addr(PLAYERS[(i + 1) % 4])
        s.sendmail(frm, [to], message(frm, to, "plain %d" % i, "hello",
                                      "plain.%d.%d@bench" % (i, os.getpid())))
    s.quit()
    ok = wait_for(lambda: sb.count(PLAYERS) >= n, 300)
    t = now_ms() - t0
    sb.empty_mailboxes()
    return n / (t / 1000.0) if ok else float("nan")


class Idler:
    """bob's INBOX in IMAP IDLE, as a referee watching for mail would."""

    def __init__(self, sb, user="bob"):
        import socket
        raw = socket.create_connection(("127.0.0.1",
                                        int(sb.env["MAILENV_IMAPS_PORT"])))
        self.s = sb.ctx.wrap_socket(raw, server_hostname="localhost")
        self.buf = b""
        self.n = 0
        self.readline()
        self.cmd("LOGIN %s %s%s" % (user, user,
                                    sb.env["MAILENV_PASSWORD_SUFFIX"]))
        self.cmd("SELECT INBOX")

    def readline(self):
        while b"\n" not in self.buf:
            data = self.s.recv(65536)
            if not data:
                return b""
            self.buf += data
        line, _, self.buf = self.buf.partition(b"\n")
        return line + b"\n"

    def cmd(self, text):
        self.n += 1
        tag = b"t%d" % self.n
        self.s.sendall(tag + b" " + text.encode() + b"\r\n")
        lines = []
        while True:
            line = self.readline()
            lines.append(line)
            if line.startswith(tag + b" "):
                return lines

    def idle(self):
        """Begin IDLE (before the mail is sent, as a watching referee)."""
        self.n += 1
        self.tag = b"t%d" % self.n
        self.s.sendall(self.tag + b" IDLE\r\n")
        self.readline()                 # + idling

    def wait_new(self, limit=30):
        """In IDLE: until the server announces a message (True) or limit
        seconds pass (False); then DONE."""
        import select
        got = False
        end = time.monotonic() + limit
        while not got and time.monotonic() < end:
            if b"\n" not in self.buf and self.s.pending() == 0:
                r, _, _ = select.select([self.s], [], [], 0.05)
                if not r:
                    continue
            line = self.readline()
            if not line:
                break
            got = line.startswith(b"*") and b"EXISTS" in line
        self.s.sendall(b"DONE\r\n")
        while not self.readline().startswith(self.tag + b" "):
            pass
        return got

    def close(self):
        try:
            self.cmd("LOGOUT")
        except OSError:
            pass
        self.s.close()


def plain_echo(sb, k, empty=True):
    """A plain mail from alice to bob, and bob's echo back to alice by a
    client that waits in IDLE, fetches the mail and answers it over SMTP:
    alice's send to the echo's delivery, what a referee's answer costs
    the servers."""
    lat = []
    if empty:
        sb.empty_mailboxes()
    idler = Idler(sb)
    inbox = lambda: len(sb.files("bob")) + len(sb.files("bob", "cur"))
    try:
        for i in range(k):
            frm, to = sb.addr("alice"), sb.addr("bob")
            before = len(sb.files("alice"))
            c0 = inbox()
            idler.idle()
            t0 = now_ms()
            s = sb.smtp()
            s.sendmail(frm, [to], message(frm, to, "echo %d" % i, "hello",
                                          "echo.%d.%d@bench" %
                                          (i, os.getpid())))
            s.quit()
            end = time.monotonic() + 30
            while not idler.wait_new(max(0.1, end - time.monotonic())) \
                    or inbox() <= c0:
                if time.monotonic() >= end:
                    break
                idler.idle()
            if inbox() <= c0:
                continue
            idler.cmd("UID FETCH 1:* (BODY.PEEK[])")
            s = sb.smtp()
            s.sendmail(to, [frm], message(to, frm, "Re: echo %d" % i,
                                          "hello", "re.%d.%d@bench" %
                                          (i, os.getpid())))
            s.quit()
            idler.cmd("UID STORE 1:* +FLAGS.SILENT (\\Deleted)")
            idler.cmd("EXPUNGE")
            if reply_wait(sb, "alice", before):
                lat.append(now_ms() - t0)
    finally:
        idler.close()
    if empty:
        sb.empty_mailboxes()
    return lat


# The referee: a configuration as tests/mailenv/referee.sh writes it.
class Referee:
    def __init__(self, sb, level="warning", template=None):
        self.sb = sb
        self.dir = tempfile.mkdtemp(prefix="lfr.", dir="/tmp")
        os.umask(0o077)
        env = dict(os.environ, **sb.env)
        subprocess.run(["bash", "-c", '. "$0"; mailenv_referee "$1" "$2"',
                        os.path.join(HERE, "tests", "mailenv", "referee.sh"),
                        self.dir, level], check=True, env=env)
        self.cfg = os.path.join(self.dir, "ludus.yaml")
        self.db = os.path.join(self.dir, "ludus.db")
        # The default limits, as a club runs: no limits: section.
        with open(self.cfg) as f:
            lines = f.read().split("\n")
        out, skip = [], False
        for line in lines:
            if line.startswith("limits:"):
                skip = True
            elif skip and not line.startswith(" "):
                skip = False
            if not skip:
                out.append(line)
        with open(self.cfg, "w") as f:
            f.write("\n".join(out))
        self.proc = None
        if template is None:
            self.ludus("init")
            return
        for f in os.listdir(template.dir):
            if f == "ludus.db":
                copy_db(os.path.join(template.dir, f), self.db)
            elif f == "secret":
                shutil.copy(os.path.join(template.dir, f),
                            os.path.join(self.dir, f))

    def ludus(self, *args, stdin=None, check=True):
        r = subprocess.run([LUDUS, "-c", self.cfg] + list(args), input=stdin,
                           capture_output=True, text=True)
        if check and r.returncode != 0:
            raise RuntimeError("ludus %s: %s" % (" ".join(args), r.stderr))
        return r

    def start(self):
        self.log = open(os.path.join(self.dir, "ludusd.log"), "w")
        wrap = os.environ.get("FLOW_WRAP", "").split()
        self.proc = subprocess.Popen(wrap + [LUDUSD, "-f", "-c", self.cfg],
                                     stderr=self.log)
        return now_ms()

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(30)
            self.proc = None
            self.log.close()

    def memory(self):
        """RSS and Private_Dirty of ludusd, in KiB."""
        m = {}
        with open("/proc/%d/smaps_rollup" % self.proc.pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if v.strip().endswith("kB"):
                    m[k] = int(v.split()[0])
        return m.get("Rss", 0), m.get("Private_Dirty", 0)

    def pending(self):
        c = sqlite3.connect(self.db, timeout=30)
        try:
            return c.execute("SELECT count(*) FROM outbox WHERE sent IS "
                             "NULL AND failed IS NULL").fetchone()[0]
        finally:
            c.close()

    def queued(self):
        c = sqlite3.connect(self.db, timeout=30)
        try:
            return c.execute("SELECT count(*) FROM outbox").fetchone()[0]
        finally:
            c.close()

    def remove(self):
        self.stop()
        if os.environ.get("FLOW_KEEP"):
            print("kept", self.dir)
            return
        shutil.rmtree(self.dir, ignore_errors=True)


def copy_db(src, dst):
    """A database file with its WAL (which stays between processes)."""
    shutil.copy(src, dst)
    if os.path.exists(src + "-wal"):
        shutil.copy(src + "-wal", dst + "-wal")


def first_legal(db, game):
    r = subprocess.run([LUDUS, "-d", db, "moves", str(game)],
                       capture_output=True, text=True)
    lines = [l.strip() for l in r.stdout.splitlines() if l.strip()]
    return lines[0] if lines else None


def make_games(ref, sb):
    """50 Kalah games between pairs of players, and for each the first
    legal moves in order (played on a scratch copy): [(game, addr, move)]
    by ply, games interleaved."""
    pairs = [(a, b) for a in PLAYERS for b in PLAYERS if a != b]
    seats = {}
    for g in range(NGAMES):
        a, b = pairs[g % len(pairs)]
        ref.ludus("new", "kalah", sb.addr(a), sb.addr(b))
        seats[g + 1] = (sb.addr(a), sb.addr(b))
    tokens = {(g, s): ref.ludus("token", str(g), str(s)).stdout.strip()
              for g in seats for s in (0, 1)}
    sdir = tempfile.mkdtemp(prefix="lfs.", dir="/tmp")
    sdb = os.path.join(sdir, "ludus.db")
    copy_db(ref.db, sdb)
    # `ludus -d DB move` plays through the referee, which needs the
    # secret; without a configuration it looks beside the database.
    shutil.copy(os.path.join(ref.dir, "secret"),
                os.path.join(sdir, "ludus.secret"))
    per = -(-int(N * 0.8) // NGAMES)
    plies = {g: [] for g in seats}
    for g in seats:
        for _ in range(per):
            mv = first_legal(sdb, g)
            if mv is None:
                break
            for s, who in enumerate(seats[g]):
                r = subprocess.run([LUDUS, "-d", sdb, "move", "--quiet",
                                    str(g), who, mv], capture_output=True,
                                   text=True)
                if r.returncode == 0:
                    plies[g].append((s, who, mv))
                    break
    shutil.rmtree(sdir, ignore_errors=True)
    order = []
    for k in range(per):
        for g in seats:
            if k < len(plies[g]):
                s, who, mv = plies[g][k]
                order.append((g, who, mv, tokens[(g, s)]))
    return order


def backlog(sb, moves, n, tag):
    """The mails of the backlog: moves with a help or list every fifth."""
    out = []
    mi = 0
    for i in range(n):
        if i % 5 == 4 or mi >= len(moves):
            who = sb.addr(PLAYERS[i % 4])
            out.append(message(who, "referee@" + sb.domain, "question",
                               "help" if i % 10 == 4 else "list",
                               "q.%s.%d@bench" % (tag, i)))
        else:
            g, who, mv, tok = moves[mi]
            mi += 1
            out.append(message(who, "referee@" + sb.domain,
                               "Re: [ludus #%d %s] Your move" % (g, tok), mv,
                               "m.%s.%d@bench" % (tag, i)))
    return out


def append_all(sb, msgs):
    m = sb.imap("referee")
    for raw in msgs:
        m.append("INBOX", None, None, raw.encode())
    m.logout()


def drain_once(sb, run, template, moves):
    sb.empty_mailboxes()
    ref = Referee(sb, template=template)
    try:
        msgs = backlog(sb, moves, N, "%d.%d" % (os.getpid(), run))
        append_all(sb, msgs)
        inbox = lambda: len(sb.files("referee", "new")) + \
            len(sb.files("referee", "cur"))
        assert inbox() == N, "inbox holds %d, not %d" % (inbox(), N)
        t0 = ref.start()
        first = empty = None
        end = time.monotonic() + 600
        while time.monotonic() < end:
            t = now_ms()
            if first is None and sb.count(PLAYERS) > 0:
                first = t - t0
            if empty is None and inbox() == 0:
                empty = t - t0
            if empty is not None and first is not None:
                break
            time.sleep(0.005)
        # Every reply delivered: the outbox is sent and all arrived.
        wait_for(lambda: ref.pending() == 0, 600, 0.05)
        total = ref.queued()
        wait_for(lambda: sb.count(PLAYERS) >= total, 600, 0.02)
        last = now_ms() - t0
        rss, dirty = ref.memory()
        if os.environ.get("FLOW_SMAPS"):
            smaps_top(ref.proc.pid)
        ref.stop()
        return {"empty_ms": empty, "first_ms": first, "last_ms": last,
                "replies": total, "rss": rss, "dirty": dirty}
    finally:
        ref.remove()


def part_plain(sb, ctx):
    rates = [plain_rate(sb, N) for _ in range(RUNS)]
    ctx["plain_rate"] = rates
    say("plain", "end-to-end rate, %d mails (msg/s, runs)" % N,
        " ".join("%.1f" % r for r in rates))
    lat = plain_echo(sb, NLAT)
    ctx["plain_lat"] = lat
    say("plain", "echo latency ms p50/p90/max",
        "%.0f / %.0f / %.0f" % (pct(lat, 50), pct(lat, 90), max(lat)))


def load():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def part_drain(sb, ctx):
    ratios, firsts = [], []
    template = Referee(sb)
    moves = make_games(template, sb)
    for run in range(RUNS):
        r = drain_once(sb, run, template, moves)
        # The servers alone, right after: the larger of the two flows
        # ludusd made them carry, on one connection.
        m = max(N, r["replies"])
        plain = plain_rate(sb, m)
        base_ms = m / plain * 1000.0
        ratio = base_ms / r["last_ms"]
        ratios.append(ratio)
        firsts.append(r["first_ms"])
        say("drain", "run %d: ludusd ms (inbox empty, %d answers "
            "delivered); %d plain ms; ratio" % (run + 1, r["replies"], m),
            "%.0f  %.0f; %.0f; %.2f" % (r["empty_ms"], r["last_ms"],
                                         base_ms, ratio))
        say("drain", "run %d: first reply ms; load" % (run + 1),
            "%.0f; %s" % (r["first_ms"], load()))
        say("drain", "run %d: ludusd RSS, Private_Dirty KiB" % (run + 1),
            "%d  %d" % (r["rss"], r["dirty"]))
    template.remove()
    say("drain", "median ratio to plain (target >= 0.9)",
        "%.2f" % statistics.median(ratios))
    say("drain", "median first reply ms (target <= 1000)",
        "%.0f" % statistics.median(firsts))
    ctx["drain"] = (statistics.median(ratios), statistics.median(firsts))


def spawn_ms(argv, stdin=None, k=40, cpu=None):
    """Median wall ms of running argv k times (stdin: a list of inputs,
    one per run, or None); cpu, a list, gets each run's CPU ms (user and
    system, from wait4), which a shared machine disturbs less."""
    ts = []
    for i in range(k):
        data = stdin[i % len(stdin)] if stdin else None
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdin=subprocess.PIPE if data else
                             subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        if data:
            p.stdin.write(data)
            p.stdin.close()
        _, _, ru = os.wait4(p.pid, 0)
        p.returncode = 0
        ts.append((time.perf_counter() - t0) * 1000.0)
        if cpu is not None:
            cpu.append((ru.ru_utime + ru.ru_stime) * 1000.0)
    return statistics.median(ts), ts


def deliver_moves(k):
    """A database with one Kalah game and k mails, each a legal move of the
    seat to move in turn (tokens included): (dir, cfg, [mail bytes])."""
    d = tempfile.mkdtemp(prefix="lfd.", dir="/tmp")
    cfg = os.path.join(d, "ludus.yaml")
    with open(cfg, "w") as f:
        f.write("referee:\n  address: referee@example.org\n"
                "state_dir: %s\ndatabase: %s/ludus.db\n"
                "games_dir: %s\nout:\n  sendmail:\n    path: /bin/true\n"
                % (d, d, GAMES))
    run = lambda *a: subprocess.run([LUDUS, "-c", cfg] + list(a),
                                    capture_output=True, text=True)
    run("init")
    games = 1 + k // 8
    for g in range(games):
        run("new", "kalah", "ann@example.org", "bob@example.org")
    sdb = os.path.join(d, "scratch.db")
    copy_db(os.path.join(d, "ludus.db"), sdb)
    # The moves are found by playing them on a copy, through the
    # referee's own path (which needs the secret `init` made), quietly.
    scfg = os.path.join(d, "scratch.yaml")
    with open(cfg) as f, open(scfg, "w") as g:
        g.write(f.read().replace("%s/ludus.db" % d, sdb))
    seats = ["ann@example.org", "bob@example.org"]
    toks = {(g, i): run("token", str(g), str(i)).stdout.strip()
            for g in range(1, games + 1) for i in (0, 1)}
    mails = []
    for i in range(k):
        g = 1 + i % games
        mv = first_legal(sdb, g)
        if mv is None:
            continue
        for s, who in enumerate(seats):
            r = subprocess.run([LUDUS, "-c", scfg, "move", "--quiet",
                                str(g), who, mv],
                               capture_output=True, text=True)
            if r.returncode == 0:
                mails.append(message(who, "referee@example.org",
                                     "Re: [ludus #%d %s] x" % (g, toks[g, s]),
                                     mv, "d.%d.%d@bench" % (os.getpid(), i)
                                     ).encode())
                break
    for f in (sdb, sdb + "-wal", sdb + "-shm"):
        if os.path.exists(f):
            os.unlink(f)
    return d, cfg, mails


def callgrind_ir(argv, data=None):
    """The instructions valgrind's callgrind counts for argv (its total
    Ir), or None."""
    r = subprocess.run(["valgrind", "--tool=callgrind",
                        "--callgrind-out-file=/dev/null"] + argv,
                       input=data, capture_output=True)
    for line in r.stderr.decode(errors="replace").splitlines():
        if "refs:" in line:
            return int(line.split("refs:")[1].strip().replace(",", ""))
    return None


def part_deliver(sb, ctx):
    k = 40
    d, cfg, mails = deliver_moves(k)
    try:
        c_true, c_v, c_del = [], [], []
        t_true, _ = spawn_ms(["/bin/true"], k=k, cpu=c_true)
        t_v, _ = spawn_ms([LUDUS, "-V"], k=k, cpu=c_v)
        # Each mail once, in order: every delivery plays a real move.
        t_del, ts = spawn_ms([LUDUS, "-c", cfg, "deliver"], mails,
                             k=len(mails), cpu=c_del)
        say("deliver", "ms: /bin/true, ludus -V, deliver of a move",
            "%.2f  %.2f  %.2f" % (t_true, t_v, t_del))
        say("deliver", "deliver / ludus -V (target <= 2), ms (<= 6)",
            "%.2f  %.2f" % (t_del / t_v, t_del))
        m = statistics.median
        say("deliver", "CPU ms: /bin/true, ludus -V, deliver; ratio",
            "%.2f  %.2f  %.2f  %.2f" % (m(c_true), m(c_v), m(c_del),
                                        m(c_del) / m(c_v)))
        ctx["deliver"] = (t_del, t_del / t_v, t_v, t_true)
        c = sqlite3.connect(os.path.join(d, "ludus.db"))
        nm = c.execute("SELECT count(*) FROM moves").fetchone()[0]
        c.close()
        say("deliver", "moves recorded / mails delivered",
            "%d / %d" % (nm, len(mails)))
        # One more game for the counters: perf stat and strace -c of one
        # delivery each, after three (the first after `ludus new` finds
        # the WAL those wrote and checkpoints it).
        d2, cfg2, mails2 = deliver_moves(6)
        try:
            for raw in mails2[:3]:
                subprocess.run([LUDUS, "-c", cfg2, "deliver"], input=raw,
                               capture_output=True)
            if shutil.which("strace"):
                r = subprocess.run(["strace", "-f", "-c", "-o",
                                    os.path.join(d2, "strace"), LUDUS, "-c",
                                    cfg2, "deliver"], input=mails2[3],
                                   capture_output=True)
                sc = {}
                for line in open(os.path.join(d2, "strace")):
                    f = line.split()
                    if len(f) >= 5 and f[-1].isidentifier() and \
                            f[3].isdigit() and f[-1] != "total":
                        sc[f[-1]] = int(f[3])
                say("deliver", "syscalls of one delivery (strace -c)",
                    "total %d, openat %d, mmap %d, fdatasync %d, fsync %d"
                    % (sum(sc.values()), sc.get("openat", 0),
                       sc.get("mmap", 0), sc.get("fdatasync", 0),
                       sc.get("fsync", 0)))
            if shutil.which("perf"):
                r = subprocess.run(["perf", "stat", "-x,", "-e",
                                    "task-clock,page-faults", LUDUS, "-c",
                                    cfg2, "deliver"], input=mails2[4],
                                   capture_output=True)
                vals = {}
                for line in r.stderr.decode().splitlines():
                    f = line.split(",")
                    if len(f) > 2:
                        vals[f[2]] = f[0]
                say("deliver", "perf stat: task-clock ms, page-faults",
                    "%s  %s" % (vals.get("task-clock", "?"),
                                vals.get("page-faults", "?")))
            # Instructions, which a busy machine does not disturb:
            # callgrind's count of one more delivery and of ludus -V.
            if shutil.which("valgrind") and len(mails2) > 5:
                ir = [callgrind_ir([LUDUS, "-V"]),
                      callgrind_ir([LUDUS, "-c", cfg2, "deliver"],
                                   mails2[5])]
                if None not in ir:
                    say("deliver", "instructions M: ludus -V, deliver; ratio",
                        "%.2f  %.2f  %.2f" % (ir[0] / 1e6, ir[1] / 1e6,
                                              ir[1] / ir[0]))
            libs = subprocess.run(["ldd", LUDUS], capture_output=True,
                                  text=True).stdout
            say("deliver", "shared libraries of ludus (ldd)",
                str(len([l for l in libs.splitlines() if "=>" in l or
                         l.strip().startswith("/")])))
        finally:
            shutil.rmtree(d2, ignore_errors=True)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def reply_wait(sb, user, before, limit=30):
    """Wait for user's Maildir/new to hold more than before mails."""
    return wait_for(lambda: len(sb.files(user)) > before, limit, 0.002)


def ask(sb, user, body, subject="question"):
    """One mail to the referee; ms until the reply arrives (or None)."""
    before = len(sb.files(user))
    frm = sb.addr(user)
    t0 = now_ms()
    s = sb.smtp()
    s.sendmail(frm, ["referee@" + sb.domain],
               message(frm, "referee@" + sb.domain, subject, body,
                       "a.%d.%d@bench" % (os.getpid(), int(t0 * 1000))))
    s.quit()
    if not reply_wait(sb, user, before):
        return None
    return now_ms() - t0


def running_referee(sb, extra=""):
    sb.empty_mailboxes()
    ref = Referee(sb, os.environ.get("FLOW_LOG", "warning"))
    if extra:
        with open(ref.cfg, "a") as f:
            f.write(extra)
    ref.start()
    time.sleep(1.5)
    return ref


def side_by_side(sb, one, k):
    """k samples of one() (ms, or None), each followed by a plain echo:
    the two lists, measured under the same load."""
    lat, plain = [], []
    for _ in range(k):
        t = one()
        if t is not None:
            lat.append(t)
        plain += plain_echo(sb, 1, empty=False)
    return lat, plain


def part_latency(sb, ctx):
    ref = running_referee(sb)
    i = [0]

    def one():
        i[0] += 1
        return ask(sb, PLAYERS[i[0] % 4], "list")
    try:
        lat, plain = side_by_side(sb, one, NLAT)
    finally:
        ref.remove()
    say("latency", "reply ms p50/p90/p99/max (%d mails)" % len(lat),
        "%.0f / %.0f / %.0f / %.0f" % (pct(lat, 50), pct(lat, 90),
                                       pct(lat, 99), max(lat)))
    say("latency", "plain echo ms p50/p90/max",
        "%.0f / %.0f / %.0f" % (pct(plain, 50), pct(plain, 90), max(plain)))
    say("latency", "p50 ratio to plain; load", "%.2f; %s" % (
        pct(lat, 50) / pct(plain, 50), load()))
    ctx["latency"] = pct(lat, 50) / pct(plain, 50)


def part_robots(sb, ctx):
    """help from dave while alice, bob and carol each wait for a level-3
    robot (3 s budget), against help on the idle daemon."""
    k = max(5, NLAT // 3)
    ref = running_referee(sb, "robots:\n  budget: 3s\n")
    try:
        idle = [t for t in (ask(sb, "dave", "help") for _ in range(k))
                if t is not None]
        games, ngames = {}, [0]

        def new_game(u):
            ref.ludus("new", "kalah", sb.addr(u), "robot.3.1@ludus.invalid")
            ngames[0] += 1
            g = ngames[0]
            games[u] = (g, ref.ludus("token", str(g), "0").stdout.strip())

        for u in ("alice", "bob", "carol"):
            new_game(u)
        busy, moved = [], []
        for r in range(k):
            before = {u: len(sb.files(u)) for u in games}
            plays = {}
            for u in list(games):
                mv = first_legal(ref.db, games[u][0])
                if mv is None:
                    # The robot won: another game.
                    new_game(u)
                    mv = first_legal(ref.db, games[u][0])
                plays[u] = mv
            t0 = now_ms()
            s = sb.smtp()
            for u, (g, tok) in games.items():
                mv = plays[u]
                s.sendmail(sb.addr(u), ["referee@" + sb.domain],
                           message(sb.addr(u), "referee@" + sb.domain,
                                   "Re: [ludus #%d %s] x" % (g, tok), mv,
                                   "r.%d.%d.%d@bench" % (os.getpid(), r, g)))
            s.quit()
            time.sleep(0.1)
            t = ask(sb, "dave", "help")
            if t is not None:
                busy.append(t)
            for u in games:
                reply_wait(sb, u, before[u], 60)
            moved.append(now_ms() - t0)
    finally:
        ref.remove()
    say("robots", "help ms p50 idle / with 3 robots thinking",
        "%.0f / %.0f" % (pct(idle, 50), pct(busy, 50)))
    say("robots", "p50 ratio (target <= 1.2)",
        "%.2f" % (pct(busy, 50) / pct(idle, 50)))
    ctx["robots"] = pct(busy, 50) / pct(idle, 50)
    say("robots", "robot answers ms p50/max (budget 3000 a move)",
        "%.0f / %.0f" % (pct(moved, 50), max(moved)))
    robot_move(sb, ctx)


def robot_move(sb, ctx):
    """A move answered by a level-1 robot (its move and the board in one
    answer), each beside a plain echo."""
    ref = running_referee(sb)
    try:
        ng = [0]

        def start():
            ref.ludus("new", "kalah", sb.addr("alice"),
                      "robot.1.1@ludus.invalid")
            ng[0] += 1
            return ng[0], ref.ludus("token", str(ng[0]), "0").stdout.strip()

        g, tok = start()

        def one():
            nonlocal g, tok
            mv = first_legal(ref.db, g)
            if mv is None:
                g, tok = start()
                mv = first_legal(ref.db, g)
            return ask(sb, "alice", mv, "Re: [ludus #%d %s] x" % (g, tok))
        lat, plain = side_by_side(sb, one, max(5, NLAT // 2))
    finally:
        ref.remove()
    r = pct(lat, 50) / pct(plain, 50)
    say("robots", "robot-answered move ms p50/max (%d)" % len(lat),
        "%.0f / %.0f" % (pct(lat, 50), max(lat)))
    say("robots", "plain echo ms p50/max beside it",
        "%.0f / %.0f" % (pct(plain, 50), max(plain)))
    say("robots", "move p50 ratio to the echo (target <= 1.1); load",
        "%.2f; %s" % (r, load()))
    ctx["robot_move"] = r


def part_memory(sb, ctx):
    """ludusd's memory after 5 backlogs of N/5... of N mails each (5N)."""
    sb.empty_mailboxes()
    ref = Referee(sb)
    try:
        ref.start()
        time.sleep(1)
        rss0, d0 = ref.memory()
        say("memory", "ludusd started: RSS, Private_Dirty KiB",
            "%d  %d" % (rss0, d0))
        total = 0
        for b in range(5):
            moves = make_games(ref, sb)
            msgs = backlog(sb, moves, N, "mem%d.%d" % (os.getpid(), b))
            append_all(sb, msgs)
            total += len(msgs)
            wait_for(lambda: len(sb.files("referee", "new")) +
                     len(sb.files("referee", "cur")) == 0, 600, 0.05)
            wait_for(lambda: ref.pending() == 0, 600, 0.05)
            time.sleep(1)
            rss, dirty = ref.memory()
            say("memory", "after %d mails: RSS, Private_Dirty KiB" % total,
                "%d  %d" % (rss, dirty))
            sb.empty_mailboxes()
        say("memory", "Private_Dirty MiB at the end (target <= 4)",
            "%.2f" % (dirty / 1024.0))
        ctx["memory"] = (total, dirty / 1024.0)
    finally:
        ref.remove()


def part_folder(sb, ctx):
    """UID MOVE into the processed folder as it grows: one message per
    command (as ludusd did) against one command for 50 (as it does now),
    into an empty folder and into one of 5,000."""
    sb.empty_mailboxes()
    m = sb.imap("referee")
    try:
        for size in (0, 5000):
            box = "Bench%d" % size
            m.create(box)
            for i in range(size):
                m.append(box, None, None, message(
                    "a@b", "c@d", "old %d" % i, "x",
                    "f.%d.%d@bench" % (os.getpid(), i)).encode())
            for batch in (1, 50):
                m.select("INBOX")
                for i in range(50):
                    m.append("INBOX", None, None, message(
                        "a@b", "c@d", "new %d" % i, "x",
                        "g.%d.%d.%d@bench" % (size, batch, i)).encode())
                m.select("INBOX")
                typ, data = m.uid("SEARCH", None, "ALL")
                uids = data[0].split()
                t0 = now_ms()
                for k in range(0, len(uids), batch):
                    m.uid("MOVE", b",".join(uids[k:k + batch]).decode(), box)
                t = (now_ms() - t0) / len(uids)
                say("folder", "UID MOVE ms a message, %d a command, into "
                    "%d" % (batch, size), "%.2f" % t)
            m.select("INBOX")
            m.delete(box)
    finally:
        m.logout()
        sb.empty_mailboxes()


PARTS = {"plain": part_plain, "drain": part_drain, "latency": part_latency,
         "robots": part_robots, "deliver": part_deliver,
         "folder": part_folder, "memory": part_memory}


def main(argv):
    parts = argv or list(PARTS)
    for p in parts:
        if p not in PARTS:
            sys.exit("flow: no part %s (%s)" % (p, ", ".join(PARTS)))
    out = subprocess.run(["uptime"], capture_output=True, text=True).stdout
    say("machine", "uptime", out.strip())
    # deliver needs no mail servers: the sandbox starts only for the rest.
    sb = Sandbox() if [p for p in parts if p != "deliver"] else None
    ctx = {}
    try:
        for p in parts:
            PARTS[p](sb, ctx)
    finally:
        if sb is not None:
            sb.stop()
    summary(ctx)
    out = subprocess.run(["uptime"], capture_output=True, text=True).stdout
    say("machine", "uptime", out.strip())


def summary(ctx):
    """The issue's targets side by side with what this run measured."""
    rows = []
    if "drain" in ctx:
        r, f = ctx["drain"]
        rows.append(("drain / plain-mail rate, median", "%.2f" % r,
                     ">= 0.9", r >= 0.9))
        rows.append(("first reply in a backlog ms, median", "%.0f" % f,
                     "<= 1000", f <= 1000))
    if "latency" in ctx:
        r = ctx["latency"]
        rows.append(("reply p50 / plain echo p50 beside it", "%.2f" % r,
                     "", True))
    if "robots" in ctx:
        r = ctx["robots"]
        rows.append(("help p50, 3 robots thinking / idle", "%.2f" % r,
                     "<= 1.2", r <= 1.2))
    if "robot_move" in ctx:
        r = ctx["robot_move"]
        rows.append(("robot-answered move p50 / echo p50", "%.2f" % r,
                     "<= 1.1", r <= 1.1))
    if "deliver" in ctx:
        t, r, v, tr = ctx["deliver"]
        rows.append(("deliver ms (-V %.2f, /bin/true %.2f)" % (v, tr),
                     "%.2f" % t, "<= 6", t <= 6))
        rows.append(("deliver / ludus -V", "%.2f" % r, "<= 2", r <= 2))
    if "memory" in ctx:
        n, d = ctx["memory"]
        rows.append(("Private_Dirty MiB after %d mails" % n, "%.2f" % d,
                     "<= 4", d <= 4))
    for name, val, target, met in rows:
        say("summary", name, "%-8s %-8s %s" % (val, target,
                                                "met" if met else "MISSED"))


if __name__ == "__main__":
    main(sys.argv[1:])
