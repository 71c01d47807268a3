#!/usr/bin/env python3
"""Loads one of zerolab's HTML report pages in headless Chromium and checks it.

Example:
  tests/browser/check_html_page.py build/release/browser/report.html \\
      --screenshot build/release/browser/report.png --min-plots 3
  tests/browser/check_html_page.py build/release/browser/fixtures/zero_points.html \\
      --expect-failure 'has no data points'
  tests/browser/check_html_page.py out/report.html --min-plots 1 -- \\
      build/release/tools/zerolab/zerolab compare -format html -o out/report.html a.txt b.txt

The page fails (one "check_html_page: FAIL: ..." line per problem, exit 1) when
  - the browser logged a console message of level WARNING or SEVERE (a CSP
    violation, a failed load, a script error, ...);
  - it has fewer than --min-plots plots;
  - a plot breaks the contract the report pages follow: every plot is a
    <figure class="plot" data-points="K"> holding an inline <svg>; each data
    point is an SVG element of class "pt" inside it, K > 0 of them, and each
    is rendered (a box wider and taller than 0 inside its svg, 1px slack).
It always prints one summary line (plots, points, console messages) and, with
--screenshot, saves a full-page PNG. With a command after "--" it first
deletes PAGE, runs the command (it must exit 0 and write PAGE), then checks.
With --expect-failure SUBSTRING (repeatable) it inverts: exit 0 only when
every SUBSTRING is in some FAIL line (a negative test of the checker).
Exit 2: the browser could not be driven (never satisfies --expect-failure).

Talks W3C WebDriver to chromedriver (started on a free port, --port=0) with
the standard library only; chromedriver and Chromium are killed on every exit
path, and the throwaway profile is deleted.
"""
import argparse
import base64
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

PROG = "check_html_page"
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
WINDOW = (1280, 900)
CHROMIUM_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu",
                  "--disable-dev-shm-usage", "--hide-scrollbars",
                  "--force-device-scale-factor=1", "--no-first-run",
                  "--no-default-browser-check", "--disable-extensions",
                  "--disable-background-networking", "--disable-sync",
                  "--disable-component-update", "--disable-default-apps",
                  "--disable-breakpad",
                  "--window-size=%d,%d" % WINDOW]


class DriverError(Exception):
    """The browser could not be driven: exit 2, never an expected failure."""


# Runs inside the page (WebDriver "execute sync"; CSP does not apply to it).
# Returns one entry per figure.plot and the document size.
PLOTS_JS = r"""
const plots = [];
document.querySelectorAll('figure.plot').forEach((fig, i) => {
  const cap = fig.querySelector('figcaption');
  const label = fig.id ? '#' + fig.id : (cap ? cap.textContent.trim().slice(0, 60) : '');
  const svg = fig.querySelector('svg');
  const pts = Array.from(fig.querySelectorAll('.pt'));
  const p = {index: i + 1, label: label, declared: fig.getAttribute('data-points'),
             hasSvg: !!svg, count: pts.length, notSvg: 0, outsideSvg: 0, empty: 0};
  const box = svg ? svg.getBoundingClientRect() : null;
  for (const pt of pts) {
    if (!(pt instanceof SVGElement) || !svg || !svg.contains(pt)) { p.notSvg++; continue; }
    const r = pt.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) { p.empty++; continue; }
    if (r.left < box.left - 1 || r.top < box.top - 1 ||
        r.right > box.right + 1 || r.bottom > box.bottom + 1) p.outsideSvg++;
  }
  plots.push(p);
});
const d = document.documentElement;
return {plots: plots,
        width: Math.max(d.scrollWidth, d.clientWidth),
        height: Math.max(d.scrollHeight, d.clientHeight)};
"""


def plot_problems(plots):
    """FAIL lines for plots that break the contract."""
    out = []
    for p in plots:
        name = "plot %d" % p["index"] + (" (%s)" % p["label"] if p["label"] else "")
        declared = p["declared"]
        if not p["hasSvg"]:
            out.append("%s: no inline <svg>" % name)
        if declared is None or not re.fullmatch(r"[0-9]+", declared.strip()):
            out.append("%s: data-points=%s is not a count" % (name, json.dumps(declared)))
        elif int(declared) != p["count"]:
            out.append("%s: data-points=\"%s\" but %d .pt elements"
                       % (name, declared.strip(), p["count"]))
        if p["count"] == 0:
            out.append("%s: has no data points" % name)
        if p["notSvg"]:
            out.append("%s: %d .pt elements are not SVG elements inside its svg"
                       % (name, p["notSvg"]))
        if p["empty"]:
            out.append("%s: %d data points are not rendered (empty box)" % (name, p["empty"]))
        if p["outsideSvg"]:
            out.append("%s: %d data points are drawn outside the svg" % (name, p["outsideSvg"]))
    return out


class Browser:
    """chromedriver + one Chromium session, torn down by close()."""

    def __init__(self, deadline):
        self.deadline = deadline
        self.tmp = tempfile.mkdtemp(prefix="zerolab-browser-")
        self.profile = os.path.join(self.tmp, "profile")
        self.log_path = os.path.join(self.tmp, "chromedriver.log")
        self.proc = None
        self.session = None

    def start(self, chromedriver, chromium):
        """Call inside try/finally close(): it may fail half way."""
        # Chromium writes crash reports and caches under XDG dirs: keep them
        # in the throwaway directory too, not in the user's home.
        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(self.tmp, "config"),
                   XDG_CACHE_HOME=os.path.join(self.tmp, "cache"))
        with open(self.log_path, "wb") as log:
            try:
                self.proc = subprocess.Popen(
                    [chromedriver, "--port=0"], stdin=subprocess.DEVNULL, env=env,
                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            except OSError as e:
                raise DriverError("cannot start chromedriver %s: %s" % (chromedriver, e))
        self.port = self._wait_for_port()
        caps = {"browserName": "chrome",
                "goog:loggingPrefs": {"browser": "ALL"},
                "pageLoadStrategy": "normal",
                "goog:chromeOptions": {"binary": chromium,
                                       "args": CHROMIUM_FLAGS + ["--user-data-dir=" + self.profile]}}
        value = self.call("POST", "/session", {"capabilities": {"alwaysMatch": caps}})
        self.session = value["sessionId"]
        left = max(1, int((self.deadline - time.monotonic()) * 1000))
        self.call("POST", self._s("/timeouts"), {"pageLoad": left, "script": left})

    def _wait_for_port(self):
        while time.monotonic() < self.deadline:
            text = Path(self.log_path).read_text(errors="replace")
            m = re.search(r"started successfully on port (\d+)", text)
            if m:
                return int(m.group(1))
            if self.proc.poll() is not None:
                raise DriverError("chromedriver exited with %d: %s"
                                  % (self.proc.returncode, text.strip()[-500:]))
            time.sleep(0.02)
        raise DriverError("chromedriver did not start in time")

    def _s(self, path):
        return "/session/%s%s" % (self.session, path)

    def call(self, method, path, body=None):
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise DriverError("timed out before %s %s" % (method, path))
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, path), data=data,
                                     method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=left) as resp:
                reply = json.loads(resp.read())
        except urllib.error.HTTPError as e:
            try:
                v = json.loads(e.read())["value"]
                msg = "%s: %s" % (v.get("error"), v.get("message", "").splitlines()[0])
            except (ValueError, KeyError, IndexError, AttributeError):
                msg = str(e)
            raise DriverError("%s %s: %s" % (method, path, msg))
        except (OSError, ValueError) as e:
            raise DriverError("%s %s: %s" % (method, path, e))
        return reply["value"]

    def run_js(self, script):
        return self.call("POST", self._s("/execute/sync"), {"script": script, "args": []})

    def cdp(self, cmd, params):
        return self.call("POST", self._s("/goog/cdp/execute"), {"cmd": cmd, "params": params})

    def console_log(self):
        # chromedriver keeps the legacy log endpoint under /se/ in W3C mode.
        return self.call("POST", self._s("/se/log"), {"type": "browser"})

    def close(self):
        # A second SIGTERM must not cut the clean-up short.
        for s in STOP_SIGNALS:
            signal.signal(s, signal.SIG_IGN)
        if self.session and self.proc and self.proc.poll() is None:
            try:
                self.deadline = max(self.deadline, time.monotonic() + 5)
                self.call("DELETE", self._s(""))
            except DriverError:
                pass
        if self.proc:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        stop = time.monotonic() + 3
        while kill_users_of(self.tmp) and time.monotonic() < stop:
            time.sleep(0.05)
        shutil.rmtree(self.tmp, ignore_errors=True)


def kill_users_of(tmp):
    """SIGKILLs every process whose command line names our throwaway
    directory (Chromium's profile, its crash handler's database): those that
    left chromedriver's process group. Returns how many were alive."""
    needle = (tmp + "/").encode()
    alive = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if needle in f.read():
                    os.kill(int(pid), signal.SIGKILL)
                    alive += 1
        except OSError:
            pass
    return alive


def run_generator(command, page, deadline):
    """Deletes PAGE, runs command; FAIL lines if it fails or writes no PAGE."""
    page.unlink(missing_ok=True)
    page.parent.mkdir(parents=True, exist_ok=True)
    try:
        r = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=max(1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return ["generator timed out: %s" % " ".join(command)]
    except OSError as e:
        return ["cannot run generator %s: %s" % (command[0], e)]
    sys.stdout.write(r.stdout.decode(errors="replace"))
    sys.stderr.write(r.stderr.decode(errors="replace"))
    if r.returncode != 0:
        return ["generator exited with %d: %s" % (r.returncode, " ".join(command))]
    if not page.is_file():
        return ["generator did not write %s: %s" % (page, " ".join(command))]
    return []


def check(args, deadline):
    """Returns (FAIL lines, summary line); raises DriverError."""
    page = Path(args.page).resolve()
    if args.command:
        problems = run_generator(args.command, page, deadline)
        if problems:
            return problems, "%s: not checked" % args.page
    if not page.is_file():
        raise DriverError("no such page: %s" % args.page)
    browser = Browser(deadline)
    try:
        browser.start(args.chromedriver, args.chromium)
        browser.call("POST", browser._s("/url"), {"url": page.as_uri()})
        # Let late console messages (failed loads after onload) arrive.
        time.sleep(args.settle)
        info = browser.run_js(PLOTS_JS)
        logs = browser.console_log()
        shot = None
        if args.screenshot:
            shot = save_screenshot(browser, info, Path(args.screenshot))
    finally:
        browser.close()

    problems = []
    bad = [e for e in logs if e.get("level") in ("WARNING", "SEVERE")]
    for e in bad:
        problems.append("console %s: %s" % (e.get("level"), " ".join(str(e.get("message")).split())))
    plots = info["plots"]
    if len(plots) < args.min_plots:
        problems.append("%d plots, expected at least %d" % (len(plots), args.min_plots))
    problems += plot_problems(plots)
    points = sum(p["count"] for p in plots)
    summary = ("%s: %d plots, %d points, %d console messages (%d warning/severe)"
               % (args.page, len(plots), points, len(logs), len(bad)))
    if shot:
        summary += ", screenshot %s (%dx%d)" % shot
    return problems, summary


def save_screenshot(browser, info, out):
    """Full page: capture beyond the viewport, clipped to the document."""
    width = max(1, min(int(info["width"]), 10000))
    height = max(1, min(int(info["height"]), 30000))
    png = browser.cdp("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True, "fromSurface": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}})["data"]
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_bytes(base64.b64decode(png))
    tmp.replace(out)
    return str(out), width, height


def main():
    ap = argparse.ArgumentParser(prog=PROG, usage="%(prog)s PAGE [options] [-- COMMAND...]",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("page", help="the HTML file to load")
    ap.add_argument("--screenshot", metavar="OUT.png", help="save a full-page PNG here")
    ap.add_argument("--min-plots", type=int, default=0, metavar="N",
                    help="fail with fewer than N plots (default 0)")
    ap.add_argument("--expect-failure", action="append", default=[], metavar="SUBSTRING",
                    help="pass only if some FAIL line contains SUBSTRING (repeatable)")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    ap.add_argument("--timeout", type=float, default=60, metavar="SECONDS",
                    help="for everything, generator included (default 60)")
    ap.add_argument("--settle", type=float, default=0.2, metavar="SECONDS",
                    help="wait after load before reading the console (default 0.2)")
    argv = sys.argv[1:]
    command = []
    if "--" in argv:  # argparse mixes up positionals around "--"; split by hand
        i = argv.index("--")
        argv, command = argv[:i], argv[i + 1:]
    args = ap.parse_args(argv)
    args.command = command

    # ctest and the shell stop us with SIGTERM/SIGINT/SIGHUP: unwind through
    # the finally blocks so the browser is killed. (SIGKILL cannot be caught;
    # ctest's own timeout, 30 s after ours, kills the whole process tree.)
    def stop(signum, _frame):
        raise SystemExit("%s: killed by signal %d" % (PROG, signum))
    for s in STOP_SIGNALS:
        signal.signal(s, stop)

    start = time.monotonic()
    try:
        problems, summary = check(args, start + args.timeout)
    except DriverError as e:
        print("%s: ERROR: %s" % (PROG, e), file=sys.stderr)
        return 2
    lines = ["FAIL: " + p for p in problems]
    for line in lines:
        print("%s: %s" % (PROG, line))
    print("%s: %s, %.1f s" % (PROG, summary, time.monotonic() - start))
    if args.expect_failure:
        missing = [s for s in args.expect_failure if not any(s in line for line in lines)]
        for s in missing:
            print("%s: expected a FAIL line containing %s; there is none"
                  % (PROG, json.dumps(s)), file=sys.stderr)
        if not missing:
            print("%s: OK: failed as expected" % PROG)
        return 1 if missing else 0
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
